// Object-level authorization, generated from the route registry and the GraphQL schema: every REST
// route, every GraphQL root field and every Organization field is called
//   - by the other tenant on the clinic's ids,
//   - by the clinic on its sibling's (clinic2) and on its parent's (the account) ids,
// and must answer exactly as for a random unknown id (same status and body), be refused, change
// nothing (per-table checksums) and name none of the target's ids. Every id slot is tried alone
// (the rest filled with the caller's own ids, e.g. the caller's organization with the target's
// closure) and all together. A read-only OAuth client must get 403 for every write and change
// nothing. The table of ids per operation is test/api/cases/tenantMatrixCases.ts; an operation of
// the registry or the schema without an entry fails the test.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/index.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import { changedTables, tableChecksumReader, type ChecksumReader } from '../support/tableChecksums.js';
import { firstAnswer, subscribe } from '../support/sse.js';
import { useTestApp, type TestResponse } from '../support/testApp.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { createApiKey, createOAuthClient } from '../../src/auth/provisioning.js';
import { GRAPHQL_CASES, REST_CASES, type GraphQLCase, type Ids, type Kind, type RestCase } from './cases/tenantMatrixCases.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

type Who = 'clinic' | 'clinic2' | 'account' | 'other';
/** One object of every kind per organization. */
let objects: Record<Who, Record<Kind, string>>;
let checksums: ChecksumReader;

