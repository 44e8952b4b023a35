import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const lunch = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch.' };
const path = (orgId: string) => `/v1/organizations/${orgId}/office-hours`;
const FIELDS = 'dayOfWeek isClosed open close breaks { start end reason greeting }';
const SET = `mutation($orgId: ID!, $input: SetOfficeHoursInput!) { setOfficeHours(orgId: $orgId, input: $input) { ${FIELDS} } }`;

describe('reading office hours', () => {
  it('answers all seven days Monday..Sunday, unconfigured days as closed', async () => {
    const orgId = t.demo.organizations.clinic.id;
    await t.rest('POST', path(orgId), { json: { dayOfWeek: 'WEDNESDAY', isClosed: false, open: '8:00', close: '16:00', breaks: [lunch] } });
    const res = await t.rest('GET', path(orgId));
    expect(res.status).toBe(200);
    expect(res.body.data.officeHours.map((d: { dayOfWeek: string }) => d.dayOfWeek)).toEqual(DAYS);
    expect(res.body.data.officeHours[0]).toEqual({ dayOfWeek: 'MONDAY', isClosed: true, open: null, close: null, breaks: [] });
    expect(res.body.data.officeHours[2]).toEqual({
      dayOfWeek: 'WEDNESDAY',
      isClosed: false,
      open: '08:00',
      close: '16:00',
      breaks: [lunch],
    });
  });

  it('filters by dayOfWeek, and refuses an unknown day with a 400', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const one = await t.rest('GET', `${path(orgId)}?dayOfWeek=FRIDAY`);
    expect(one.body.data).toEqual({ officeHours: [{ dayOfWeek: 'FRIDAY', isClosed: true, open: null, close: null, breaks: [] }] });
    const bad = await t.rest('GET', `${path(orgId)}?dayOfWeek=friday`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^dayOfWeek: must be one of MONDAY/);
  });

  it('reads the same over GraphQL, with the dayOfWeek filter', async () => {
    const orgId = t.demo.organizations.clinic.id;
    await t.gql(SET, { orgId, input: { dayOfWeek: 'TUESDAY', isClosed: false, open: '9:30', close: '18:00', breaks: [lunch] } });
    const res = await t.gql(
      `query($id: ID!) { organization(id: $id) { all: officeHours { dayOfWeek } tue: officeHours(dayOfWeek: TUESDAY) { ${FIELDS} } } }`,
      { id: orgId },
    );
    expect(res.body.data.organization.all.map((d: { dayOfWeek: string }) => d.dayOfWeek)).toEqual(DAYS);
    expect(res.body.data.organization.tue).toEqual([
      { dayOfWeek: 'TUESDAY', isClosed: false, open: '09:30', close: '18:00', breaks: [lunch] },
    ]);
    expect((await t.rest('GET', `${path(orgId)}?dayOfWeek=TUESDAY`)).body.data.officeHours).toEqual(res.body.data.organization.tue);
  });
});

