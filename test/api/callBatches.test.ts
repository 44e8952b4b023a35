// Call batches (issue 35 §4; domain/calls/callBatches.ts, callBatchProgress.ts): up to 5,000 calls placed in one
// request, all or none, each recipient checked by the rules of a single call; suppressed and repeated numbers skipped;
// the batch's counts per status and disposition; its completion when every request is final (event call_batch.completed);
// cancel; another tenant's batch absent; the limit on batches in progress under concurrent creates; both surfaces.
import { describe, expect, it } from 'vitest';
import { countsOf } from '../../src/domain/calls/callBatchProgress.js';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { LIST_LIMITS } from '../../src/domain/shared/listLimits.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

// a Monday at 15:00 UTC: within the default calling windows (08:00–21:00) in New York
const NOW = '2026-03-02T15:00:00Z';
const number = (i: number) => `+1415${String(2_000_000 + i)}`;

const batchBody = (t: TestApp, recipients: unknown[], extra: Record<string, unknown> = {}) => ({
  botId: t.demo.bots.clinic[0],
  phoneNumberId: t.demo.phoneNumbers.clinic[0],
  recipients,
  ...extra,
});

async function createBatch(t: TestApp, recipients: unknown[], extra: Record<string, unknown> = {}, token?: string) {
  const res = await t.rest('POST', '/v1/call-batches', { json: batchBody(t, recipients, extra), ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body.data;
}

const getBatch = async (t: TestApp, id: string) => {
  const res = await t.rest('GET', `/v1/call-batches/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

const claim = async (t: TestApp, max = 50) => {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max, leaseSeconds: 600 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.claims as { leaseId: string; callRequest: { callRequestId: string; batchId: string | null; dueAt: string } }[];
};
const step = (t: TestApp, id: string, what: string, json: unknown) => t.rest('POST', `/v1/call-requests/${id}/${what}`, { json });

function jobs(t: TestApp): JobQueue {
  const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
  for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
  return queue;
}

const eventsOf = (t: TestApp, id: string) =>
  t.deps.db.event.findMany({ where: { subjectId: id }, orderBy: { seq: 'asc' }, select: { type: true, data: true, actorKind: true } });

const BATCH_FIELDS = `id recipients placed skipped { index reason } completedAt canceledAt
  counts { total byStatus { status count } byDisposition { disposition count } } placedRequests { index callRequestId }`;
const CREATE = `mutation($input: CreateCallBatchInput!) { createCallBatch(input: $input) { ${BATCH_FIELDS} } }`;
const GET = `query($id: ID!, $status: CallRequestStatus) { callBatch(id: $id) { ${BATCH_FIELDS}
  callRequests(first: 2, status: $status) { items { id batchId batchIndex status } nextCursor } } }`;
const CANCEL = `mutation($id: ID!) { cancelCallBatch(id: $id) { ${BATCH_FIELDS} } }`;

describe('creating a batch', () => {
  it('places every recipient as a call request of the batch, skipping suppressed and repeated numbers', async () => {
    t.clock.set(NOW);
    await t.rest('POST', '/v1/suppressions', { json: { number: number(2) } });
    const recipients = [
      { to: number(0), calleeTimezone: 'America/New_York', metadata: { patient: 'p0' } },
      { to: number(1), notBefore: '2026-03-02T18:00:00Z' },
      { to: number(2) },
      // the first number again, written otherwise
      { to: '+1 (415) 200-0000'.replace(/[ ()-]/g, '') },
    ];
    const batch = await createBatch(t, recipients, { metadata: { campaign: 'recall' }, notAfter: '2026-03-05T00:00:00Z' });
    expect(batch).toMatchObject({
      recipients: 4,
      placed: 2,
      skipped: [
        { index: 2, reason: 'suppressed' },
        { index: 3, reason: 'duplicate' },
      ],
      completedAt: null,
      counts: { total: 2, byStatus: { queued: 2, in_progress: 0 } },
    });
    expect(batch.callRequests.map((c: { index: number }) => c.index)).toEqual([0, 1]);
    const [first, second] = batch.callRequests as { callRequestId: string }[];
    const one = (await t.rest('GET', `/v1/call-requests/${first!.callRequestId}`)).body.data;
    expect(one).toMatchObject({
      to: number(0),
      batchId: batch.callBatchId,
      batchIndex: 0,
      calleeTimezone: 'America/New_York',
      metadata: { campaign: 'recall', patient: 'p0' },
      expiresAt: '2026-03-05T00:00:00.000Z',
      status: 'queued',
    });
    const two = (await t.rest('GET', `/v1/call-requests/${second!.callRequestId}`)).body.data;
    expect(two).toMatchObject({ batchIndex: 1, notBefore: '2026-03-02T18:00:00.000Z', dueAt: '2026-03-02T18:00:00.000Z' });
    // its expiry is durable work like a single call's
    expect(await t.deps.db.job.count({ where: { id: { in: [first!.callRequestId, second!.callRequestId] } } })).toBe(2);
    // one event for the batch, by the caller (not one per request)
    const events = await eventsOf(t, batch.callBatchId);
    expect(events.map((e) => e.type)).toEqual(['call_batch.created']);
    expect(events[0]!.data).toMatchObject({ placed: 2, skippedCount: 2 });
    expect(await t.deps.db.event.count({ where: { type: 'call_request.queued' } })).toBe(0);
  });

  it('refuses a bad row naming the first 20 bad rows by index, and writes nothing', async () => {
    t.clock.set(NOW);
    const recipients = Array.from({ length: 1_000 }, (_, i) => ({ to: number(i) }));
    for (let i = 0; i < 25; i++) recipients[100 + i * 7] = { to: i % 2 ? '555-0143' : '+1 000' };
    const res = await t.rest('POST', '/v1/call-batches', { json: batchBody(t, recipients) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const named = [...(res.body.message as string).matchAll(/recipients\.(\d+)\.to/g)].map((m) => Number(m[1]));
    expect(named).toEqual(Array.from({ length: 20 }, (_, i) => 100 + i * 7));
    expect(res.body.message).toMatch(/; and 5 more issues$/);
    expect(res.body.errors[0]).toMatchObject({ path: 'recipients.100.to' });

    // the checks of a single call, per row: a zone, a notBefore after notAfter, consent for marketing
    const policyChecks = await t.rest('POST', '/v1/call-batches', {
      json: batchBody(
        t,
        [
          { to: number(1) },
          { to: number(2), calleeTimezone: 'Mars/Olympus' },
          { to: number(3), notBefore: '2026-03-10T00:00:00Z' },
          { to: number(4), consent: { basis: 'express', obtainedAt: '2026-01-01T00:00:00Z', source: 'intake form' } },
          { to: number(5), unknown: 1 },
        ],
        { purpose: 'marketing', notAfter: '2026-03-04T00:00:00Z' },
      ),
    });
    expect(policyChecks.status).toBe(400);
    expect(policyChecks.body.errors.map((e: { path: string }) => e.path)).toEqual(['recipients.1.calleeTimezone', 'recipients.4']);
    const second = await t.rest('POST', '/v1/call-batches', {
      json: batchBody(
        t,
        [
          { to: number(1) },
          { to: number(3), notBefore: '2026-03-10T00:00:00Z' },
          { to: number(4), consent: { basis: 'express', obtainedAt: '2026-01-01T00:00:00Z', source: 'intake form' } },
        ],
        { purpose: 'marketing', notAfter: '2026-03-04T00:00:00Z' },
      ),
    });
    expect(second.status).toBe(400);
    expect(second.body.errors).toMatchObject([
      { path: 'recipients.0.consent', message: expect.stringContaining('marketing call needs consent') },
      // a row's first refusal (as a single call's create answers it)
      { path: 'recipients.1.notBefore', message: 'must be before notAfter' },
    ]);
    // a batch without a calling window before its notAfter in a recipient's zone names that row
    await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/calling-policy`, {
      json: { windows: [{ dayOfWeek: 'MONDAY', start: '09:00', end: '12:00' }], maxConcurrentCalls: 10 },
    });
    const closed = await t.rest('POST', '/v1/call-batches', {
      json: batchBody(
        t,
        [
          { to: number(1), calleeTimezone: 'America/New_York' },
          { to: number(2), calleeTimezone: 'Asia/Tokyo' },
        ],
        {
          notAfter: '2026-03-02T16:30:00Z',
        },
      ),
    });
    expect(closed.status).toBe(400);
    expect(closed.body.errors).toMatchObject([{ path: 'recipients.1.notAfter', message: expect.stringContaining('Asia/Tokyo') }]);

    expect(await t.deps.db.callBatch.count()).toBe(0);
    expect(await t.deps.db.callRequest.count({ where: { batchId: { not: null } } })).toBe(0);
  });

  it('refuses 5,001 recipients and an empty list; takes 5,000', async () => {
    t.clock.set(NOW);
    const recipients = Array.from({ length: 5_001 }, (_, i) => ({ to: number(i) }));
    const tooMany = await t.rest('POST', '/v1/call-batches', { json: batchBody(t, recipients) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe('recipients: must have at most 5000 recipients');
    expect((await t.rest('POST', '/v1/call-batches', { json: batchBody(t, []) })).body.message).toBe('recipients: must not be empty');
    expect(await t.deps.db.callBatch.count()).toBe(0);

    const started = performance.now();
    const batch = await createBatch(t, recipients.slice(0, 5_000));
    const ms = performance.now() - started;
    expect(batch.placed).toBe(5_000);
    expect(await t.deps.db.callRequest.count({ where: { batchId: batch.callBatchId } })).toBe(5_000);
    expect(await t.deps.db.job.count({ where: { kind: 'call_request.expire' } })).toBe(5_000);
    console.info(`5,000-recipient batch created in ${ms.toFixed(0)} ms`);
  });

  it('creates a batch whose every recipient is suppressed completed at once', async () => {
    t.clock.set(NOW);
    await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers: [number(0), number(1)] } });
    const batch = await createBatch(t, [{ to: number(0) }, { to: number(1) }, { to: number(0) }]);
    expect(batch).toMatchObject({
      placed: 0,
      skipped: [
        { index: 0, reason: 'suppressed' },
        { index: 1, reason: 'suppressed' },
        { index: 2, reason: 'duplicate' },
      ],
      completedAt: '2026-03-02T15:00:00.000Z',
      counts: { total: 0 },
    });
    expect((await eventsOf(t, batch.callBatchId)).map((e) => e.type)).toEqual(['call_batch.created', 'call_batch.completed']);
  });
});

