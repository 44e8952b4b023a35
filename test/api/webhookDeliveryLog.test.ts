// An endpoint's delivery log as an integrator works with it (issue 37 §4): every attempt of a delivery kept with
// its outcome (domain/events/sql.ts appends it in the statement that records the attempt), pages of deliveries
// filtered by status, event type and time (webhookDeliveries.ts), and replays of the failed ones of a range,
// each delivery at most once per replay (webhookReplays.ts). Both surfaces; another tenant's ids are 404s.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { handleWebhookDeliveries, keptAnswer } from '../../src/domain/events/webhooks/delivery.js';
import { recordAttempt } from '../../src/domain/events/sql.js';
import { runWebhookReplay } from '../../src/domain/events/webhookReplays.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { type TestApp, useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();

const queue = () => handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps);

async function endpoint(orgId = t.demo.organizations.clinic.id, url = receiver.url, eventTypes = ['*']) {
  return createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId, url, eventTypes });
}

/** An event of the clinic's (a closure made through the API), once per test. */
let anEvent: Promise<string> | undefined;
beforeEach(() => {
  anEvent = undefined;
});
function clinicEvent(app: TestApp): Promise<string> {
  return (anEvent ??= app
    .rest('POST', `/v1/organizations/${app.demo.organizations.clinic.id}/closures`, {
      json: { description: 'Inventory', annualDate: { month: 12, day: 24 }, chatGreeting: null, phoneGreeting: null },
    })
    .then(async (res) => (await app.db.prisma.event.findFirstOrThrow({ where: { subjectId: res.body.data.id } })).id));
}

/** A delivery of one of the organization's events, written directly (status and time as given). */
async function delivery(app: TestApp, endpointId: string, at: string, status: string, eventType = 'closure.created', eventId?: string) {
  const event = eventId ?? (await clinicEvent(app));
  const row = await app.db.prisma.webhookDelivery.create({
    data: {
      id: randomUUID(),
      endpointId,
      eventId: event,
      eventType,
      status,
      attempts: status === 'pending' ? 0 : 8,
      createdAt: new Date(at),
    },
  });
  return row.id;
}

const base = '/v1/webhook-endpoints';