/** What the demo data lacks is created: closures and templates through the API, the rest directly. */
beforeEach(async () => {
  const d = t.demo;
  const orgs = d.organizations;
  const closure = async (who: Who) => {
    const res = await t.rest('POST', `/v1/organizations/${orgs[who].id}/closures`, {
      token: orgs[who].apiKey,
      json: { description: `${who} closure`, annualDate: { month: 1, day: 2 }, chatGreeting: null, phoneGreeting: null },
    });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };
  const template = async (who: Who) => {
    const res = await t.rest('POST', '/v1/templates', { token: orgs[who].apiKey, json: { name: `${who} template` } });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };
  // no route creates bots, phone numbers, insurances or call requests
  const db = t.db.prisma;
  const bot = async (who: Who) => (await db.bot.create({ data: { orgId: orgs[who].id, name: `${who} bot` } })).id;
  const phone = async (who: Who, botId: string | null) =>
    (
      await db.phoneNumber.create({
        data: {
          orgId: orgs[who].id,
          botId,
          number: who === 'account' ? '+15550991' : '+15550992',
          name: `${who} line`,
          verifiedCallerId: '+15550999',
          callbackForwardingNumber: '+15550998',
          customGreeting: 'Hello',
          customClosedGreeting: 'Closed',
        },
      })
    ).id;
  const insurance = async (who: Who) =>
    (await db.insurance.create({ data: { orgId: orgs[who].id, name: `${who} insurance`, type: 'PPO', status: 'ACCEPTED', notes: '' } })).id;
  const callRequest = async (who: Who) =>
    (
      await db.callRequest.create({
        data: { orgId: orgs[who].id, status: 'completed', expiresAt: new Date(Date.now() + 3_600_000), finishedAt: new Date() },
      })
    ).id;
  const accountBot = await bot('account');
  objects = {
    clinic: {
      org: orgs.clinic.id,
      closure: await closure('clinic'),
      bot: d.bots.clinic[0]!,
      phone: d.phoneNumbers.clinic[0]!,
      insurance: d.insurances.clinic[0]!,
      template: d.templates.clinic[0]!,
      callRequest: d.callRequests.clinic.completed,
      event: '',
      webhookEndpoint: '',
      webhookDelivery: '',
      webhookReplay: '',
      conversation: '',
      special: '',
      apiKey: '',
      oauthClient: '',
      suppression: '',
      erasureRequest: '',
      callBatch: '',
    },
    clinic2: {
      org: orgs.clinic2.id,
      closure: await closure('clinic2'),
      bot: d.bots.clinic2[0]!,
      phone: await phone('clinic2', d.bots.clinic2[0]!),
      insurance: await insurance('clinic2'),
      template: await template('clinic2'),
      callRequest: await callRequest('clinic2'),
      event: '',
      webhookEndpoint: '',
      webhookDelivery: '',
      webhookReplay: '',
      conversation: '',
      special: '',
      apiKey: '',
      oauthClient: '',
      suppression: '',
      erasureRequest: '',
      callBatch: '',
    },
    account: {
      org: orgs.account.id,
      closure: await closure('account'),
      bot: accountBot,
      phone: await phone('account', accountBot),
      insurance: await insurance('account'),
      template: await template('account'),
      callRequest: await callRequest('account'),
      event: '',
      webhookEndpoint: '',
      webhookDelivery: '',
      webhookReplay: '',
      conversation: '',
      special: '',
      apiKey: '',
      oauthClient: '',
      suppression: '',
      erasureRequest: '',
      callBatch: '',
    },
    other: {
      org: orgs.other.id,
      closure: await closure('other'),
      bot: d.bots.other[0]!,
      phone: d.phoneNumbers.other[0]!,
      insurance: d.insurances.other[0]!,
      template: d.templates.other[0]!,
      callRequest: d.callRequests.other.queued,
      event: '',
      webhookEndpoint: '',
      webhookDelivery: '',
      webhookReplay: '',
      conversation: '',
      special: '',
      apiKey: '',
      oauthClient: '',
      suppression: '',
      erasureRequest: '',
      callBatch: '',
    },
  };
  // the account is a large one: thousands of locations besides the clinics, created in bulk (the rules
  // must not depend on how many children an account has)
  await db.organization.createMany({
    data: Array.from({ length: 2_000 }, (_, i) => ({
      name: `Bulk location ${i}`,
      timezone: 'America/New_York',
      parentId: orgs.account.id,
    })),
  });
  // each organization's special hours (written directly: their own creation would add events)
  for (const who of Object.keys(objects) as Who[]) {
    objects[who].special = (
      await db.specialHours.create({
        data: { orgId: objects[who].org, date: '2030-06-03', description: `${who} day`, isClosed: true, breaks: [] },
      })
    ).id;
  }
  // each organization's erasure request, completed (written directly: its own creation would add an event and a job)
  for (const who of Object.keys(objects) as Who[]) {
    objects[who].erasureRequest = (
      await db.erasureRequest.create({
        data: {
          id: randomUUID(),
          orgId: objects[who].org,
          kind: 'conversationId',
          subjectId: randomUUID(),
          status: 'completed',
          actorKind: 'apiKey',
          createdAt: new Date(),
          completedAt: new Date(),
        },
      })
    ).id;
  }
  // each organization's call batch, in progress, with one queued request (written directly: its creation adds an event)
  for (const who of Object.keys(objects) as Who[]) {
    const o = objects[who];
    const batch = await db.callBatch.create({
      data: {
        id: randomUUID(),
        orgId: o.org,
        botId: o.bot,
        phoneNumberId: o.phone,
        purpose: 'informational',
        officeHoursOnly: false,
        expiresAt: new Date(Date.now() + 3_600_000),
        recipients: 1,
        placed: 1,
        createdAt: new Date(),
      },
    });
    await db.callRequest.create({
      data: { orgId: o.org, status: 'queued', expiresAt: batch.expiresAt, batchId: batch.id, batchIndex: 0, to: '+15005550006' },
    });
    o.callBatch = batch.id;
  }
  // each organization's suppression list entry (written directly: its own creation would add an event)
  for (const who of Object.keys(objects) as Who[]) {
    objects[who].suppression = (
      await db.suppression.create({ data: { orgId: objects[who].org, number: '+14155552671', source: 'api', createdAt: new Date() } })
    ).id;
  }
  // each organization's event (the one its closure's creation recorded), webhook endpoint, and a failed delivery
  for (const who of Object.keys(objects) as Who[]) {
    const o = objects[who];
    o.conversation = (await db.conversation.create({ data: { orgId: orgs[who].id, medium: 'PHONE', startTime: new Date(), tags: [] } })).id;
    o.event = (await db.event.findFirstOrThrow({ where: { subjectId: o.closure }, select: { id: true } })).id;
    o.apiKey = (await createApiKey(db, o.org, `${who} matrix key`)).id;
    o.oauthClient = (await createOAuthClient(db, o.org, ['closures:read'], `${who} matrix client`)).id;
    o.webhookEndpoint = (
      await createEndpointRecord(db, t.deps.tokens.key, new Date(), {
        orgId: o.org,
        url: `https://hooks.example.com/${who}`,
        eventTypes: ['*'],
      })
    ).id;
    o.webhookDelivery = (
      await db.webhookDelivery.create({
        data: {
          id: randomUUID(),
          endpointId: o.webhookEndpoint,
          eventId: o.event,
          eventType: 'closure.created',
          status: 'failed',
          attempts: 8,
          createdAt: new Date(),
        },
      })
    ).id;
    o.webhookReplay = (
      await db.webhookReplay.create({
        data: {
          id: randomUUID(),
          endpointId: o.webhookEndpoint,
          orgId: o.org,
          from: new Date(Date.now() - 3_600_000),
          to: new Date(),
          status: 'completed',
          createdAt: new Date(),
          completedAt: new Date(),
        },
      })
    ).id;
  }
  // when the in-memory read model lands, it must forget what was just written behind its back
  t.deps.readModel.clear(); // written behind the change feed: the read model forgets what it held
  checksums = await tableChecksumReader(t.db.prisma);
});

