// Special hours (the hours of one local date): every office-hours rule case (rules 1-7, spec §4, docs/decisions.md
// §3) turned into a special day, plus the date's and the description's own rules, through REST (JSON; a
// subset as form and multipart) and GraphQL: the same verdict, the same field, the same words. Then one
// per date (409 CONFLICT on both surfaces), the limit, and tenant isolation.
import { beforeEach, describe, expect, it } from 'vitest';
import { FORM_KINDS, graphqlLiteral, graphqlOutcome, type Outcome, restOutcome, type RuleCase } from './cases/closureCases.js';
import { officeHoursCases } from './cases/officeHoursCases.js';
import { SPECIAL_HOURS_LIMIT } from '../../src/domain/schedule/specialHours.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const NOW = '2026-03-02T15:00:00Z'; // Monday 10:00 in New York, 09:00 in Chicago
const DATE = '2026-03-09';

interface SpecialCase extends RuleCase {
  /** Special days written (through REST) on DATE before the case; the case then updates the last one. */
  setup?: Record<string, unknown>[];
  after?: Record<string, unknown>;
}

const withoutDay = (value: Record<string, unknown>): Record<string, unknown> => {
  const { dayOfWeek: _day, ...rest } = value;
  return rest;
};
const asSpecial = (day: Record<string, unknown>): Record<string, unknown> => ({
  date: DATE,
  description: 'Inventory day',
  ...withoutDay(day),
});

/** Every office-hours case but those about dayOfWeek, on a date. */
const derived: SpecialCase[] = officeHoursCases
  .filter((c) => c.field !== 'dayOfWeek' && !c.name.startsWith('dayOfWeek'))
  .map((c) => ({
    ...c,
    name: `${c.name} (as a special day)`,
    input: asSpecial(c.input),
    setup: c.setup?.map(asSpecial),
    data: c.data && withoutDay(c.data),
    graphqlTypeError: c.graphqlTypeError === 'DayOfWeek' ? undefined : c.graphqlTypeError,
    form: c.form && [['date', DATE], ['description', 'Inventory day'], ...c.form.filter(([k]) => k !== 'dayOfWeek')],
  }));

const base = { date: DATE, description: 'Inventory day', isClosed: false, open: '10:00', close: '14:00' };
const without = (key: string) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== key));
const own: SpecialCase[] = [
  { name: 'date: today is accepted', input: { ...base, date: '2026-03-02' }, accepted: true, data: { date: '2026-03-02' } },
  { name: 'date: a leap day', input: { ...base, date: '2028-02-29' }, accepted: true, data: { date: '2028-02-29' } },
  { name: 'date: missing', input: without('date'), accepted: false, field: 'date' },
  {
    name: 'date: not YYYY-MM-DD',
    input: { ...base, date: '2026-3-9' },
    accepted: false,
    field: 'date',
    form: [
      ['date', '2026-3-9'],
      ['description', 'x'],
      ['isClosed', 'true'],
    ],
  },
  { name: 'date: with a time', input: { ...base, date: '2026-03-09T00:00:00Z' }, accepted: false, field: 'date' },
  { name: 'date: not a calendar date', input: { ...base, date: '2026-02-29' }, accepted: false, field: 'date' },
  { name: 'date: month 13', input: { ...base, date: '2026-13-01' }, accepted: false, field: 'date' },
  { name: 'date: yesterday (in the past)', input: { ...base, date: '2026-03-01' }, accepted: false, field: 'date' },
  { name: 'date: a number', input: { ...base, date: 20260309 }, accepted: false, field: 'date', graphqlTypeError: 'String' },
  { name: 'description: missing', input: without('description'), accepted: false, field: 'description' },
  { name: 'description: blank', input: { ...base, description: '   ' }, accepted: false, field: 'description' },
  { name: 'description: 256 characters', input: { ...base, description: 'x'.repeat(256) }, accepted: false, field: 'description' },
  {
    name: 'description and date both wrong: both named',
    input: { ...base, date: 'soon', description: '' },
    accepted: false,
    field: 'date',
  },
  {
    name: 'unknown property dayOfWeek',
    input: { ...base, dayOfWeek: 'MONDAY' },
    accepted: false,
    field: '',
    graphqlTypeError: '"dayOfWeek"',
  },
];

