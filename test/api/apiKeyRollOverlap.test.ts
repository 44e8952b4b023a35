// The overlap of a roll on the GraphQL surface (the REST twin: apiKeys.test.ts): a key rolled through
// GraphQL with a chosen `expiresAt` keeps answering GraphQL until that instant and is refused from it on,
// while the new key (with the old one's scopes only) goes on; the developer portal relies on both.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const orgs = () => t.demo.organizations;
const CLOSURES = 'query($id: ID!) { organization(id: $id) { closures { id } } }';

describe('a roll with a chosen overlap, on GraphQL', () => {
  it('keeps the old key working until the chosen instant and refuses it from then on; the new key holds the same scopes', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const created = await t.gql(
      'mutation { createApiKey(input: {name: "Overlap", scopes: ["closures:read", "organizations:read"]}) { id apiKey } }',
    );
    expect(created.body.errors).toBeUndefined();
    const old = created.body.data.createApiKey as { id: string; apiKey: string };
    const tooLate = await t.gql('mutation($id: ID!) { rollApiKey(id: $id, expiresAt: "2026-03-09T15:00:01Z") { id } }', { id: old.id });
    expect(tooLate.body.errors?.[0]?.message).toContain('within 7 days');

    const rolled = await t.gql(
      'mutation($id: ID!) { rollApiKey(id: $id, expiresAt: "2026-03-02T18:30:00Z") { id apiKey expiresAt scopes } }',
      { id: old.id },
    );
    expect(rolled.body.errors).toBeUndefined();
    const fresh = rolled.body.data.rollApiKey as { apiKey: string; expiresAt: string | null; scopes: string[] };
    expect(fresh).toMatchObject({ expiresAt: null, scopes: ['organizations:read', 'closures:read'] });

    const ask = (token: string) => t.gql(CLOSURES, { id: orgs().clinic.id }, { token });
    t.clock.set('2026-03-02T18:29:59Z');
    expect((await ask(old.apiKey)).body.errors).toBeUndefined();
    t.clock.set('2026-03-02T18:30:00Z');
    const refused = await ask(old.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await ask(fresh.apiKey)).body.errors).toBeUndefined();
    // and the new key stays restricted: a write is forbidden on GraphQL as on REST
    const write = await t.gql(
      'mutation($id: ID!) { createClosure(orgId: $id, input: {description: "X", annualDate: {month: 5, day: 1}, chatGreeting: null, phoneGreeting: null}) { id } }',
      { id: orgs().clinic.id },
      { token: fresh.apiKey },
    );
    expect(write.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      (
        await t.rest('POST', `/v1/organizations/${orgs().clinic.id}/closures`, {
          token: fresh.apiKey,
          json: { description: 'X', annualDate: { month: 5, day: 1 }, chatGreeting: null, phoneGreeting: null },
        })
      ).status,
    ).toBe(403);
  });
});