interface Call {
  status: number;
  body: unknown;
  text: string;
}

const restPath = (route: string, ids: Ids) => route.split(' ')[1]!.replace(/:([A-Za-z]+)/g, (_, name: string) => ids[name]!);
const isWrite = (key: string) => key.startsWith('Mutation.') || (!key.startsWith('GET ') && !key.includes('.'));

// one request id for every call, so that the answers on the target's ids and on unknown ids can be
// compared byte for byte (GraphQL errors name the request id)
const headers = { 'x-request-id': 'tenant-matrix' };

async function callRest(key: string, c: RestCase, ids: Ids, token: string): Promise<Call> {
  const [method] = key.split(' ');
  const query = c.query ? `?${new URLSearchParams(c.query(ids))}` : '';
  const res: TestResponse = await t.rest(method!, restPath(key, ids) + query, { token, headers, ...(c.body ? { json: c.body(ids) } : {}) });
  return { status: res.status, body: res.body, text: JSON.stringify(res.body) };
}

async function callGraphQL(key: string, c: GraphQLCase, ids: Ids, token: string): Promise<Call> {
  if (key.startsWith('Subscription.')) {
    // over Server-Sent Events: the first event (the current answer, or the error that refuses the subscription); a
    // stream quiet for a second was accepted and says nothing yet (callRequestChanged until a transition)
    const stream = await subscribe(t.app, c.query, { ...c.variables, ...ids }, token, headers);
    try {
      const first = await firstAnswer(stream, 1_000);
      return { status: stream.status, body: first, text: JSON.stringify(first) };
    } finally {
      await stream.close();
    }
  }
  const res = await t.gql(c.query, { ...c.variables, ...ids }, { token, headers });
  // every call draws on the budgets: what is left differs by one from call to call, and the window's end differs
  // when two calls fall on either side of a minute (the shared store's windows run on real time); the cost and
  // patterns may not differ
  const text = JSON.stringify(res.body)
    .replace(/"remaining":\d+/g, '"remaining":"R"')
    .replace(/"resetAt":"[^"]*"/g, '"resetAt":"T"');
  return { status: res.status, body: res.body, text };
}

/**
 * The global-id fields answer an object outside reach with null and no error, as they answer a missing one (Relay's
 * contract): for them, answering exactly as for an unknown id (checked before) is the refusal.
 */
