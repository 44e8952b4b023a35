// Every closure rule case through REST (JSON; a subset as form and multipart) and GraphQL: both
// surfaces must give the same verdict, and a rejection must name the same field(s) with the same words.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
import {
  type ClosureCase,
  closureCases,
  existingClosure,
  FORM_KINDS,
  graphqlLiteral,
  graphqlOutcome,
  type Outcome,
  restOutcome,
} from './cases/closureCases.js';

const t = useTestApp();

const FIELDS = 'id description chatGreeting phoneGreeting startAt endAt annualDate { month day }';
const CREATE = `mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($orgId: ID!, $id: ID!, $input: UpdateClosureInput!) { updateClosure(orgId: $orgId, closureId: $id, input: $input) { ${FIELDS} } }`;

const orgId = () => t.demo.organizations.clinic.id;

async function existingId(c: ClosureCase): Promise<string> {
  const res = await t.rest('POST', `/v1/organizations/${orgId()}/closures`, { json: existingClosure[c.existing!] });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

async function closurePath(c: ClosureCase): Promise<string> {
  return c.op === 'create' ? `/v1/organizations/${orgId()}/closures` : `/v1/organizations/${orgId()}/closures/${await existingId(c)}`;
}

async function viaRest(c: ClosureCase, kind: 'json' | 'form' | 'multipart'): Promise<Outcome> {
  const body = kind === 'json' ? { json: c.input } : { [kind]: c.form! };
  return restOutcome(await t.rest('POST', await closurePath(c), body));
}

/** The GraphQL Closure in the REST shape: the other form's null fields dropped. */
function asRestShape(closure: Record<string, unknown>): Record<string, unknown> {
  const { startAt, endAt, annualDate, ...rest } = closure;
  return annualDate ? { ...rest, annualDate } : { ...rest, startAt, endAt };
}

// An input GraphQL's own type system refuses is refused whether it comes as a variable (coercion)
// or inline (validation); both are tried.
const CREATE_INLINE = (input: string) => `mutation($orgId: ID!) { createClosure(orgId: $orgId, input: ${input}) { ${FIELDS} } }`;
const UPDATE_INLINE = (input: string) =>
  `mutation($orgId: ID!, $id: ID!) { updateClosure(orgId: $orgId, closureId: $id, input: ${input}) { ${FIELDS} } }`;

async function viaGraphql(c: ClosureCase, inline = false): Promise<Outcome> {
  const literal = inline ? graphqlLiteral(c.input) : undefined;
  if (c.op === 'create') {
    const res = literal ? await t.gql(CREATE_INLINE(literal), { orgId: orgId() }) : await t.gql(CREATE, { orgId: orgId(), input: c.input });
    return graphqlOutcome(res, 'createClosure');
  }
  const id = await existingId(c);
  const res = literal
    ? await t.gql(UPDATE_INLINE(literal), { orgId: orgId(), id })
    : await t.gql(UPDATE, { orgId: orgId(), id, input: c.input });
  return graphqlOutcome(res, 'updateClosure');
}

const withoutId = (data: Record<string, unknown> | undefined) => {
  const { id: _id, ...rest } = data ?? {};
  return rest;
};

describe('closure rules: REST and GraphQL agree', () => {
  it('has enough cases', () => {
    expect(closureCases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(closureCases.map((c) => c.name)).size).toBe(closureCases.length);
  });

  for (const c of closureCases) {
    it(`${c.op}: ${c.name} → ${c.accepted ? 'accepted' : `rejected (${c.field || 'input'})`}`, async () => {
      const rest = await viaRest(c, 'json');
      const gql = await viaGraphql(c);
      expect(rest.accepted, `REST: ${rest.message}`).toBe(c.accepted);
      expect(gql.accepted, `GraphQL: ${gql.message}`).toBe(c.accepted);

      if (c.accepted) {
        expect(rest.data).toMatchObject(c.data ?? {});
        expect(rest.data!.id).toEqual(expect.any(String));
        expect(withoutId(asRestShape(gql.data!))).toEqual(withoutId(rest.data));
      } else {
        const field = c.field!;
        expect(rest.issues.map((i) => i.path)).toContain(field);
        if (field) expect(rest.message).toContain(`${field}: `);
        if (c.graphqlTypeError) {
          for (const outcome of [gql, await viaGraphql(c, true)]) {
            expect(outcome.typeError).toBe(true);
            expect(outcome.message).toContain(c.graphqlTypeError);
          }
        } else {
          expect(gql.issues).toEqual(rest.issues);
        }
      }

      for (const kind of c.form ? FORM_KINDS : []) {
        const viaForm = await viaRest(c, kind);
        expect(viaForm.accepted, `${kind}: ${viaForm.message}`).toBe(c.accepted);
        if (c.accepted) expect(viaForm.data).toMatchObject(c.data ?? {});
        else expect(viaForm.issues.map((i) => i.path)).toContain(c.field);
      }
    });
  }
});
