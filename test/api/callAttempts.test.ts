// Recall campaigns (issue 35 §1–3; domain/calls/callAttempts.ts, callDispatch.ts): a call request lists its attempts,
// retries a busy, no_answer or voicemail outcome by its retry policy (its own or the calling policy's) at the first
// instant the calling policy allows in the callee's zone — across daylight-saving changes — and keeps what the call
// came to (disposition, notes, data), placing a linked follow-up for a callback, on both surfaces.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
/** Calls only from 09:00 to 12:00 in the callee's zone, every day. */
const MORNINGS = { windows: EVERY_DAY.map((dayOfWeek) => ({ dayOfWeek, start: '09:00', end: '12:00' })), maxConcurrentCalls: 10 };
const RECALL = { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 4, intervalsMinutes: [60, 1440] };

// Cuba springs forward at midnight between Saturday 7 and Sunday 8 March 2026 (UTC-5 → UTC-4)
const HAVANA = 'America/Havana';
const SATURDAY_1130_HAVANA = '2026-03-07T16:30:00Z';
// Lord Howe Island falls back half an hour at 02:00 on Sunday 5 April 2026 (UTC+11 → UTC+10:30)
const LORD_HOWE = 'Australia/Lord_Howe';
const SATURDAY_0930_LORD_HOWE = '2026-04-03T22:30:00Z';

