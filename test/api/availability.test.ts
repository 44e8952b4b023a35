// Availability through both surfaces: office hours, breaks and closures set through the API, then read
// at chosen instants (the pure computation is unit-tested in test/unit/availability*.test.ts; these
// tests prove the wiring: the stored state, the phone number's greetings, the demo templates).
import { beforeEach, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/auth/provisioning.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const lunch = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch, back at one.' };
// 2026-03-09 is a Monday; New York is on EDT (UTC-4) since 2026-03-08
const MONDAY_0930 = '2026-03-09T13:30:00Z';
const MONDAY_1230 = '2026-03-09T16:30:00Z';
const MONDAY_1800 = '2026-03-09T22:00:00Z';

const GQL = `query($id: ID!, $at: DateTime, $medium: Medium!, $phone: ID) {
  organization(id: $id) {
    availability(at: $at, medium: $medium, phoneNumberId: $phone) {
      at timezone localTime state officeOpen closure { id description } specialHours { id description } break { start end reason }
      greeting availableTemplates { id name } nextChangeAt
    }
  }
}`;

const clinicId = () => t.demo.organizations.clinic.id;
const mainLine = () => t.demo.phoneNumbers.clinic[0]!;
const greetings = {
  open: 'Thanks for calling Downtown main line, how can I help?',
  closed: 'Downtown main line is closed right now; leave a message and we will call you back.',
};

async function availability(query: Record<string, string>, options: { orgId?: string; token?: string } = {}) {
  const qs = new URLSearchParams(query).toString();
  return t.rest(
    'GET',
    `/v1/organizations/${options.orgId ?? clinicId()}/availability?${qs}`,
    options.token ? { token: options.token } : {},
  );
}

async function both(query: { at?: string; medium: string; phoneNumberId?: string }) {
  const rest = await availability(query);
  expect(rest.status, JSON.stringify(rest.body)).toBe(200);
  const gql = await t.gql(GQL, { id: clinicId(), at: query.at, medium: query.medium, phone: query.phoneNumberId });
  expect(gql.body.errors).toBeUndefined();
  // one domain function: both surfaces answer the same object
  expect(gql.body.data.organization.availability).toEqual(rest.body.data);
  return rest.body.data;
}

const names = (templates: { name: string }[]) => templates.map((x) => x.name).sort();

describe('availability', () => {
  beforeEach(async () => {
    const res = await t.rest('POST', `/v1/organizations/${clinicId()}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [lunch] },
    });
    expect(res.status).toBe(200);
  });

  it('is OPEN within office hours, with the phone number greeting and the OPEN templates', async () => {
    const data = await both({ at: MONDAY_0930, medium: 'PHONE', phoneNumberId: mainLine() });
    expect(data).toMatchObject({
      at: MONDAY_0930,
      timezone: 'America/New_York',
      localTime: '2026-03-09T09:30',
      state: 'OPEN',
      officeOpen: true,
      closure: null,
      break: null,
      greeting: greetings.open,
      nextChangeAt: '2026-03-09T16:00:00Z', // lunch at 12:00 local
    });
    expect(names(data.availableTemplates)).toEqual(['Book an appointment']);
    expect(data.availableTemplates.map((x: { id: string }) => x.id)).toEqual([t.demo.templates.clinic[0]]);
  });

  it('is BREAK for a phone call during a break, with the break greeting', async () => {
    const data = await both({ at: MONDAY_1230, medium: 'PHONE', phoneNumberId: mainLine() });
    expect(data).toMatchObject({
      state: 'BREAK',
      officeOpen: false,
      break: { start: '12:00', end: '13:00', reason: 'Lunch' },
      greeting: lunch.greeting,
      nextChangeAt: '2026-03-09T17:00:00Z',
    });
    expect(names(data.availableTemplates)).toEqual(['Take a message']);
  });

  it('stays OPEN for chat during a break, with the chat templates', async () => {
    const data = await both({ at: MONDAY_1230, medium: 'CHAT' });
    expect(data).toMatchObject({ state: 'OPEN', officeOpen: true, break: null, greeting: null, nextChangeAt: '2026-03-09T21:00:00Z' });
    expect(names(data.availableTemplates)).toEqual(['Answer billing questions', 'Book an appointment']);
  });

  it('is CLOSED after hours, with the closed greeting, until next Monday', async () => {
    const data = await both({ at: MONDAY_1800, medium: 'PHONE', phoneNumberId: mainLine() });
    expect(data).toMatchObject({ state: 'CLOSED', officeOpen: false, greeting: greetings.closed, nextChangeAt: '2026-03-16T13:00:00Z' });
    expect(names((await both({ at: MONDAY_1800, medium: 'SMS' })).availableTemplates)).toEqual(['Take a message']);
    expect((await both({ at: MONDAY_1800, medium: 'GHL' })).availableTemplates).toEqual([]);
  });

  it("is CLOSURE during a timed closure, with the closure's greetings", async () => {
    const created = await t.rest('POST', `/v1/organizations/${clinicId()}/closures`, {
      json: {
        description: 'Staff training',
        chatGreeting: 'Chat: training today',
        phoneGreeting: 'Phone: training today',
        startAt: '2026-03-09T13:00:00Z',
        endAt: '2026-03-09T15:00:00Z',
      },
    });
    const phone = await both({ at: MONDAY_0930, medium: 'PHONE', phoneNumberId: mainLine() });
    expect(phone).toMatchObject({
      state: 'CLOSURE',
      officeOpen: false,
      closure: { id: created.body.data.id, description: 'Staff training' },
      greeting: 'Phone: training today',
      nextChangeAt: '2026-03-09T15:00:00Z',
    });
    expect((await both({ at: MONDAY_0930, medium: 'CHAT' })).greeting).toBe('Chat: training today');
    // deleted, the closure no longer applies
    await t.rest('DELETE', `/v1/organizations/${clinicId()}/closures/${created.body.data.id}`);
    expect((await both({ at: MONDAY_0930, medium: 'PHONE' })).state).toBe('OPEN');
  });

  it('an annual closure without a phone greeting falls back to the closed greeting; it takes precedence over breaks', async () => {
    await t.rest('POST', `/v1/organizations/${clinicId()}/closures`, {
      json: { description: 'Founders day', chatGreeting: null, phoneGreeting: null, annualDate: { month: 3, day: 9 } },
    });
    const data = await both({ at: MONDAY_1230, medium: 'PHONE', phoneNumberId: mainLine() });
    expect(data).toMatchObject({
      state: 'CLOSURE',
      closure: { description: 'Founders day' },
      break: null,
      greeting: greetings.closed,
      nextChangeAt: '2026-03-10T04:00:00Z',
    });
    expect((await both({ at: MONDAY_1230, medium: 'CHAT' })).greeting).toBeNull();
  });

  it('has no phone greeting without a phone number', async () => {
    expect((await both({ at: MONDAY_0930, medium: 'PHONE' })).greeting).toBeNull();
  });

  it('defaults `at` to now, and accepts an instant with an offset', async () => {
    t.clock.set(MONDAY_1230);
    const now = await both({ medium: 'PHONE' });
    expect(now).toMatchObject({ at: MONDAY_1230, state: 'BREAK' });
    const withOffset = await availability({ at: '2026-03-09T12:30:00-04:00', medium: 'PHONE' });
    expect(withOffset.body.data).toEqual(now);
  });

  it('refuses a bad medium or at with a 400 naming the field', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ at: MONDAY_0930, medium: 'FAX' }, 'medium'],
      [{ at: MONDAY_0930 }, 'medium'],
      [{ at: 'yesterday', medium: 'PHONE' }, 'at'],
      [{ at: '2026-03-09T09:30', medium: 'PHONE' }, 'at'],
      [{ at: '2026-02-30T09:30:00Z', medium: 'PHONE' }, 'at'],
      [{ medium: 'PHONE', phoneNumberId: 'line-1' }, 'phoneNumberId'],
    ];
    for (const [query, field] of cases) {
      const res = await availability(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const gqlMedium = await t.gql(`query($id: ID!) { organization(id: $id) { availability(medium: FAX) { state } } }`, { id: clinicId() });
    expect(gqlMedium.body.errors[0].message).toContain('Medium');
    const gqlAt = await t.gql(`query($id: ID!) { organization(id: $id) { availability(at: "yesterday", medium: PHONE) { state } } }`, {
      id: clinicId(),
    });
    expect(gqlAt.body.errors[0].message).toContain('DateTime');
  });

  it('refuses an instant outside 1900..9999-12-23 (found by the fuzzer: year 0000 and the end of 9999 gave garbled times)', async () => {
    for (const at of ['0000-06-01T00:00:00Z', '1899-12-31T23:59:59Z', '9999-12-31T00:00:00Z']) {
      const res = await availability({ at, medium: 'PHONE' });
      expect(res.status, at).toBe(400);
      expect(res.body.message).toBe('at: must be between 1900-01-01T00:00:00Z and 9999-12-23T00:00:00Z');
    }
    const gql = await t.gql(
      `query($id: ID!) { organization(id: $id) { availability(at: "9999-12-31T00:00:00Z", medium: PHONE) { state } } }`,
      { id: clinicId() },
    );
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'at', message: 'must be between 1900-01-01T00:00:00Z and 9999-12-23T00:00:00Z' }],
    });
    const last = await availability({ at: '9999-12-23T00:00:00Z', medium: 'PHONE' });
    expect(last.status).toBe(200);
    expect(last.body.data.nextChangeAt).toMatch(/^9999-12-/); // still a four-digit year
  });

  it("answers 404 for another organization's phone number and for the other tenant", async () => {
    const foreignPhone = await availability({ at: MONDAY_0930, medium: 'PHONE', phoneNumberId: t.demo.phoneNumbers.other[0]! });
    expect(foreignPhone.status).toBe(404);
    const gqlPhone = await t.gql(GQL, { id: clinicId(), at: MONDAY_0930, medium: 'PHONE', phone: t.demo.phoneNumbers.other[0] });
    expect(gqlPhone.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const foreignOrg = await availability({ at: MONDAY_0930, medium: 'PHONE' }, { orgId: t.demo.organizations.other.id });
    expect(foreignOrg.status).toBe(404);
    const gqlOrg = await t.gql(GQL, { id: t.demo.organizations.other.id, medium: 'PHONE' });
    expect(gqlOrg.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('lets the account key read its child clinic', async () => {
    const res = await availability({ at: MONDAY_0930, medium: 'PHONE' }, { token: t.demo.organizations.account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.state).toBe('OPEN');
  });

  it('lets a read-only OAuth token read availability but not change office hours or closures (403)', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const read = await availability({ at: MONDAY_0930, medium: 'PHONE' }, { token });
    expect(read.status).toBe(200);
    const gqlRead = await t.gql(GQL, { id: clinicId(), at: MONDAY_0930, medium: 'PHONE' }, { token });
    expect(gqlRead.body.data.organization.availability.state).toBe('OPEN');
    const write = await t.rest('POST', `/v1/organizations/${clinicId()}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: true, breaks: [] },
      token,
    });
    expect(write.status).toBe(403);
    const gqlWrite = await t.gql(
      `mutation($orgId: ID!) { setOfficeHours(orgId: $orgId, input: {dayOfWeek: MONDAY, isClosed: true, breaks: []}) { isClosed } }`,
      { orgId: clinicId() },
      { token },
    );
    expect(gqlWrite.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await both({ at: MONDAY_0930, medium: 'PHONE' })).state).toBe('OPEN');
  });
});