describe('progress', () => {
  it('counts per status and disposition as requests are claimed and end, and completes with the last one', async () => {
    t.clock.set(NOW);
    const batch = await createBatch(
      t,
      Array.from({ length: 5 }, (_, i) => ({ to: number(i) })),
      { retry: { maxAttempts: 2, intervalsMinutes: [60] } },
    );
    const id = batch.callBatchId;
    const claims = await claim(t, 3);
    expect(claims).toHaveLength(3);
    expect(claims.every((c) => c.callRequest.batchId === id)).toBe(true);
    expect((await getBatch(t, id)).counts.byStatus).toMatchObject({ queued: 2, in_progress: 3 });

    const [a, b, c] = claims;
    expect((await step(t, a!.callRequest.callRequestId, 'start', { leaseId: a!.leaseId })).status).toBe(200);
    expect((await step(t, a!.callRequest.callRequestId, 'complete', { leaseId: a!.leaseId, disposition: 'booked' })).status).toBe(200);
    // busy: retried in an hour (queued again), then failed for good on the second busy
    expect(
      (await step(t, b!.callRequest.callRequestId, 'fail', { leaseId: b!.leaseId, error: { code: 'busy', message: 'Busy.' } })).body.data
        .status,
    ).toBe('queued');
    expect((await step(t, c!.callRequest.callRequestId, 'start', { leaseId: c!.leaseId })).status).toBe(200);
    expect((await step(t, c!.callRequest.callRequestId, 'complete', { leaseId: c!.leaseId, disposition: 'opt_out' })).status).toBe(200);
    let now = await getBatch(t, id);
    expect(now.counts).toMatchObject({
      total: 5,
      byStatus: { queued: 3, in_progress: 0, completed: 2 },
      byDisposition: { booked: 1, opt_out: 1, declined: 0 },
    });
    expect(now.completedAt).toBeNull();

    // the rest: two answered and declined, the busy one busy again an hour later (out of attempts)
    for (const next of await claim(t)) {
      await step(t, next.callRequest.callRequestId, 'start', { leaseId: next.leaseId });
      await step(t, next.callRequest.callRequestId, 'complete', { leaseId: next.leaseId, disposition: 'declined' });
    }
    expect((await getBatch(t, id)).completedAt).toBeNull();
    t.clock.set('2026-03-02T16:00:00Z');
    const [again] = await claim(t);
    expect(again!.callRequest.callRequestId).toBe(b!.callRequest.callRequestId);
    const failed = await step(t, again!.callRequest.callRequestId, 'fail', {
      leaseId: again!.leaseId,
      error: { code: 'busy', message: 'Busy.' },
    });
    expect(failed.body.data.status).toBe('failed');
    now = await getBatch(t, id);
    expect(now).toMatchObject({
      completedAt: '2026-03-02T16:00:00.000Z',
      counts: { byStatus: { queued: 0, completed: 4, failed: 1 }, byDisposition: { booked: 1, opt_out: 1, declined: 2 } },
    });
    const events = await eventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual(['call_batch.created', 'call_batch.completed']);
    expect(events[1]).toMatchObject({ actorKind: 'system', data: { completedAt: '2026-03-02T16:00:00.000Z' } });
    // the completion comes after the event of the request that ended the batch
    const order = await t.deps.db.event.findMany({ orderBy: { seq: 'desc' }, take: 2, select: { type: true } });
    expect(order.map((e) => e.type)).toEqual(['call_batch.completed', 'call_request.failed']);

    // its pages, newest first, by cursor; filtered
    const page = await t.rest('GET', `/v1/call-batches/${id}/call-requests?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.callRequests).toHaveLength(2);
    const rest = await t.rest(
      'GET',
      `/v1/call-batches/${id}/call-requests?limit=10&cursor=${encodeURIComponent(page.body.data.pagination.nextCursor)}`,
    );
    expect(rest.body.data.callRequests).toHaveLength(3);
    const declined = await t.rest('GET', `/v1/call-batches/${id}/call-requests?disposition=declined`);
    expect(declined.body.data.callRequests).toHaveLength(2);
  });

  it('completes when its last requests expire (the expiry job), and a batch request is claimed in dueAt order beside single calls', async () => {
    t.clock.set(NOW);
    const single = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: number(900) },
    });
    t.clock.set('2026-03-02T15:01:00Z');
    const batch = await createBatch(t, [{ to: number(0) }, { to: number(1) }], { notAfter: '2026-03-02T17:00:00Z' });
    t.clock.set('2026-03-02T15:02:00Z');
    const later = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: number(901) },
    });
    // one at a time: the single call due first, then the batch's two, then the later single call
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push(...(await claim(t, 1)).map((c) => c.callRequest.callRequestId));
    const ids = batch.callRequests.map((c: { callRequestId: string }) => c.callRequestId).sort();
    expect(order[0]).toBe(single.body.data.callRequestId);
    expect(order.slice(1, 3).sort()).toEqual(ids);
    expect(order[3]).toBe(later.body.data.callRequestId);

    // never started: the leases end (given back), then notAfter passes and the expiry jobs end them
    t.clock.set('2026-03-02T17:00:00Z');
    expect((await getBatch(t, batch.callBatchId)).counts.byStatus).toMatchObject({ expired: 2 });
    expect((await getBatch(t, batch.callBatchId)).completedAt).toBeNull();
    const queue = jobs(t);
    await queue.runDue();
    await queue.runDue();
    const done = await getBatch(t, batch.callBatchId);
    expect(done.completedAt).toBe('2026-03-02T17:00:00.000Z');
    expect(done.counts.byStatus).toMatchObject({ expired: 2, queued: 0, in_progress: 0 });
  });
});

describe('completion under concurrency', () => {
  it('completes a batch exactly once when its last two calls end at the same time', async () => {
    t.clock.set(NOW);
    for (let round = 0; round < 3; round++) {
      const batch = await createBatch(t, [{ to: number(10 + round * 2) }, { to: number(11 + round * 2) }]);
      const claims = (await claim(t)).filter((c) => c.callRequest.batchId === batch.callBatchId);
      expect(claims).toHaveLength(2);
      for (const c of claims) expect((await step(t, c.callRequest.callRequestId, 'start', { leaseId: c.leaseId })).status).toBe(200);
      const done = await Promise.all(
        claims.map((c) => step(t, c.callRequest.callRequestId, 'complete', { leaseId: c.leaseId, disposition: 'booked' })),
      );
      expect(done.map((r) => r.status)).toEqual([200, 200]);
      const read = await getBatch(t, batch.callBatchId);
      expect(read.completedAt).not.toBeNull();
      expect(read.counts.byDisposition.booked).toBe(2);
      const events = (await eventsOf(t, batch.callBatchId)).map((e) => e.type);
      expect(events).toEqual(['call_batch.created', 'call_batch.completed']);
    }
  });

  it('answers a batch status read of 5,000 requests quickly while it runs', async () => {
    t.clock.set(NOW);
    const batch = await createBatch(
      t,
      Array.from({ length: 5_000 }, (_, i) => ({ to: number(i) })),
    );
    await claim(t, 10);
    const http: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 100; i++) {
      let started = performance.now();
      const read = await getBatch(t, batch.callBatchId);
      http.push(performance.now() - started);
      expect(read.counts.byStatus.in_progress).toBe(10);
      started = performance.now();
      await countsOf(t.deps.db, batch.callBatchId, t.clock.now());
      counts.push(performance.now() - started);
    }
    const at = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.ceil(q * list.length) - 1]!.toFixed(1);
    console.info(
      `batch status read over 5,000 requests: HTTP in process p50 ${at(http, 0.5)} ms, p99 ${at(http, 0.99)} ms; the counts' statement p50 ${at(counts, 0.5)} ms, p99 ${at(counts, 0.99)} ms`,
    );
  });
});