async function setPolicy(t: TestApp, body: unknown) {
  const res = await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/calling-policy`, { json: body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const callBody = (t: TestApp, extra: Record<string, unknown> = {}) => ({
  botId: t.demo.bots.clinic[0],
  phoneNumberId: t.demo.phoneNumbers.clinic[0],
  to: '+15005550007',
  ...extra,
});

async function place(t: TestApp, extra: Record<string, unknown> = {}) {
  const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Claims due requests: their leases by request id. */
async function claimAll(t: TestApp): Promise<Map<string, string>> {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50, leaseSeconds: 600 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map(
    res.body.data.claims.map((c: { leaseId: string; callRequest: { callRequestId: string } }) => [c.callRequest.callRequestId, c.leaseId]),
  );
}

/** Claims due requests and answers the lease of `id`, or null when it is not handed out. */
async function claimOf(t: TestApp, id: string): Promise<string | null> {
  return (await claimAll(t)).get(id) ?? null;
}

const step = (t: TestApp, id: string, what: string, json: unknown, token?: string) =>
  t.rest('POST', `/v1/call-requests/${id}/${what}`, { json, ...(token ? { token } : {}) });
const busy = (leaseId: string, code = 'busy') => ({ leaseId, error: { code, message: `The line said ${code}.` } });
const eventsOf = async (t: TestApp, id: string) =>
  t.deps.db.event.findMany({ where: { subjectId: id }, orderBy: { seq: 'asc' }, select: { type: true, data: true } });
const localTime = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toFormat('ccc HH:mm');

const ATTEMPT_FIELDS = 'n claimedAt startedAt endedAt outcome error { category code message } conversationId';
const REQUEST_FIELDS = `id status dueAt claims attempts { ${ATTEMPT_FIELDS} } error { code } retry { on maxAttempts intervalsMinutes }
  disposition notes data followUpOf followUpId`;
const CLAIM = `mutation { claimCallRequests(max: 50, leaseSeconds: 600) { leaseId callRequest { id } } }`;
const FAIL = `mutation($id: ID!, $l: ID!, $code: CallFailureCode!) {
  failCallRequest(id: $id, leaseId: $l, error: {code: $code, message: "No luck."}) { ${REQUEST_FIELDS} }
}`;
const START = 'mutation($id: ID!, $l: ID!) { startCallRequest(id: $id, leaseId: $l) { id conversationId } }';
const COMPLETE = `mutation($id: ID!, $l: ID!, $disposition: CallDisposition, $notes: String, $data: JSON, $callbackAt: String) {
  completeCallRequest(id: $id, leaseId: $l, disposition: $disposition, notes: $notes, data: $data, callbackAt: $callbackAt) { ${REQUEST_FIELDS} }
}`;
const CREATE = `mutation($input: CreateCallRequestInput!) { createCallRequest(input: $input) { ${REQUEST_FIELDS} } }`;
const GET = `query($id: ID!) { callRequest(id: $id) { ${REQUEST_FIELDS} } }`;

async function gqlClaimOf(t: TestApp, id: string): Promise<string | null> {
  const res = await t.gql(CLAIM);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.claimCallRequests.find((c: { callRequest: { id: string } }) => c.callRequest.id === id)?.leaseId ?? null;
}

describe('retries (REST)', () => {
  it('retry a busy, no_answer or voicemail outcome at the first instant of the callee’s window after the interval, across a DST change', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const call = await place(t, { calleeTimezone: HAVANA, notAfter: '2026-03-14T00:00:00Z', retry: RECALL });
    expect(call).toMatchObject({ dueAt: '2026-03-07T16:30:00.000Z', claims: 0, attempts: [], retry: RECALL });
    const id = call.callRequestId;

    // 1: busy at 11:30 → an hour later is 12:30, past the window → Sunday 09:00, which is UTC-4 since midnight
    const first = await claimOf(t, id);
    const afterBusy = await step(t, id, 'fail', busy(first!));
    expect(afterBusy.status, JSON.stringify(afterBusy.body)).toBe(200);
    expect(afterBusy.body.data).toMatchObject({ status: 'queued', dueAt: '2026-03-08T13:00:00.000Z', error: null, claims: 1 });
    expect(afterBusy.body.data.attempts).toEqual([
      {
        n: 1,
        claimedAt: '2026-03-07T16:30:00.000Z',
        startedAt: null,
        endedAt: '2026-03-07T16:30:00.000Z',
        outcome: 'busy',
        error: { category: 'request', code: 'busy', message: 'The line said busy.' },
        conversationId: null,
      },
    ]);
    // the old lease is spent
    expect((await step(t, id, 'fail', busy(first!))).status).toBe(409);

    // not handed out a minute early (08:59 in Havana; 09:59 by the old offset)
    t.clock.set('2026-03-08T12:59:00Z');
    expect(await claimOf(t, id)).toBeNull();
    t.clock.set('2026-03-08T13:00:00Z');
    const second = await claimOf(t, id);
    expect(second).not.toBeNull();
    // 2: no answer → the second interval, a day: Monday 09:00
    const afterNoAnswer = await step(t, id, 'fail', busy(second!, 'no_answer'));
    expect(afterNoAnswer.body.data).toMatchObject({ status: 'queued', dueAt: '2026-03-09T13:00:00.000Z' });

    // 3: claimed Monday 10:30, answered by a voicemail box → the last interval (a day) repeats: Tuesday 10:30:40
    t.clock.set('2026-03-09T14:30:00Z');
    const third = await claimOf(t, id);
    const started = await step(t, id, 'start', { leaseId: third });
    expect(started.status).toBe(200);
    t.clock.advance(40_000);
    const afterVoicemail = await step(t, id, 'fail', busy(third!, 'voicemail'));
    expect(afterVoicemail.body.data).toMatchObject({ status: 'queued', dueAt: '2026-03-10T14:30:40.000Z', startedAt: null });

    // 4: busy again, attempts spent: failed with the last outcome
    t.clock.set('2026-03-10T14:30:40Z');
    const fourth = await claimOf(t, id);
    const final = await step(t, id, 'fail', busy(fourth!));
    expect(final.body.data).toMatchObject({ status: 'failed', error: { code: 'busy' }, claims: 4 });
    const attempts = final.body.data.attempts as { n: number; outcome: string; claimedAt: string; conversationId: string | null }[];
    expect(attempts.map((a) => [a.n, a.outcome])).toEqual([
      [1, 'busy'],
      [2, 'no_answer'],
      [3, 'voicemail'],
      [4, 'busy'],
    ]);
    expect(attempts[2]).toMatchObject({
      startedAt: '2026-03-09T14:30:00.000Z',
      endedAt: '2026-03-09T14:30:40.000Z',
      conversationId: started.body.data.conversationId,
    });
    // every attempt started inside the callee's calling window
    expect(attempts.map((a) => localTime(a.claimedAt, HAVANA))).toEqual(['Sat 11:30', 'Sun 09:00', 'Mon 10:30', 'Tue 10:30']);
    expect((await t.rest('GET', `/v1/call-requests/${id}`)).body.data).toEqual(final.body.data);

    const events = await eventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual([
      'call_request.queued',
      'call_request.started',
      'call_request.attempt_failed',
      'call_request.retry_scheduled',
      'call_request.started',
      'call_request.attempt_failed',
      'call_request.retry_scheduled',
      'call_request.started',
      'call_request.attempt_failed',
      'call_request.retry_scheduled',
      'call_request.started',
      // the last attempt's failure is the request's
      'call_request.failed',
    ]);
    expect(events[3]!.data).toMatchObject({ status: 'queued', dueAt: '2026-03-08T13:00:00.000Z' });
  });

  it('fails at once when no allowed instant is left before notAfter, or the outcome is not one to retry', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    // notAfter before Sunday's window: the retry has nowhere to go
    const short = (await place(t, { calleeTimezone: HAVANA, notAfter: '2026-03-08T12:00:00Z', retry: RECALL })).callRequestId;
    const rejected = (await place(t, { calleeTimezone: HAVANA, to: '+15005550006', retry: RECALL })).callRequestId;
    const leases = await claimAll(t);
    const shortLease = leases.get(short);
    const rejectedLease = leases.get(rejected);
    expect((await step(t, short, 'fail', busy(shortLease!, 'no_answer'))).body.data).toMatchObject({
      status: 'failed',
      error: { code: 'no_answer' },
      attempts: [{ n: 1, outcome: 'no_answer' }],
    });
    expect((await step(t, rejected, 'fail', busy(rejectedLease!, 'rejected'))).body.data).toMatchObject({
      status: 'failed',
      error: { code: 'rejected' },
    });
    // the request's end took its expiry with it
    expect(await t.deps.db.job.findUnique({ where: { id: short } })).toBeNull();
  });

  it('takes the calling policy’s retry as the default; a request’s own wins, maxAttempts 1 is one attempt', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    const policy = await setPolicy(t, { ...MORNINGS, retry: { maxAttempts: 2, intervalsMinutes: [30] } });
    expect(policy.retry).toEqual({ on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 2, intervalsMinutes: [30] });
    const defaulted = await place(t, { calleeTimezone: HAVANA });
    expect(defaulted.retry).toEqual(policy.retry);
    const once = await place(t, { calleeTimezone: HAVANA, retry: { maxAttempts: 1 } });
    expect(once.retry).toEqual({ on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 1, intervalsMinutes: [] });
    const leases = await claimAll(t);
    const a = leases.get(defaulted.callRequestId);
    const b = leases.get(once.callRequestId);
    expect((await step(t, defaulted.callRequestId, 'fail', busy(a!))).body.data).toMatchObject({
      status: 'queued',
      // 11:30 + 30 min is 12:00, the window's end (not in it): Sunday 09:00, after the DST change
      dueAt: '2026-03-08T13:00:00.000Z',
    });
    expect((await step(t, once.callRequestId, 'fail', busy(b!))).body.data.status).toBe('failed');
  });
});

describe('a retry waiting for its interval', () => {
  it('is not brought forward by a change of the calling policy, which re-times every queued request', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    const allDay = (maxConcurrentCalls: number) => ({
      windows: EVERY_DAY.map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' })),
      maxConcurrentCalls,
    });
    await setPolicy(t, allDay(10));
    const id = (await place(t, { calleeTimezone: HAVANA, retry: RECALL })).callRequestId;
    const lease = await claimOf(t, id);
    const failed = (await step(t, id, 'fail', busy(lease!))).body.data;
    // busy at 11:30 in Havana, the first interval 60 minutes
    expect(failed).toMatchObject({ status: 'queued', dueAt: '2026-03-07T17:30:00.000Z' });

    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
    await setPolicy(t, allDay(11));
    await queue.runDue();
    const after = await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } });
    expect(after.dueAt.toISOString()).toBe('2026-03-07T17:30:00.000Z');
    expect(await claimOf(t, id)).toBeNull();
  });
});

describe('retries (GraphQL)', () => {
  it('the calling policy’s retry, a retry across Lord Howe’s half-hour fall-back, the attempts, on GraphQL', async () => {
    t.clock.set(SATURDAY_0930_LORD_HOWE);
    const set = await t.gql(
      `mutation($orgId: ID!, $input: CallingPolicyInput!) { setCallingPolicy(orgId: $orgId, input: $input) { retry { on maxAttempts intervalsMinutes } } }`,
      {
        orgId: t.demo.organizations.clinic.id,
        input: {
          windows: EVERY_DAY.map((dayOfWeek) => ({ dayOfWeek, start: '09:00', end: '10:00' })),
          maxConcurrentCalls: 10,
          retry: { on: ['busy', 'no_answer'], maxAttempts: 2, intervalsMinutes: [60] },
        },
      },
    );
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.setCallingPolicy.retry).toEqual({ on: ['busy', 'no_answer'], maxAttempts: 2, intervalsMinutes: [60] });
    const created = await t.gql(CREATE, { input: { ...callBody(t), calleeTimezone: LORD_HOWE, notAfter: '2026-04-08T00:00:00Z' } });
    expect(created.body.errors).toBeUndefined();
    const call = created.body.data.createCallRequest;
    expect(call).toMatchObject({ status: 'queued', claims: 0, attempts: [], retry: { maxAttempts: 2, intervalsMinutes: [60] } });

    // windows 09:00–10:00: busy at 09:30 (UTC+11) → 10:30 is past the window → Sunday 09:00, UTC+10:30 since 02:00
    const first = await gqlClaimOf(t, call.id);
    const failed = await t.gql(FAIL, { id: call.id, l: first, code: 'busy' });
    expect(failed.body.errors).toBeUndefined();
    expect(failed.body.data.failCallRequest).toMatchObject({
      status: 'queued',
      dueAt: '2026-04-04T22:30:00.000Z',
      attempts: [{ n: 1, outcome: 'busy', error: { code: 'busy', message: 'No luck.' }, startedAt: null, conversationId: null }],
    });
    expect(localTime(failed.body.data.failCallRequest.dueAt, LORD_HOWE)).toBe('Sun 09:00');
    t.clock.set('2026-04-04T22:29:00Z');
    expect(await gqlClaimOf(t, call.id)).toBeNull();
    t.clock.set('2026-04-04T22:30:00Z');
    const second = await gqlClaimOf(t, call.id);
    expect(second).not.toBeNull();
    const last = await t.gql(FAIL, { id: call.id, l: second, code: 'no_answer' });
    expect(last.body.data.failCallRequest).toMatchObject({ status: 'failed', error: { code: 'no_answer' }, claims: 2 });
    const polled = await t.gql(GET, { id: call.id });
    expect(polled.body.data.callRequest).toEqual(last.body.data.failCallRequest);
    const rest = (await t.rest('GET', `/v1/call-requests/${call.id}`)).body.data;
    expect(rest.attempts).toEqual(polled.body.data.callRequest.attempts);
  });

  it('a started call whose runtime vanished is listed as a dispatch_timeout attempt; a lease that ended unused is only counted', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const { callRequestJobHandlers } = await import('../../src/domain/calls/callDispatch.js');
    const { JobQueue } = await import('../../src/jobs/queue.js');
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
    const id = (await place(t, { calleeTimezone: HAVANA, retry: RECALL })).callRequestId;
    await claimOf(t, id); // never started: its lease ends unused
    t.clock.advance(600_000);
    await queue.runDue();
    const lease = await claimOf(t, id);
    expect((await step(t, id, 'start', { leaseId: lease })).status).toBe(200);
    t.clock.advance(600_000);
    await queue.runDue();
    const polled = (await t.rest('GET', `/v1/call-requests/${id}`)).body.data;
    expect(polled).toMatchObject({ status: 'queued', claims: 2 });
    expect(polled.attempts).toEqual([
      {
        n: 1,
        claimedAt: '2026-03-07T16:40:00.000Z',
        startedAt: '2026-03-07T16:40:00.000Z',
        endedAt: '2026-03-07T16:50:00.000Z',
        outcome: 'dispatch_timeout',
        error: { category: 'request', code: 'dispatch_timeout', message: "The runtime's lease ended during the call, without an outcome" },
        conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
  });
});

describe('outcomes a program can read', () => {
  it('keep disposition, notes and data; the listing filters by disposition; the event carries them (REST)', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const booked = (await place(t, { calleeTimezone: HAVANA, to: '+15005550006' })).callRequestId;
    const declined = (await place(t, { calleeTimezone: HAVANA, to: '+14155552671' })).callRequestId;
    const leases = await claimAll(t);
    const slot = { slotStart: '2026-03-17T14:00:00Z', provider: 'Dr. Reyes', tags: ['recall', 6], confirmed: true, note: null };
    for (const [id, body] of [
      [booked, { disposition: 'booked', notes: 'Six-month recall booked. Ünïcödé ✓', data: slot }],
      [declined, { disposition: 'declined' }],
    ] as const) {
      expect((await step(t, id, 'start', { leaseId: leases.get(id) })).status).toBe(200);
      const done = await step(t, id, 'complete', { leaseId: leases.get(id), ...body });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
    }
    const read = (await t.rest('GET', `/v1/call-requests/${booked}`)).body.data;
    expect(read).toMatchObject({
      status: 'completed',
      disposition: 'booked',
      notes: 'Six-month recall booked. Ünïcödé ✓',
      data: slot,
      followUpId: null,
      attempts: [{ n: 1, outcome: 'completed', error: null, endedAt: SATURDAY_1130_HAVANA.replace('Z', '.000Z') }],
    });
    const list = await t.rest('GET', '/v1/call-requests?disposition=booked');
    expect(list.status).toBe(200);
    expect(list.body.data.callRequests.map((r: { callRequestId: string }) => r.callRequestId)).toEqual([booked]);
    const declinedList = await t.rest('GET', '/v1/call-requests?disposition=declined&status=completed');
    expect(declinedList.body.data.callRequests.map((r: { callRequestId: string }) => r.callRequestId)).toEqual([declined]);
    const gqlList = await t.gql('query { callRequests(disposition: booked) { items { id disposition data } } }');
    expect(gqlList.body.data.callRequests.items).toEqual([{ id: booked, disposition: 'booked', data: slot }]);
    const completed = (await eventsOf(t, booked)).find((e) => e.type === 'call_request.completed');
    expect(completed?.data).toMatchObject({ disposition: 'booked', data: slot });
  });

  it('callback_requested with callbackAt places a linked follow-up at the first allowed instant at or after it (REST)', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const call = await place(t, {
      calleeTimezone: HAVANA,
      to: '+15005550006',
      notAfter: '2026-03-14T00:00:00Z',
      metadata: { patient: 'P-17' },
      retry: RECALL,
    });
    const lease = await claimOf(t, call.callRequestId);
    await step(t, call.callRequestId, 'start', { leaseId: lease });
    // 15:00 on Saturday in Havana: outside the window; the first allowed instant is Sunday 09:00, after the DST change
    const done = await step(t, call.callRequestId, 'complete', {
      leaseId: lease,
      disposition: 'callback_requested',
      notes: 'Asked to be called back after three.',
      callbackAt: '2026-03-07T20:00:00Z',
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const followUpId = done.body.data.followUpId;
    expect(done.body.data).toMatchObject({ status: 'completed', disposition: 'callback_requested', followUpOf: null });
    expect(followUpId).toMatch(/^[0-9a-f-]{36}$/);
    const followUp = (await t.rest('GET', `/v1/call-requests/${followUpId}`)).body.data;
    expect(followUp).toMatchObject({
      status: 'queued',
      followUpOf: call.callRequestId,
      to: '+15005550006',
      calleeTimezone: HAVANA,
      metadata: { patient: 'P-17' },
      retry: RECALL,
      notBefore: '2026-03-07T20:00:00.000Z',
      dueAt: '2026-03-08T13:00:00.000Z',
      expiresAt: '2026-03-14T00:00:00.000Z',
      attempts: [],
      disposition: null,
    });
    expect((await eventsOf(t, followUpId)).map((e) => e.type)).toEqual(['call_request.queued']);
    t.clock.set('2026-03-08T12:59:00Z');
    expect(await claimOf(t, followUpId)).toBeNull();
    t.clock.set('2026-03-08T13:00:00Z');
    expect(await claimOf(t, followUpId)).not.toBeNull();
  });

  it('the same on GraphQL: outcome fields, a follow-up, and a callback with no allowed instant before notAfter refused', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const created = await t.gql(CREATE, {
      input: { ...callBody(t), to: '+15005550006', calleeTimezone: HAVANA, notAfter: '2026-03-09T00:00:00Z' },
    });
    const id = created.body.data.createCallRequest.id;
    const lease = await gqlClaimOf(t, id);
    expect((await t.gql(START, { id, l: lease })).body.errors).toBeUndefined();
    // Sunday 13:00 in Havana is past Sunday's window, and notAfter comes before Monday's
    const refused = await t.gql(COMPLETE, { id, l: lease, disposition: 'callback_requested', callbackAt: '2026-03-08T17:00:00Z' });
    expect(refused.body.errors[0].extensions.code).toBe('OUTSIDE_CALL_WINDOW');
    expect(refused.body.errors[0].message).toMatch(/^callbackAt: /);
    expect((await t.gql(GET, { id })).body.data.callRequest.status).toBe('in_progress');
    const done = await t.gql(COMPLETE, {
      id,
      l: lease,
      disposition: 'callback_requested',
      notes: 'Call back Sunday morning.',
      data: { preferred: 'morning' },
      callbackAt: '2026-03-08T12:00:00Z',
    });
    expect(done.body.errors).toBeUndefined();
    const answer = done.body.data.completeCallRequest;
    expect(answer).toMatchObject({
      status: 'completed',
      disposition: 'callback_requested',
      notes: 'Call back Sunday morning.',
      data: { preferred: 'morning' },
      attempts: [{ n: 1, outcome: 'completed' }],
    });
    const followUp = (await t.gql(GET, { id: answer.followUpId })).body.data.callRequest;
    expect(followUp).toMatchObject({ status: 'queued', followUpOf: id, dueAt: '2026-03-08T13:00:00.000Z' });
  });
});

describe('bad input', () => {
  const CASES_CREATE: [string, unknown, string][] = [
    ['maxAttempts 0', { maxAttempts: 0, intervalsMinutes: [10] }, 'retry.maxAttempts: must be an integer between 1 and 10'],
    ['maxAttempts 11', { maxAttempts: 11, intervalsMinutes: [10] }, 'retry.maxAttempts: must be an integer between 1 and 10'],
    ['a zero interval', { maxAttempts: 3, intervalsMinutes: [10, 0] }, 'retry.intervalsMinutes.1: must be a whole number of minutes'],
    ['a negative interval', { maxAttempts: 3, intervalsMinutes: [-5] }, 'retry.intervalsMinutes.0: must be a whole number of minutes'],
    ['no interval', { maxAttempts: 3 }, 'retry.intervalsMinutes: must have at least one interval when maxAttempts is above 1'],
    [
      'an outcome not retried',
      { on: ['rejected'], maxAttempts: 2, intervalsMinutes: [5] },
      'retry.on.0: must be one of busy, no_answer, voicemail',
    ],
  ];

  it.each(CASES_CREATE)(
    'a retry policy with %s is a 400 naming the field on both surfaces, for a request and a calling policy',
    async (_, retry, message) => {
      t.clock.set(SATURDAY_1130_HAVANA);
      const rest = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { retry }) });
      expect(rest.status).toBe(400);
      expect(rest.body.message).toContain(message);
      const gql = await t.gql(CREATE, { input: { ...callBody(t), retry } });
      expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(gql.body)).toBe('BAD_USER_INPUT');
      if (!message.startsWith('retry.on')) expect(gql.body.errors[0].message).toContain(message); // an enum is refused by GraphQL's types
      const policy = await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/calling-policy`, {
        json: { ...MORNINGS, retry },
      });
      expect(policy.status).toBe(400);
      expect(policy.body.message).toContain(message);
      expect(await t.deps.db.callRequest.count({ where: { to: '+15005550007' } })).toBe(0);
    },
  );

  it('complete: a disposition outside the set, 17 KB of data, 2,001 characters of notes, a callbackAt in the past, after notAfter, or without callback_requested', async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const id = (await place(t, { calleeTimezone: HAVANA, to: '+15005550006', notAfter: '2026-03-10T00:00:00Z' })).callRequestId;
    const lease = await claimOf(t, id);
    await step(t, id, 'start', { leaseId: lease });
    const big = { blob: 'x'.repeat(17 * 1024) };
    const justFits = { b: 'x'.repeat(16 * 1024 - 8) }; // {"b":"…"} is 8 bytes besides
    const cases: [Record<string, unknown>, string][] = [
      [
        { disposition: 'maybe' },
        'disposition: must be one of booked, callback_requested, opt_out, transferred, voicemail_left, information_given, declined, other',
      ],
      [{ disposition: 'booked', data: big }, 'data: must be a JSON object of at most 16384 bytes'],
      [{ disposition: 'booked', data: { b: 'é'.repeat(8200) } }, 'data: must be a JSON object of at most 16384 bytes'],
      [{ disposition: 'booked', data: ['not', 'an', 'object'] }, 'data: must be a JSON object'],
      [{ disposition: 'booked', notes: 'n'.repeat(2001) }, 'notes: must be at most 2000 characters'],
      [{ disposition: 'callback_requested', callbackAt: '2026-03-07T16:29:59Z' }, 'callbackAt: must not be in the past'],
      [{ disposition: 'callback_requested', callbackAt: '2026-03-10T00:00:00Z' }, "callbackAt: must be before the request's notAfter"],
      [{ disposition: 'booked', callbackAt: '2026-03-08T13:00:00Z' }, 'callbackAt: is only taken with disposition callback_requested'],
      [{ disposition: 'callback_requested', callbackAt: 'tomorrow' }, 'callbackAt: must be an ISO 8601 instant'],
    ];
    for (const [body, message] of cases) {
      const res = await step(t, id, 'complete', { leaseId: lease, ...body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.message).toContain(message);
      if (body.disposition === 'maybe') continue; // an enum GraphQL's types refuse themselves
      const gql = await t.gql(COMPLETE, { id, l: lease, ...body });
      expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(body).slice(0, 80)).toBe('BAD_USER_INPUT');
      expect(gql.body.errors[0].message).toContain(message);
    }
    const bad = await t.gql(COMPLETE, { id, l: lease, disposition: 'maybe' });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const badList = await t.rest('GET', '/v1/call-requests?disposition=maybe');
    expect(badList.status).toBe(400);
    expect(badList.body.message).toContain('disposition: must be one of');
    // nothing was stored; 16 KB exactly is taken
    expect((await t.rest('GET', `/v1/call-requests/${id}`)).body.data).toMatchObject({ status: 'in_progress', disposition: null });
    const fits = await step(t, id, 'complete', { leaseId: lease, disposition: 'booked', data: justFits });
    expect(fits.status, JSON.stringify(fits.body).slice(0, 200)).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(fits.body.data.data))).toBe(16 * 1024);
  });
});

