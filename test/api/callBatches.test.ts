// Call batches (issue 35 §4; domain/calls/callBatches.ts, callBatchProgress.ts): up to 5,000 calls placed in one
// request, all or none, each recipient checked by the rules of a single call; suppressed and repeated numbers skipped;
// the batch's counts per status and disposition; its completion when every request is final (event call_batch.completed);
// cancel; another tenant's batch absent; the limit on batches in progress under concurrent creates; the list of an
// organization's batches (newest first, cursor pages, filters, counts of a page in one statement); both surfaces.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countsOf } from '../../src/domain/calls/callBatchProgress.js';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { LIST_LIMITS } from '../../src/domain/shared/listLimits.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp, type TestApp, type TestResponse } from '../support/testApp.js';

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

describe('the list of batches', () => {
  const LIST = `query($first: Int, $after: String, $orgId: ID, $status: CallBatchStatus, $createdFrom: String, $createdTo: String) {
    callBatches(first: $first, after: $after, orgId: $orgId, status: $status, createdFrom: $createdFrom, createdTo: $createdTo) {
      items { ${BATCH_FIELDS} orgId createdAt } nextCursor } }`;

  /** A batch written directly (creates through the API are held to 20 in progress), with `queued` requests. */
  async function insertBatch(
    t: TestApp,
    createdAt: string,
    o: { orgId?: string; completedAt?: string; canceledAt?: string; queued?: number } = {},
  ): Promise<string> {
    const orgId = o.orgId ?? t.demo.organizations.clinic.id;
    const other = orgId === t.demo.organizations.other.id;
    const batch = await t.deps.db.callBatch.create({
      data: {
        id: randomUUID(),
        orgId,
        botId: other ? t.demo.bots.other[0]! : t.demo.bots.clinic[0]!,
        phoneNumberId: other ? t.demo.phoneNumbers.other[0]! : t.demo.phoneNumbers.clinic[0]!,
        purpose: 'informational',
        officeHoursOnly: false,
        expiresAt: new Date(Date.parse(createdAt) + 30 * 86_400_000),
        recipients: o.queued ?? 0,
        placed: o.queued ?? 0,
        createdAt: new Date(createdAt),
        completedAt: o.completedAt ? new Date(o.completedAt) : null,
        canceledAt: o.canceledAt ? new Date(o.canceledAt) : null,
      },
    });
    for (let i = 0; i < (o.queued ?? 0); i++)
      await t.deps.db.callRequest.create({
        data: { orgId, status: 'queued', expiresAt: batch.expiresAt, batchId: batch.id, batchIndex: i, to: number(i) },
      });
    return batch.id;
  }

  /** Every page of the REST list, following nextCursor. */
  async function allPages(t: TestApp, params: string, token?: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: TestResponse = await t.rest('GET', `/v1/call-batches?${params}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        ...(token ? { token } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(...res.body.data.callBatches.map((b: { callBatchId: string }) => b.callBatchId));
      cursor = res.body.data.pagination.nextCursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  }

  it('answers newest first, ties by id, each batch as GET answers it; the pages cover every batch once', async () => {
    t.clock.set(NOW);
    const placed = await createBatch(t, [{ to: number(0) }, { to: number(1) }], { metadata: { campaign: 'recall' } });
    // three at one instant (ties by id), older ones, and one of another organization between them
    const tied = await Promise.all([0, 1, 2].map(() => insertBatch(t, '2026-03-01T10:00:00Z', { queued: 1 })));
    const older = [];
    for (let i = 0; i < 4; i++) older.push(await insertBatch(t, `2026-02-2${i}T10:00:00Z`));
    await insertBatch(t, '2026-03-01T11:00:00Z', { orgId: t.demo.organizations.other.id });
    const expected = [placed.callBatchId, ...[...tied].sort(), ...older.reverse()];

    const first = await t.rest('GET', '/v1/call-batches');
    expect(first.status).toBe(200);
    expect(first.body.data.pagination).toEqual({ limit: 20, nextCursor: null });
    expect(first.body.data.callBatches.map((b: { callBatchId: string }) => b.callBatchId)).toEqual(expected);
    // the item is the batch's own view, its counts included
    const { callRequests: _placed, ...view } = placed;
    expect(first.body.data.callBatches[0]).toEqual({ ...view, counts: (await getBatch(t, placed.callBatchId)).counts });
    expect(first.body.data.callBatches[0].counts.byStatus.queued).toBe(2);
    expect(first.body.data.callBatches[1].counts).toMatchObject({ total: 1, byStatus: { queued: 1 } });

    for (const limit of [1, 2, 3, 7]) {
      const { ids, pages } = await allPages(t, `limit=${limit}`);
      expect(ids, `limit ${limit}`).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / limit));
    }
    // GraphQL: the same pages
    const gqlIds: string[] = [];
    let after: string | null = null;
    do {
      const res: TestResponse = await t.gql(LIST, { first: 3, after });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      gqlIds.push(...res.body.data.callBatches.items.map((b: { id: string }) => b.id));
      after = res.body.data.callBatches.nextCursor;
    } while (after);
    expect(gqlIds).toEqual(expected);
    const one = (await t.gql(LIST, { first: 1 })).body.data.callBatches.items[0];
    expect(one).toMatchObject({ id: placed.callBatchId, recipients: 2, placed: 2, completedAt: null, placedRequests: null });
    expect(one.counts.byStatus).toContainEqual({ status: 'queued', count: 2 });
  });

  it('reads the counts of a page in a bounded number of statements, however many batches it holds', async () => {
    t.clock.set(NOW);
    for (let i = 0; i < 30; i++) await insertBatch(t, `2026-03-01T${String(10 + (i % 10)).padStart(2, '0')}:0${i % 6}:00Z`, { queued: 2 });
    await t.rest('GET', '/v1/call-batches?limit=1'); // the caches warm
    const small = await t.statements(() => t.rest('GET', '/v1/call-batches?limit=2'));
    const large = await t.statements(() => t.rest('GET', '/v1/call-batches?limit=30'));
    expect(large.result.body.data.callBatches).toHaveLength(30);
    expect(large.result.body.data.callBatches.every((b: { counts: { total: number } }) => b.counts.total === 2)).toBe(true);
    expect(large.sql.length).toBe(small.sql.length);
    expect(large.sql.length).toBeLessThanOrEqual(3);
  });

  it('filters by status (completedAt, canceledAt) and by creation instant; a cursor holds to its filters', async () => {
    t.clock.set(NOW);
    const open = await insertBatch(t, '2026-03-01T09:00:00Z', { queued: 1 });
    const done = await insertBatch(t, '2026-03-01T08:00:00Z', { completedAt: '2026-03-01T12:00:00Z' });
    const canceledDone = await insertBatch(t, '2026-03-01T07:00:00Z', {
      canceledAt: '2026-03-01T07:30:00Z',
      completedAt: '2026-03-01T07:30:00Z',
    });
    // canceled while a call was under way: still in progress
    const canceledOpen = await insertBatch(t, '2026-03-01T06:00:00Z', { canceledAt: '2026-03-01T06:30:00Z', queued: 1 });
    const ids = async (params: string) => (await allPages(t, params)).ids;
    expect(await ids('status=in_progress')).toEqual([open, canceledOpen]);
    expect(await ids('status=completed')).toEqual([done, canceledDone]);
    expect(await ids('status=canceled')).toEqual([canceledDone, canceledOpen]);
    expect(await ids('createdFrom=2026-03-01T07:00:00Z&createdTo=2026-03-01T09:00:00Z')).toEqual([done, canceledDone]);
    expect(await ids('status=completed&createdFrom=2026-03-01T07:30:00%2B00:00&limit=1')).toEqual([done]);
    const gql = await t.gql(LIST, { status: 'canceled', createdTo: '2026-03-01T07:00:00Z' });
    expect(gql.body.data.callBatches.items.map((b: { id: string }) => b.id)).toEqual([canceledOpen]);

    // a cursor of one list does not continue another
    const page = await t.rest('GET', '/v1/call-batches?status=in_progress&limit=1');
    const cursor = encodeURIComponent(page.body.data.pagination.nextCursor);
    expect((await t.rest('GET', `/v1/call-batches?status=in_progress&limit=1&cursor=${cursor}`)).body.data.callBatches).toHaveLength(1);
    const other = await t.rest('GET', `/v1/call-batches?status=completed&limit=1&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.errors).toMatchObject([{ path: 'cursor', message: expect.stringContaining('issued for other filters') }]);
    // nor does a cursor of the list of call requests
    const requests = await t.rest('GET', '/v1/call-requests?limit=1');
    const foreign = encodeURIComponent(requests.body.data.pagination.nextCursor);
    expect((await t.rest('GET', `/v1/call-batches?limit=1&cursor=${foreign}`)).status).toBe(400);
  });

  it('refuses a bad cursor, status, limit or instant with a 400 naming the field, on both surfaces', async () => {
    t.clock.set(NOW);
    for (const [params, path] of [
      ['cursor=made-up.cursor', 'cursor'],
      ['cursor=', 'cursor'],
      ['status=running', 'status'],
      ['status=queued', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['createdTo=2026-03-01', 'createdTo'],
      ['orgId=not-a-uuid', 'orgId'],
    ] as const) {
      const res = await t.rest('GET', `/v1/call-batches?${params}`);
      expect(res.status, params).toBe(400);
      expect(res.body.code, params).toBe('validation_failed');
      expect(res.body.errors[0].path, params).toBe(path);
      // one reason per bad field: a malformed instant is not also reported as out of range
      expect(res.body.errors, params).toHaveLength(1);
    }
    // a filter of another list is not taken silently
    const unknown = await t.rest('GET', `/v1/call-batches?botId=${t.demo.bots.clinic[0]}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('botId');
    for (const [variables, path] of [
      [{ after: 'made-up.cursor' }, 'cursor'],
      [{ first: 0 }, 'limit'],
      [{ first: 101 }, 'limit'],
      [{ createdFrom: 'yesterday' }, 'createdFrom'],
    ] as const) {
      const res = await t.gql(LIST, variables);
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
      expect(res.body.errors[0].extensions.issues[0].path, JSON.stringify(variables)).toBe(path);
    }
    const badEnum = await t.gql(LIST, { status: 'running' });
    expect(badEnum.body.errors[0].message).toContain('CallBatchStatus');
  });

  it("never lists another organization's batches; orgId outside reach is a 404, as on the other lists", async () => {
    t.clock.set(NOW);
    const d = t.demo.organizations;
    const clinic = await insertBatch(t, '2026-03-01T10:00:00Z');
    const account = await insertBatch(t, '2026-03-01T11:00:00Z', { orgId: d.account.id });
    const other = await insertBatch(t, '2026-03-01T12:00:00Z', { orgId: d.other.id });

    expect((await allPages(t, '')).ids).toEqual([clinic]);
    expect((await allPages(t, '', d.other.apiKey)).ids).toEqual([other]);
    expect((await allPages(t, '', d.clinic2.apiKey)).ids).toEqual([]);
    // the account's credential: its own by default, a location's with orgId
    expect((await allPages(t, '', d.account.apiKey)).ids).toEqual([account]);
    expect((await allPages(t, `orgId=${d.clinic.id}`, d.account.apiKey)).ids).toEqual([clinic]);

    const outside = [
      [d.other.id, d.clinic.apiKey], // another tenant
      [d.clinic.id, d.other.apiKey],
      [d.clinic2.id, d.clinic.apiKey], // a sibling location
      [d.account.id, d.clinic.apiKey], // a location does not see its account's batches
      [randomUUID(), d.account.apiKey],
    ] as const;
    for (const [orgId, token] of outside) {
      const res = await t.rest('GET', `/v1/call-batches?orgId=${orgId}`, { token });
      expect(res.status, orgId).toBe(404);
      expect(res.body.message).toBe('Organization not found');
      const gql = await t.gql(LIST, { orgId }, { token });
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(JSON.stringify(gql.body)).not.toContain(other);
    }
    // a cursor issued to one organization's list does not page another's
    const page = await t.rest('GET', `/v1/call-batches?limit=1&orgId=${d.account.id}`, { token: d.account.apiKey });
    expect(page.body.data.pagination.nextCursor).toBeNull();
    await insertBatch(t, '2026-03-01T09:00:00Z', { orgId: d.account.id });
    const two = await t.rest('GET', `/v1/call-batches?limit=1`, { token: d.account.apiKey });
    const cursor = encodeURIComponent(two.body.data.pagination.nextCursor);
    const moved = await t.rest('GET', `/v1/call-batches?limit=1&orgId=${d.clinic.id}&cursor=${cursor}`, { token: d.account.apiKey });
    expect(moved.status).toBe(400);
    expect(moved.body.errors[0].path).toBe('cursor');
  });

  it('needs call-requests:read', async () => {
    t.clock.set(NOW);
    const key = await t.rest('POST', '/v1/api-keys', { json: { name: 'Closures only', scopes: ['closures:read'] } });
    expect(key.status, JSON.stringify(key.body)).toBe(200);
    const res = await t.rest('GET', '/v1/call-batches', { token: key.body.data.apiKey });
    expect(res.status).toBe(403);
    expect((await t.gql(LIST, {}, { token: key.body.data.apiKey })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lists the requests of one batch through GraphQL callRequests(batchId), as GET /v1/call-requests?batchId=', async () => {
    t.clock.set(NOW);
    const batch = await createBatch(t, [{ to: number(0) }, { to: number(1) }, { to: number(2) }]);
    await createBatch(t, [{ to: number(3) }]);
    const rest = await t.rest('GET', `/v1/call-requests?batchId=${batch.callBatchId}`);
    const gql = await t.gql('query($b: ID) { callRequests(batchId: $b) { items { id batchId } nextCursor } }', { b: batch.callBatchId });
    expect(gql.body.errors).toBeUndefined();
    const ids = rest.body.data.callRequests.map((r: { callRequestId: string }) => r.callRequestId);
    expect(ids).toHaveLength(3);
    expect(gql.body.data.callRequests.items.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(gql.body.data.callRequests.items.every((r: { batchId: string }) => r.batchId === batch.callBatchId)).toBe(true);
    const bad = await t.gql('{ callRequests(batchId: "nope") { nextCursor } }');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'batchId' }] });
  });
});