const NULL_FOR_UNKNOWN: ReadonlySet<string> = new Set(['Query.node', 'Query.nodes']);

/** Refused: a REST 4xx, or a GraphQL answer with an error and no data for the field. */
function refused(call: Call, key: string): boolean {
  if (NULL_FOR_UNKNOWN.has(key)) return true;
  if (call.status >= 400) return true;
  const body = call.body as { errors?: unknown[]; data?: Record<string, unknown> | null };
  return Array.isArray(body?.errors) && body.errors.length > 0;
}

/** Every non-empty subset of the slots: each id alone, in pairs, all together. */
function variants(slots: string[]): string[][] {
  const out: string[][] = [];
  for (let mask = 1; mask < 1 << slots.length; mask++) out.push(slots.filter((_, i) => mask & (1 << i)));
  return out;
}

interface Scenario {
  caller: Who;
  target: Who;
  token: () => string;
}

const scenarios: Record<string, Scenario> = {
  'the other tenant on the clinic’s ids': { caller: 'other', target: 'clinic', token: () => t.demo.organizations.other.apiKey },
  'a clinic on its sibling’s ids': { caller: 'clinic', target: 'clinic2', token: () => t.demo.organizations.clinic.apiKey },
  'a clinic on its parent account’s ids': { caller: 'clinic', target: 'account', token: () => t.demo.organizations.clinic.apiKey },
};

/** Reads that show a location what its account set that binds it (the account's own entries, naming the account). */
const SHOWN_TO_LOCATIONS: ReadonlySet<string> = new Set(['GET /v1/suppressions', 'Query.suppressions']);

type Operation = { key: string; ids: Record<string, Kind>; call: (ids: Ids, token: string) => Promise<Call> };

const operations = (): Operation[] => [
  ...Object.entries(REST_CASES).map(([key, c]) => ({ key, ids: c.ids, call: (ids: Ids, token: string) => callRest(key, c, ids, token) })),
  ...Object.entries(GRAPHQL_CASES).map(([key, c]) => ({
    key,
    ids: c.ids,
    call: (ids: Ids, token: string) => callGraphQL(key, c, ids, token),
  })),
];

/** Runs a call and reports the tables it changed. */
async function unchanged<T>(run: () => Promise<T>): Promise<{ result: T; changed: string[] }> {
  const before = await checksums.read();
  const result = await run();
  return { result, changed: changedTables(before, await checksums.read()) };
}

describe('the tenant matrix covers every operation', () => {
  it('has an entry for every REST route of the registry, with every path parameter', () => {
    const registered = allRoutes.map((r) => `${r.method} ${r.path}`).sort();
    expect(Object.keys(REST_CASES).sort()).toEqual(registered);
    for (const route of allRoutes) {
      const params = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
      for (const p of params)
        expect(REST_CASES[`${route.method} ${route.path}`]!.ids, `${route.method} ${route.path} :${p}`).toHaveProperty(p);
    }
  });

  it('has an entry for every GraphQL root field and every Organization field', () => {
    const fields = [
      ...Object.keys(schema.getQueryType()!.getFields()).map((f) => `Query.${f}`),
      ...Object.keys(schema.getMutationType()!.getFields()).map((f) => `Mutation.${f}`),
      ...Object.keys(schema.getSubscriptionType()!.getFields()).map((f) => `Subscription.${f}`),
      ...Object.keys((schema.getType('Organization') as { getFields(): Record<string, unknown> }).getFields()).map(
        (f) => `Organization.${f}`,
      ),
    ].sort();
    expect(Object.keys(GRAPHQL_CASES).sort()).toEqual(fields);
  });
});

