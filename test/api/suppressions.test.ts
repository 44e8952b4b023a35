// The suppression (do-not-call) list (issue 34 §4; domain/calls/suppressions.ts): one entry per number in
// E.164 on both surfaces, bulk adds all or nothing, an account's list binding its locations, the 409 on a
// create, a queued request never handed out once its number is listed, opt-outs from a completed call, events.
import { describe, expect, it } from 'vitest';
import { pickDueWithinCapacity, requestsDispatchedBy } from '../../src/domain/calls/sql.js';
import type { Actor } from '../../src/domain/shared/access.js';
import { type TestApp, type TestResponse, useTestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

// 10:00 on a Monday in New York (the demo clinic's zone): inside the default calling window
const NOW = '2026-03-02T15:00:00Z';
const NUMBER = '+12025550143';

const callBody = (t: TestApp, to = NUMBER) => ({ botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to });

const FIELDS = 'suppressionId orgId number reason source callRequestId createdAt';
const ADD = `mutation($number: String!, $reason: String) { addSuppression(number: $number, reason: $reason) { ${FIELDS} } }`;
const ADD_MANY = 'mutation($numbers: [String!]!) { addSuppressions(numbers: $numbers) { added unchanged } }';
const REMOVE = `mutation($number: String!) { removeSuppression(number: $number) { ${FIELDS} } }`;
const LIST = `query($first: Int, $after: String, $number: String) { suppressions(first: $first, after: $after, number: $number) { items { ${FIELDS} } nextCursor } }`;
const CREATE_CALL = 'mutation($input: CreateCallRequestInput!) { createCallRequest(input: $input) { id status } }';

async function add(t: TestApp, body: unknown, token?: string) {
  const res = await t.rest('POST', '/v1/suppressions', { json: body, ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function listed(t: TestApp, query = '', token?: string): Promise<string[]> {
  const res = await t.rest('GET', `/v1/suppressions${query}`, token ? { token } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.suppressions.map((s: { number: string }) => s.number);
}

async function place(t: TestApp, to = NUMBER) {
  return t.rest('POST', '/v1/call-requests', { json: callBody(t, to) });
}

async function claimIds(t: TestApp): Promise<{ id: string; leaseId: string }[]> {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50, leaseSeconds: 600 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.claims.map((c: { leaseId: string; callRequest: { callRequestId: string } }) => ({
    id: c.callRequest.callRequestId,
    leaseId: c.leaseId,
  }));
}

describe('the suppression list', () => {
  it('keeps one entry per number in E.164, on both surfaces alike; a removal takes it off', async () => {
    t.clock.set(NOW);
    const { clinic } = t.demo.organizations;
    const first = await add(t, { number: '+1 (202) 555-0143', reason: 'Asked by letter' });
    expect(first).toMatchObject({ orgId: clinic.id, number: NUMBER, reason: 'Asked by letter', source: 'api', callRequestId: null });
    // the same number written otherwise is the same entry, on either surface
    expect(await add(t, { number: '+12025550143' })).toEqual(first);
    const gql = await t.gql(ADD, { number: '+1 202-555-0143' });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.addSuppression).toEqual(first);
    expect(await listed(t)).toEqual([NUMBER]);
    expect(await listed(t, `?number=${encodeURIComponent('+1 (202) 555 0143')}`)).toEqual([NUMBER]);
    expect(await listed(t, `?number=${encodeURIComponent('+14155552671')}`)).toEqual([]);
    const page = await t.gql(LIST, { number: '+1 (202) 555-0143' });
    expect(page.body.data.suppressions).toEqual({ items: [first], nextCursor: null });

    const removed = await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual(first);
    expect(await listed(t)).toEqual([]);
    expect((await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`)).status).toBe(404);
    await add(t, { number: NUMBER });
    const gqlRemoved = await t.gql(REMOVE, { number: '+1 (202) 555-0143' });
    expect(gqlRemoved.body.data.removeSuppression.number).toBe(NUMBER);
    const gqlMissing = await t.gql(REMOVE, { number: NUMBER });
    expect(gqlMissing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('pages in number order with a cursor on both surfaces', async () => {
    t.clock.set(NOW);
    const numbers = Array.from({ length: 5 }, (_, i) => `+1415200000${i}`);
    await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers: [...numbers].reverse() } });
    const one = await t.rest('GET', '/v1/suppressions?limit=3');
    expect(one.body.data.suppressions.map((s: { number: string }) => s.number)).toEqual(numbers.slice(0, 3));
    const two = await t.rest('GET', `/v1/suppressions?limit=3&cursor=${one.body.data.pagination.nextCursor}`);
    expect(two.body.data.suppressions.map((s: { number: string }) => s.number)).toEqual(numbers.slice(3));
    expect(two.body.data.pagination.nextCursor).toBeNull();
    const gOne = await t.gql(LIST, { first: 3 });
    const gTwo = await t.gql(LIST, { first: 3, after: gOne.body.data.suppressions.nextCursor });
    expect(gTwo.body.data.suppressions.items.map((s: { number: string }) => s.number)).toEqual(numbers.slice(3));
  });

  it('refuses bad input naming the field: a number without its country code, a reason too long', async () => {
    t.clock.set(NOW);
    const noCountry = await t.rest('POST', '/v1/suppressions', { json: { number: '202 555 0143' } });
    expect(noCountry.status).toBe(400);
    expect(noCountry.body.message).toMatch(/^number: must be a phone number with its country code/);
    const long = await t.rest('POST', '/v1/suppressions', { json: { number: NUMBER, reason: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/^reason: must be at most 200 characters/);
    const gql = await t.gql(ADD, { number: 'not a number' });
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'number' }] });
    expect((await t.rest('GET', '/v1/suppressions?number=12')).status).toBe(400);
    expect(await listed(t)).toEqual([]);
  });
});

describe('bulk suppression', () => {
  it('adds 10,000 numbers at once; the same number twice is one entry; a second run adds nothing', async () => {
    t.clock.set(NOW);
    const numbers = Array.from({ length: 10_000 }, (_, i) => `+1415${2_000_000 + i}`);
    // the last two are numbers already given, written otherwise
    numbers[9_998] = '+1 (415) 200-0000';
    numbers[9_999] = '+14152000001';
    const res = await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers, reason: 'Imported' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ added: 9_998, unchanged: 2 });
    expect(await t.deps.db.suppression.count({ where: { orgId: t.demo.organizations.clinic.id } })).toBe(9_998);
    expect((await place(t, '+14152000000')).body.code).toBe('suppressed');
    const again = await t.gql(ADD_MANY, { numbers: ['+14152000000', '+14152000005', '+1 202 555 0143'] });
    expect(again.body.data.addSuppressions).toEqual({ added: 1, unchanged: 2 });
  });

  it('stores nothing when a number is invalid, naming the first 20 bad rows by index', async () => {
    t.clock.set(NOW);
    const numbers = Array.from({ length: 10_000 }, (_, i) => `+1415${2_000_000 + i}`);
    for (let i = 0; i < 30; i++) numbers[100 + i * 7] = i % 2 ? '555-0143' : '+1 000';
    const res = await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const named = [...(res.body.message as string).matchAll(/numbers\.(\d+)/g)].map((m) => Number(m[1]));
    expect(named).toEqual(Array.from({ length: 20 }, (_, i) => 100 + i * 7));
    expect(res.body.message).toMatch(/; and 10 more issues$/);
    expect(await t.deps.db.suppression.count()).toBe(0);

    const gql = await t.gql(ADD_MANY, { numbers: [NUMBER, 'nope'] });
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'numbers.1' }] });
    expect(await t.deps.db.suppression.count()).toBe(0);
    const tooMany = await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers: [...numbers, NUMBER] } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe('numbers: must have at most 10000 numbers');
  });
});

describe('whose list', () => {
  it("another organization's list is invisible and does not bind the clinic; an account's binds its locations", async () => {
    t.clock.set(NOW);
    const { other, account } = t.demo.organizations;
    await add(t, { number: NUMBER }, other.apiKey);
    expect(await listed(t)).toEqual([]);
    expect((await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`)).status).toBe(404);
    expect((await place(t)).status).toBe(200);

    await add(t, { number: '+14155552671' }, account.apiKey);
    // the account's entry binds the location: the location's list shows it, naming the account
    const seen = await t.rest('GET', '/v1/suppressions');
    expect(seen.body.data.suppressions).toMatchObject([{ number: '+14155552671', orgId: account.id }]);
    const viaGraphQL = await t.gql(LIST, { number: '+14155552671' });
    expect(viaGraphQL.body.data.suppressions.items).toMatchObject([{ number: '+14155552671', orgId: account.id }]);
    expect(await listed(t, '', account.apiKey)).toEqual(['+14155552671']);
    // the location cannot take the account's entry off
    expect((await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent('+14155552671')}`)).status).toBe(404);
    const refused = await place(t, '+14155552671');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`its account ${account.id}`);
    // a location's entry binds itself only
    await add(t, { number: '+14155550100' });
    expect(await listed(t, '', account.apiKey)).toEqual(['+14155552671']);
  });

  it("a number on both the location's and the account's list is two entries, paged one by one on both surfaces", async () => {
    t.clock.set(NOW);
    const { account, clinic } = t.demo.organizations;
    await add(t, { number: NUMBER }, account.apiKey);
    await add(t, { number: NUMBER });
    await add(t, { number: '+12025550100' }, account.apiKey);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: TestResponse = await t.rest('GET', `/v1/suppressions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.data.suppressions.map((s: { number: string; orgId: string }) => `${s.number} ${s.orgId}`));
      cursor = res.body.data.pagination.nextCursor;
    } while (cursor);
    const expected = [`+12025550100 ${account.id}`, ...[`${NUMBER} ${account.id}`, `${NUMBER} ${clinic.id}`].sort()];
    expect(seen).toEqual(expected);
    const onGraphQL: string[] = [];
    let after: string | null = null;
    do {
      const res: TestResponse = await t.gql(LIST, { first: 1, after });
      const page: { items: { number: string; orgId: string }[]; nextCursor: string | null } = res.body.data.suppressions;
      onGraphQL.push(...page.items.map((s: { number: string; orgId: string }) => `${s.number} ${s.orgId}`));
      after = page.nextCursor;
    } while (after);
    expect(onGraphQL).toEqual(expected);
  });
});

describe('calls to a suppressed number', () => {
  it('are refused at create with 409 suppressed on both surfaces', async () => {
    t.clock.set(NOW);
    await add(t, { number: '+1 (202) 555-0143' });
    const rest = await place(t);
    expect(rest.status).toBe(409);
    expect(rest.body.code).toBe('suppressed');
    expect(rest.body.message).toMatch(/^to: \+12025550143 is on the suppression \(do-not-call\) list of the organization/);
    const gql = await t.gql(CREATE_CALL, { input: callBody(t) });
    expect(gql.body.errors[0].extensions.code).toBe('SUPPRESSED');
    expect(await t.deps.db.callRequest.count({ where: { to: NUMBER } })).toBe(0);
  });

  it('are refused however the number is spelled: a trunk 0 after the country code is the same number (both surfaces)', async () => {
    t.clock.set(NOW);
    await add(t, { number: '+44 20 7946 0000' });
    const rest = await place(t, '+4402079460000');
    expect(rest.status, JSON.stringify(rest.body)).toBe(409);
    expect(rest.body.code).toBe('suppressed');
    const gql = await t.gql(CREATE_CALL, { input: callBody(t, '+4402079460000') });
    expect(gql.body.errors[0].extensions.code).toBe('SUPPRESSED');
    // a number not on the list is kept in its one spelling
    const placed = await place(t, '+4402079460001');
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.data.to).toBe('+442079460001');
  });

  it('a queued request ends failed with error.code suppressed when its number is listed, and is never handed out', async () => {
    t.clock.set(NOW);
    const queued = await place(t);
    expect(queued.status).toBe(200);
    const id = queued.body.data.callRequestId;
    const other = (await place(t, '+14155552671')).body.data.callRequestId;
    await t.gql(ADD, { number: NUMBER });
    // ended when the number is listed, before any claim
    const view = await t.rest('GET', `/v1/call-requests/${id}`);
    expect(view.body.data).toMatchObject({
      status: 'failed',
      finishedAt: '2026-03-02T15:00:00.000Z',
      error: { category: 'request', code: 'suppressed' },
    });
    const claimed = (await claimIds(t)).map((c) => c.id);
    expect(claimed).toContain(other);
    expect(claimed).not.toContain(id);
    // its expiry goes with it (no durable work outlives a finished request)
    expect(await t.deps.db.job.count({ where: { id } })).toBe(0);
    // taken off the list, the request stays failed: it is never handed out
    await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`);
    expect((await claimIds(t)).map((c) => c.id)).not.toContain(id);
    const events = await t.deps.db.event.findMany({ where: { subjectId: id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['call_request.queued', 'call_request.failed']);
  });

  it('a request queued while its number was being listed: the claim statement passes over it, the next claim ends it', async () => {
    t.clock.set(NOW);
    const { clinic } = t.demo.organizations;
    const id = (await place(t)).body.data.callRequestId;
    // the listing's own update did not see the request (it committed after): as if written behind its back
    await t.deps.db.suppression.create({ data: { orgId: clinic.id, number: NUMBER, source: 'api', createdAt: new Date(NOW) } });
    const now = new Date(NOW);
    const actor = { orgId: clinic.id, ownerIsAccount: false } as Actor;
    const claimed = await t.deps.db.$transaction((tx) =>
      pickDueWithinCapacity(tx, {
        rootId: clinic.parentId,
        scope: requestsDispatchedBy(actor),
        now,
        max: 50,
        defaultCap: 1000,
      }),
    );
    expect(claimed.map((c) => c.id)).not.toContain(id);
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } })).status).toBe('queued');
    // a claim through the API ends it first
    expect((await claimIds(t)).map((c) => c.id)).not.toContain(id);
    expect((await t.rest('GET', `/v1/call-requests/${id}`)).body.data).toMatchObject({ status: 'failed', error: { code: 'suppressed' } });
  });

  it('a completed call with disposition opt_out puts its number on the list (source opt_out, the call named)', async () => {
    t.clock.set(NOW);
    const id = (await place(t)).body.data.callRequestId;
    const lease = (await claimIds(t)).find((c) => c.id === id)!;
    expect((await t.rest('POST', `/v1/call-requests/${id}/start`, { json: { leaseId: lease.leaseId } })).status).toBe(200);
    const bad = await t.rest('POST', `/v1/call-requests/${id}/complete`, { json: { leaseId: lease.leaseId, disposition: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'disposition: must be one of booked, callback_requested, opt_out, transferred, voicemail_left, information_given, declined, other',
    );
    const done = await t.rest('POST', `/v1/call-requests/${id}/complete`, { json: { leaseId: lease.leaseId, disposition: 'opt_out' } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const entry = (await t.rest('GET', `/v1/suppressions?number=${encodeURIComponent(NUMBER)}`)).body.data.suppressions[0];
    expect(entry).toMatchObject({ number: NUMBER, source: 'opt_out', callRequestId: id });
    expect((await place(t)).body.code).toBe('suppressed');
  });

  it('opt_out on GraphQL too', async () => {
    t.clock.set(NOW);
    const id = (await place(t, '+14155552671')).body.data.callRequestId;
    const lease = (await claimIds(t)).find((c) => c.id === id)!;
    await t.gql('mutation($id: ID!, $l: ID!) { startCallRequest(id: $id, leaseId: $l) { id } }', { id, l: lease.leaseId });
    const done = await t.gql('mutation($id: ID!, $l: ID!) { completeCallRequest(id: $id, leaseId: $l, disposition: opt_out) { status } }', {
      id,
      l: lease.leaseId,
    });
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data.completeCallRequest.status).toBe('completed');
    expect(await listed(t)).toEqual(['+14155552671']);
  });
});

describe('listing ends queued requests', () => {
  it("an account's bulk listing ends its locations' queued requests to those numbers, and no other", async () => {
    t.clock.set(NOW);
    const { account } = t.demo.organizations;
    const listed = (await place(t)).body.data.callRequestId;
    const kept = (await place(t, '+14155552671')).body.data.callRequestId;
    const res = await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers: ['+1 (202) 555-0143'] }, token: account.apiKey });
    expect(res.body.data).toEqual({ added: 1, unchanged: 0 });
    expect((await t.rest('GET', `/v1/call-requests/${listed}`)).body.data).toMatchObject({
      status: 'failed',
      error: { code: 'suppressed' },
    });
    expect((await t.rest('GET', `/v1/call-requests/${kept}`)).body.data.status).toBe('queued');
    const failed = await t.deps.db.event.findMany({ where: { subjectId: listed, type: 'call_request.failed' } });
    expect(failed).toHaveLength(1);
    expect(failed[0]!.actorKind).toBe('system');
  });
});

describe('events', () => {
  it('records suppression.added and suppression.removed for each way in and out', async () => {
    t.clock.set(NOW);
    const { clinic } = t.demo.organizations;
    const entry = await add(t, { number: NUMBER, reason: 'Phoned in' });
    await add(t, { number: NUMBER }); // already there: no event
    await t.rest('POST', '/v1/suppressions/bulk', { json: { numbers: [NUMBER, '+14155552671', '+14155552671'] } });
    await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`);
    const res = await t.rest('GET', '/v1/events?type=suppression.*');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const events = (res.body.data.events as { type: string; orgId: string; subject: unknown; data: Record<string, unknown> }[]).sort(
      (a, b) => a.type.localeCompare(b.type),
    );
    expect(events.map((e) => e.type)).toEqual(['suppression.added', 'suppression.added', 'suppression.removed']);
    const single = events.find((e) => e.data.suppressionId === entry.suppressionId && e.type === 'suppression.added')!;
    expect(single).toMatchObject({ orgId: clinic.id, subject: { type: 'suppression', id: entry.suppressionId }, data: entry });
    const bulk = events.find((e) => e.data.source === 'bulk')!;
    expect(bulk).toMatchObject({
      orgId: clinic.id,
      subject: { type: 'suppression_list', id: clinic.id },
      data: { numbers: ['+14155552671'] },
    });
    expect(events[2]).toMatchObject({ subject: { type: 'suppression', id: entry.suppressionId }, data: entry });
  });
});
