// Calls a clinic may lawfully place (issue 34; domain/calls/callingPolicy.ts, callWindows.ts, callCapacity.ts):
// the calling policy on both surfaces, the callee's calling hours at create, claim and start, consent, and
// the cap on calls at once, which holds with two instances claiming at the same instant.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { TenantWorkGate } from '../../src/domain/shared/tenantWork.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

// 10:00 in New York (the demo clinic's zone), 00:00 the next day in Tokyo
const NOW = '2026-03-02T15:00:00Z';
const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const allDay = (extra: Record<string, unknown> = {}) => ({
  windows: EVERY_DAY.map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' })),
  maxConcurrentCalls: 100,
  ...extra,
});

const policyPath = (orgId: string) => `/v1/organizations/${orgId}/calling-policy`;
const callBody = (t: TestApp, extra: Record<string, unknown> = {}) => ({
  botId: t.demo.bots.clinic[0],
  phoneNumberId: t.demo.phoneNumbers.clinic[0],
  to: '+15005550006',
  ...extra,
});

async function place(t: TestApp, extra: Record<string, unknown> = {}, token?: string) {
  const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t, extra), ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

interface Claim {
  leaseId: string;
  callRequest: { callRequestId: string };
}

async function claim(t: TestApp, max = 10) {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max, leaseSeconds: 600 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { claims: Claim[]; capacity: { limit: number | null; inProgress: number } };
}

