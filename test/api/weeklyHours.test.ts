// The whole week in one write: PUT /v1/organizations/{orgId}/office-hours and setWeeklyHours. Validated as a
// whole (every issue named by its path, the same on both surfaces), applied atomically (a refused week
// changes nothing), one event; the per-day POST is unchanged.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

type Issue = NonNullable<Schemas['ErrorEnvelope']['errors']>[number];

const t = useTestApp();
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const lunch = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch.' };
const week = (): Record<string, unknown>[] =>
  DAYS.map((dayOfWeek, i) =>
    i < 5
      ? { dayOfWeek, isClosed: false, open: '08:00', close: '17:00', breaks: [lunch] }
      : i === 5
        ? { dayOfWeek, isClosed: false, open: '09:00', close: '12:00' }
        : { dayOfWeek, isClosed: true },
  );
const SET =
  'mutation($o: ID!, $input: SetWeeklyHoursInput!) { setWeeklyHours(orgId: $o, input: $input) { dayOfWeek isClosed open close breaks { start end reason greeting } } }';
const path = (orgId: string) => `/v1/organizations/${orgId}/office-hours`;

describe('the whole week in one write', () => {
  it('sets all seven days on both surfaces, answers and stores Monday..Sunday', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const res = await t.rest('PUT', path(clinic), { json: { officeHours: [...week()].reverse() } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.officeHours.map((d: Schemas['OfficeHours']) => d.dayOfWeek)).toEqual(DAYS);
    expect(res.body.data.officeHours[0]).toEqual({ dayOfWeek: 'MONDAY', isClosed: false, open: '08:00', close: '17:00', breaks: [lunch] });
    expect(res.body.data.officeHours[5]).toEqual({ dayOfWeek: 'SATURDAY', isClosed: false, open: '09:00', close: '12:00', breaks: [] });
    expect((await t.rest('GET', path(clinic))).body.data).toEqual(res.body.data);

    const gql = await t.gql(SET, { o: clinic, input: { officeHours: week() } });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.setWeeklyHours).toEqual(res.body.data.officeHours);
    // availability follows at once: Monday 2026-03-09 12:30 New York is the lunch break
    const at = await t.rest('GET', `/v1/organizations/${clinic}/availability?at=2026-03-09T16:30:00Z&medium=PHONE`);
    expect(at.body.data).toMatchObject({ state: 'BREAK', break: { reason: 'Lunch' } });
  });

  it('a PUT replaces: omitted breaks mean none; the per-day POST still keeps them', async () => {
    const clinic = t.demo.organizations.clinic.id;
    await t.rest('PUT', path(clinic), { json: { officeHours: week() } });
    const kept = await t.rest('POST', path(clinic), { json: { dayOfWeek: 'MONDAY', isClosed: false, open: '07:00', close: '18:00' } });
    expect(kept.body.data.breaks).toEqual([lunch]);
    const replaced = await t.rest('PUT', path(clinic), { json: { officeHours: week().map(({ breaks: _b, ...day }) => day) } });
    expect(replaced.body.data.officeHours[0].breaks).toEqual([]);
  });

  it('names every issue of the week by its path, the same on both surfaces, and changes nothing', async () => {
    const clinic = t.demo.organizations.clinic.id;
    await t.rest('PUT', path(clinic), { json: { officeHours: week() } });
    const before = (await t.rest('GET', path(clinic))).body.data;
    const bad = week();
    bad[1] = { ...bad[1]!, close: '07:00' }; // TUESDAY closes before it opens
    bad[2] = { ...bad[2]!, breaks: [{ ...lunch, start: '18:00', end: '19:00' }] }; // a break outside the hours
    bad[6] = { dayOfWeek: 'SATURDAY', isClosed: true }; // SATURDAY twice, SUNDAY missing
    const rest = await t.rest('PUT', path(clinic), { json: { officeHours: bad } });
    expect(rest.status).toBe(400);
    const paths = rest.body.errors.map((i: Issue) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['officeHours.1.close', 'officeHours.2.breaks.0', 'officeHours.6.dayOfWeek', 'officeHours']),
    );
    expect(rest.body.message).toContain('missing SUNDAY');
    const gql = await t.gql(SET, { o: clinic, input: { officeHours: bad } });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors[0].extensions.issues.map((i: Issue) => ({ ...i, path: i.path.replace(/^input\./, '') }))).toEqual(
      rest.body.errors,
    );
    expect((await t.rest('GET', path(clinic))).body.data).toEqual(before);

    for (const body of [
      {},
      { officeHours: week().slice(0, 6) },
      { officeHours: [...week(), week()[0]] },
      { officeHours: week(), extra: 1 },
    ]) {
      expect((await t.rest('PUT', path(clinic), { json: body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await t.rest('GET', path(clinic))).body.data).toEqual(before);
  });

  it('appends one event for the whole week, and none for a week that changes nothing; needs office-hours:write and reach', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const count = () => t.deps.db.event.count({ where: { type: 'office_hours.updated' } });
    await t.rest('PUT', path(clinic), { json: { officeHours: week() } });
    expect(await count()).toBe(1);
    await t.rest('PUT', path(clinic), { json: { officeHours: week() } });
    expect(await count()).toBe(1);
    const event = await t.deps.db.event.findFirstOrThrow({ where: { type: 'office_hours.updated' } });
    expect(event).toMatchObject({ orgId: clinic, subjectType: 'office_hours', subjectId: clinic });
    expect((event.data as { officeHours: unknown[] }).officeHours).toHaveLength(7);

    expect((await t.rest('PUT', path(clinic), { token: t.demo.organizations.other.apiKey, json: { officeHours: week() } })).status).toBe(
      404,
    );
    expect(
      (await t.rest('PUT', path(clinic), { token: await t.accessToken('clinicReadOnly'), json: { officeHours: week() } })).status,
    ).toBe(403);
  });
});
