// Every office-hours rule case through REST (JSON; a subset as form and multipart) and GraphQL: both
// surfaces must give the same verdict, and a rejection must name the same field(s) with the same words.
// The account key acts on its two clinics, one per surface, so that each surface starts from the same
// state within one case.
import { describe, expect, it } from 'vitest';
import { FORM_KINDS, graphqlLiteral, graphqlOutcome, type Outcome, restOutcome } from './cases/closureCases.js';
import { type OfficeHoursCase, officeHoursCases } from './cases/officeHoursCases.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const FIELDS = 'dayOfWeek isClosed open close breaks { start end reason greeting }';
const SET = `mutation($orgId: ID!, $input: SetOfficeHoursInput!) { setOfficeHours(orgId: $orgId, input: $input) { ${FIELDS} } }`;
// an input GraphQL's own type system refuses is also tried inline (validation, not variable coercion)
const SET_INLINE = (input: string) => `mutation($orgId: ID!) { setOfficeHours(orgId: $orgId, input: ${input}) { ${FIELDS} } }`;

const key = () => t.demo.organizations.account.apiKey;
const dayOf = (c: OfficeHoursCase): string => (typeof c.input.dayOfWeek === 'string' ? c.input.dayOfWeek : 'MONDAY');

async function setup(c: OfficeHoursCase, orgId: string): Promise<void> {
  for (const day of c.setup ?? []) {
    const res = await t.rest('POST', `/v1/organizations/${orgId}/office-hours`, { json: day, token: key() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

async function readDay(orgId: string, day: string): Promise<Record<string, unknown>> {
  const res = await t.rest('GET', `/v1/organizations/${orgId}/office-hours?dayOfWeek=${day}`, { token: key() });
  expect(res.status).toBe(200);
  return res.body.data.officeHours[0];
}

async function viaRest(c: OfficeHoursCase, orgId: string, kind: 'json' | 'form' | 'multipart'): Promise<Outcome> {
  await setup(c, orgId);
  const body = kind === 'json' ? { json: c.input } : { [kind]: c.form! };
  return restOutcome(await t.rest('POST', `/v1/organizations/${orgId}/office-hours`, { ...body, token: key() }));
}

async function viaGraphql(c: OfficeHoursCase, orgId: string, inline = false): Promise<Outcome> {
  await setup(c, orgId);
  const res = inline
    ? await t.gql(SET_INLINE(graphqlLiteral(c.input, ['dayOfWeek'])), { orgId }, { token: key() })
    : await t.gql(SET, { orgId, input: c.input }, { token: key() });
  return graphqlOutcome(res, 'setOfficeHours');
}

describe('office-hours rules: REST and GraphQL agree', () => {
  it('has enough cases, covering every rule', () => {
    expect(officeHoursCases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(officeHoursCases.map((c) => c.name)).size).toBe(officeHoursCases.length);
    for (const rule of [1, 2, 3, 4, 5, 6, 7])
      expect(
        officeHoursCases.some((c) => c.name.startsWith(`rule ${rule}:`)),
        `rule ${rule}`,
      ).toBe(true);
  });

  for (const c of officeHoursCases) {
    it(`${c.name} → ${c.accepted ? 'accepted' : `rejected (${c.field || 'input'})`}`, async () => {
      const restOrg = t.demo.organizations.clinic.id;
      const gqlOrg = t.demo.organizations.clinic2.id;
      const rest = await viaRest(c, restOrg, 'json');
      const gql = await viaGraphql(c, gqlOrg);
      expect(rest.accepted, `REST: ${rest.message}`).toBe(c.accepted);
      expect(gql.accepted, `GraphQL: ${gql.message}`).toBe(c.accepted);

      if (c.accepted) {
        expect(rest.data).toMatchObject(c.data ?? {});
        expect(gql.data).toEqual(rest.data);
        // what was answered is what is stored
        expect(await readDay(restOrg, dayOf(c))).toEqual(rest.data);
      } else {
        const field = c.field!;
        expect(rest.issues.map((i) => i.path)).toContain(field);
        if (field) expect(rest.message).toContain(`${field}: `);
        if (c.graphqlTypeError) {
          for (const outcome of [gql, await viaGraphql(c, gqlOrg, true)]) {
            expect(outcome.typeError).toBe(true);
            expect(outcome.message).toContain(c.graphqlTypeError);
          }
        } else {
          expect(gql.issues).toEqual(rest.issues);
        }
      }
      if (c.after) {
        expect(await readDay(restOrg, dayOf(c))).toMatchObject(c.after);
        expect(await readDay(gqlOrg, dayOf(c))).toMatchObject(c.after);
      }

      for (const kind of c.form ? FORM_KINDS : []) {
        // a fresh day: the JSON request above may have changed this one
        const orgId = kind === 'form' ? restOrg : gqlOrg;
        await t.rest('POST', `/v1/organizations/${orgId}/office-hours`, {
          json: { dayOfWeek: dayOf(c), isClosed: true, breaks: [] },
          token: key(),
        });
        const viaForm = await viaRest(c, orgId, kind);
        expect(viaForm.accepted, `${kind}: ${viaForm.message}`).toBe(c.accepted);
        if (c.accepted) expect(viaForm.data).toMatchObject(c.data ?? {});
        else expect(viaForm.issues).toEqual(rest.issues);
      }
    });
  }
});