// An answer was remembered until its nextChangeAt (the next change of state), so after a question during
// break A the next break B, starting where A ends (the state stays BREAK), was answered as A, with A's
// greeting. Saturday 2026-12-19 in Asia/Kolkata (UTC+05:30): 06:42Z is 12:12 (A), 06:43Z is 12:13 (B).
describe('availability right after a question in the previous break', () => {
  const breakA = { start: '11:14', end: '12:13', reason: 'A', greeting: 'Greeting A' };
  const breakB = { start: '12:13', end: '12:29', reason: 'B', greeting: 'Greeting B' };
  const BREAK_GQL = `query($id: ID!, $at: DateTime) { organization(id: $id) { availability(at: $at, medium: PHONE) { break { reason } greeting } } }`;
  const token = () => t.demo.organizations.account.apiKey;

  /** A new clinic in Asia/Kolkata under the demo account (nothing remembered about it yet), open Saturday with breaks A and B. */
  async function kolkataClinic(): Promise<string> {
    const org = await createOrganization(t.deps, {
      name: 'Kolkata clinic',
      timezone: 'Asia/Kolkata',
      parentId: t.demo.organizations.account.id,
    });
    const res = await t.rest('POST', `/v1/organizations/${org.id}/office-hours`, {
      json: { dayOfWeek: 'SATURDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [breakA, breakB] },
      token: token(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return org.id;
  }

  it('answers break B at 12:13 after break A was asked at 12:12 (REST)', async () => {
    const orgId = await kolkataClinic();
    const at = async (instant: string) => {
      const res = await availability({ at: instant, medium: 'PHONE' }, { orgId, token: token() });
      expect(res.status).toBe(200);
      return res.body.data;
    };
    expect(await at('2026-12-19T06:42:00Z')).toMatchObject({
      state: 'BREAK',
      break: { reason: 'A' },
      greeting: 'Greeting A',
      nextChangeAt: '2026-12-19T06:59:00Z',
    });
    expect(await at('2026-12-19T06:43:00Z')).toMatchObject({
      state: 'BREAK',
      break: { start: '12:13', end: '12:29', reason: 'B' },
      greeting: 'Greeting B',
      nextChangeAt: '2026-12-19T06:59:00Z', // still the next change of state
    });
  });

  it('answers break B at 12:13 after break A was asked at 12:12 (GraphQL)', async () => {
    const orgId = await kolkataClinic();
    const at = async (instant: string) => {
      const res = await t.gql(BREAK_GQL, { id: orgId, at: instant }, { token: token() });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.organization.availability;
    };
    expect(await at('2026-12-19T06:42:00Z')).toEqual({ break: { reason: 'A' }, greeting: 'Greeting A' });
    expect(await at('2026-12-19T06:43:00Z')).toEqual({ break: { reason: 'B' }, greeting: 'Greeting B' });
  });
});
