// The agent runtime's side (domain/calls/callDispatch.ts): claims handed to exactly one claimer across
// instances, leases kept by heartbeats and given back when they end, outcomes reported, and every
// request reaching a final state on durable work (jobs/queue.ts) moved by the fake clock.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

const NOW = '2026-03-02T15:00:00Z';

/** The service's durable work, run on demand on the fake clock. */
function jobs(t: TestApp): JobQueue {
  const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
  for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
  return queue;
}

async function place(t: TestApp, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.rest('POST', '/v1/call-requests', {
    json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006', ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.callRequestId;
}

async function claim(t: TestApp, body: Record<string, unknown> = { max: 10 }, fetchFrom?: (req: Request) => Promise<Response>) {
  if (!fetchFrom) {
    const res = await t.rest('POST', '/v1/dispatch/claim', { json: body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.claims;
  }
  const res = await fetchFrom(
    new Request('http://127.0.0.1:4000/v1/dispatch/claim', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json()).data.claims;
}

const step = (t: TestApp, id: string, what: string, json: unknown) => t.rest('POST', `/v1/call-requests/${id}/${what}`, { json });
const stored = (t: TestApp, id: string) => t.deps.db.callRequest.findUniqueOrThrow({ where: { id } });
const eventTypes = async (t: TestApp, id: string) =>
  (await t.deps.db.event.findMany({ where: { subjectId: id }, orderBy: { seq: 'asc' } })).map((e) => `${e.type}:${e.actorKind}`);

describe('a call worked by the runtime', () => {
  it('is claimed with the availability the agent needs, started (its conversation opened) and completed (REST)', async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const [c, ...more] = await claim(t, { max: 5, leaseSeconds: 30 });
    expect(more).toEqual([]);
    expect(c).toMatchObject({
      leaseUntil: '2026-03-02T15:00:30.000Z',
      callRequest: { callRequestId: id, status: 'in_progress', claims: 1 },
    });
    // the clinic has no office hours: closed, with the caller-id number's closed greeting
    expect(c.availability).toMatchObject({
      state: 'CLOSED',
      greeting: 'Downtown main line is closed right now; leave a message and we will call you back.',
    });
    expect(await claim(t)).toEqual([]);

    const started = await step(t, id, 'start', { leaseId: c.leaseId });
    expect(started.body.data).toMatchObject({ status: 'in_progress', startedAt: '2026-03-02T15:00:00.000Z' });
    const conversation = await t.deps.db.conversation.findUniqueOrThrow({ where: { id: started.body.data.conversationId } });
    expect(conversation).toMatchObject({
      medium: 'PHONE',
      toNumber: '+15005550006',
      fromNumber: '+15550101',
      status: 'OPEN',
      botId: t.demo.bots.clinic[0],
    });
    expect((await step(t, id, 'start', { leaseId: c.leaseId })).status).toBe(409);

    t.clock.advance(20_000);
    const done = await step(t, id, 'complete', { leaseId: c.leaseId });
    expect(done.body.data).toMatchObject({
      status: 'completed',
      finishedAt: '2026-03-02T15:00:20.000Z',
      conversationId: conversation.id,
      error: null,
    });
    expect(await eventTypes(t, id)).toEqual(['call_request.queued:apiKey', 'call_request.started:apiKey', 'call_request.completed:apiKey']);
    expect((await step(t, id, 'fail', { leaseId: c.leaseId, error: { code: 'busy', message: 'Busy' } })).status).toBe(409);
  });

  it('fails with a public error, and refuses an unknown code (GraphQL)', async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const claimed = await t.gql(
      'mutation { claimCallRequests(max: 2, leaseSeconds: 60) { leaseId callRequest { id status } availability { state greeting } } }',
    );
    expect(claimed.body.data.claimCallRequests).toHaveLength(1);
    const { leaseId } = claimed.body.data.claimCallRequests[0];
    const bad = await t.rest('POST', `/v1/call-requests/${id}/fail`, { json: { leaseId, error: { code: 'exploded', message: 'x' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain(
      'error.code: must be one of target_unavailable, busy, no_answer, voicemail, rejected, dispatch_timeout',
    );
    const failed = await t.gql(
      'mutation($id: ID!, $l: ID!) { failCallRequest(id: $id, leaseId: $l, error: {code: busy, message: "The line was busy."}) { status error { category code message } } }',
      {
        id,
        l: leaseId,
      },
    );
    expect(failed.body.data.failCallRequest).toEqual({
      status: 'failed',
      error: { category: 'request', code: 'busy', message: 'The line was busy.' },
    });
  });

  it('a heartbeat answers when the lease now ends, on both surfaces (and the lease ends then)', async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const [c] = await claim(t, { max: 1, leaseSeconds: 30 });
    t.clock.advance(10_000);
    const rest = await step(t, id, 'heartbeat', { leaseId: c.leaseId, leaseSeconds: 60 });
    expect(rest.body.data).toMatchObject({ callRequestId: id, status: 'in_progress', leaseUntil: '2026-03-02T15:01:10.000Z' });
    t.clock.advance(10_000);
    const gql = await t.gql(
      'mutation($id: ID!, $l: ID!) { heartbeatCallRequest(id: $id, leaseId: $l, leaseSeconds: 45) { id status claims leaseUntil } }',
      { id, l: c.leaseId },
    );
    expect(gql.body.data).toEqual({
      heartbeatCallRequest: { id, status: 'in_progress', claims: 1, leaseUntil: '2026-03-02T15:01:05.000Z' },
    });
    const queue = jobs(t);
    t.clock.set('2026-03-02T15:01:04.999Z');
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('in_progress');
    t.clock.set('2026-03-02T15:01:05Z');
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('queued');
  });

  it('needs calls:dispatch: the read-only client may not claim', async () => {
    t.clock.set(NOW);
    await place(t);
    const token = await t.accessToken('clinicReadOnly');
    expect((await t.rest('POST', '/v1/dispatch/claim', { json: {}, token })).status).toBe(403);
    expect((await t.gql('mutation { claimCallRequests { leaseId } }', {}, { token })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it("hands out only requests within reach: another tenant's runtime claims nothing of the clinic's, nor steps on them (404)", async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const other = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50 }, token: t.demo.organizations.other.apiKey });
    expect(other.body.data.claims).toEqual([]);
    const [c] = await claim(t);
    const foreign = await t.rest('POST', `/v1/call-requests/${id}/start`, {
      json: { leaseId: c.leaseId },
      token: t.demo.organizations.other.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Call request not found');
  });

  it('does not hand out a request before notBefore, nor one of a disabled organization', async () => {
    t.clock.set(NOW);
    const later = await place(t, { notBefore: '2026-03-02T16:00:00Z' });
    expect(await claim(t)).toEqual([]);
    t.clock.set('2026-03-02T16:00:00Z');
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/disable`);
    expect(await claim(t)).toEqual([]);
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/enable`);
    expect((await claim(t)).map((c: Schemas['CallClaim']) => c.callRequest.callRequestId)).toEqual([later]);
  });
});

describe('every request reaches a final state', () => {
  it('a runtime killed mid-call (no heartbeat): re-queued when its lease ends, then completed by another; the first may no longer act', async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const [first] = await claim(t, { max: 1, leaseSeconds: 30 });
    const firstStart = await step(t, id, 'start', { leaseId: first.leaseId });
    expect(firstStart.status).toBe(200);
    const queue = jobs(t);
    t.clock.advance(29_000);
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('in_progress');
    t.clock.advance(1_000);
    expect(await queue.runDue()).toBe(1);
    expect(await stored(t, id)).toMatchObject({ status: 'queued', attempts: 1, leaseId: null, startedAt: null });
    // the abandoned call's conversation is closed, not left OPEN for ever
    expect(await t.deps.db.conversation.findUniqueOrThrow({ where: { id: firstStart.body.data.conversationId } })).toMatchObject({
      status: 'CLOSED',
      duration: 30,
    });

    const [second] = await claim(t, { max: 1, leaseSeconds: 30 });
    expect(second.callRequest).toMatchObject({ callRequestId: id, claims: 2 });
    expect((await step(t, id, 'complete', { leaseId: first.leaseId })).status).toBe(409);
    expect((await step(t, id, 'start', { leaseId: second.leaseId })).status).toBe(200);
    expect((await step(t, id, 'complete', { leaseId: second.leaseId })).body.data.status).toBe('completed');
    // the old lease's job finds nothing to do
    t.clock.advance(60_000);
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('completed');
    expect(await eventTypes(t, id)).toEqual([
      'call_request.queued:apiKey',
      'call_request.started:apiKey',
      'call_request.queued:system',
      'call_request.started:apiKey',
      'call_request.completed:apiKey',
    ]);
  });

  it('a heartbeat keeps the lease; after 3 leases that ended the request fails with dispatch_timeout', async () => {
    t.clock.set(NOW);
    const id = await place(t);
    const queue = jobs(t);
    const [c] = await claim(t, { max: 1, leaseSeconds: 30 });
    t.clock.advance(20_000);
    const beat = await step(t, id, 'heartbeat', { leaseId: c.leaseId, leaseSeconds: 30 });
    expect(beat.body.data).toMatchObject({ status: 'in_progress', leaseUntil: '2026-03-02T15:00:50.000Z' });
    t.clock.advance(20_000); // past the first lease's end, within the extended one
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('in_progress');
    t.clock.advance(10_000);
    await queue.runDue();
    expect((await stored(t, id)).status).toBe('queued');
    for (let lease = 2; lease <= 3; lease++) {
      const [again] = await claim(t, { max: 1, leaseSeconds: 30 });
      expect(again.callRequest.claims).toBe(lease);
      t.clock.advance(30_000);
      await queue.runDue();
    }
    const polled = await t.rest('GET', `/v1/call-requests/${id}`);
    expect(polled.body.data).toMatchObject({ status: 'failed', claims: 3, error: { category: 'request', code: 'dispatch_timeout' } });
    expect((await eventTypes(t, id)).at(-1)).toBe('call_request.failed:system');
    expect(await claim(t)).toEqual([]);
  });

  it('a started call whose runtime vanishes after notAfter fails with dispatch_timeout (it is not re-queued for ever)', async () => {
    t.clock.set(NOW);
    const id = await place(t, { notAfter: '2026-03-02T15:00:20Z' });
    const queue = jobs(t);
    const [c] = await claim(t, { max: 1, leaseSeconds: 30 });
    expect((await step(t, id, 'start', { leaseId: c.leaseId })).status).toBe(200);
    t.clock.advance(20_000);
    await queue.runDue(); // the expiry: the call had started in time
    expect((await stored(t, id)).status).toBe('in_progress');
    t.clock.advance(10_000);
    await queue.runDue();
    expect(await stored(t, id)).toMatchObject({ status: 'failed', errorCode: 'dispatch_timeout', attempts: 1 });
  });

  it('a request never started by notAfter expires (written by the expiry job, read as expired before it runs)', async () => {
    t.clock.set(NOW);
    const id = await place(t, { notAfter: '2026-03-02T16:00:00Z', notBefore: '2026-03-02T17:00:00Z' }).catch(() => '');
    expect(id).toBe(''); // notBefore after notAfter is refused
    const queued = await place(t, { notAfter: '2026-03-02T16:00:00Z' });
    const queue = jobs(t);
    t.clock.set('2026-03-02T16:00:00Z');
    expect(await claim(t)).toEqual([]);
    expect((await t.rest('GET', `/v1/call-requests/${queued}`)).body.data).toMatchObject({
      status: 'expired',
      finishedAt: '2026-03-02T16:00:00.000Z',
    });
    await queue.runDue();
    expect(await stored(t, queued)).toMatchObject({ status: 'expired' });
    expect(await eventTypes(t, queued)).toEqual(['call_request.queued:apiKey', 'call_request.expired:system']);
  });

  it('every request of a random run ends in a final state', async () => {
    t.clock.set(NOW);
    const queue = jobs(t);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const ids: string[] = [];
    // placed a second apart: claims come in due order, so the seeded outcomes fall on the same requests every run
    // (placed at one instant, they were claimed in the order of their random ids)
    for (let i = 0; i < 30; i++) {
      t.clock.set(new Date(Date.parse(NOW) + i * 1_000).toISOString());
      ids.push(await place(t, { notAfter: new Date(Date.parse(NOW) + (10 + Math.floor(random() * 20)) * 60_000).toISOString() }));
    }
    for (let minute = 0; minute < 40; minute++) {
      for (const c of await claim(t, { max: 3, leaseSeconds: 30 })) {
        const id = c.callRequest.callRequestId;
        const r = random();
        if (r < 0.3) continue; // the runtime vanishes
        if (r < 0.5) await step(t, id, 'fail', { leaseId: c.leaseId, error: { code: 'no_answer', message: 'No answer' } });
        else {
          await step(t, id, 'start', { leaseId: c.leaseId });
          if (r < 0.9) await step(t, id, 'complete', { leaseId: c.leaseId });
        }
      }
      if (random() < 0.2) await t.rest('POST', `/v1/call-requests/${ids[Math.floor(random() * ids.length)]}/cancel`);
      t.clock.advance(60_000);
      while ((await queue.runDue()) > 0);
    }
    const statuses = (await t.deps.db.callRequest.findMany({ where: { id: { in: ids } } })).map((r) => r.status);
    expect(statuses.filter((s) => s === 'queued' || s === 'in_progress')).toEqual([]);
    expect(new Set(statuses).size).toBeGreaterThan(2);
  });
});

describe('officeHoursOnly', () => {
  it('a call queued on a closed evening is claimable at the next opening and not a minute before, across a DST change', async () => {
    const org = t.demo.organizations.clinic.id; // America/New_York: clocks go forward on Sunday 2026-03-08
    for (const dayOfWeek of ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']) {
      const res = await t.rest('POST', `/v1/organizations/${org}/office-hours`, {
        json: { dayOfWeek, isClosed: false, open: '09:00', close: '17:00' },
      });
      expect(res.status).toBe(200);
    }
    t.clock.set('2026-03-06T23:30:00Z'); // Friday 18:30 EST, closed
    const id = await place(t, { officeHoursOnly: true, notAfter: '2026-03-10T00:00:00Z' });
    const plain = await place(t, { notAfter: '2026-03-10T00:00:00Z' });
    expect((await claim(t, { max: 1 })).map((c: Schemas['CallClaim']) => c.callRequest.callRequestId)).toEqual([plain]);
    expect(await claim(t)).toEqual([]);
    t.clock.set('2026-03-09T12:59:00Z'); // Monday 08:59 EDT (09:00 EST would be 14:00Z)
    expect(await claim(t)).toEqual([]);
    t.clock.set('2026-03-09T13:00:00Z'); // Monday 09:00 EDT
    const [c] = await claim(t);
    expect(c.callRequest.callRequestId).toBe(id);
    expect(c.availability).toMatchObject({ state: 'OPEN', greeting: 'Thanks for calling Downtown main line, how can I help?' });
  });

  it('a closure added after queueing holds the call until the closure ends', async () => {
    const org = t.demo.organizations.clinic.id;
    await t.rest('POST', `/v1/organizations/${org}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00' },
    });
    t.clock.set('2026-03-02T15:00:00Z'); // Monday 10:00 EST, open
    const id = await place(t, { officeHoursOnly: true, notBefore: '2026-03-02T16:00:00Z' });
    const closure = await t.rest('POST', `/v1/organizations/${org}/closures`, {
      json: {
        description: 'Staff meeting',
        startAt: '2026-03-02T15:30:00Z',
        endAt: '2026-03-02T16:30:00Z',
        chatGreeting: null,
        phoneGreeting: null,
      },
    });
    expect(closure.status).toBe(200);
    t.clock.set('2026-03-02T16:00:00Z');
    expect(await claim(t)).toEqual([]);
    t.clock.set('2026-03-02T16:29:00Z');
    expect(await claim(t)).toEqual([]);
    t.clock.set('2026-03-02T16:30:00Z');
    expect((await claim(t)).map((c: Schemas['CallClaim']) => c.callRequest.callRequestId)).toEqual([id]);
  });
});

describe('concurrency', () => {
  it('two instances sharing one database never hand out the same request (counted over 1,000)', async () => {
    t.clock.set(NOW);
    const org = t.demo.organizations.clinic.id;
    const total = 1_000;
    // calls at once are capped (callingPolicy.test.ts): here every request may be in progress at once
    await t.deps.db.callingPolicy.create({
      data: {
        orgId: org,
        windows: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
          dayOfWeek,
          start: '00:00',
          end: '24:00',
        })),
        blockedDates: [],
        maxConcurrentCalls: total,
        requireConsentFor: [],
        updatedAt: new Date(NOW),
      },
    });
    await t.deps.db.callRequest.createMany({
      data: Array.from({ length: total }, () => ({
        orgId: org,
        botId: t.demo.bots.clinic[0],
        phoneNumberId: t.demo.phoneNumbers.clinic[0],
        to: '+15005550006',
        status: 'queued' as const,
        createdAt: new Date(NOW),
        dueAt: new Date(NOW),
        expiresAt: new Date(Date.parse(NOW) + 3_600_000),
      })),
    });
    // a second instance: its own app and read model over the same database
    const readModel = new ReadModel(t.deps.db, { ...t.deps.config.readModel, clock: t.clock.now });
    const second = createApp({ ...t.deps, readModel });
    const instances = [(req: Request) => Promise.resolve(t.app.fetch(req)), (req: Request) => Promise.resolve(second.fetch(req))];
    const handed: string[][] = [[], []];
    await Promise.all(
      instances.map(async (fetchFrom, i) => {
        for (;;) {
          const claims = await claim(t, { max: 25 }, fetchFrom);
          if (claims.length === 0) return;
          handed[i]!.push(...claims.map((c: Schemas['CallClaim']) => c.callRequest.callRequestId));
        }
      }),
    );
    const all = [...handed[0]!, ...handed[1]!];
    expect(all.length).toBe(total);
    expect(new Set(all).size).toBe(total);
    expect(handed[0]!.length).toBeGreaterThan(0);
    expect(handed[1]!.length).toBeGreaterThan(0);
    expect(await t.deps.db.event.count({ where: { type: 'call_request.started' } })).toBe(total);
  }, 60_000); // 1,000 claims with their events: a few seconds, more on a busy machine

  it('cancel racing claim: each request is either canceled (and its claim, if any, cannot start) or started, never both', async () => {
    t.clock.set(NOW);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await place(t));
    const [cancels, claims] = await Promise.all([
      Promise.all(ids.map((id) => t.rest('POST', `/v1/call-requests/${id}/cancel`))),
      Promise.all([claim(t, { max: 10 }), claim(t, { max: 10 })]).then((lists) => lists.flat()),
    ]);
    const starts = new Map<string, number>();
    for (const c of claims)
      starts.set(c.callRequest.callRequestId, (await step(t, c.callRequest.callRequestId, 'start', { leaseId: c.leaseId })).status);
    for (const [i, id] of ids.entries()) {
      const row = await stored(t, id);
      const canceled = cancels[i]!.status === 200;
      const started = starts.get(id) === 200;
      expect(canceled !== started, `${id}: canceled ${canceled}, started ${started}`).toBe(true);
      expect(row.status).toBe(canceled ? 'canceled' : 'in_progress');
      if (canceled) expect(row.startedAt).toBeNull();
    }
  });
});
