// Attacks across tenants and credentials, each with the answer a client must see: another tenant's
// events, webhook endpoints and deliveries reached by id, alone or paired with an id of one's own (a
// nested id instead of a root one); filters and cursors made to widen a list; webhook targets that are
// this machine or its network in every spelling, and a redirect towards one; credentials made by the
// admin commands used on another tenant; a key revoked while requests with it are in flight.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { adminCreateApiKey, adminCreateOAuthClient } from '../../src/auth/provisioning.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_PER_MINUTE: '10000' } });
const receiver = useWebhookReceiver();
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const closureBody = { description: 'Christmas', annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null };
const otherKey = () => t.demo.organizations.other.apiKey;

/** An answer with every id replaced, to compare a foreign id's answer with an unknown id's. */
async function shape(method: string, path: string, options: Parameters<typeof t.rest>[2] = {}) {
  const res = await t.rest(method, path, options);
  return { status: res.status, body: JSON.parse(JSON.stringify(res.body).replace(UUID, '<id>')) };
}

/** Another tenant's endpoint with one delivery, and the clinic's own endpoint with one. */
async function twoTenantsWithDeliveries() {
  const mine = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['*'] } });
  const theirs = await t.rest('POST', '/v1/webhook-endpoints', { token: otherKey(), json: { url: receiver.url, eventTypes: ['*'] } });
  expect([mine.status, theirs.status]).toEqual([200, 200]);
  await t.rest('POST', `/v1/webhook-endpoints/${mine.body.data.id}/test`);
  await t.rest('POST', `/v1/webhook-endpoints/${theirs.body.data.id}/test`, { token: otherKey() });
  const myDelivery = await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: mine.body.data.id } });
  const theirDelivery = await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: theirs.body.data.id } });
  return {
    mine: mine.body.data.id as string,
    theirs: theirs.body.data.id as string,
    myDelivery: myDelivery.id,
    theirDelivery: theirDelivery.id,
  };
}