describe('tenancy', () => {
  it("another tenant's runtime cannot fail, retry or complete the clinic's call, nor read its attempts: 404 on both surfaces", async () => {
    t.clock.set(SATURDAY_1130_HAVANA);
    await setPolicy(t, MORNINGS);
    const { other } = t.demo.organizations;
    const id = (await place(t, { calleeTimezone: HAVANA, retry: RECALL })).callRequestId;
    const lease = await claimOf(t, id);
    expect((await step(t, id, 'fail', busy(lease!), other.apiKey)).status).toBe(404);
    const complete = await step(
      t,
      id,
      'complete',
      { leaseId: lease, disposition: 'callback_requested', callbackAt: '2026-03-08T13:00:00Z' },
      other.apiKey,
    );
    expect(complete.status).toBe(404);
    expect(complete.body.message).toBe('Call request not found');
    expect((await t.rest('GET', `/v1/call-requests/${id}`, { token: other.apiKey })).status).toBe(404);
    const gqlFail = await t.gql(FAIL, { id, l: lease, code: 'busy' }, { token: other.apiKey });
    expect(gqlFail.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const gqlComplete = await t.gql(COMPLETE, { id, l: lease, disposition: 'booked' }, { token: other.apiKey });
    expect(gqlComplete.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await t.gql(GET, { id }, { token: other.apiKey })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const list = await t.rest('GET', `/v1/call-requests?orgId=${t.demo.organizations.clinic.id}&disposition=booked`, {
      token: other.apiKey,
    });
    expect(list.status).toBe(404);
    // nothing moved: the clinic's runtime still holds its lease
    expect((await t.rest('GET', `/v1/call-requests/${id}`)).body.data).toMatchObject({ status: 'in_progress', attempts: [] });
    expect((await step(t, id, 'fail', busy(lease!))).body.data.status).toBe('queued');
  });
});

describe('office hours', () => {
  it('an officeHoursOnly retry and follow-up wait for the organization to be OPEN (its lunch break, next Monday after DST)', async () => {
    t.clock.set('2026-03-02T16:30:00Z'); // Monday 11:30 in New York, the clinic's zone
    const clinic = t.demo.organizations.clinic.id;
    await setPolicy(t, { windows: EVERY_DAY.map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' })), maxConcurrentCalls: 10 });
    const week = [
      {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'Back at one.' }],
      },
      ...['TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({ dayOfWeek, isClosed: true })),
    ];
    const hours = await t.rest('PUT', `/v1/organizations/${clinic}/office-hours`, { json: { officeHours: week } });
    expect(hours.status, JSON.stringify(hours.body)).toBe(200);
    const retried = (
      await place(t, { officeHoursOnly: true, notAfter: '2026-03-10T00:00:00Z', retry: { maxAttempts: 2, intervalsMinutes: [30] } })
    ).callRequestId;
    const called = (await place(t, { officeHoursOnly: true, to: '+15005550006', notAfter: '2026-03-10T00:00:00Z' })).callRequestId;
    const leases = await claimAll(t);
    // busy at 11:30, +30 min is noon: lunch; OPEN again at 13:00
    expect((await step(t, retried, 'fail', busy(leases.get(retried)!))).body.data).toMatchObject({
      status: 'queued',
      dueAt: '2026-03-02T18:00:00.000Z',
    });
    await step(t, called, 'start', { leaseId: leases.get(called) });
    // a callback at 17:30 is after closing: next Monday 09:00, UTC-4 since 8 March
    const done = await step(t, called, 'complete', {
      leaseId: leases.get(called),
      disposition: 'callback_requested',
      callbackAt: '2026-03-02T22:30:00Z',
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const followUp = (await t.rest('GET', `/v1/call-requests/${done.body.data.followUpId}`)).body.data;
    expect(followUp).toMatchObject({ officeHoursOnly: true, dueAt: '2026-03-09T13:00:00.000Z', followUpOf: called });
  });
});