describe('cancel', () => {
  it('cancels what has not started; a call under way finishes and then completes the batch', async () => {
    t.clock.set(NOW);
    const batch = await createBatch(
      t,
      Array.from({ length: 4 }, (_, i) => ({ to: number(i) })),
    );
    const [started, claimedOnly] = await claim(t, 2);
    await step(t, started!.callRequest.callRequestId, 'start', { leaseId: started!.leaseId });
    const res = await t.rest('POST', `/v1/call-batches/${batch.callBatchId}/cancel`, { json: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      canceledAt: '2026-03-02T15:00:00.000Z',
      completedAt: null,
      counts: { byStatus: { canceled: 3, in_progress: 1, queued: 0 } },
    });
    // the claimed-but-not-started one's runtime finds its lease gone
    expect((await step(t, claimedOnly!.callRequest.callRequestId, 'start', { leaseId: claimedOnly!.leaseId })).status).toBe(409);
    // nothing of it is handed out any more, and its jobs are gone
    expect(await claim(t)).toEqual([]);
    expect(await t.deps.db.job.count({ where: { id: claimedOnly!.callRequest.callRequestId } })).toBe(0);
    await step(t, started!.callRequest.callRequestId, 'complete', { leaseId: started!.leaseId, disposition: 'information_given' });
    const done = await getBatch(t, batch.callBatchId);
    expect(done.completedAt).toBe('2026-03-02T15:00:00.000Z');
    expect((await eventsOf(t, batch.callBatchId)).map((e) => e.type)).toEqual([
      'call_batch.created',
      'call_batch.canceled',
      'call_batch.completed',
    ]);
    // a completed batch has nothing to cancel
    expect((await t.rest('POST', `/v1/call-batches/${batch.callBatchId}/cancel`, { json: {} })).status).toBe(409);
  });
});