describe("another tenant's events, endpoints and deliveries by id", () => {
  it('answer exactly as unknown ids do, alone or paired with an id of the caller’s own, and change nothing', async () => {
    t.clock.set(new Date());
    const ids = await twoTenantsWithDeliveries();
    const theirEvent = await t.deps.db.event.findFirstOrThrow({ where: { orgId: t.demo.organizations.other.id } });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const before = await t.deps.db.webhookDelivery.findMany({ orderBy: { id: 'asc' } });
    const pairs: [string, string, string, Record<string, unknown>?][] = [
      ['GET', `/v1/events/${theirEvent.id}`, `/v1/events/${unknown}`],
      ['GET', `/v1/webhook-endpoints/${ids.theirs}`, `/v1/webhook-endpoints/${unknown}`],
      ['PATCH', `/v1/webhook-endpoints/${ids.theirs}`, `/v1/webhook-endpoints/${unknown}`, { enabled: false }],
      ['POST', `/v1/webhook-endpoints/${ids.theirs}/rotate-secret`, `/v1/webhook-endpoints/${unknown}/rotate-secret`],
      ['POST', `/v1/webhook-endpoints/${ids.theirs}/test`, `/v1/webhook-endpoints/${unknown}/test`],
      ['GET', `/v1/webhook-endpoints/${ids.theirs}/deliveries`, `/v1/webhook-endpoints/${unknown}/deliveries`],
      // their delivery under their endpoint, and under the caller's own endpoint (the nested id is the foreign one)
      [
        'POST',
        `/v1/webhook-endpoints/${ids.theirs}/deliveries/${ids.theirDelivery}/retry`,
        `/v1/webhook-endpoints/${unknown}/deliveries/${unknown}/retry`,
      ],
      [
        'POST',
        `/v1/webhook-endpoints/${ids.mine}/deliveries/${ids.theirDelivery}/retry`,
        `/v1/webhook-endpoints/${ids.mine}/deliveries/${unknown}/retry`,
      ],
      // the caller's own delivery under their endpoint
      [
        'POST',
        `/v1/webhook-endpoints/${ids.theirs}/deliveries/${ids.myDelivery}/retry`,
        `/v1/webhook-endpoints/${unknown}/deliveries/${ids.myDelivery}/retry`,
      ],
      ['DELETE', `/v1/webhook-endpoints/${ids.theirs}`, `/v1/webhook-endpoints/${unknown}`],
    ];
    for (const [method, foreign, missing, json] of pairs) {
      const options = json ? { json } : {};
      const [a, b] = [await shape(method, foreign, options), await shape(method, missing, options)];
      expect(a.status, `${method} ${foreign}`).toBe(404);
      expect(a, `${method} ${foreign}`).toEqual(b);
    }
    // nothing of theirs changed: the endpoint is there, enabled, with its one delivery untouched
    expect(await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: ids.theirs } })).toMatchObject({
      enabled: true,
      previousSecret: null,
    });
    const deliveries = await t.deps.db.webhookDelivery.findMany({ orderBy: { id: 'asc' } });
    expect(deliveries.filter((d) => d.endpointId === ids.theirs)).toEqual(before.filter((d) => d.endpointId === ids.theirs));
  });

  it('GraphQL answers them NOT_FOUND exactly as unknown ids, and lists none of them', async () => {
    t.clock.set(new Date());
    const ids = await twoTenantsWithDeliveries();
    const theirEvent = await t.deps.db.event.findFirstOrThrow({ where: { orgId: t.demo.organizations.other.id } });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const gqlShape = async (query: string, variables: Record<string, unknown>) =>
      JSON.parse(JSON.stringify((await t.gql(query, variables)).body.errors).replace(UUID, '<id>'));
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['query($id: ID!) { event(id: $id) { id } }', { id: theirEvent.id }, { id: unknown }],
      ['query($id: ID!) { webhookEndpoint(id: $id) { id } }', { id: ids.theirs }, { id: unknown }],
      ['query($id: ID!) { webhookDeliveries(endpointId: $id) { id } }', { id: ids.theirs }, { id: unknown }],
      [
        'mutation($w: ID!, $d: ID!) { retryWebhookDelivery(endpointId: $w, deliveryId: $d) { id } }',
        { w: ids.mine, d: ids.theirDelivery },
        { w: ids.mine, d: unknown },
      ],
      [
        'mutation($w: ID!, $d: ID!) { retryWebhookDelivery(endpointId: $w, deliveryId: $d) { id } }',
        { w: ids.theirs, d: ids.myDelivery },
        { w: unknown, d: ids.myDelivery },
      ],
    ];
    for (const [query, foreign, missing] of cases) {
      const [a, b] = [await gqlShape(query, foreign), await gqlShape(query, missing)];
      expect(a?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
      expect(a, query).toEqual(b);
    }
    const lists = await t.gql(`{ webhookEndpoints { id } events(first: 100) { edges { node { orgId } } } }`);
    expect(lists.body.data.webhookEndpoints.map((e: { id: string }) => e.id)).toEqual([ids.mine]);
    expect(new Set(lists.body.data.events.edges.map((e: { node: { orgId: string } }) => e.node.orgId))).toEqual(
      new Set([t.demo.organizations.clinic.id]),
    );
  });
});

describe('a webhook endpoint made to receive another tenant’s events', () => {
  it('cannot name another organization in its body, and receives nothing of another tenant', async () => {
    t.clock.set(new Date());
    for (const json of [
      { url: receiver.url, eventTypes: ['*'], orgId: t.demo.organizations.other.id },
      { url: receiver.url, eventTypes: ['*'], filter: { orgId: t.demo.organizations.other.id } },
    ]) {
      const res = await t.rest('POST', '/v1/webhook-endpoints', { json });
      expect([400, 404], JSON.stringify(json)).toContain(res.status);
    }
    expect(await t.deps.db.webhookEndpoint.count()).toBe(0);
    const mine = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['*'] } });
    expect(mine.status).toBe(200);
    // a write of the other tenant (and of the clinic's sibling) queues nothing for the clinic's endpoint
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.other.id}/closures`, { token: otherKey(), json: closureBody });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic2.id}/closures`, {
      token: t.demo.organizations.clinic2.apiKey,
      json: closureBody,
    });
    const queued = await t.deps.db.webhookDelivery.findMany({ where: { endpointId: mine.body.data.id } });
    const events = await t.deps.db.event.findMany({ where: { id: { in: queued.map((d) => d.eventId) } } });
    expect(events.length).toBe(queued.length);
    for (const event of events) expect(event.orgId, event.type).toBe(t.demo.organizations.clinic.id);
    expect(events.map((e) => e.type)).not.toContain('closure.created');
    // PATCH cannot move it either
    const moved = await t.rest('PATCH', `/v1/webhook-endpoints/${mine.body.data.id}`, { json: { orgId: t.demo.organizations.other.id } });
    expect(moved.status).toBe(400);
    expect((await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: mine.body.data.id } })).orgId).toBe(
      t.demo.organizations.clinic.id,
    );
  });
});

