// Webhook targets with private targets off, as every deployment has them unless it opts in: a URL whose
// host is loopback, private, link-local (metadata), or any other special address, in any spelling, or a
// name resolving to one, is refused when an endpoint is saved (create and update, REST and GraphQL) with a
// 400 naming url that says only that the target is not allowed; the same check at delivery (a name may
// resolve differently later: DNS rebinding) fails the delivery at once, for good, recording the error
// class target_not_allowed and nothing of how the name resolved. Names are resolved by a resolver the test
// sets (t.deps.resolveHost), so that nothing here depends on this machine's DNS and nothing connects out.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { isPrivateAddress } from '../../src/domain/events/webhooks/targets.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
const receiver = useWebhookReceiver();

/** Names this test's DNS knows; any other does not resolve. `rebound` answers a public address once, then a private one. */
function fakeDns() {
  let reboundAsked = 0;
  const names: Record<string, () => string[]> = {
    'metadata.internal.test': () => ['169.254.169.254'],
    'intranet.example.test': () => ['10.20.30.40'],
    'mixed.example.test': () => ['93.184.216.34', '192.168.7.7'],
    'v6.internal.test': () => ['fd12:3456:789a::1'],
    'mapped.internal.test': () => ['::ffff:10.0.0.1'],
    'public.example.test': () => ['93.184.216.34', '2606:4700::1111'],
    'rebound.example.test': () => (reboundAsked++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
  };
  return (hostname: string) => {
    const answer = names[hostname.toLowerCase().replace(/\.$/, '')];
    if (!answer) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(answer().map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

function withDns<T>(work: () => Promise<T>): Promise<T> {
  t.deps.resolveHost = fakeDns();
  return work().finally(() => (t.deps.resolveHost = undefined));
}

/** Every spelling of a non-public target the parser or a resolver could hand us (all https://: the scheme is not the point). */
const REFUSED = [
  'https://127.0.0.1/hooks',
  'https://127.1/hooks',
  'https://127.0.0.1./hooks',
  'https://2130706433/hooks',
  'https://0x7f000001/hooks',
  'https://0x7f.1/hooks',
  'https://0x7f.0x0.0x0.0x1/hooks',
  'https://0177.0.0.1/hooks',
  'https://017700000001/hooks',
  'https://0/hooks',
  'https://0.0.0.0/hooks',
  'https://localhost/hooks',
  'https://localhost./hooks',
  'https://LOCALHOST:8443/hooks',
  'https://api.localhost/hooks',
  'https://[::1]/hooks',
  'https://[0:0:0:0:0:0:0:1]/hooks',
  'https://[::]/hooks',
  'https://[::ffff:127.0.0.1]/hooks',
  'https://[::ffff:7f00:1]/hooks',
  'https://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'https://[::ffff:0:7f00:1]/hooks',
  'https://[::127.0.0.1]/hooks',
  'https://[::a9fe:a9fe]/latest/meta-data/',
  'https://[2002:7f00:1::]/hooks',
  'https://[2002:a9fe:a9fe::1]/latest/meta-data/',
  'https://[fec0::1]/hooks',
  'https://[fe80::1]/hooks',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fc00::1]/hooks',
  'https://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
  'https://[2001::a9fe:a9fe]/hooks',
  'https://[ff02::1]/hooks',
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.169.254./latest/meta-data/',
  'https://0xa9fea9fe/latest/meta-data/',
  'https://2852039166/latest/meta-data/',
  'https://0251.0376.0251.0376/latest/meta-data/',
  'https://10.0.0.1/hooks',
  'https://172.16.0.1/hooks',
  'https://192.168.1.1/hooks',
  'https://100.64.0.1/hooks',
  'https://100.100.100.200/latest/meta-data/',
  'https://192.0.0.192/hooks',
  'https://224.0.0.1/hooks',
  'https://255.255.255.255/hooks',
  // names resolving to a non-public address (any one of them)
  'https://metadata.internal.test/latest/meta-data/',
  'https://intranet.example.test/hooks',
  'https://INTRANET.example.test./hooks',
  'https://mixed.example.test/hooks',
  'https://v6.internal.test/hooks',
  'https://mapped.internal.test/hooks',
];

/** Public targets, and a name that resolves to nothing now (the delivery checks it again). */
const ACCEPTED = [
  'https://93.184.216.34/hooks',
  'https://[2606:4700::1111]/hooks',
  'https://public.example.test/hooks',
  'https://hooks.nowhere.test/hooks',
];

const NOT_ALLOWED = /the target is not allowed/;

describe('private targets', () => {
  it('are off by default on every database, the embedded one included', () => {
    expect(loadConfig({ DATABASE_URL: 'pglite:./data/pglite' }).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'pglite:memory' }).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/ocs' }).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({}).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhookAllowPrivateTargets).toBe(true);
    expect(t.deps.config.webhookAllowPrivateTargets).toBe(false);
  });
});

describe('an endpoint saved with a target that is not public', () => {
  it(`is refused on create with a 400 naming url, in each of ${REFUSED.length} spellings; public targets are accepted`, async () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
    await withDns(async () => {
      for (const url of REFUSED) {
        const res = await t.rest('POST', '/v1/webhook-endpoints', { json: { url, eventTypes: ['*'] } });
        expect(res.status, url).toBe(400);
        expect(res.body.errors, url).toEqual([{ path: 'url', message: expect.stringMatching(NOT_ALLOWED) }]);
        // nothing says how a name resolved
        expect(JSON.stringify(res.body), url).not.toMatch(/169\.254|10\.20|192\.168|fd12|::ffff:10|ENOTFOUND|resolve/);
      }
      for (const url of ACCEPTED) {
        const res = await t.rest('POST', '/v1/webhook-endpoints', { json: { url, eventTypes: ['closure.*'] } });
        expect(res.status, url).toBe(200);
      }
    });
    expect(await t.deps.db.webhookEndpoint.count()).toBe(ACCEPTED.length);
  });

  it('is refused on update, and over GraphQL (create and update) the same way', async () => {
    await withDns(async () => {
      const created = await t.rest('POST', '/v1/webhook-endpoints', {
        json: { url: 'https://public.example.test/hooks', eventTypes: ['*'] },
      });
      expect(created.status).toBe(200);
      const id = created.body.data.id as string;
      for (const url of ['https://169.254.169.254/latest/meta-data/', 'https://[::ffff:7f00:1]/', 'https://metadata.internal.test/']) {
        const patched = await t.rest('PATCH', `/v1/webhook-endpoints/${id}`, { json: { url } });
        expect(patched.status, url).toBe(400);
        expect(patched.body.errors[0], url).toMatchObject({ path: 'url', message: expect.stringMatching(NOT_ALLOWED) });
        const gqlCreate = await t.gql('mutation($url: String!) { createWebhookEndpoint(input: {url: $url}) { id } }', { url });
        expect(gqlCreate.body.errors[0].extensions, url).toMatchObject({ code: 'BAD_USER_INPUT' });
        expect(gqlCreate.body.errors[0].message, url).toMatch(NOT_ALLOWED);
        const gqlUpdate = await t.gql('mutation($id: ID!, $url: String!) { updateWebhookEndpoint(id: $id, input: {url: $url}) { id } }', {
          id,
          url,
        });
        expect(gqlUpdate.body.errors[0].message, url).toMatch(NOT_ALLOWED);
      }
      expect((await t.rest('GET', `/v1/webhook-endpoints/${id}`)).body.data.url).toBe('https://public.example.test/hooks');
      expect(await t.deps.db.webhookEndpoint.count()).toBe(1);
    });
  });

  it('the address list is the maintained one: special blocks refused, public unicast allowed', () => {
    for (const address of [
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::7f00:1',
      '2002:c000:0201::',
      'fec0::1',
      '64:ff9b::1',
      '2001:db8::1',
      '192.0.2.1',
      '198.18.0.1',
      'fe80::1%eth0',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '2a00:1450:4001:80b::200e'])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});

const closure = { description: 'Closed', annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null };

describe('a delivery to a target that is not public', () => {
  it('fails at once, for good (target_not_allowed), as a first attempt and as a test delivery; nothing connects', async () => {
    t.clock.set(new Date());
    const port = new URL(receiver.url).port;
    const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps);
    // saved while private targets were allowed (or straight into the database): refused when delivered
    for (const url of [
      receiver.url,
      `https://127.0.0.1:${port}/hooks`,
      `https://localhost:${port}/hooks`,
      `https://[::ffff:7f00:1]:${port}/hooks`,
    ]) {
      await t.deps.db.webhookEndpoint.deleteMany();
      const { id } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
        orgId: t.demo.organizations.clinic.id,
        url,
        eventTypes: ['*'],
      });
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
      expect(await queue.runDue(), url).toBe(1);
      const test = await t.rest('POST', `/v1/webhook-endpoints/${id}/test`);
      expect(await queue.runDue(), url).toBe(1);
      const deliveries = (await t.rest('GET', `/v1/webhook-endpoints/${id}/deliveries`)).body.data.deliveries;
      expect(deliveries, url).toHaveLength(2);
      for (const delivery of deliveries) {
        expect(delivery, url).toMatchObject({
          status: 'failed',
          attempts: 1,
          statusCode: null,
          response: 'target_not_allowed',
          nextAttemptAt: null,
        });
      }
      expect(deliveries.map((d: { id: string }) => d.id)).toContain(test.body.data.id);
      // nothing due later either
      t.clock.advance(48 * 3_600_000);
      expect(await queue.runDue(), url).toBe(0);
    }
    expect(receiver.received).toHaveLength(0);
    expect(queue.outcomes('webhook.deliver')).toEqual({ target_not_allowed: 8 });
  });

  it('is checked again at delivery: a name that resolved to a public address when saved and to a private one now is refused, saying nothing of where it led', async () => {
    t.clock.set(new Date());
    await withDns(async () => {
      const created = await t.rest('POST', '/v1/webhook-endpoints', {
        json: { url: 'https://rebound.example.test/hooks', eventTypes: ['closure.*'] },
      });
      expect(created.status).toBe(200);
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
      const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps);
      expect(await queue.runDue()).toBe(1);
      const [delivery] = (await t.rest('GET', `/v1/webhook-endpoints/${created.body.data.id}/deliveries`)).body.data.deliveries;
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 1,
        statusCode: null,
        response: 'target_not_allowed',
        nextAttemptAt: null,
      });
      const gql = await t.gql('query($id: ID!) { webhookDeliveries(endpointId: $id) { status response } }', { id: created.body.data.id });
      expect(gql.body.data.webhookDeliveries).toEqual([{ status: 'failed', response: 'target_not_allowed' }]);
    });
  });

  it('records only an error class when there is no answer: nothing of how a name resolved', async () => {
    t.clock.set(new Date());
    await withDns(async () => {
      // a name that does not resolve now is accepted when saved; at delivery it fails with its class, retried later
      const created = await t.rest('POST', '/v1/webhook-endpoints', {
        json: { url: 'https://hooks.nowhere.test/hooks', eventTypes: ['closure.*'] },
      });
      expect(created.status).toBe(200);
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
      const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps);
      expect(await queue.runDue()).toBe(1);
      const [delivery] = (await t.rest('GET', `/v1/webhook-endpoints/${created.body.data.id}/deliveries`)).body.data.deliveries;
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, statusCode: null, response: 'dns_failed' });
    });
  });
});