describe('the attempts of a delivery', () => {
  it('keeps each attempt with its outcome, oldest first, on both surfaces; retries continue the log', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    // test events only: the retry's own event is not sent to it
    const { id: endpointId } = await endpoint(t.demo.organizations.clinic.id, receiver.url, ['webhook.test']);
    receiver.script = [503, 500];
    const test = await t.rest('POST', `${base}/${endpointId}/test`, { json: {} });
    const deliveryId = test.body.data.id as string;
    const q = queue();
    await q.runDue(); // 503
    t.clock.advance(5_000);
    await q.runDue(); // 500
    t.clock.advance(5 * 60_000);
    await q.runDue(); // 200
    const one = await t.rest('GET', `${base}/${endpointId}/deliveries/${deliveryId}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ status: 'delivered', attempts: 3, statusCode: 200 });
    const log = one.body.data.attemptLog as { at: string; statusCode: number; errorClass: string | null; response: string | null }[];
    expect(log.map((a) => a.statusCode)).toEqual([503, 500, 200]);
    expect(log.map((a) => a.at)).toEqual(['2026-03-02T15:00:00.000Z', '2026-03-02T15:00:05.000Z', '2026-03-02T15:05:05.000Z']);
    // a private target's answers are never kept, in the log either
    expect(log.every((a) => a.response === null && a.errorClass === null)).toBe(true);

    // a retry starts a fresh schedule and continues the same log
    expect((await t.rest('POST', `${base}/${endpointId}/deliveries/${deliveryId}/retry`, { json: {} })).status).toBe(200);
    receiver.answer = () => 410;
    await q.runDue();
    const gql = await t.gql(
      'query($e: ID!, $d: ID!) { webhookDelivery(endpointId: $e, id: $d) { attempts attemptLog { at statusCode latencyMs errorClass response } } }',
      { e: endpointId, d: deliveryId },
    );
    expect(gql.body.data.webhookDelivery.attemptLog[3], JSON.stringify(gql.body)).toMatchObject({ statusCode: 410 });
    expect(gql.body.data.webhookDelivery.attempts).toBe(1);
    expect(gql.body.data.webhookDelivery.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 500, 200, 410]);
    const rest = await t.rest('GET', `${base}/${endpointId}/deliveries/${deliveryId}`);
    expect(gql.body.data.webhookDelivery.attemptLog).toEqual(rest.body.data.attemptLog);
  });

  it('names why there was no answer, and what was never sent', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    // nothing listens on port 9 of 127.0.0.1
    const { id: endpointId } = await endpoint(t.demo.organizations.clinic.id, 'http://127.0.0.1:9/hooks');
    const test = await t.rest('POST', `${base}/${endpointId}/test`, { json: {} });
    const q = queue();
    await q.runDue();
    await t.rest('PATCH', `${base}/${endpointId}`, { json: { enabled: false } });
    t.clock.advance(5_000);
    await q.runDue();
    const one = await t.rest('GET', `${base}/${endpointId}/deliveries/${test.body.data.id}`);
    expect(one.body.data.status).toBe('failed');
    expect(one.body.data.attemptLog).toEqual([
      expect.objectContaining({ statusCode: null, errorClass: 'connection_refused', response: null }),
      { at: '2026-03-02T15:00:05.000Z', statusCode: null, latencyMs: null, errorClass: 'endpoint_disabled', response: null },
    ]);
  });

  it('keeps any answer a receiver sends as text a database holds (a NUL, half a character), the newest 20 attempts', async () => {
    expect(keptAnswer('ok\0done')).toBe('ok\uFFFDdone');
    // 1023 characters then an emoji cut in half at the 1 KB mark: the half is dropped
    const cut = keptAnswer(`${'a'.repeat(1023)}😀tail`);
    expect(cut).toBe('a'.repeat(1023));
    expect(keptAnswer('\uDC00 lone')).toBe('\uFFFD lone');

    t.clock.set('2026-03-02T15:00:00Z');
    const { id: endpointId } = await endpoint();
    const id = await delivery(t, endpointId, '2026-03-02T15:00:00Z', 'pending');
    for (let n = 1; n <= 25; n++) {
      await recordAttempt(t.deps.db, id, {
        status: 'pending',
        attempts: n,
        lastAttemptAt: t.clock.now(),
        nextAttemptAt: t.clock.now(),
        statusCode: 500,
        latencyMs: n,
        response: keptAnswer(`attempt ${n}\0\uD83D`),
        entry: {
          at: t.clock.now().toISOString(),
          statusCode: 500,
          latencyMs: n,
          errorClass: null,
          response: keptAnswer(`attempt ${n}\0\uD83D`),
        },
      });
    }
    const one = await t.rest('GET', `${base}/${endpointId}/deliveries/${id}`);
    expect(one.status).toBe(200);
    const log = one.body.data.attemptLog as { latencyMs: number; response: string }[];
    expect(log.map((a) => a.latencyMs)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    expect(log[19]!.response).toBe('attempt 25\uFFFD');
  });
});

describe('pages of deliveries', () => {
  it('pages newest first with filters, on both surfaces alike; a cursor is bound to its filters', async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: endpointId } = await endpoint();
    const made: Record<string, string> = {};
    for (const [name, at, status, type] of [
      ['a', '2026-03-01T10:00:00Z', 'failed', 'closure.created'],
      ['b', '2026-03-01T11:00:00Z', 'delivered', 'closure.updated'],
      ['c', '2026-03-01T12:00:00Z', 'failed', 'insurance.updated'],
      ['d', '2026-03-02T10:00:00Z', 'failed', 'closure.deleted'],
      ['e', '2026-03-02T11:00:00Z', 'pending', 'closure.created'],
      ['f', '2026-03-02T12:00:00Z', 'failed', 'closure.created'],
      ['g', '2026-03-02T12:00:00Z', 'failed', 'closure.created'],
    ] as const)
      made[name] = await delivery(t, endpointId, at, status, type);
    const nameOf = (id: string) => Object.keys(made).find((k) => made[k] === id) ?? id;

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: URLSearchParams = new URLSearchParams({ limit: '3', ...(cursor ? { cursor } : {}) });
      const res: { status: number; body: { data: { deliveries: { id: string }[]; pagination: { nextCursor: string | null } } } } =
        await t.rest('GET', `${base}/${endpointId}/deliveries?${query}`);
      expect(res.status).toBe(200);
      pages.push(res.body.data.deliveries.map((d: { id: string }) => nameOf(d.id)));
      cursor = res.body.data.pagination.nextCursor;
    } while (cursor);
    // newest first; f and g share their instant and come in id order
    const tied = [made.f!, made.g!].sort().map(nameOf);
    expect(pages).toEqual([[...tied, 'e'], ['d', 'c', 'b'], ['a']]);

    const filtered = await t.rest(
      'GET',
      `${base}/${endpointId}/deliveries?status=failed&eventType=closure.*&from=2026-03-01T00:00:00Z&to=2026-03-02T12:00:00Z`,
    );
    expect(filtered.body.data.deliveries.map((d: { id: string }) => nameOf(d.id))).toEqual(['d', 'a']);

    const first = await t.rest('GET', `${base}/${endpointId}/deliveries?limit=1&status=failed`);
    const other = await t.rest('GET', `${base}/${endpointId}/deliveries?status=delivered&cursor=${first.body.data.pagination.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.errors).toEqual([expect.objectContaining({ path: 'cursor' })]);
    for (const [q, field] of [
      ['status=lost', 'status'],
      ['eventType=closure.exploded', 'eventType'],
      ['from=2026-13-01T00:00:00Z', 'from'],
      ['limit=101', 'limit'],
    ])
      expect((await t.rest('GET', `${base}/${endpointId}/deliveries?${q}`)).body.errors[0].path).toBe(field);

    const gql = await t.gql(
      `query($e: ID!, $after: String) { webhookDeliveryPage(endpointId: $e, first: 3, after: $after) { items { id } nextCursor } }`,
      { e: endpointId },
    );
    expect(gql.body.data.webhookDeliveryPage.items.map((d: { id: string }) => nameOf(d.id))).toEqual(pages[0]);
    const second = await t.gql(
      `query($e: ID!, $after: String) { webhookDeliveryPage(endpointId: $e, first: 3, after: $after) { items { id attemptLog { at } } } }`,
      { e: endpointId, after: gql.body.data.webhookDeliveryPage.nextCursor },
    );
    expect(second.body.data.webhookDeliveryPage.items.map((d: { id: string }) => nameOf(d.id))).toEqual(pages[1]);
    expect(second.body.data.webhookDeliveryPage.items.every((d: { attemptLog: unknown[] }) => d.attemptLog.length === 0)).toBe(true);
  });

  it("answers another tenant's endpoint, delivery and replay as absent", async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: theirs } = await endpoint(t.demo.organizations.other.id, 'https://hooks.example.com/other');
    const theirDelivery = await delivery(t, theirs, '2026-03-02T10:00:00Z', 'failed');
    const { id: mine } = await endpoint();
    for (const path of [
      `${base}/${theirs}/deliveries`,
      `${base}/${theirs}/deliveries/${theirDelivery}`,
      `${base}/${mine}/deliveries/${theirDelivery}`,
    ]) {
      const res = await t.rest('GET', path);
      expect(res.status, path).toBe(404);
    }
    const replay = await t.rest('POST', `${base}/${theirs}/replays`, { json: { from: '2026-03-01T00:00:00Z' } });
    expect(replay.status).toBe(404);
    expect(await t.db.prisma.webhookReplay.count()).toBe(0);
    const gql = await t.gql('query($e: ID!, $d: ID!) { webhookDelivery(endpointId: $e, id: $d) { id } }', { e: mine, d: theirDelivery });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('replays', () => {
  it('makes each failed delivery of the range pending once, skips what is past retention, and reports', async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: endpointId } = await endpoint();
    const event = await clinicEvent(t);
    const inRange: string[] = [];
    for (let i = 0; i < 5; i++) inRange.push(await delivery(t, endpointId, `2026-03-02T10:0${i}:00Z`, 'failed', 'closure.created', event));
    const delivered = await delivery(t, endpointId, '2026-03-02T10:30:00Z', 'delivered');
    const before = await delivery(t, endpointId, '2026-02-28T10:00:00Z', 'failed');
    const after = await delivery(t, endpointId, '2026-03-03T11:00:00Z', 'failed');
    // a delivery whose event is past retention: its event is gone
    const gone = await delivery(t, endpointId, '2026-03-02T11:00:00Z', 'failed', 'closure.created', randomUUID());

    const asked = await t.rest('POST', `${base}/${endpointId}/replays`, {
      json: { from: '2026-03-01T00:00:00Z', to: '2026-03-03T00:00:00Z' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body.data).toMatchObject({ status: 'pending', replayed: 0, skipped: 0, to: '2026-03-03T00:00:00.000Z' });
    const replayId = asked.body.data.id as string;
    // one at a time per endpoint
    const second = await t.gql('mutation($e: ID!) { replayWebhookDeliveries(endpointId: $e, from: "2026-03-01T00:00:00Z") { id } }', {
      e: endpointId,
    });
    expect(second.body.errors[0].extensions.code).toBe('CONFLICT');
    const event2 = await t.db.prisma.event.findFirstOrThrow({ where: { type: 'webhook_endpoint.replayed', subjectId: endpointId } });
    expect(event2.data).toMatchObject({ id: replayId, from: '2026-03-01T00:00:00.000Z' });

    // batches of two, one batch per run: the walk goes on across runs (as after a restart) and touches each once
    const run = () => runWebhookReplay(t.deps, replayId, { batchSize: 2, batchesPerRun: 1 });
    expect(await run()).toMatchObject({ label: 'continued' });
    // a replayed delivery that fails again meanwhile is not replayed a second time by this replay
    await t.db.prisma.webhookDelivery.update({ where: { id: inRange[0]! }, data: { status: 'failed', attempts: 1 } });
    let outcome = await run();
    while (!('done' in outcome)) outcome = await run();
    const rows = await t.db.prisma.webhookDelivery.findMany({ where: { endpointId } });
    const statusOf = (id: string) => rows.find((r) => r.id === id)!.status;
    expect(inRange.slice(1).map(statusOf)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(statusOf(inRange[0]!)).toBe('failed');
    expect([delivered, before, after, gone].map(statusOf)).toEqual(['delivered', 'failed', 'failed', 'failed']);
    expect(rows.find((r) => r.id === inRange[1])).toMatchObject({ attempts: 0, nextAttemptAt: t.clock.now() });

    const done = await t.rest('GET', `${base}/${endpointId}/replays/${replayId}`);
    expect(done.body.data).toMatchObject({ status: 'completed', replayed: 5, skipped: 1, completedAt: '2026-03-03T12:00:00.000Z' });
    // a run after completion changes nothing
    expect(await runWebhookReplay(t.deps, replayId)).toEqual({ done: true });
    expect((await t.rest('GET', `${base}/${endpointId}/replays/${replayId}`)).body.data.replayed).toBe(5);
    const gql = await t.gql('query($e: ID!, $r: ID!) { webhookReplay(endpointId: $e, id: $r) { status replayed skipped } }', {
      e: endpointId,
      r: replayId,
    });
    expect(gql.body.data.webhookReplay).toEqual({ status: 'completed', replayed: 5, skipped: 1 });
    // now another may start
    expect((await t.rest('POST', `${base}/${endpointId}/replays`, { json: { from: '2026-03-01T00:00:00Z' } })).status).toBe(202);
  });

  it('is worked by the job queue, and the replayed deliveries are delivered', async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    // no event of this test is sent to it: what it receives is the replay's
    const { id: endpointId } = await endpoint(t.demo.organizations.clinic.id, receiver.url, ['insurance.updated']);
    const ids = [
      await delivery(t, endpointId, '2026-03-02T10:00:00Z', 'failed'),
      await delivery(t, endpointId, '2026-03-02T10:01:00Z', 'failed'),
    ];
    const q = queue();
    for (const [kind, handler] of Object.entries(
      (await import('../../src/domain/events/webhookReplays.js')).webhookReplayJobHandlers(t.deps),
    ))
      q.handle(kind, handler);
    expect((await t.rest('POST', `${base}/${endpointId}/replays`, { json: { from: '2026-03-02T00:00:00Z' } })).status).toBe(202);
    await q.runDue(); // the replay's job: both made pending, due now
    await q.runDue(); // the deliveries lane: both sent
    expect(receiver.received).toHaveLength(2);
    const rows = await t.db.prisma.webhookDelivery.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
  });

  it('starts one of two replays asked at the same instant', async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: endpointId } = await endpoint();
    const ask = () => t.rest('POST', `${base}/${endpointId}/replays`, { json: { from: '2026-03-01T00:00:00Z' } });
    const answers = await Promise.all([ask(), ask(), ask()]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    expect(await t.db.prisma.webhookReplay.count({ where: { endpointId } })).toBe(1);
    expect(await t.db.prisma.job.count({ where: { kind: 'webhook.replay' } })).toBe(1);
  });

  it("keeps an endpoint's newest 50 replays", async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: endpointId } = await endpoint();
    const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + i * 3_600_000);
    await t.db.prisma.webhookReplay.createMany({
      data: Array.from({ length: 55 }, (_, i) => ({
        id: randomUUID(),
        endpointId,
        orgId: t.demo.organizations.clinic.id,
        from: at(i),
        to: at(i + 1),
        status: 'completed',
        createdAt: at(i),
        completedAt: at(i),
      })),
    });
    expect((await t.rest('POST', `${base}/${endpointId}/replays`, { json: { from: '2026-03-01T00:00:00Z' } })).status).toBe(202);
    const kept = await t.db.prisma.webhookReplay.findMany({ where: { endpointId }, orderBy: { createdAt: 'asc' } });
    expect(kept).toHaveLength(50);
    expect(kept[0]!.createdAt).toEqual(at(6));
  });

  it('refuses what cannot be a replay, naming the field', async () => {
    t.clock.set('2026-03-03T12:00:00Z');
    const { id: endpointId } = await endpoint();
    for (const [json, field] of [
      [{}, 'from'],
      [{ from: 'yesterday' }, 'from'],
      [{ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'to'],
      [{ from: '2026-03-04T00:00:00Z' }, 'from'],
      [{ from: '2026-03-01T00:00:00Z', extra: 1 }, 'extra'],
    ] as const) {
      const res = await t.rest('POST', `${base}/${endpointId}/replays`, { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      const issue = res.body.errors[0];
      expect(issue.path || issue.message, JSON.stringify(json)).toContain(field);
    }
    await t.rest('PATCH', `${base}/${endpointId}`, { json: { enabled: false } });
    const disabled = await t.rest('POST', `${base}/${endpointId}/replays`, { json: { from: '2026-03-01T00:00:00Z' } });
    expect(disabled.status).toBe(400);
    expect(await t.db.prisma.webhookReplay.count()).toBe(0);
  });
});