async function setPolicy(t: TestApp, orgId: string, body: unknown) {
  // an account's policy is set with the account's credential
  const token = orgId === t.demo.organizations.account.id ? t.demo.organizations.account.apiKey : undefined;
  const res = await t.rest('PUT', policyPath(orgId), { json: body, ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const POLICY_FIELDS =
  'orgId windows { dayOfWeek start end } blockedDates maxConcurrentCalls requireConsentFor retry { on maxAttempts intervalsMinutes } inheritedFrom isDefault';
const SET_POLICY = `mutation($orgId: ID!, $input: CallingPolicyInput!) { setCallingPolicy(orgId: $orgId, input: $input) { ${POLICY_FIELDS} } }`;
const GET_POLICY = `query($orgId: ID!) { callingPolicy(orgId: $orgId) { ${POLICY_FIELDS} } }`;
const CREATE = `mutation($input: CreateCallRequestInput!) {
  createCallRequest(input: $input) { id status dueAt calleeTimezone purpose consent { basis obtainedAt source } }
}`;

describe('the calling policy', () => {
  it('is the default until set; an account’s applies to its locations; both surfaces answer alike; the change is an event', async () => {
    t.clock.set(NOW);
    const { clinic, account } = t.demo.organizations;
    const initial = await t.rest('GET', policyPath(clinic.id));
    expect(initial.body.data).toMatchObject({
      isDefault: true,
      inheritedFrom: null,
      maxConcurrentCalls: 10,
      requireConsentFor: ['marketing'],
    });
    expect(initial.body.data.windows).toHaveLength(7);
    expect(initial.body.data.windows[0]).toEqual({ dayOfWeek: 'MONDAY', start: '08:00', end: '21:00' });

    const set = await setPolicy(t, account.id, {
      windows: [
        { dayOfWeek: 'MONDAY', start: '13:00', end: '17:00' },
        { dayOfWeek: 'MONDAY', start: '9:00', end: '12:00' },
      ],
      blockedDates: ['2026-12-25', '2026-12-25'],
      maxConcurrentCalls: 4,
    });
    expect(set).toEqual({
      orgId: account.id,
      windows: [
        { dayOfWeek: 'MONDAY', start: '09:00', end: '12:00' },
        { dayOfWeek: 'MONDAY', start: '13:00', end: '17:00' },
      ],
      blockedDates: ['2026-12-25'],
      maxConcurrentCalls: 4,
      requireConsentFor: ['marketing'],
      retry: null,
      inheritedFrom: null,
      isDefault: false,
    });
    const inherited = await t.rest('GET', policyPath(clinic.id));
    expect(inherited.status).toBe(200);
    expect(inherited.body.data).toEqual({ ...set, orgId: clinic.id, inheritedFrom: account.id });
    const gql = await t.gql(GET_POLICY, { orgId: clinic.id });
    expect(gql.body.data.callingPolicy).toEqual(inherited.body.data);

    const own = await t.gql(SET_POLICY, { orgId: clinic.id, input: allDay({ requireConsentFor: [] }) });
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.setCallingPolicy).toMatchObject({
      orgId: clinic.id,
      inheritedFrom: null,
      maxConcurrentCalls: 100,
      requireConsentFor: [],
    });
    const events = await t.rest('GET', '/v1/events?type=calling_policy.updated', { token: account.apiKey });
    expect(events.body.data.events.map((e: { orgId: string }) => e.orgId).sort()).toEqual([account.id, clinic.id].sort());
  });

  it.each([
    [{ windows: [{ dayOfWeek: 'MONDAY', start: '25:00', end: '26:00' }] }, 'windows.0.start: must be a time HH:mm'],
    [{ windows: [{ dayOfWeek: 'MONDAY', start: '10:00', end: '10:00' }] }, 'windows.0.end: must be after start'],
    [{ windows: [{ dayOfWeek: 'MONDAY', start: '10:00', end: '24:01' }] }, 'windows.0.end: must be a time HH:mm between 00:01 and 24:00'],
    [
      {
        windows: [
          { dayOfWeek: 'MONDAY', start: '08:00', end: '12:00' },
          { dayOfWeek: 'MONDAY', start: '11:00', end: '13:00' },
        ],
      },
      'windows.1: overlaps windows.0 on MONDAY',
    ],
    [
      { blockedDates: Array.from({ length: 367 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10)) },
      'blockedDates: must have at most 366',
    ],
    [{ blockedDates: ['2026-02-30'] }, 'blockedDates.0: must be a date YYYY-MM-DD'],
    [{ maxConcurrentCalls: 0 }, 'maxConcurrentCalls: must be an integer between 1 and 100000'],
    [{ maxConcurrentCalls: 100_001 }, 'maxConcurrentCalls: must be an integer between 1 and 100000'],
  ])('refuses %j with a 400 naming the field, on both surfaces, storing nothing', async (override, message) => {
    t.clock.set(NOW);
    const orgId = t.demo.organizations.clinic.id;
    const body = { ...allDay(), ...override };
    const res = await t.rest('PUT', policyPath(orgId), { json: body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(message);
    const gql = await t.gql(SET_POLICY, { orgId, input: body });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors[0].message).toContain(message);
    expect(await t.deps.db.callingPolicy.count()).toBe(0);
  });

  it("is another tenant's business: 404 on both surfaces, as for an unknown organization", async () => {
    t.clock.set(NOW);
    const other = t.demo.organizations.other.id;
    expect((await t.rest('GET', policyPath(other))).status).toBe(404);
    expect((await t.rest('PUT', policyPath(other), { json: allDay() })).status).toBe(404);
    expect((await t.rest('GET', `/v1/organizations/${other}/call-capacity`)).status).toBe(404);
    const gql = await t.gql(SET_POLICY, { orgId: other, input: allDay() });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await t.deps.db.callingPolicy.count()).toBe(0);
  });
});

describe("the callee's calling hours", () => {
  it("make a request due at the next window in the callee's zone; a claim hands it out only then (REST and GraphQL)", async () => {
    t.clock.set(NOW);
    const tokyo = await place(t, { calleeTimezone: 'Asia/Tokyo' });
    // 00:00 in Tokyo: due at 08:00 there
    expect(tokyo).toMatchObject({ status: 'queued', calleeTimezone: 'Asia/Tokyo', dueAt: '2026-03-02T23:00:00.000Z' });
    const gql = await t.gql(CREATE, { input: callBody(t, { calleeTimezone: 'Asia/Tokyo' }) });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createCallRequest).toMatchObject({ dueAt: '2026-03-02T23:00:00.000Z', calleeTimezone: 'Asia/Tokyo' });
    // the default zone is the organization's: allowed now
    const local = await place(t);
    expect(local).toMatchObject({ calleeTimezone: 'America/New_York', dueAt: '2026-03-02T15:00:00.000Z' });

    const handed = (await claim(t)).claims.map((c) => c.callRequest.callRequestId);
    expect(handed).toContain(local.callRequestId);
    expect(handed).not.toContain(tokyo.callRequestId);
    t.clock.set('2026-03-02T22:59:00Z');
    expect((await claim(t)).claims.map((c) => c.callRequest.callRequestId)).not.toContain(tokyo.callRequestId);
    t.clock.set('2026-03-02T23:00:00Z');
    expect((await claim(t)).claims.map((c) => c.callRequest.callRequestId)).toContain(tokyo.callRequestId);
  });

  it('refuse a request with no allowed instant before notAfter: 400 outside_call_window naming the first one after it', async () => {
    t.clock.set(NOW);
    const body = callBody(t, { calleeTimezone: 'Asia/Tokyo', notAfter: '2026-03-02T20:00:00Z' });
    const res = await t.rest('POST', '/v1/call-requests', { json: body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'outside_call_window' });
    expect(res.body.message).toContain('notAfter');
    expect(res.body.message).toContain('2026-03-02T23:00:00.000Z');
    const gql = await t.gql(CREATE, { input: body });
    expect(gql.body.errors[0].extensions.code).toBe('OUTSIDE_CALL_WINDOW');
    const unknownZone = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { calleeTimezone: 'Mars/Olympus' }) });
    expect(unknownZone.status).toBe(400);
    expect(unknownZone.body.message).toContain('calleeTimezone: is not a known IANA time zone');
    // nothing placed (the demo's own requests aside)
    const demoCalls = [...Object.values(t.demo.callRequests.clinic), t.demo.callRequests.other.queued];
    expect(await t.deps.db.callRequest.count({ where: { id: { notIn: demoCalls } } })).toBe(0);
  });

  it('hold back a due request whose window closed before it was claimed, and cross daylight saving in the callee zone', async () => {
    // Santiago springs forward on 2026-09-06 at 00:00 (-04 → -03); a window 22:00–24:00 and 00:30–02:00
    t.clock.set('2026-09-06T01:30:00Z'); // 21:30 on 09-05 in Santiago
    await setPolicy(t, t.demo.organizations.clinic.id, {
      windows: EVERY_DAY.flatMap((dayOfWeek) => [
        { dayOfWeek, start: '00:30', end: '02:00' },
        { dayOfWeek, start: '22:00', end: '24:00' },
      ]),
      maxConcurrentCalls: 5,
    });
    const call = await place(t, { calleeTimezone: 'America/Santiago' });
    expect(call.dueAt).toBe('2026-09-06T02:00:00.000Z'); // 22:00 (-04)
    // nobody claimed it by midnight: 00:00 local does not exist; 01:00 (-03) = 04:00Z is within 00:30–02:00
    t.clock.set('2026-09-06T04:10:00Z');
    expect((await claim(t)).claims).toHaveLength(1);

    const late = await place(t, { calleeTimezone: 'America/Santiago', notBefore: '2026-09-06T04:50:00Z' });
    expect(late.dueAt).toBe('2026-09-06T04:50:00.000Z');
    // the window closed at 02:00 (-03) = 05:00Z while it waited: a claim at 05:30Z passes it over and moves it to 22:00 (-03)
    t.clock.set('2026-09-06T05:30:00Z');
    expect((await claim(t)).claims).toHaveLength(0);
    const polled = await t.rest('GET', `/v1/call-requests/${late.callRequestId}`);
    expect(polled.body.data).toMatchObject({ status: 'queued', dueAt: '2026-09-07T01:00:00.000Z' });
  });

  it("answer a runtime's start after the window closed with 409 call_window_closed; the request waits for its next window", async () => {
    t.clock.set('2026-03-03T01:55:00Z'); // 20:55 in New York: the default window ends at 21:00
    const call = await place(t);
    const c = (await claim(t)).claims[0]!;
    t.clock.set('2026-03-03T02:00:30Z');
    const start = await t.rest('POST', `/v1/call-requests/${call.callRequestId}/start`, { json: { leaseId: c.leaseId } });
    expect(start.status).toBe(409);
    expect(start.body.code, start.body.message).toBe('call_window_closed');
    const polled = await t.rest('GET', `/v1/call-requests/${call.callRequestId}`);
    // queued again for 08:00 in New York, and the lease does not count toward dispatch_timeout
    expect(polled.body.data).toMatchObject({
      status: 'queued',
      claims: 0,
      attempts: [],
      dueAt: '2026-03-03T13:00:00.000Z',
      conversationId: null,
    });
    expect((await claim(t)).claims).toHaveLength(0);
    // the lease ended with the refusal, so its end is no longer work; the request's expiry still is
    expect(await t.deps.db.job.findUnique({ where: { id: c.leaseId } })).toBeNull();
    expect(await t.deps.db.job.findUnique({ where: { id: call.callRequestId } })).toMatchObject({ kind: 'call_request.expire' });
  });
});

