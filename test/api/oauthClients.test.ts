// OAuth clients through the API (issue 22 item 1): created with the secret answered once, the secret
// rotated with an overlap the token endpoint honours (fake clock), scopes changed (tokens already
// issued follow), revoked; a credential with credentials:write manages them only within the scopes it
// holds itself (issue 32 finding 8), on both surfaces.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const orgs = () => t.demo.organizations;
const closuresPath = () => `/v1/organizations/${orgs().clinic.id}/closures`;
const closureBody = { description: 'Training', annualDate: { month: 5, day: 1 }, chatGreeting: null, phoneGreeting: null };

async function token(clientId: string, clientSecret: string) {
  return t.rest('POST', '/oauth/token', {
    token: null,
    json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: t.deps.tokens.audience },
  });
}

async function createClient(scopes: string[]) {
  const res = await t.rest('POST', '/v1/oauth-clients', { json: { name: 'Dashboard', scopes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; clientId: string; clientSecret: string; scopes: string[] };
}

describe('OAuth clients', () => {
  it('creates a client whose secret is shown once and gets tokens with its scopes; the list never shows the secret', async () => {
    const client = await createClient(['organizations:read', 'closures:read']);
    const res = await token(client.clientId, client.clientSecret);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('organizations:read closures:read');
    const access = res.body.access_token as string;
    expect((await t.rest('GET', closuresPath(), { token: access })).status).toBe(200);
    expect((await t.rest('POST', closuresPath(), { token: access, json: closureBody })).status).toBe(403);
    const list = await t.rest('GET', '/v1/oauth-clients');
    expect(list.body.data.oauthClients.map((c: { clientId: string }) => c.clientId)).toContain(client.clientId);
    expect(JSON.stringify(list.body)).not.toContain(client.clientSecret);
    const events = await t.deps.db.event.findMany({ where: { subjectId: client.id } });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(client.clientSecret);
  });

  it('rotates the secret: the previous one is accepted until the chosen time, then refused (REST)', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const client = await createClient(['closures:read']);
    const tooLate = await t.rest('POST', `/v1/oauth-clients/${client.id}/rotate-secret`, { json: { expiresAt: '2026-03-10T15:00:00Z' } });
    expect(tooLate.status).toBe(400);
    const rotated = await t.rest('POST', `/v1/oauth-clients/${client.id}/rotate-secret`, { json: { expiresAt: '2026-03-03T15:00:00Z' } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.previousSecretExpiresAt).toBe('2026-03-03T15:00:00.000Z');
    const fresh = rotated.body.data.clientSecret as string;
    expect(fresh).not.toBe(client.clientSecret);
    t.clock.set('2026-03-03T14:59:00Z');
    expect((await token(client.clientId, client.clientSecret)).status).toBe(200);
    expect((await token(client.clientId, fresh)).status).toBe(200);
    t.clock.set('2026-03-03T15:00:00Z');
    expect((await token(client.clientId, client.clientSecret)).status).toBe(401);
    expect((await token(client.clientId, fresh)).status).toBe(200);
  });

  it('changes scopes and revokes through GraphQL; tokens already issued follow at once', async () => {
    const created = await t.gql(
      'mutation { createOAuthClient(input: {name: "Twin", scopes: ["closures:read"]}) { id clientId clientSecret } }',
    );
    expect(created.body.errors).toBeUndefined();
    const client = created.body.data.createOAuthClient;
    const access = (await token(client.clientId, client.clientSecret)).body.access_token as string;
    expect((await t.rest('GET', closuresPath(), { token: access })).status).toBe(200);
    const narrowed = await t.gql('mutation($id: ID!) { setOAuthClientScopes(id: $id, scopes: ["templates:read"]) { scopes } }', {
      id: client.id,
    });
    expect(narrowed.body.data.setOAuthClientScopes.scopes).toEqual(['templates:read']);
    expect((await t.rest('GET', closuresPath(), { token: access })).status).toBe(403);
    const listed = await t.gql('{ oauthClients { id clientId } }');
    expect(listed.body.data.oauthClients.map((c: { id: string }) => c.id)).toContain(client.id);
    const rotated = await t.gql('mutation($id: ID!) { rotateOAuthClientSecret(id: $id) { clientSecret } }', { id: client.id });
    expect(rotated.body.errors).toBeUndefined();
    // without expiresAt the previous secret stops now
    expect((await token(client.clientId, client.clientSecret)).status).toBe(401);
    const revoked = await t.gql('mutation($id: ID!) { revokeOAuthClient(id: $id) { revokedAt } }', { id: client.id });
    expect(revoked.body.errors).toBeUndefined();
    expect((await t.rest('GET', '/v1/templates', { token: access })).status).toBe(401);
    expect((await token(client.clientId, rotated.body.data.rotateOAuthClientSecret.clientSecret)).status).toBe(401);
  });

  it("is managed within the manager's own scopes: a narrower credential grants, rotates, re-scopes, revokes no more", async () => {
    const manager = (await t.rest('POST', '/v1/api-keys', { json: { name: 'Narrow', scopes: ['credentials:write', 'closures:read'] } }))
      .body.data.apiKey as string;
    const wider = await t.rest('POST', '/v1/oauth-clients', {
      token: manager,
      json: { name: 'X', scopes: ['closures:read', 'closures:write'] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toBe('This credential cannot grant scopes it does not hold: closures:write');
    const gql = await t.gql(
      'mutation { createOAuthClient(input: {name: "X", scopes: ["closures:write"]}) { id } }',
      {},
      { token: manager },
    );
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // within its scopes it may
    const own = await t.rest('POST', '/v1/oauth-clients', { token: manager, json: { name: 'Within', scopes: ['closures:read'] } });
    expect(own.status).toBe(200);
    const widen = await t.rest('PUT', `/v1/oauth-clients/${own.body.data.id}/scopes`, {
      token: manager,
      json: { scopes: ['closures:read', 'templates:read'] },
    });
    expect(widen.status).toBe(403);
    const widenGql = await t.gql(
      'mutation($id: ID!) { setOAuthClientScopes(id: $id, scopes: ["templates:read"]) { id } }',
      { id: own.body.data.id },
      { token: manager },
    );
    expect(widenGql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.rest('POST', `/v1/oauth-clients/${own.body.data.id}/rotate-secret`, { token: manager, json: {} })).status).toBe(200);
    // the demo's read-only client holds scopes the manager lacks: no rotation, no re-scoping, no revoke
    const readOnlyId = (
      await t.db.prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: t.demo.oauthClients.clinicReadOnly.clientId } })
    ).id;
    expect((await t.rest('POST', `/v1/oauth-clients/${readOnlyId}/rotate-secret`, { token: manager, json: {} })).status).toBe(403);
    expect(
      (await t.rest('PUT', `/v1/oauth-clients/${readOnlyId}/scopes`, { token: manager, json: { scopes: ['closures:read'] } })).status,
    ).toBe(403);
    expect((await t.rest('POST', `/v1/oauth-clients/${readOnlyId}/revoke`, { token: manager, json: {} })).status).toBe(403);
    const rotateGql = await t.gql(
      'mutation($id: ID!) { rotateOAuthClientSecret(id: $id) { clientSecret } }',
      { id: readOnlyId },
      { token: manager },
    );
    expect(rotateGql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.accessToken('clinicReadOnly')).length).toBeGreaterThan(0); // its secret still works
    // without credentials:write, nothing
    const readOnly = await t.accessToken('clinicReadOnly');
    expect((await t.rest('GET', '/v1/oauth-clients', { token: readOnly })).status).toBe(403);
    expect((await t.gql('{ oauthClients { id } }', {}, { token: readOnly })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('an OAuth token as the maker grants at most its own scopes', async () => {
    const client = await createClient(['credentials:write', 'templates:read']);
    const access = (await token(client.clientId, client.clientSecret)).body.access_token as string;
    expect(
      (await t.rest('POST', '/v1/oauth-clients', { token: access, json: { name: 'Wider', scopes: ['templates:write'] } })).status,
    ).toBe(403);
    const gql = await t.gql(
      'mutation { createOAuthClient(input: {name: "Wider", scopes: ["templates:read", "templates:write"]}) { id } }',
      {},
      { token: access },
    );
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const within = await t.gql(
      'mutation { createOAuthClient(input: {name: "Within", scopes: ["templates:read"]}) { scopes } }',
      {},
      { token: access },
    );
    expect(within.body.data.createOAuthClient.scopes).toEqual(['templates:read']);
  });

  it("answers another tenant's client as missing (404), and lets an account manage its child's", async () => {
    const foreign = await t.rest('POST', '/v1/oauth-clients', {
      token: orgs().other.apiKey,
      json: { name: 'Other', scopes: ['closures:read'] },
    });
    const id = foreign.body.data.id as string;
    expect((await t.rest('POST', `/v1/oauth-clients/${id}/revoke`)).status).toBe(404);
    expect((await t.rest('PUT', `/v1/oauth-clients/${id}/scopes`, { json: { scopes: ['closures:write'] } })).status).toBe(404);
    const child = await t.rest('POST', '/v1/oauth-clients', {
      token: orgs().account.apiKey,
      json: { name: 'Child', scopes: ['closures:read'], orgId: orgs().clinic.id },
    });
    expect(child.status).toBe(200);
    expect(child.body.data.orgId).toBe(orgs().clinic.id);
    expect((await t.rest('POST', `/v1/oauth-clients/${child.body.data.id}/revoke`, { token: orgs().account.apiKey })).status).toBe(200);
  });
});