describe('a private target, allowed', () => {
  const allowed = () => ({ ...t.deps, config: { ...t.deps.config, webhookAllowPrivateTargets: true } });

  it('is delivered to, but its answer is never shown to the tenant: deliveries list, GraphQL and the stored row keep only status and latency', async () => {
    t.clock.set(new Date());
    receiver.answer = () => 200;
    const { id } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: t.demo.organizations.clinic.id,
      url: `${receiver.url}/internal`,
      eventTypes: ['closure.*'],
    });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
    const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), allowed());
    expect(await queue.runDue()).toBe(1);
    await t.rest('POST', `/v1/webhook-endpoints/${id}/test`);
    expect(await queue.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    // the receiver answered 'thanks': nowhere to be read
    const rest = (await t.rest('GET', `/v1/webhook-endpoints/${id}/deliveries`)).body.data.deliveries;
    expect(rest).toHaveLength(2);
    for (const delivery of rest)
      expect(delivery).toMatchObject({ status: 'delivered', statusCode: 200, response: null, latencyMs: expect.any(Number) });
    const gql = await t.gql('query($id: ID!) { webhookDeliveries(endpointId: $id) { status statusCode response } }', { id });
    expect(gql.body.data.webhookDeliveries).toEqual([
      { status: 'delivered', statusCode: 200, response: null },
      { status: 'delivered', statusCode: 200, response: null },
    ]);
    const stored = await t.deps.db.webhookDelivery.findMany({ where: { endpointId: id } });
    expect(stored.map((d) => d.response)).toEqual([null, null]);
  });

  it('keeps nothing of a failing private answer either', async () => {
    t.clock.set(new Date());
    receiver.script = [500];
    const { id } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: t.demo.organizations.clinic.id,
      url: receiver.url,
      eventTypes: ['closure.*'],
    });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
    const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), allowed());
    expect(await queue.runDue()).toBe(1);
    const [delivery] = (await t.rest('GET', `/v1/webhook-endpoints/${id}/deliveries`)).body.data.deliveries;
    expect(delivery).toMatchObject({ status: 'pending', statusCode: 500, response: null });
  });
});