describe('tenancy and limits', () => {
  it("answers another organization's batch 404 on every route and both surfaces; read needs call-requests:read", async () => {
    t.clock.set(NOW);
    const batch = await createBatch(t, [{ to: number(0) }]);
    const other = t.demo.organizations.other.apiKey;
    for (const [method, path] of [
      ['GET', `/v1/call-batches/${batch.callBatchId}`],
      ['GET', `/v1/call-batches/${batch.callBatchId}/call-requests`],
      ['POST', `/v1/call-batches/${batch.callBatchId}/cancel`],
    ] as const) {
      const res = await t.rest(method, path, { token: other, ...(method === 'POST' ? { json: {} } : {}) });
      expect(res.status, path).toBe(404);
      expect(res.body.message).toBe('Call batch not found');
    }
    const gql = await t.gql(GET, { id: batch.callBatchId }, { token: other });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // the other organization's bot cannot be used for the clinic's recipients either
    const res = await t.rest('POST', '/v1/call-batches', { json: batchBody(t, [{ to: number(1) }]), token: other });
    expect(res.status).toBe(404);
    expect((await getBatch(t, batch.callBatchId)).canceledAt).toBeNull();
    expect((await t.rest('GET', `/v1/call-batches/not-a-uuid`)).status).toBe(400);
  });

  it(`holds ${LIST_LIMITS.callBatches} batches in progress under concurrent creates; a completed one does not count`, async () => {
    t.clock.set(NOW);
    for (let i = 0; i < LIST_LIMITS.callBatches - 2; i++) await createBatch(t, [{ to: number(i) }]);
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.rest('POST', '/v1/call-batches', { json: batchBody(t, [{ to: number(100 + i) }]) })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 200, 409, 409, 409, 409]);
    expect(racing.find((r) => r.status === 409)!.body.message).toContain(`at most ${LIST_LIMITS.callBatches} call batches in progress`);
    expect(await t.deps.db.callBatch.count()).toBe(LIST_LIMITS.callBatches);
    // an all-skipped batch is completed at once: not in progress, so it is taken
    await t.rest('POST', '/v1/suppressions', { json: { number: number(500) } });
    expect((await createBatch(t, [{ to: number(500) }])).completedAt).not.toBeNull();
    // canceling one (nothing started) completes it and frees a place
    const open = await t.deps.db.callBatch.findFirstOrThrow({ where: { completedAt: null } });
    expect((await t.rest('POST', `/v1/call-batches/${open.id}/cancel`, { json: {} })).body.data.completedAt).not.toBeNull();
    await createBatch(t, [{ to: number(600) }]);
  });

  it('replays a create sent again with its Idempotency-Key, placing nothing twice', async () => {
    t.clock.set(NOW);
    const body = batchBody(t, [{ to: number(0) }, { to: number(1) }]);
    const first = await t.rest('POST', '/v1/call-batches', { json: body, headers: { 'Idempotency-Key': 'campaign-1' } });
    const again = await t.rest('POST', '/v1/call-batches', { json: body, headers: { 'Idempotency-Key': 'campaign-1' } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.data.callBatchId).toBe(first.body.data.callBatchId);
    expect(await t.deps.db.callBatch.count()).toBe(1);
    expect(await t.deps.db.callRequest.count()).toBeGreaterThanOrEqual(2);
  });
});