describe('who may set office hours', () => {
  it('answers 404 / NOT_FOUND for the other tenant on every route', async () => {
    const other = t.demo.organizations.other.id;
    const day = { dayOfWeek: 'MONDAY', isClosed: true };
    expect((await t.rest('GET', path(other))).status).toBe(404);
    expect((await t.rest('POST', path(other), { json: day })).status).toBe(404);
    const gql = await t.gql(SET, { orgId: other, input: day });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const read = await t.gql(`query($id: ID!) { organization(id: $id) { officeHours { dayOfWeek } } }`, { id: other });
    expect(read.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // and the other tenant's own days are untouched
    const theirs = await t.rest('GET', path(other), { token: t.demo.organizations.other.apiKey });
    expect(theirs.body.data.officeHours.every((d: { isClosed: boolean; open: null }) => d.isClosed && d.open === null)).toBe(true);
  });

  it('lets the account key manage its child clinic', async () => {
    const { account, clinic } = t.demo.organizations;
    const res = await t.rest('POST', path(clinic.id), {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00' },
      token: account.apiKey,
    });
    expect(res.status).toBe(200);
    expect((await t.rest('GET', `${path(clinic.id)}?dayOfWeek=MONDAY`)).body.data.officeHours[0].open).toBe('09:00');
  });

  it('lets a read-only OAuth token read but not write (403 / FORBIDDEN)', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const orgId = t.demo.organizations.clinic.id;
    const day = { dayOfWeek: 'MONDAY', isClosed: true };
    expect((await t.rest('GET', path(orgId), { token })).status).toBe(200);
    expect((await t.rest('POST', path(orgId), { json: day, token })).status).toBe(403);
    expect((await t.gql(SET, { orgId, input: day }, { token })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('concurrent writers', () => {
  it('setOfficeHours calls racing on one day end in a consistent state', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const inputs = [
      { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [lunch] },
      { dayOfWeek: 'MONDAY', isClosed: false, open: '13:30', close: '17:00' }, // keeps breaks: refused when lunch is already there
      { dayOfWeek: 'MONDAY', isClosed: true }, // refused when breaks are there
      { dayOfWeek: 'MONDAY', isClosed: false, open: '08:00', close: '18:00', breaks: [{ ...lunch, start: '12:30', end: '13:30' }] },
      { dayOfWeek: 'MONDAY', isClosed: false, open: '07:00', close: '19:00' },
      { dayOfWeek: 'MONDAY', isClosed: true, breaks: [] },
    ];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        inputs.map((input, i) =>
          i % 2 === 0
            ? t.rest('POST', path(orgId), { json: input }).then((r) => ({ ok: r.status === 200, status: r.status, data: r.body.data }))
            : t.gql(SET, { orgId, input }).then((r) => ({
                ok: !r.body.errors,
                status: r.body.errors?.[0]?.extensions?.code ?? 200,
                data: r.body.data?.setOfficeHours,
              })),
        ),
      );
      for (const a of answers) expect([200, 400, 'BAD_USER_INPUT']).toContain(a.status);
      const accepted = answers.filter((a) => a.ok).map((a) => a.data);
      expect(accepted.length).toBeGreaterThan(0);
      const final = (await t.rest('GET', `${path(orgId)}?dayOfWeek=MONDAY`)).body.data.officeHours[0];
      // the stored day is exactly what one accepted writer answered (row and breaks were written together)
      expect(accepted).toContainEqual(final);
      // and it obeys the rules: a closed day has no breaks, breaks lie within the hours
      if (final.isClosed) expect(final.breaks).toEqual([]);
      for (const b of final.breaks) {
        expect(b.start >= final.open && b.end <= final.close).toBe(true);
      }
      const rows = await t.deps.db.officeHours.count({ where: { orgId, dayOfWeek: 'MONDAY' } });
      expect(rows).toBe(1);
    }
  });

  it('a writer keeping the breaks never slips past one that adds a break (rule 7 is checked against the kept breaks)', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const addLunch = { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [lunch] };
    const afternoonOnly = { dayOfWeek: 'MONDAY', isClosed: false, open: '13:30', close: '17:00' }; // keeps the breaks
    for (let round = 0; round < 8; round++) {
      await t.rest('POST', path(orgId), { json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [] } });
      const answers = await Promise.all(
        [addLunch, afternoonOnly, addLunch, afternoonOnly].map((json) => t.rest('POST', path(orgId), { json })),
      );
      for (const a of answers) expect([200, 400]).toContain(a.status);
      const final = (await t.rest('GET', `${path(orgId)}?dayOfWeek=MONDAY`)).body.data.officeHours[0];
      for (const b of final.breaks) expect(b.start >= final.open && b.end <= final.close, JSON.stringify(final)).toBe(true);
    }
  });

  it('concurrent first writes of a new day create one record', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const answers = await Promise.all(
      ['10:00', '11:00', '12:00', '13:00'].map((open) =>
        t.rest('POST', path(orgId), { json: { dayOfWeek: 'THURSDAY', isClosed: false, open, close: '20:00' } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await t.deps.db.officeHours.count({ where: { orgId, dayOfWeek: 'THURSDAY' } })).toBe(1);
  });
});
