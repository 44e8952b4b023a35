// The webhook dispatcher (domain/events/webhooks/dispatcher.ts): an event's first attempts are made from the event log,
// read from a durable cursor by the one dispatcher holding the lease, each delivery's row written when its
// attempt ended. What a user sees of it: an event goes out once (not again after a restart, nor from a
// second instance while the lease holds; from the cursor by whoever takes over after it runs out); an
// event committed after a later one is still sent, and the cursor does not pass it before; a receiver
// that is behind has the deliveries past its waiting bound handed to the retry lane; an endpoint made
// after an event, or deleted while its delivery was in flight, gets nothing recorded for it; nor does one
// get the event of its own creation, nor an event written at the same instant before it (later events only).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { DeliverySlots, handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { WebhookDispatcher } from '../../src/domain/events/webhooks/dispatcher.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A job queue with webhook delivery, as one instance of the service runs it. */
function instance(options: Parameters<typeof handleWebhookDeliveries>[2] = {}): JobQueue {
  const queue = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps, options);
  stops.push(() => queue.stop());
  return queue;
}

const org = () => t.demo.organizations.clinic.id;
let n = 0;
async function writeClosure(): Promise<string> {
  n++;
  const res = await t.rest('POST', `/v1/organizations/${org()}/closures`, {
    json: { description: `Closure ${n}`, annualDate: { month: 1 + (n % 12), day: 1 + (n % 28) }, chatGreeting: null, phoneGreeting: null },
  });
  expect(res.status).toBe(200);
  return (await t.deps.db.event.findFirstOrThrow({ where: { subjectId: res.body.data.id } })).id;
}
const cursor = async () => Number((await t.deps.db.webhookDispatch.findUniqueOrThrow({ where: { id: 1 } })).cursor);
const seqOf = async (eventId: string) => Number((await t.deps.db.event.findUniqueOrThrow({ where: { id: eventId } })).seq);
const receivedIds = () => receiver.received.map((r) => r.headers['webhook-id']);

/** A receiver that holds every request until `release()` answers them all 200. */
async function heldReceiver() {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => held.push(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    held,
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
  };
}