describe('event filters made to widen the list', () => {
  async function eventsOfBoth() {
    t.clock.set(new Date());
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.other.id}/closures`, { token: otherKey(), json: closureBody });
  }

  it("another tenant's orgId is a 404 like an unknown one; a sibling's too", async () => {
    await eventsOfBoth();
    const unknown = await shape('GET', `/v1/events?orgId=00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    for (const orgId of [t.demo.organizations.other.id, t.demo.organizations.clinic2.id, t.demo.organizations.account.id]) {
      expect(await shape('GET', `/v1/events?orgId=${orgId}`)).toEqual(unknown);
    }
  });

  it('`type=*`, odd types and another tenant’s subject widen nothing', async () => {
    await eventsOfBoth();
    const theirClosure = await t.deps.db.closure.findFirstOrThrow({ where: { orgId: t.demo.organizations.other.id } });
    const many = `type=${'closure.*,'.repeat(600)}closure.created`;
    for (const query of [
      'type=*',
      'type=*,closure.*',
      'type=closure.*',
      `subjectId=${theirClosure.id}`,
      'type=%25',
      'type=.*',
      'type=closure.created&type=*',
      many,
      `type=${'x'.repeat(5_000)}`,
      'type=,,,',
      'type=closure.**',
    ]) {
      const res = await t.rest('GET', `/v1/events?limit=100&${query}`);
      expect(res.status, query).toBeLessThan(500);
      expect(JSON.stringify(res.body).length, query.slice(0, 40)).toBeLessThan(res.status === 200 ? 1_000_000 : 1_000);
      if (res.status !== 200) {
        expect(res.status, query).toBe(400);
        continue;
      }
      for (const event of res.body.data.events) expect(event.orgId, query).toBe(t.demo.organizations.clinic.id);
    }
  });

  it('a tampered, made-up, huge or foreign cursor is a 400 naming cursor, never another page', async () => {
    await eventsOfBoth();
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      json: { ...closureBody, description: 'Second' },
    });
    const first = await t.rest('GET', '/v1/events?limit=1');
    const cursor: string = first.body.data.pagination.nextCursor;
    expect(cursor).toBeTruthy();
    const theirs = (await t.rest('GET', '/v1/events?limit=1', { token: otherKey() })).body.data.pagination.nextCursor as string | null;
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    const candidates = [
      flipped,
      `${cursor}A`,
      cursor.slice(0, -2),
      'x'.repeat(6_000),
      '%00',
      Buffer.from('{"id":"x"}').toString('base64url'),
      ...(theirs ? [theirs] : []),
    ];
    for (const bad of candidates) {
      const res = await t.rest('GET', `/v1/events?limit=1&cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad.slice(0, 40)).toBe(400);
      expect(res.body.message, bad.slice(0, 40)).toMatch(/cursor/);
      expect(JSON.stringify(res.body).length).toBeLessThan(1_000);
    }
    // the cursor with other filters is refused too (it is bound to the filters it came from)
    const refiltered = await t.rest('GET', `/v1/events?limit=1&type=*&cursor=${encodeURIComponent(cursor)}`);
    expect(refiltered.status).toBe(400);
  });
});

describe('webhook targets that are this machine or its network', () => {
  const strict = () => ({ ...t.deps, config: { ...t.deps.config, webhookAllowPrivateTargets: false } });

  it('are refused at delivery in every spelling of the address (decimal, hex, octal, short, IPv6, mapped), and nothing connects', async () => {
    t.clock.set(new Date());
    const port = Number(new URL(receiver.url).port);
    const urls = [
      `https://2130706433:${port}/`,
      `https://0x7f.1:${port}/`,
      `https://0177.0.0.1:${port}/`,
      `https://127.1:${port}/`,
      `https://[::1]:${port}/`,
      `https://[0:0:0:0:0:0:0:1]:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
      `https://[::ffff:7f00:1]:${port}/`,
      `https://0:${port}/`,
      `https://[::]:${port}/`,
      'https://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254./latest/meta-data/',
      'https://0xa9fea9fe/latest/meta-data/',
      'https://[::ffff:a9fe:a9fe]/latest/meta-data/',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://192.168.1.1/',
      'https://10.0.0.1/',
      'https://100.64.0.1/',
      `https://localhost.:${port}/`,
    ];
    // delivered as the service does: the dispatcher's first attempt, its row written when it ended
    const deliveries = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), strict());
    for (const url of urls) {
      await t.deps.db.webhookEndpoint.deleteMany();
      await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
        orgId: t.demo.organizations.clinic.id,
        url,
        eventTypes: ['*'],
      });
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
        json: { ...closureBody, description: url.slice(0, 200) },
      });
      expect(await deliveries.runDue(), url).toBe(1);
      const delivery = await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpoint: { url } } });
      // refused by policy: failed at once, for good, saying only that
      expect(delivery, url).toMatchObject({
        status: 'failed',
        attempts: 1,
        statusCode: null,
        response: 'target_not_allowed',
        nextAttemptAt: null,
      });
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('a receiver answering with a redirect to another address is not followed: the delivery is a failed attempt with that status', async () => {
    t.clock.set(new Date());
    const redirector = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { location: receiver.url }).end());
    });
    servers.push(redirector);
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hooks`;
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: t.demo.organizations.clinic.id,
      url,
      eventTypes: ['*'],
    });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    expect(
      await handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps).runDue(),
    ).toBe(1);
    expect(await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpoint: { url } } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      statusCode: 307,
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('an endpoint URL with credentials, another scheme or no host is refused when saved, naming url', async () => {
    for (const url of [
      'https://user:pass@example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'https://',
      'javascript:alert(1)',
      '//example.com/hook',
    ]) {
      const res = await t.rest('POST', '/v1/webhook-endpoints', { json: { url, eventTypes: ['*'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toMatch(/^url/);
    }
  });
});

describe('credentials made by the admin commands', () => {
  it('reach only their own organization: another tenant answers 404 as a missing one, on REST and GraphQL', async () => {
    const { apiKey } = await adminCreateApiKey(t.deps, t.demo.organizations.other.id, 'admin-made');
    const clinic = t.demo.organizations.clinic.id;
    const own = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}`, { token: apiKey });
    expect(own.status).toBe(200);
    const foreign = await shape('GET', `/v1/organizations/${clinic}/office-hours`, { token: apiKey });
    const missing = await shape('GET', `/v1/organizations/00000000-0000-4000-8000-000000000000/office-hours`, { token: apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(missing);
    const write = await t.rest('POST', `/v1/organizations/${clinic}/closures`, { token: apiKey, json: closureBody });
    expect(write.status).toBe(404);
    const gql = await t.gql(`query($id: ID!) { organization(id: $id) { id } }`, { id: clinic }, { token: apiKey });
    expect(gql.body.data.organization).toBeNull();
    expect(await t.deps.db.closure.count()).toBe(0);
  });

  it('an admin-made OAuth client’s token carries its organization only', async () => {
    const client = await adminCreateOAuthClient(
      t.deps,
      t.demo.organizations.other.id,
      ['organizations:read', 'office-hours:read'],
      'admin-made',
    );
    const token = await t.rest('POST', '/oauth/token', {
      token: null,
      json: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        audience: t.deps.config.oauthAudience,
      },
    });
    expect(token.status).toBe(200);
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: token.body.access_token });
    expect(res.status).toBe(404);
  });
});