describe('one tenant never reaches another’s objects', () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(`${name}: every operation answers as for an unknown id and changes nothing`, { timeout: 120_000 }, async () => {
      const token = scenario.token();
      const own = objects[scenario.caller];
      const target = objects[scenario.target];
      const targetIds = Object.values(target);
      const failures: string[] = [];
      let compared = 0;
      for (const op of operations()) {
        const slots = Object.keys(op.ids);
        const fill = (kinds: Record<string, Kind>, pick: (slot: string, kind: Kind) => string) =>
          Object.fromEntries(Object.entries(kinds).map(([slot, kind]) => [slot, pick(slot, kind)]));
        // the caller's own call, reads only: it must not name the target's objects either — except what binds a
        // location and is shown to it by design: its account's suppression entries (docs/decisions.md, "The suppression list")
        if (!isWrite(op.key) && !(scenario.target === 'account' && SHOWN_TO_LOCATIONS.has(op.key))) {
          const mine = await op.call(
            fill(op.ids, (_, kind) => own[kind]),
            token,
          );
          const leaked = targetIds.filter((id) => mine.text.includes(id));
          if (leaked.length)
            failures.push(`${op.key} on the caller's own ids names the target's ${leaked.join(', ')}: ${mine.text.slice(0, 300)}`);
        }
        for (const foreign of variants(slots)) {
          const label = `${op.key} with the target's ${foreign.join(' + ')}`;
          const { result, changed } = await unchanged(async () => ({
            onTarget: await op.call(
              fill(op.ids, (slot, kind) => (foreign.includes(slot) ? target[kind] : own[kind])),
              token,
            ),
            onUnknown: await op.call(
              fill(op.ids, (slot, kind) => (foreign.includes(slot) ? randomUUID() : own[kind])),
              token,
            ),
          }));
          compared++;
          const { onTarget, onUnknown } = result;
          if (onTarget.status !== onUnknown.status || onTarget.text !== onUnknown.text) {
            failures.push(
              `${label}: ${onTarget.status} ${onTarget.text.slice(0, 300)}\n    but for an unknown id: ${onUnknown.status} ${onUnknown.text.slice(0, 300)}`,
            );
          } else if (!refused(onTarget, op.key)) failures.push(`${label}: not refused: ${onTarget.status} ${onTarget.text.slice(0, 300)}`);
          if (changed.length) failures.push(`${label}: changed ${changed.join(', ')}`);
          const leaked = targetIds.filter((id) => onTarget.text.includes(id));
          if (leaked.length) failures.push(`${label}: the answer names ${leaked.join(', ')}`);
        }
      }
      expect(failures).toEqual([]);
      expect(compared).toBeGreaterThan(50);
    });
  }
});

describe('a read-only OAuth client', () => {
  it('gets 403 for every write, on its own objects and on another tenant’s, and changes nothing', { timeout: 120_000 }, async () => {
    const token = await t.accessToken('clinicReadOnly');
    const failures: string[] = [];
    const writes = operations().filter((op) => isWrite(op.key));
    expect(writes.length).toBe(
      allRoutes.filter((r) => r.method !== 'GET').length + Object.keys(schema.getMutationType()!.getFields()).length,
    );
    const forbidden = (call: Call) =>
      call.status === 403 ||
      (call.body as { errors?: { extensions?: { code?: string } }[] })?.errors?.[0]?.extensions?.code === 'FORBIDDEN';
    for (const op of writes) {
      for (const whose of ['clinic', 'other'] as const) {
        const ids = Object.fromEntries(Object.entries(op.ids).map(([slot, kind]) => [slot, objects[whose][kind]]));
        const { result, changed } = await unchanged(() => op.call(ids, token));
        if (!forbidden(result)) {
          // on another tenant's objects, "not found" (exactly as for an unknown id) is as good as 403
          const unknown = await op.call(Object.fromEntries(Object.keys(op.ids).map((slot) => [slot, randomUUID()])), token);
          if (whose === 'clinic' || result.status !== unknown.status || result.text !== unknown.text)
            failures.push(`${op.key} on ${whose}'s objects: ${result.status} ${result.text.slice(0, 300)}`);
        }
        if (changed.length) failures.push(`${op.key} on ${whose}'s objects changed ${changed.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