describe('a policy change', () => {
  /** At NOW: the clinic open 09:00–17:00 on weekdays, calls allowed all day, and a queue working the calls' durable work. */
  async function weekdayHoursAllDayPolicy() {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic.id;
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
    await setPolicy(t, clinic, allDay());
    for (const dayOfWeek of ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']) {
      const res = await t.rest('POST', `/v1/organizations/${clinic}/office-hours`, {
        json: { dayOfWeek, isClosed: false, open: '09:00', close: '17:00' },
      });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 5 && (await queue.runDue()) > 0; i++);
    return { clinic, queue };
  }

  it('re-evaluates queued requests as durable work: earlier when widened, expired outside_call_window when none is left', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic.id;
    const tokyo = await place(t, { calleeTimezone: 'Asia/Tokyo', notAfter: '2026-03-03T12:00:00Z' });
    expect(tokyo.dueAt).toBe('2026-03-02T23:00:00.000Z');
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);

    await setPolicy(t, clinic, allDay());
    await queue.runDue();
    const widened = await t.rest('GET', `/v1/call-requests/${tokyo.callRequestId}`);
    expect(widened.body.data).toMatchObject({ status: 'queued', dueAt: NOW.replace('Z', '.000Z') });

    // only Sundays: nothing before notAfter (a Tuesday in Tokyo)
    await setPolicy(t, clinic, { windows: [{ dayOfWeek: 'SUNDAY', start: '08:00', end: '21:00' }], maxConcurrentCalls: 5 });
    await queue.runDue();
    t.clock.set('2026-03-02T15:00:11Z'); // past the minimum poll interval
    const expired = await t.rest('GET', `/v1/call-requests/${tokyo.callRequestId}`);
    expect(expired.body.data).toMatchObject({ status: 'expired', error: { code: 'outside_call_window' } });
    const events = await t.deps.db.event.findMany({ where: { subjectId: tokyo.callRequestId }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['call_request.queued', 'call_request.expired']);
    // ended by the re-evaluation: its own expiry is no longer work
    expect(await t.deps.db.job.findUnique({ where: { id: tokyo.callRequestId } })).toBeNull();
  });

  it("re-times officeHoursOnly requests when the organization's hours change (a closure here), as a new request would be", async () => {
    const { clinic, queue } = await weekdayHoursAllDayPolicy();
    // after hours on Monday: due at the next opening (Tuesday 09:00 in New York)
    const input = { officeHoursOnly: true, notBefore: '2026-03-02T23:30:00Z', notAfter: '2026-03-09T23:00:00Z' };
    const queued = await place(t, input);
    const before = queued.dueAt;
    // a closure over the whole of that next opening's day
    const day = before.slice(0, 10);
    const closure = await t.rest('POST', `/v1/organizations/${clinic}/closures`, {
      json: { description: 'Burst pipe', startAt: `${day}T00:00:00Z`, endAt: `${day}T23:59:00Z`, chatGreeting: null, phoneGreeting: null },
    });
    expect(closure.status, JSON.stringify(closure.body)).toBe(200);
    for (let i = 0; i < 5 && (await queue.runDue()) > 0; i++);
    const fresh = await place(t, input);
    expect(Date.parse(fresh.dueAt)).toBeGreaterThan(Date.parse(before));
    const moved = await t.rest('GET', `/v1/call-requests/${queued.callRequestId}`);
    expect(moved.body.data).toMatchObject({ status: 'queued', dueAt: fresh.dueAt });
    // a request not timed by the hours keeps its instant
    const plain = await place(t, { notBefore: '2026-03-02T23:30:00Z' });
    const removed = await t.rest('DELETE', `/v1/organizations/${clinic}/closures/${closure.body.data.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    for (let i = 0; i < 5 && (await queue.runDue()) > 0; i++);
    t.clock.set('2026-03-02T15:00:11Z'); // past the polling interval of a queued request
    const plainAfter = await t.rest('GET', `/v1/call-requests/${plain.callRequestId}`);
    expect(plainAfter.body.data?.dueAt, JSON.stringify(plainAfter.body)).toBe(plain.dueAt);
    // the closure gone, the request is due at its first opening again
    const back = await t.rest('GET', `/v1/call-requests/${queued.callRequestId}`);
    expect(back.body.data?.dueAt, JSON.stringify(back.body)).toBe(before);
  });

  it('re-times officeHoursOnly requests when the organization moves to another time zone, as a new request would be', async () => {
    const { clinic, queue } = await weekdayHoursAllDayPolicy();
    const input = { officeHoursOnly: true, notBefore: '2026-03-02T23:30:00Z', notAfter: '2026-03-09T23:00:00Z' };
    const queued = await place(t, input);
    expect(queued.dueAt).toBe('2026-03-03T14:00:00.000Z'); // Tuesday 09:00 in New York
    const moved = await t.rest('PATCH', `/v1/organizations/${clinic}`, { json: { timezone: 'Europe/London' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    for (let i = 0; i < 5 && (await queue.runDue()) > 0; i++);
    t.clock.set('2026-03-02T15:00:11Z'); // past the polling interval of a queued request
    const after = await t.rest('GET', `/v1/call-requests/${queued.callRequestId}`);
    expect(after.body.data).toMatchObject({ status: 'queued', dueAt: '2026-03-03T09:00:00.000Z' }); // Tuesday 09:00 in London
    expect((await place(t, input)).dueAt).toBe('2026-03-03T09:00:00.000Z');
  });

  it('re-evaluates every queued request of a large queue, batch after batch, and leaves claimed ones as they are', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic;
    const QUEUED = 2_500;
    // queued due now, expiring in 20 days; one of them claimed (a claimed request keeps its instant)
    await t.deps.db.$executeRaw`
      INSERT INTO "CallRequest" ("id", "orgId", "botId", "phoneNumberId", "to", "status", "createdAt", "dueAt", "expiresAt")
      SELECT gen_random_uuid(), ${clinic.id}::uuid, ${t.demo.bots.clinic[0]}::uuid, ${t.demo.phoneNumbers.clinic[0]}::uuid,
             '+15005550006', 'queued', ${NOW}::timestamp(3), ${NOW}::timestamp(3), ${'2026-03-22T15:00:00Z'}::timestamp(3)
      FROM generate_series(1, ${QUEUED}::int)`;
    const claimed = await claim(t, 1);
    expect(claimed.claims).toHaveLength(1);
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);

    // Mondays 03:00–04:00 in New York only: every queued request is due next Monday 03:00, after the change to
    // daylight saving time on Sunday 8 March: EDT, 07:00Z
    await setPolicy(t, clinic.id, { windows: [{ dayOfWeek: 'MONDAY', start: '03:00', end: '04:00' }], maxConcurrentCalls: 5 });
    for (let i = 0; i < 10 && (await queue.runDue()) > 0; i++);
    const byDue = await t.deps.db.callRequest.groupBy({
      by: ['status', 'dueAt'],
      where: { orgId: clinic.id, to: '+15005550006', createdAt: new Date(NOW) },
      _count: true,
    });
    expect(byDue.map((g) => ({ status: g.status, dueAt: g.dueAt.toISOString(), n: g._count })).sort((a, b) => a.n - b.n)).toEqual([
      { status: 'in_progress', dueAt: NOW.replace('Z', '.000Z'), n: 1 },
      { status: 'queued', dueAt: '2026-03-09T07:00:00.000Z', n: QUEUED - 1 },
    ]);
  });
});

describe('consent', () => {
  it('is required for a purpose the policy lists (400 consent_required), stored and shown when given', async () => {
    t.clock.set(NOW);
    const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { purpose: 'marketing' }) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('consent_required');
    expect(res.body.message).toContain('consent');
    const gql = await t.gql(CREATE, { input: callBody(t, { purpose: 'marketing' }) });
    expect(gql.body.errors[0].extensions.code).toBe('CONSENT_REQUIRED');

    const future = await t.rest('POST', '/v1/call-requests', {
      json: callBody(t, {
        purpose: 'marketing',
        consent: { basis: 'express_written', obtainedAt: '2026-03-03T00:00:00Z', source: 'form' },
      }),
    });
    expect(future.status).toBe(400);
    expect(future.body.message).toContain('consent.obtainedAt: must not be in the future');

    const consent = { basis: 'express_written', obtainedAt: '2026-01-10T12:00:00Z', source: 'Signed intake form #88' };
    const placed = await place(t, { purpose: 'marketing', consent });
    expect(placed).toMatchObject({ purpose: 'marketing', consent: { ...consent, obtainedAt: '2026-01-10T12:00:00.000Z' } });
    const viaGql = await t.gql(CREATE, { input: callBody(t, { purpose: 'marketing', consent }) });
    expect(viaGql.body.data.createCallRequest.consent).toEqual({ ...consent, obtainedAt: '2026-01-10T12:00:00.000Z' });
    // informational calls need none by default
    expect((await place(t)).purpose).toBe('informational');
  });
});

describe('calls at once', () => {
  it('a claim hands out at most what is free and says so; a finished call frees its slot (REST and GraphQL)', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic.id;
    await setPolicy(t, clinic, allDay({ maxConcurrentCalls: 2 }));
    for (let i = 0; i < 4; i++) await place(t);
    const first = await claim(t, 10);
    expect(first.claims).toHaveLength(2);
    expect(first.capacity).toEqual({ limit: 2, inProgress: 2 });
    expect((await claim(t, 10)).claims).toHaveLength(0);
    const capacity = await t.rest('GET', `/v1/organizations/${clinic}/call-capacity`);
    // the demo's own request is due too
    expect(capacity.body.data).toMatchObject({ limit: 2, inProgress: 2 });
    expect(capacity.body.data.queuedDue).toBeGreaterThanOrEqual(2);
    const gql = await t.gql(`query($orgId: ID!) { callCapacity(orgId: $orgId) { limit inProgress queuedDue } }`, { orgId: clinic });
    expect(gql.body.data.callCapacity).toEqual(capacity.body.data);

    const done = first.claims[0]!;
    await t.rest('POST', `/v1/call-requests/${done.callRequest.callRequestId}/fail`, {
      json: { leaseId: done.leaseId, error: { code: 'busy', message: 'Busy' } },
    });
    const next = await t.gql(`mutation { claimCalls(max: 10, leaseSeconds: 600) { claims { leaseId } capacity { limit inProgress } } }`);
    expect(next.body.data.claimCalls.claims).toHaveLength(1);
    // GraphQL says what the cap leaves, as REST does: full again
    expect(next.body.data.claimCalls.capacity).toEqual({ limit: 2, inProgress: 2 });
    const none = await t.gql(`mutation { claimCalls(max: 10) { claims { leaseId } capacity { limit inProgress } } }`);
    expect(none.body.data.claimCalls).toEqual({ claims: [], capacity: { limit: 2, inProgress: 2 } });
    // the list-only twin stays, deprecated
    expect((await t.gql(`mutation { claimCallRequests(max: 10) { leaseId } }`)).body.data.claimCallRequests).toEqual([]);
  });

  it("an account's cap bounds the sum over its locations", async () => {
    t.clock.set(NOW);
    const { account, clinic, clinic2 } = t.demo.organizations;
    const number = await t.deps.db.phoneNumber.create({ data: { orgId: clinic2.id, botId: t.demo.bots.clinic2[0], number: '+15550199' } });
    await setPolicy(t, account.id, allDay({ maxConcurrentCalls: 3 }));
    for (let i = 0; i < 3; i++) await place(t);
    for (let i = 0; i < 3; i++) await place(t, { botId: t.demo.bots.clinic2[0], phoneNumberId: number.id }, account.apiKey);
    const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50 }, token: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.claims).toHaveLength(3);
    expect(res.body.data.capacity).toEqual({ limit: 3, inProgress: 3 });
    // the location, bounded by its account's sum only, gets nothing more
    expect((await claim(t, 10)).claims).toHaveLength(0);
    const capacity = await t.rest('GET', `/v1/organizations/${clinic.id}/call-capacity`);
    expect(capacity.body.data).toMatchObject({ limit: 3, inProgress: 3 });
  });

  /**
   * Two instances whose claims of one organization run side by side (no per-organization slot in the way), so that
   * on PostgreSQL (TEST_DATABASE_URL) their transactions really race; a claim with `token` and `max`.
   */
  function racingInstances() {
    const gate = () => new TenantWorkGate({ running: 100, waiting: 100, waitMs: 60_000 });
    const instances = [0, 1].map(() =>
      createApp({ ...t.deps, tenantWork: gate(), readModel: new ReadModel(t.deps.db, { ...t.deps.config.readModel, clock: t.clock.now }) }),
    );
    return async (i: number, token: string, max: number) => {
      const res = await instances[i % 2]!.fetch(
        new Request('http://127.0.0.1:4000/v1/dispatch/claim', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ max, leaseSeconds: 600 }),
        }),
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { claims: Claim[] } };
      return body.data.claims;
    };
  }

  /** Organizations whose counted calls in progress (CallLoad, kept by triggers) differ from their requests in_progress. */
  async function miscounted(): Promise<unknown[]> {
    return t.deps.db.$queryRaw`
      SELECT l."orgId"::text, l."inProgress", l."familyInProgress" FROM "CallLoad" l JOIN "Organization" o ON o."id" = l."orgId"
      WHERE l."inProgress" <> (SELECT count(*) FROM "CallRequest" c WHERE c."orgId" = o."id" AND c."status" = 'in_progress')
         OR l."familyInProgress" <> CASE WHEN o."parentId" IS NULL THEN (
              SELECT count(*) FROM "CallRequest" c JOIN "Organization" m ON m."id" = c."orgId"
              WHERE (m."id" = o."id" OR m."parentId" = o."id") AND c."status" = 'in_progress') ELSE 0 END`;
  }

  const inProgressOf = (orgId: string) => t.deps.db.callRequest.count({ where: { orgId, status: 'in_progress' } });

  it('20 claims at once with a cap of 3 hand out exactly 3, each once, with their events and leases only', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic;
    await setPolicy(t, clinic.id, allDay({ maxConcurrentCalls: 3 }));
    for (let i = 0; i < 25; i++) await place(t);
    const seqBefore = (await t.deps.db.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0n;
    const claimOn = racingInstances();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claimOn(i, clinic.apiKey, 2)));
    const handed = answers.flat();
    expect(handed).toHaveLength(3);
    expect(new Set(handed.map((c) => c.callRequest.callRequestId)).size).toBe(3);
    expect(await inProgressOf(clinic.id)).toBe(3);
    expect((await t.rest('GET', `/v1/organizations/${clinic.id}/call-capacity`)).body.data).toMatchObject({ limit: 3, inProgress: 3 });
    // a claim that handed out more than the counts left gave them back unseen: no event, no lease of theirs remains
    const started = await t.deps.db.event.findMany({ where: { type: 'call_request.started', seq: { gt: seqBefore } } });
    expect(started.map((e) => e.subjectId).sort()).toEqual(handed.map((c) => c.callRequest.callRequestId).sort());
    expect((await t.deps.db.job.findMany({ where: { id: { in: handed.map((c) => c.leaseId) } } })).length).toBe(3);
    expect(await t.deps.db.job.count({ where: { kind: 'call_request.lease' } })).toBe(3);
    const requeued = await t.deps.db.callRequest.findMany({ where: { orgId: clinic.id, status: 'queued' } });
    expect(requeued.every((r) => r.attempts === 0 && r.leaseId === null)).toBe(true);
    expect(await miscounted()).toEqual([]);
  });

  it("claims of an account and its location at once: never over the location's cap nor the account's", async () => {
    t.clock.set(NOW);
    const { account, clinic, clinic2 } = t.demo.organizations;
    const number = await t.deps.db.phoneNumber.create({ data: { orgId: clinic2.id, botId: t.demo.bots.clinic2[0], number: '+15550199' } });
    await setPolicy(t, account.id, allDay({ maxConcurrentCalls: 4 }));
    await setPolicy(t, clinic.id, allDay({ maxConcurrentCalls: 3 }));
    for (let i = 0; i < 8; i++) await place(t);
    for (let i = 0; i < 8; i++) await place(t, { botId: t.demo.bots.clinic2[0], phoneNumberId: number.id }, account.apiKey);
    const claimOn = racingInstances();
    await Promise.all(Array.from({ length: 20 }, (_, i) => claimOn(i, i % 2 ? account.apiKey : clinic.apiKey, 3)));
    expect(await inProgressOf(clinic.id)).toBeLessThanOrEqual(3);
    expect((await inProgressOf(clinic.id)) + (await inProgressOf(clinic2.id))).toBeLessThanOrEqual(4);
    // what is left free is handed out, and no more
    await claimOn(0, account.apiKey, 10);
    expect(await inProgressOf(clinic.id)).toBeLessThanOrEqual(3);
    expect((await inProgressOf(clinic.id)) + (await inProgressOf(clinic2.id))).toBe(4);
    expect(await miscounted()).toEqual([]);
  });

  it('every way out of in_progress frees its slot, and a lowered cap hands out nothing until the calls drop below it', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic.id;
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
    await setPolicy(t, clinic, allDay({ maxConcurrentCalls: 4 }));
    for (let i = 0; i < 10; i++) await place(t);
    const first = (await claim(t, 10)).claims;
    expect(first).toHaveLength(4);
    const [failed, completed, canceled, abandoned] = first as [Claim, Claim, Claim, Claim];
    const path = (c: Claim, step: string) => `/v1/call-requests/${c.callRequest.callRequestId}/${step}`;

    // lowered to 1 with 4 in progress: nothing is handed out until fewer than 1 are
    await setPolicy(t, clinic, allDay({ maxConcurrentCalls: 1 }));
    expect((await claim(t, 10)).claims).toHaveLength(0);
    const failedRes = await t.rest('POST', path(failed, 'fail'), {
      json: { leaseId: failed.leaseId, error: { code: 'busy', message: 'Busy' } },
    });
    expect(failedRes.status).toBe(200);
    expect((await claim(t, 10)).claims).toHaveLength(0);
    expect((await t.rest('POST', path(completed, 'start'), { json: { leaseId: completed.leaseId } })).status).toBe(200);
    expect((await t.rest('POST', path(completed, 'complete'), { json: { leaseId: completed.leaseId } })).status).toBe(200);
    expect((await t.rest('POST', path(canceled, 'cancel'), { json: {} })).status).toBe(200);
    expect((await claim(t, 10)).claims).toHaveLength(0);
    expect(await miscounted()).toEqual([]);
    // the last one's lease ends unused (its runtime vanished): it is queued again and its slot is free
    t.clock.advance(601_000);
    await queue.runDue();
    expect((await t.rest('GET', path(abandoned, '').slice(0, -1))).body.data.status).toBe('queued');
    expect(await inProgressOf(clinic)).toBe(0);
    const next = await claim(t, 10);
    expect(next.claims).toHaveLength(1);
    expect(next.capacity).toEqual({ limit: 1, inProgress: 1 });
    expect(await miscounted()).toEqual([]);
  });

  it('holds with two instances claiming at the same instant', async () => {
    t.clock.set(NOW);
    await setPolicy(t, t.demo.organizations.clinic.id, allDay({ maxConcurrentCalls: 3 }));
    for (let i = 0; i < 12; i++) await place(t);
    const readModel = new ReadModel(t.deps.db, { ...t.deps.config.readModel, clock: t.clock.now });
    const second = createApp({ ...t.deps, readModel });
    const instances = [t.app, second];
    const claimOn = async (i: number) => {
      const res = await instances[i % 2]!.fetch(
        new Request('http://127.0.0.1:4000/v1/dispatch/claim', {
          method: 'POST',
          headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ max: 2, leaseSeconds: 600 }),
        }),
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { claims: unknown[] } };
      return body.data.claims.length;
    };
    const handed = await Promise.all(Array.from({ length: 8 }, (_, i) => claimOn(i)));
    expect(handed.reduce((a, b) => a + b, 0)).toBe(3);
    expect(await t.deps.db.callRequest.count({ where: { orgId: t.demo.organizations.clinic.id, status: 'in_progress' } })).toBe(3);
  });
});
