// GET /v1/organizations/{orgId}/availability/timeline and Organization.availabilityTimeline: the
// intervals covering [from, to), the same on both surfaces, exact across a daylight-saving change,
// validated (to after from, at most 31 days, both required), within reach only.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const TIMELINE = `query($id: ID!, $from: DateTime!, $to: DateTime!, $medium: Medium!, $phone: ID) {
  organization(id: $id) {
    availabilityTimeline(from: $from, to: $to, medium: $medium, phoneNumberId: $phone) {
      timezone medium from to
      intervals { start end state greeting closure { id description } specialHours { id description } break { start end reason } }
    }
  }
}`;

async function openWeekdays() {
  for (const dayOfWeek of ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']) {
    const res = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: {
        dayOfWeek,
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'At lunch' }],
      },
    });
    expect(res.status).toBe(200);
  }
}

describe('availability timeline', () => {
  it('answers a week across the spring-forward change, the same on REST and GraphQL', async () => {
    await openWeekdays();
    const org = t.demo.organizations.clinic.id;
    const phone = t.demo.phoneNumbers.clinic[0];
    // New York springs forward on Sunday 2026-03-08: Friday's hours are at -05:00, Monday's at -04:00
    const from = '2026-03-06T00:00:00Z';
    const to = '2026-03-10T00:00:00Z';
    const rest = await t.rest(
      'GET',
      `/v1/organizations/${org}/availability/timeline?from=${from}&to=${to}&medium=PHONE&phoneNumberId=${phone}`,
    );
    expect(rest.status).toBe(200);
    const intervals = rest.body.data.intervals.map((i: { start: string; end: string; state: string }) => [i.start, i.end, i.state]);
    expect(intervals).toEqual([
      ['2026-03-06T00:00:00Z', '2026-03-06T14:00:00Z', 'CLOSED'],
      ['2026-03-06T14:00:00Z', '2026-03-06T17:00:00Z', 'OPEN'], // Friday 09:00 EST
      ['2026-03-06T17:00:00Z', '2026-03-06T18:00:00Z', 'BREAK'],
      ['2026-03-06T18:00:00Z', '2026-03-06T22:00:00Z', 'OPEN'],
      ['2026-03-06T22:00:00Z', '2026-03-09T13:00:00Z', 'CLOSED'], // the weekend, 23 hours shorter on Sunday
      ['2026-03-09T13:00:00Z', '2026-03-09T16:00:00Z', 'OPEN'], // Monday 09:00 EDT
      ['2026-03-09T16:00:00Z', '2026-03-09T17:00:00Z', 'BREAK'],
      ['2026-03-09T17:00:00Z', '2026-03-09T21:00:00Z', 'OPEN'],
      ['2026-03-09T21:00:00Z', '2026-03-10T00:00:00Z', 'CLOSED'],
    ]);
    expect(rest.body.data).toMatchObject({ timezone: 'America/New_York', medium: 'PHONE', from, to });
    expect(rest.body.data.intervals[2]).toMatchObject({
      greeting: 'At lunch',
      break: { start: '12:00', end: '13:00', reason: 'Lunch' },
      closure: null,
    });

    const gql = await t.gql(TIMELINE, { id: org, from, to, medium: 'PHONE', phone });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.organization.availabilityTimeline).toEqual(rest.body.data);
  });

  it('splits at closures and follows their precedence', async () => {
    await openWeekdays();
    const org = t.demo.organizations.clinic.id;
    await t.rest('POST', `/v1/organizations/${org}/closures`, {
      json: {
        description: 'Training',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T19:00:00Z',
        chatGreeting: 'Training today',
        phoneGreeting: null,
      },
    });
    const res = await t.rest(
      'GET',
      `/v1/organizations/${org}/availability/timeline?from=2026-03-09T12:00:00Z&to=2026-03-09T22:00:00Z&medium=CHAT`,
    );
    expect(
      res.body.data.intervals.map((i: { start: string; state: string; greeting: string | null }) => [i.start, i.state, i.greeting]),
    ).toEqual([
      ['2026-03-09T12:00:00Z', 'CLOSED', null],
      ['2026-03-09T13:00:00Z', 'OPEN', null], // a break is a phone concept: chats stay open
      ['2026-03-09T15:00:00Z', 'CLOSURE', 'Training today'],
      ['2026-03-09T19:00:00Z', 'OPEN', null],
      ['2026-03-09T21:00:00Z', 'CLOSED', null],
    ]);
  });

  it('refuses a range that is empty, reversed, longer than 31 days or incomplete, naming the field', async () => {
    const base = `/v1/organizations/${t.demo.organizations.clinic.id}/availability/timeline?medium=PHONE`;
    const cases: [string, string][] = [
      ['&from=2026-03-09T00:00:00Z&to=2026-03-09T00:00:00Z', 'to: must be after from'],
      ['&from=2026-03-09T00:00:00Z&to=2026-03-01T00:00:00Z', 'to: must be after from'],
      ['&from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:01Z', 'to: must be at most 31 days after from'],
      ['&to=2026-03-09T00:00:00Z', 'from: is required'],
      ['&from=2026-03-09&to=2026-03-10T00:00:00Z', 'from: must be an ISO-8601 instant'],
    ];
    for (const [query, message] of cases) {
      const res = await t.rest('GET', base + query);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toContain(message);
    }
    expect((await t.rest('GET', `${base}&from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:00Z`)).status).toBe(200); // exactly 31 days
    const gql = await t.gql(TIMELINE, {
      id: t.demo.organizations.clinic.id,
      from: '2026-03-09T00:00:00Z',
      to: '2026-03-01T00:00:00Z',
      medium: 'PHONE',
    });
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'to', message: 'must be after from' }],
    });
  });

  it("answers another tenant's organization exactly like a missing one", async () => {
    const q = '?from=2026-03-09T00:00:00Z&to=2026-03-10T00:00:00Z&medium=PHONE';
    const foreign = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/availability/timeline${q}`);
    const missing = await t.rest('GET', `/v1/organizations/00000000-0000-4000-8000-000000000000/availability/timeline${q}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });
});