describe('a key revoked while requests with it are in flight', () => {
  it('is refused 401 by every request after the revocation answered, never a 5xx before', async () => {
    const created = await t.rest('POST', '/v1/api-keys', { json: { name: 'racing' } });
    expect(created.status).toBe(200);
    const { id, apiKey: key } = created.body.data as { id: string; apiKey: string };
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect((await t.rest('GET', path, { token: key })).status).toBe(200);
    // requests with the key, and the key revoking itself, all at once
    const during = Array.from({ length: 20 }, () => t.rest('GET', path, { token: key }));
    const writes = Array.from({ length: 5 }, (_, i) =>
      t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
        token: key,
        json: { ...closureBody, description: `During ${i}` },
      }),
    );
    const revoked = await t.rest('POST', `/v1/api-keys/${id}/revoke`, { token: key });
    expect(revoked.status).toBe(200);
    for (const res of await Promise.all([...during, ...writes])) expect([200, 401]).toContain(res.status);
    for (let i = 0; i < 5; i++) {
      expect((await t.rest('GET', path, { token: key })).status).toBe(401);
      expect((await t.gql('{ viewer { scopes } }', {}, { token: key })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const late = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, {
      token: key,
      json: { ...closureBody, description: 'After' },
    });
    expect(late.status).toBe(401);
    expect(await t.deps.db.closure.count({ where: { description: 'After' } })).toBe(0);
  });
});

