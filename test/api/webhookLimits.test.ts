// Webhook endpoints that keep failing and slow receivers (domain/events/webhooks/delivery.ts): an endpoint whose every
// delivery failed for 5 days since its first failure is disabled and webhook_endpoint.disabled recorded
// (on the app's fake clock); a delivered attempt in between starts the 5 days again. Deliveries to one
// endpoint in flight at once are bounded per instance (maxInFlightPerEndpoint, default 4).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEndpointDisabled } from '../../src/domain/events/webhookEndpoints.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();

function queue(batchSize = 10, maxInFlightPerEndpoint?: number) {
  return handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { batchSize }), t.deps, {
    onDisabled: (tx, endpoint) => recordEndpointDisabled(tx, t.deps, endpoint),
    maxInFlightPerEndpoint,
  });
}

const DAY = 24 * 3_600_000;
const closure = (n: number) => ({
  description: `Closure ${n}`,
  annualDate: { month: 12, day: 1 + (n % 28) },
  chatGreeting: null,
  phoneGreeting: null,
});

describe('an endpoint failing for 5 days', () => {
  it('is disabled, with webhook_endpoint.disabled recorded and sent to the organization’s other endpoints; nothing more is sent to it', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-02T15:00:00Z');
    const failing = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: `${receiver.url}/failing`,
      eventTypes: ['closure.*'],
    });
    const watcher = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: `${receiver.url}/watcher`,
      eventTypes: ['webhook_endpoint.*'],
    });
    const q = queue();
    receiver.answer = (path) => (path === '/hooks/failing' ? 500 : undefined);
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(1) });
    await q.runDue(); // first failure: the 5 days start
    // a new event every day, each failing; just short of 5 days it is still enabled
    for (let day = 1; day <= 4; day++) {
      t.clock.advance(DAY);
      await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(day + 1) });
      await q.runDue();
    }
    t.clock.advance(DAY - 60_000);
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(6) });
    await q.runDue();
    expect(await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: failing.id } })).toMatchObject({ enabled: true });
    expect(await t.deps.db.event.count({ where: { type: 'webhook_endpoint.disabled' } })).toBe(0);

    t.clock.advance(60_000);
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(7) });
    await q.runDue();
    const stored = await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: failing.id } });
    expect(stored).toMatchObject({ enabled: false, disabledReason: 'every delivery failed for 5 days (since 2026-03-02T15:00:00.000Z)' });
    const events = await t.deps.db.event.findMany({ where: { type: 'webhook_endpoint.disabled' } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      orgId: org,
      actorKind: 'system',
      subjectType: 'webhook_endpoint',
      subjectId: failing.id,
      data: { id: failing.id, enabled: false, disabledReason: stored.disabledReason },
    });
    // the REST answer shows it too
    const view = await t.rest('GET', `/v1/webhook-endpoints/${failing.id}`);
    expect(view.body.data).toMatchObject({ enabled: false, disabledReason: stored.disabledReason });
    // the watcher receives the event; the disabled endpoint receives nothing more
    await q.runDue();
    const toWatcher = receiver.received.filter((r) => r.url === '/hooks/watcher');
    expect(toWatcher.map((r) => JSON.parse(r.body).type)).toEqual(['webhook_endpoint.disabled']);
    const toFailing = receiver.received.filter((r) => r.url === '/hooks/failing').length;
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(8) });
    t.clock.advance(DAY);
    await q.runDue();
    expect(receiver.received.filter((r) => r.url === '/hooks/failing').length).toBe(toFailing);
    void watcher;
  });

  it('starts the 5 days again after a delivered attempt', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-02T15:00:00Z');
    const endpoint = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: receiver.url,
      eventTypes: ['closure.*'],
    });
    const q = queue();
    let failing = true;
    receiver.answer = () => (failing ? 500 : undefined);
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(1) });
    await q.runDue(); // fails
    expect((await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).failingSince).toEqual(
      new Date('2026-03-02T15:00:00Z'),
    );
    t.clock.advance(3 * DAY);
    failing = false;
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(2) });
    await q.runDue(); // delivered (and the first one's retry too)
    expect((await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).failingSince).toBeNull();
    t.clock.advance(3 * DAY);
    failing = true;
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(3) });
    await q.runDue(); // fails: the 5 days start here
    t.clock.advance(3 * DAY);
    await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(4) });
    await q.runDue();
    expect(await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({
      enabled: true,
      failingSince: new Date('2026-03-08T15:00:00Z'),
    });
  });
});

describe('deliveries to one endpoint in flight at once', () => {
  let server: Server;
  let url = '';
  let inFlight = 0;
  let most = 0;
  let held: ServerResponse[] = [];
  beforeAll(async () => {
    // a slow receiver: answers only when the test lets it
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        inFlight++;
        most = Math.max(most, inFlight);
        held.push(res);
        res.on('finish', () => inFlight--);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('are at most 4 by default on an instance, whatever the batch claimed; the others wait and are delivered', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-02T15:00:00Z');
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org, url, eventTypes: ['closure.*'] });
    const fast = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: receiver.url,
      eventTypes: ['closure.*'],
    });
    for (let n = 0; n < 10; n++) await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(n) });
    const running = queue(20).runDue(); // claims all 20 deliveries at once
    await expect.poll(() => inFlight).toBe(4);
    // the other endpoint is not held up by the slow one
    await expect.poll(() => receiver.received.length).toBe(10);
    for (let answered = 0; answered < 10;) {
      await expect.poll(() => held.length).toBeGreaterThan(0);
      const batch = held;
      held = [];
      for (const res of batch) res.end('ok');
      answered += batch.length;
    }
    expect(await running).toBe(20);
    expect(most).toBe(4);
    expect(await t.deps.db.webhookDelivery.count({ where: { status: 'delivered' } })).toBe(20);
    void fast;
  });

  it('follow the configured bound', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-02T15:00:00Z');
    most = 0;
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org, url, eventTypes: ['closure.*'] });
    for (let n = 0; n < 6; n++) await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closure(n) });
    const running = queue(10, 2).runDue();
    await expect.poll(() => inFlight).toBe(2);
    for (let answered = 0; answered < 6;) {
      await expect.poll(() => held.length).toBeGreaterThan(0);
      const batch = held;
      held = [];
      for (const res of batch) res.end('ok');
      answered += batch.length;
    }
    expect(await running).toBe(6);
    expect(most).toBe(2);
  });
});