const specialCases = [...derived, ...own];

const FIELDS = 'id date description isClosed open close breaks { start end reason greeting }';
const CREATE = `mutation($orgId: ID!, $input: SpecialHoursInput!) { createSpecialHours(orgId: $orgId, input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($orgId: ID!, $id: ID!, $input: SpecialHoursInput!) { updateSpecialHours(orgId: $orgId, specialHoursId: $id, input: $input) { ${FIELDS} } }`;
const CREATE_INLINE = (input: string) => `mutation($orgId: ID!) { createSpecialHours(orgId: $orgId, input: ${input}) { ${FIELDS} } }`;
const UPDATE_INLINE = (input: string) =>
  `mutation($orgId: ID!, $id: ID!) { updateSpecialHours(orgId: $orgId, specialHoursId: $id, input: ${input}) { ${FIELDS} } }`;

const key = () => t.demo.organizations.account.apiKey;
const path = (orgId: string, id?: string) => `/v1/organizations/${orgId}/special-hours${id ? `/${id}` : ''}`;

/** Writes the setup days; answers the id to update, or undefined for a create. */
async function setup(c: SpecialCase, orgId: string): Promise<string | undefined> {
  let id: string | undefined;
  for (const day of c.setup ?? []) {
    const res = await t.rest('POST', path(orgId, id), { json: day, token: key() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    id = res.body.data.id;
  }
  return id;
}

async function viaRest(c: SpecialCase, orgId: string, kind: 'json' | 'form' | 'multipart'): Promise<Outcome & { id?: string }> {
  const id = await setup(c, orgId);
  const body = kind === 'json' ? { json: c.input } : { [kind]: c.form! };
  return { ...restOutcome(await t.rest('POST', path(orgId, id), { ...body, token: key() })), id };
}

async function viaGraphql(c: SpecialCase, orgId: string, inline = false): Promise<Outcome & { id?: string }> {
  const id = await setup(c, orgId);
  const literal = inline ? graphqlLiteral(c.input) : undefined;
  if (id === undefined) {
    const res = literal
      ? await t.gql(CREATE_INLINE(literal), { orgId }, { token: key() })
      : await t.gql(CREATE, { orgId, input: c.input }, { token: key() });
    return graphqlOutcome(res, 'createSpecialHours');
  }
  const res = literal
    ? await t.gql(UPDATE_INLINE(literal), { orgId, id }, { token: key() })
    : await t.gql(UPDATE, { orgId, id, input: c.input }, { token: key() });
  return { ...graphqlOutcome(res, 'updateSpecialHours'), id };
}

async function stored(orgId: string, token = key()): Promise<Record<string, unknown>[]> {
  const res = await t.rest('GET', path(orgId), { token });
  expect(res.status).toBe(200);
  return res.body.data.specialHours;
}

const withoutId = (data: Record<string, unknown> | undefined) => {
  const { id: _id, ...rest } = data ?? {};
  return rest;
};

describe('special-hours rules: REST and GraphQL agree', () => {
  beforeEach(() => t.clock.set(NOW));

  it('has the cases of every office-hours rule, and its own', () => {
    expect(specialCases.length).toBeGreaterThanOrEqual(50);
    expect(new Set(specialCases.map((c) => c.name)).size).toBe(specialCases.length);
    for (const rule of [1, 2, 3, 4, 5, 6, 7])
      expect(
        specialCases.some((c) => c.name.startsWith(`rule ${rule}:`)),
        `rule ${rule}`,
      ).toBe(true);
  });

  for (const c of specialCases) {
    it(`${c.name} → ${c.accepted ? 'accepted' : `rejected (${c.field || 'input'})`}`, async () => {
      const restOrg = t.demo.organizations.clinic.id;
      const gqlOrg = t.demo.organizations.clinic2.id;
      const rest = await viaRest(c, restOrg, 'json');
      const gql = await viaGraphql(c, gqlOrg);
      expect(rest.accepted, `REST: ${rest.message}`).toBe(c.accepted);
      expect(gql.accepted, `GraphQL: ${gql.message}`).toBe(c.accepted);
      if (c.accepted) {
        expect(rest.data).toMatchObject(c.data ?? {});
        expect(withoutId(gql.data)).toEqual(withoutId(rest.data));
        expect(await stored(restOrg)).toEqual([rest.data]); // what was answered is what is stored
      } else {
        expect(rest.issues.map((i) => i.path)).toContain(c.field);
        if (c.field) expect(rest.message).toContain(`${c.field}: `);
        if (c.graphqlTypeError) {
          for (const outcome of [gql, await viaGraphql(c, gqlOrg, true)]) {
            expect(outcome.typeError).toBe(true);
            expect(outcome.message).toContain(c.graphqlTypeError);
          }
        } else {
          expect(gql.issues).toEqual(rest.issues);
        }
        // a refusal changes nothing: only the setup days are stored
        expect((await stored(restOrg)).length).toBe(c.setup ? 1 : 0);
      }
      if (c.after) {
        expect((await stored(restOrg))[0]).toMatchObject(c.after);
        expect((await stored(gqlOrg))[0]).toMatchObject(c.after);
      }
      for (const kind of c.form && !c.setup ? FORM_KINDS : []) {
        const orgId = t.demo.organizations.other.id;
        for (const day of await stored(orgId, t.demo.organizations.other.apiKey))
          await t.rest('DELETE', path(orgId, String(day.id)), { token: t.demo.organizations.other.apiKey });
        const res = await t.rest('POST', path(orgId), { [kind]: c.form!, token: t.demo.organizations.other.apiKey });
        const viaForm = restOutcome(res);
        expect(viaForm.accepted, `${kind}: ${viaForm.message}`).toBe(c.accepted);
        if (c.accepted) expect(viaForm.data).toMatchObject(c.data ?? {});
        else expect(viaForm.issues).toEqual(rest.issues);
      }
    });
  }
});

describe('special hours: one per date, the limit, reading and deleting', () => {
  beforeEach(() => t.clock.set(NOW));
  const clinic = () => t.demo.organizations.clinic.id;

  it('refuses a second day on the same date with 409 CONFLICT on both surfaces, and an update onto a taken date', async () => {
    const first = await t.rest('POST', path(clinic()), { json: base });
    expect(first.status).toBe(200);
    const again = await t.rest('POST', path(clinic()), { json: { ...base, description: 'Again' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(DATE);
    const gql = await t.gql(CREATE, { orgId: clinic(), input: base });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');

    const other = await t.rest('POST', path(clinic()), { json: { ...base, date: '2026-03-10' } });
    const moved = await t.rest('POST', path(clinic(), other.body.data.id), { json: base });
    expect(moved.status).toBe(409);
    // updating a day onto its own date is fine
    expect((await t.rest('POST', path(clinic(), first.body.data.id), { json: { ...base, close: '15:00' } })).status).toBe(200);
    expect((await stored(clinic())).map((d) => [d.date, d.close])).toEqual([
      [DATE, '15:00'],
      ['2026-03-10', '14:00'],
    ]);
  });

  it(`keeps at most ${SPECIAL_HOURS_LIMIT} days from today on; past days do not count`, async () => {
    const day = (i: number) => new Date(Date.UTC(2026, 2, 2 + i)).toISOString().slice(0, 10);
    await t.deps.db.specialHours.createMany({
      data: Array.from({ length: SPECIAL_HOURS_LIMIT }, (_, i) => ({
        orgId: clinic(),
        date: day(i - 1),
        description: 'Busy',
        isClosed: true,
        open: null,
        close: null,
        breaks: [],
      })),
    });
    // the first is yesterday's: SPECIAL_HOURS_LIMIT - 1 from today on, so one more fits
    expect((await t.rest('POST', path(clinic()), { json: { ...base, date: day(SPECIAL_HOURS_LIMIT + 5) } })).status).toBe(200);
    const over = await t.rest('POST', path(clinic()), { json: { ...base, date: day(SPECIAL_HOURS_LIMIT + 6) } });
    expect(over.status).toBe(409);
    expect(over.body.message).toContain(String(SPECIAL_HOURS_LIMIT));
  });

  it('reads, lists by date and deletes; another tenant sees nothing of them', async () => {
    const later = (await t.rest('POST', path(clinic()), { json: { ...base, date: '2026-04-01' } })).body.data;
    const sooner = (await t.rest('POST', path(clinic()), { json: base })).body.data;
    expect((await t.rest('GET', path(clinic(), later.id))).body.data).toEqual(later);
    const listed = await t.gql(`query($id: ID!) { organization(id: $id) { specialHours { ${FIELDS} } } }`, { id: clinic() });
    expect(listed.body.data.organization.specialHours).toEqual([sooner, later]);

    const stranger = { token: t.demo.organizations.other.apiKey };
    expect((await t.rest('GET', path(clinic(), later.id), stranger)).status).toBe(404);
    expect((await t.rest('GET', path(t.demo.organizations.other.id, later.id), stranger)).status).toBe(404);
    expect((await t.rest('DELETE', path(t.demo.organizations.other.id, later.id), stranger)).status).toBe(404);
    expect((await t.rest('POST', path(t.demo.organizations.other.id, later.id), { ...stranger, json: base })).status).toBe(404);
    const readOnly = await t.accessToken('clinicReadOnly');
    expect((await t.rest('POST', path(clinic()), { token: readOnly, json: { ...base, date: '2026-05-01' } })).status).toBe(403);

    expect((await t.rest('DELETE', path(clinic(), later.id))).body.data).toEqual({ id: later.id, deleted: true });
    expect((await t.rest('DELETE', path(clinic(), later.id))).status).toBe(404);
    const gqlDelete = await t.gql('mutation($o: ID!, $s: ID!) { deleteSpecialHours(orgId: $o, specialHoursId: $s) }', {
      o: clinic(),
      s: sooner.id,
    });
    expect(gqlDelete.body.data.deleteSpecialHours).toBe(true);
    expect(await stored(clinic())).toEqual([]);
  });
});

describe('special hours decide availability on both surfaces, at once', () => {
  it('a write, an update and a delete change the answer immediately (the read model forgets the schedule)', async () => {
    t.clock.set(NOW);
    const clinic = t.demo.organizations.clinic.id;
    await t.rest('POST', `/v1/organizations/${clinic}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00' },
    });
    const at = '2026-03-09T15:00:00Z'; // Monday 11:00 in New York
    const rest = async () => (await t.rest('GET', `/v1/organizations/${clinic}/availability?at=${at}&medium=PHONE`)).body.data;
    const AVAILABILITY = `query($id: ID!) { organization(id: $id) { availability(medium: PHONE, at: "${at}") { state specialHours { id description } break { reason } nextChangeAt } } }`;
    expect(await rest()).toMatchObject({ state: 'OPEN', specialHours: null, nextChangeAt: '2026-03-09T21:00:00Z' });

    const created = (
      await t.rest('POST', path(clinic), {
        json: {
          ...base,
          open: '10:00',
          close: '12:00',
          breaks: [{ start: '10:30', end: '11:30', reason: 'Stocktake', greeting: 'Back at 11:30.' }],
        },
      })
    ).body.data;
    expect(await rest()).toMatchObject({
      state: 'BREAK',
      specialHours: { id: created.id, description: 'Inventory day' },
      break: { reason: 'Stocktake' },
      nextChangeAt: '2026-03-09T15:30:00Z',
    });
    const gql = await t.gql(AVAILABILITY, { id: clinic });
    expect(gql.body.data.organization.availability).toEqual({
      state: 'BREAK',
      specialHours: { id: created.id, description: 'Inventory day' },
      break: { reason: 'Stocktake' },
      nextChangeAt: '2026-03-09T15:30:00Z',
    });

    await t.rest('POST', path(clinic, created.id), { json: { ...base, isClosed: true, breaks: [] } });
    expect(await rest()).toMatchObject({ state: 'CLOSED', specialHours: { id: created.id } });
    const timeline = (
      await t.rest(
        'GET',
        `/v1/organizations/${clinic}/availability/timeline?from=2026-03-09T04:00:00Z&to=2026-03-10T05:00:00Z&medium=PHONE`,
      )
    ).body.data.intervals;
    expect(
      timeline.map((i: { start: string; state: string; specialHours: { id: string } | null }) => [
        i.start,
        i.state,
        i.specialHours?.id ?? null,
      ]),
    ).toEqual([
      ['2026-03-09T04:00:00Z', 'CLOSED', created.id],
      ['2026-03-10T04:00:00Z', 'CLOSED', null],
    ]);

    await t.rest('DELETE', path(clinic, created.id));
    expect(await rest()).toMatchObject({ state: 'OPEN', specialHours: null });
  });
});