describe('instants and sizes at the edges of what a date or a number can hold', () => {
  it('are answered 200 or 400 on the event log and availability, never a 5xx', async () => {
    const org = t.demo.organizations.clinic.id;
    const instants = [
      '-271821-04-20T00:00:00Z',
      '+275760-09-13T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '-000001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-03-08T02:30:00-05:00',
      'NaN',
      '1e400',
    ];
    for (const at of instants) {
      for (const path of [
        `/v1/conversations?startedFrom=${encodeURIComponent(at)}`,
        `/v1/events?from=${encodeURIComponent(at)}`,
        `/v1/events?to=${encodeURIComponent(at)}`,
        `/v1/events?from=${encodeURIComponent(at)}&to=${encodeURIComponent(at)}`,
        `/v1/organizations/${org}/availability?medium=PHONE&at=${encodeURIComponent(at)}`,
        `/v1/organizations/${org}/availability/timeline?medium=PHONE&from=${encodeURIComponent(at)}&to=${encodeURIComponent('+275760-09-13T00:00:00Z')}`,
      ]) {
        const res = await t.rest('GET', path);
        expect([200, 400], `${path} → ${JSON.stringify(res.body).slice(0, 200)}`).toContain(res.status);
      }
    }
    // the same instants in lists filtered by time, and in writes that store them
    const bot = t.demo.bots.clinic[0]!;
    for (const at of ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59-01:00']) {
      for (const path of [
        `/v1/conversations?startedFrom=${encodeURIComponent(at)}`,
        `/v1/conversations?startedTo=${encodeURIComponent(at)}`,
        `/v1/call-requests?createdFrom=${encodeURIComponent(at)}`,
        `/v1/call-requests?createdTo=${encodeURIComponent(at)}`,
      ]) {
        const res = await t.rest('GET', path);
        expect([200, 400], `${path} → ${JSON.stringify(res.body).slice(0, 200)}`).toContain(res.status);
      }
      const conversation = await t.rest('POST', '/v1/conversations', { json: { botId: bot, medium: 'CHAT', startTime: at } });
      expect(conversation.status, `startTime ${at} → ${JSON.stringify(conversation.body).slice(0, 200)}`).toBe(400);
      expect(conversation.body.message).toMatch(/^startTime/);
      const call = await t.rest('POST', '/v1/call-requests', {
        json: { botId: bot, phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+12125550100', notBefore: at },
      });
      expect(call.status, `notBefore ${at} → ${JSON.stringify(call.body).slice(0, 200)}`).toBe(400);
      const key = await t.rest('POST', '/v1/api-keys', { json: { name: 'edge', expiresAt: at } });
      expect(key.status, `expiresAt ${at} → ${JSON.stringify(key.body).slice(0, 200)}`).toBe(400);
    }
    for (const limit of ['1e9', '-1', '0', '1.5', '0x10', '9007199254740993', '']) {
      const res = await t.rest('GET', `/v1/events?limit=${limit}`);
      expect([200, 400], `limit=${limit}`).toContain(res.status);
    }
  });
});