describe('the webhook dispatcher', () => {
  it('sends an event once: the cursor moves past it, and neither a restart nor another look sends it again', async () => {
    t.clock.set(new Date());
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['closure.*'] });
    const first = await writeClosure();
    const q = instance();
    expect(await q.runDue()).toBe(1);
    expect(await q.runDue()).toBe(0);
    expect(await cursor()).toBe(await seqOf(first));
    expect(await t.deps.db.webhookDelivery.findFirstOrThrow()).toMatchObject({
      eventId: first,
      status: 'delivered',
      attempts: 1,
      statusCode: 200,
    });
    // a restart: the stopped instance gave its lease up, the next one reads on from the cursor
    await q.stop();
    const second = await writeClosure();
    expect(await instance().runDue()).toBe(1);
    expect(receivedIds()).toEqual([first, second]);
  });

  it('is one instance at a time: another sends nothing while the lease holds, and takes over from the cursor once it ran out', async () => {
    t.clock.set(new Date());
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['*'] });
    const a = instance();
    const b = instance();
    const first = await writeClosure();
    expect(await a.runDue()).toBe(1);
    const second = await writeClosure();
    expect(await b.runDue()).toBe(0);
    // a holds on while it looks (it renews the lease once half of it passed)
    t.clock.advance(20_000);
    expect(await a.runDue()).toBe(1);
    expect(receivedIds()).toEqual([first, second]);
    // a dies; once its lease ran out, b sends what came after a's cursor, and nothing a sent
    const third = await writeClosure();
    expect(await b.runDue()).toBe(0);
    t.clock.advance(30_000);
    expect(await b.runDue()).toBe(1);
    expect(receivedIds()).toEqual([first, second, third]);
    // and a, back, finds the lease taken
    expect(await a.runDue()).toBe(0);
    expect(await t.deps.db.webhookDelivery.count({ where: { status: 'delivered' } })).toBe(3);
  });

  it('sends an event committed after a later one, and keeps the cursor below it until then', async () => {
    t.clock.set(new Date());
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['closure.*'] });
    const q = instance();
    await writeClosure();
    await q.runDue();
    const before = await cursor();
    // a write whose transaction took its seq but has not committed yet
    const [taken] = await t.deps.db.$queryRaw<{ seq: bigint }[]>`SELECT nextval(pg_get_serial_sequence('"Event"', 'seq')) AS "seq"`;
    const late = taken!.seq;
    const later = await writeClosure();
    expect(await q.runDue()).toBe(1);
    expect(receivedIds().at(-1)).toBe(later);
    expect(await cursor()).toBe(Number(late) - 1);
    expect(await cursor()).toBeGreaterThanOrEqual(before);
    // it commits
    const lateId = '6d1f3a2e-0a4b-4c57-9a38-2f1f0f6c2b11';
    await t.deps.db.$executeRaw`
      INSERT INTO "Event" ("id", "seq", "type", "orgId", "occurredAt", "actorKind", "subjectType", "subjectId", "data")
      VALUES (${lateId}::uuid, ${late}, 'closure.deleted', ${org()}::uuid, ${t.clock.now().toISOString()}::timestamp(3), 'system', 'closure', 'late', '{"id":"late"}'::jsonb)`;
    expect(await q.runDue()).toBe(1);
    expect(receivedIds().at(-1)).toBe(lateId);
    expect(await cursor()).toBe(await seqOf(later));
  });

  it('gives a gap up after a minute: a write that rolled back does not hold the cursor for ever', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    t.clock.set(new Date());
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['closure.*'] });
    const q = instance();
    await q.runDue(); // it starts after the log's end
    await t.deps.db.$queryRaw`SELECT nextval(pg_get_serial_sequence('"Event"', 'seq'))`;
    const later = await writeClosure();
    await q.runDue();
    expect(await cursor()).toBeLessThan(await seqOf(later));
    vi.advanceTimersByTime(60_001);
    await q.runDue();
    expect(await cursor()).toBe(await seqOf(later));
  });

  it('hands the deliveries past a slow receiver’s waiting bound to the retry lane, pending and due now', async () => {
    t.clock.set(new Date());
    const slow = await heldReceiver();
    const { id: endpointId } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org(),
      url: slow.url,
      eventTypes: ['closure.*'],
    });
    const slots = new DeliverySlots({ perEndpoint: 1 });
    const outcomes: unknown[] = [];
    const dispatcher = new WebhookDispatcher(t.deps, { slots }, (outcome) => outcomes.push(outcome), { maxWaitingPerEndpoint: 1 });
    stops.push(() => dispatcher.stop());
    const events = [await writeClosure(), await writeClosure(), await writeClosure()];
    // one in flight, one waiting for the slot, the third handed over
    expect(await dispatcher.look(false)).toBe(2);
    await vi.waitFor(() => expect(slow.held).toHaveLength(1));
    expect([slots.busy(endpointId), slots.waiting(endpointId)]).toEqual([1, 1]);
    await vi.waitFor(async () =>
      expect(await t.deps.db.webhookDelivery.findMany({ where: { endpointId } })).toMatchObject([
        { eventId: events[2], status: 'pending', attempts: 0 },
      ]),
    );
    // the cursor stays below the events whose deliveries are not written yet
    expect(await cursor()).toBeLessThan(await seqOf(events[0]!));
    const settled = dispatcher.settle();
    await vi.waitFor(() => {
      slow.release();
      expect(outcomes).toHaveLength(2);
    });
    await settled;
    expect(await t.deps.db.webhookDelivery.count({ where: { endpointId, status: 'delivered', attempts: 1 } })).toBe(2);
    expect(await cursor()).toBe(await seqOf(events[2]!));
  });

  it('sends again what a dispatcher that died had in flight: the cursor stayed below it (at least once)', async () => {
    t.clock.set(new Date());
    const slow = await heldReceiver();
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: slow.url, eventTypes: ['closure.*'] });
    const dying = new WebhookDispatcher(t.deps, { slots: new DeliverySlots() }, () => {});
    const event = await writeClosure();
    expect(await dying.look(false)).toBe(1);
    await vi.waitFor(() => expect(slow.held).toHaveLength(1));
    // it dies here: nothing recorded, its lease runs out
    expect(await cursor()).toBeLessThan(await seqOf(event));
    t.clock.advance(30_000);
    const next = new WebhookDispatcher(t.deps, { slots: new DeliverySlots() }, () => {});
    stops.push(() => next.stop());
    expect(await next.look(false)).toBe(1);
    await vi.waitFor(() => expect(slow.held).toHaveLength(2));
    slow.release();
    // (the dying one's attempt ends too, here: what it records cannot move the cursor, which is not its own)
    await Promise.all([next.settle(), dying.settle()]);
    expect(await t.deps.db.webhookDelivery.findMany({ where: { eventId: event } })).toMatchObject([
      { status: 'delivered', attempts: 1 },
      { status: 'delivered', attempts: 1 },
    ]);
    expect(await cursor()).toBe(await seqOf(event));
  });

  it('keeps what it could not write (the database away) and writes it, with the cursor, the next time', async () => {
    t.clock.set(new Date());
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['closure.*'] });
    let refuse = true;
    const db = new Proxy(t.deps.db, {
      get(target, property, receiver) {
        if (property === '$executeRaw' && refuse) {
          return () => {
            refuse = false;
            return Promise.reject(new Error('the database is away'));
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const dispatcher = new WebhookDispatcher({ ...t.deps, db }, { slots: new DeliverySlots() }, () => {});
    stops.push(() => dispatcher.stop());
    const event = await writeClosure();
    await expect(dispatcher.look(true)).rejects.toThrow(/away/);
    expect(await t.deps.db.webhookDelivery.count()).toBe(0);
    expect(await cursor()).toBeLessThan(await seqOf(event));
    await dispatcher.settle();
    expect(await t.deps.db.webhookDelivery.findMany({ where: { eventId: event } })).toMatchObject([{ status: 'delivered' }]);
    expect(await cursor()).toBe(await seqOf(event));
    expect(receiver.received).toHaveLength(1);
  });

  it('shows as work behind while it does not dispatch: the events after its cursor count in the queue’s depth, due since they occurred', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['closure.*'] });
    const q = instance();
    await q.runDue();
    expect(await q.depth()).toEqual({ pending: 0, oldestRunAt: null });
    // the instance holding the lease stopped dispatching (wedged, or dead until its lease runs out)
    await writeClosure();
    t.clock.advance(60_000);
    await writeClosure();
    expect(await q.depth()).toEqual({ pending: 2, oldestRunAt: new Date('2026-03-09T15:00:00Z') });
    await q.runDue();
    expect(await q.depth()).toEqual({ pending: 0, oldestRunAt: null });
  });

  it('sends an endpoint neither the event of its own creation nor an event before it, even at the same instant; later ones, yes', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const q = instance();
    await q.runDue();
    const before = await writeClosure();
    // the same instant on the app's clock: the log's order tells what came first
    const first = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: `${receiver.url}/first`, eventTypes: ['*'] } });
    expect(first.status).toBe(200);
    expect(await q.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    const second = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: `${receiver.url}/second`, eventTypes: ['*'] } });
    const after = await writeClosure();
    expect(await q.runDue()).toBe(3);
    const got = receiver.received.map((r) => `${r.url} ${JSON.parse(r.body).type} ${String(r.headers['webhook-id'])}`).sort();
    const createdSecond = await t.deps.db.event.findFirstOrThrow({
      where: { subjectId: second.body.data.id, type: 'webhook_endpoint.created' },
    });
    expect(got).toEqual(
      [
        `/hooks/first closure.created ${after}`,
        `/hooks/first webhook_endpoint.created ${createdSecond.id}`,
        `/hooks/second closure.created ${after}`,
      ].sort(),
    );
    expect(receivedIds()).not.toContain(before);
    // GraphQL's create is the same domain code
    const third = await t.gql(
      'mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["webhook_endpoint.*"]}) { id } }',
      {
        url: `${receiver.url}/third`,
      },
    );
    receiver.received = [];
    expect(await q.runDue()).toBe(2); // to first and second, not to itself
    expect(receiver.received.map((r) => r.url).sort()).toEqual(['/hooks/first', '/hooks/second']);
    expect(receiver.received.every((r) => JSON.parse(r.body).data.id === third.body.data.createWebhookEndpoint.id)).toBe(true);
  });

  it('sends an endpoint only the events after it was made, and records nothing for one deleted while its delivery was in flight', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    await writeClosure();
    t.clock.advance(1_000);
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org(), url: receiver.url, eventTypes: ['*'] });
    const q = instance();
    expect(await q.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(0);

    const slow = await heldReceiver();
    const { id: endpointId } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org(),
      url: slow.url,
      eventTypes: ['closure.*'],
    });
    const dispatcher = new WebhookDispatcher(t.deps, { slots: new DeliverySlots() }, () => {});
    stops.push(() => dispatcher.stop());
    await q.stop(); // its lease given up: the dispatcher under test takes it
    const event = await writeClosure();
    expect(await dispatcher.look(false)).toBe(2); // to both endpoints
    await vi.waitFor(() => expect(slow.held).toHaveLength(1));
    await t.rest('DELETE', `/v1/webhook-endpoints/${endpointId}`);
    slow.release();
    await dispatcher.settle();
    expect(await t.deps.db.webhookDelivery.findMany({ where: { eventId: event } })).toHaveLength(1);
    expect(await cursor()).toBe(await seqOf(event));
  });
});