describe('GraphQL', () => {
  it('creates, reads with its requests and cancels a batch with the verdicts of REST', async () => {
    t.clock.set(NOW);
    await t.rest('POST', '/v1/suppressions', { json: { number: number(9) } });
    const input = {
      botId: t.demo.bots.clinic[0],
      phoneNumberId: t.demo.phoneNumbers.clinic[0],
      metadata: [{ key: 'campaign', value: 'recall' }],
      recipients: [{ to: number(0), metadata: [{ key: 'patient', value: 'p0' }] }, { to: number(9) }, { to: number(1) }],
    };
    const created = await t.gql(CREATE, { input });
    expect(created.body.errors).toBeUndefined();
    const batch = created.body.data.createCallBatch;
    expect(batch).toMatchObject({ recipients: 3, placed: 2, skipped: [{ index: 1, reason: 'SUPPRESSED'.toLowerCase() }] });
    expect(batch.placedRequests.map((p: { index: number }) => p.index)).toEqual([0, 2]);
    expect(batch.counts.byStatus).toContainEqual({ status: 'queued', count: 2 });

    const read = await t.gql(GET, { id: batch.id, status: 'queued' });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.callBatch.placedRequests).toBeNull();
    expect(read.body.data.callBatch.callRequests.items).toHaveLength(2);
    expect(read.body.data.callBatch.callRequests.items[0]).toMatchObject({ batchId: batch.id, status: 'queued' });

    const bad = await t.gql(CREATE, { input: { ...input, recipients: [{ to: number(3) }, { to: 'nope' }] } });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'recipients.1.to' }] });

    const canceled = await t.gql(CANCEL, { id: batch.id });
    expect(canceled.body.errors).toBeUndefined();
    expect(canceled.body.data.cancelCallBatch).toMatchObject({
      canceledAt: '2026-03-02T15:00:00.000Z',
      completedAt: '2026-03-02T15:00:00.000Z',
    });
    expect(canceled.body.data.cancelCallBatch.counts.byStatus).toContainEqual({ status: 'canceled', count: 2 });
  });
});
