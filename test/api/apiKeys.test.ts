// API keys through the API (issue 22 item 1, docs/decisions.md §2): created with the secret answered once,
// listed masked, restricted to scopes (403 outside them on both surfaces), expiring (401), rolled with
// an overlap the fake clock walks through, revoked at once; a credential with credentials:write manages
// them within what it holds itself (a full key only from a full key); an account manages its children's.
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/crypto/secrets.js';
import { SCOPES } from '../../src/domain/shared/access.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const orgs = () => t.demo.organizations;
const closuresPath = () => `/v1/organizations/${orgs().clinic.id}/closures`;
const closureBody = { description: 'Training', annualDate: { month: 5, day: 1 }, chatGreeting: null, phoneGreeting: null };

async function createKey(json: Record<string, unknown>, token?: string) {
  const res = await t.rest('POST', '/v1/api-keys', { json, ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; apiKey: string; masked: string; scopes: string[]; restricted: boolean; expiresAt: string | null };
}

describe('creating and listing API keys', () => {
  it('answers the key once; the list shows it masked, with its scopes and expiry, never the key', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const created = await createKey({
      name: 'Reporting',
      scopes: ['closures:read', 'office-hours:read'],
      expiresAt: '2026-06-01T00:00:00Z',
    });
    expect(created.apiKey).toMatch(/^svc-sk-v2-[0-9A-Za-z]{43}$/);
    expect(created.masked).toBe(`${created.apiKey.slice(0, 14)}…${created.apiKey.slice(-4)}`);
    expect(created).toMatchObject({
      restricted: true,
      scopes: ['closures:read', 'office-hours:read'],
      expiresAt: '2026-06-01T00:00:00.000Z',
    });
    const list = await t.rest('GET', '/v1/api-keys');
    expect(list.status).toBe(200);
    const listed = list.body.data.apiKeys.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: 'Reporting', masked: created.masked, createdAt: '2026-03-02T15:00:00.000Z', lastUsedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(created.apiKey);
    // the store holds the hash and the mask's parts, never the key; the event neither
    const row = await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.hash).toBe(hashSecret(created.apiKey));
    expect(JSON.stringify(row)).not.toContain(created.apiKey.slice(14, -4));
    const events = await t.deps.db.event.findMany({ where: { subjectId: created.id } });
    expect(events.map((e) => e.type)).toEqual(['api_key.created']);
    expect(JSON.stringify(events.map((e) => [e.data, e.previous]))).not.toContain(created.apiKey.slice(14, -4));
  });

  it('lets an account create a key for its child, and refuses other organizations as missing', async () => {
    const created = await createKey({ name: 'Child key', orgId: orgs().clinic.id }, orgs().account.apiKey);
    const own = await t.rest('GET', closuresPath(), { token: created.apiKey });
    expect(own.status).toBe(200);
    const list = await t.rest('GET', `/v1/api-keys?orgId=${orgs().clinic.id}`, { token: orgs().account.apiKey });
    expect(list.body.data.apiKeys.map((k: { id: string }) => k.id)).toContain(created.id);
    const foreign = await t.rest('POST', '/v1/api-keys', { json: { name: 'X', orgId: orgs().other.id }, token: orgs().account.apiKey });
    expect(foreign.status).toBe(404);
  });

  it('refuses unknown scopes and a past expiry, naming the field', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const unknown = await t.rest('POST', '/v1/api-keys', { json: { name: 'X', scopes: ['closures:read', 'root'] } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toMatch(/scopes.*unknown scope\(s\): root/);
    const past = await t.rest('POST', '/v1/api-keys', { json: { name: 'X', expiresAt: '2026-03-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    expect(JSON.stringify(past.body)).toContain('expiresAt');
  });
});

describe('a restricted key', () => {
  it('works within its scopes and gets 403 outside them, on REST and GraphQL', async () => {
    const key = (await createKey({ name: 'Read closures', scopes: ['closures:read', 'organizations:read'] })).apiKey;
    expect((await t.rest('GET', closuresPath(), { token: key })).status).toBe(200);
    expect((await t.rest('POST', closuresPath(), { token: key, json: closureBody })).status).toBe(403);
    const read = await t.gql('query($id: ID!) { organization(id: $id) { closures { id } } }', { id: orgs().clinic.id }, { token: key });
    expect(read.body.errors).toBeUndefined();
    const write = await t.gql(
      'mutation($id: ID!) { createClosure(orgId: $id, input: {description: "X", annualDate: {month: 5, day: 1}, chatGreeting: null, phoneGreeting: null}) { id } }',
      { id: orgs().clinic.id },
      { token: key },
    );
    expect(write.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

// A credential grants only a subset of what it holds, and a full key (every scope, including scopes added
// later) only from a full key (issue 32 finding 8, docs/decisions.md §2): creating, rolling and revoking.
describe('granting: a credential grants only what it holds', () => {
  const EVERY_SCOPE = [...SCOPES];
  const createKeyMutation = 'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { id apiKey restricted scopes } }';

  it('a restricted key listing every current scope cannot create a full key (403 on both surfaces), only restricted ones', async () => {
    const everything = await createKey({ name: 'Every scope, restricted', scopes: EVERY_SCOPE });
    expect(everything.restricted).toBe(true);
    const before = await t.db.prisma.apiKey.count();
    const full = await t.rest('POST', '/v1/api-keys', { token: everything.apiKey, json: { name: 'Full' } });
    expect(full.status).toBe(403);
    expect(full.body.message).toContain('Only a full API key can create a full key');
    const gql = await t.gql(createKeyMutation, { input: { name: 'Full' } }, { token: everything.apiKey });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await t.db.prisma.apiKey.count()).toBe(before);
    // naming the scopes is fine: a restricted key holding them all
    const restricted = await createKey({ name: 'Restricted again', scopes: EVERY_SCOPE }, everything.apiKey);
    expect(restricted).toMatchObject({ restricted: true, scopes: EVERY_SCOPE });
  });

  it('a restricted key holding credentials:write uses it, within its own scopes only (REST and GraphQL)', async () => {
    const manager = await createKey({ name: 'Manager', scopes: ['credentials:write', 'closures:read'] });
    const made = await createKey({ name: 'Reader', scopes: ['closures:read'] }, manager.apiKey);
    expect(made).toMatchObject({ restricted: true, scopes: ['closures:read'] });
    expect((await t.rest('GET', closuresPath(), { token: made.apiKey })).status).toBe(200);
    const wider = await t.rest('POST', '/v1/api-keys', {
      token: manager.apiKey,
      json: { name: 'Wider', scopes: ['closures:read', 'closures:write', 'templates:read'] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toBe('This credential cannot grant scopes it does not hold: closures:write, templates:read');
    const widerGql = await t.gql(createKeyMutation, { input: { name: 'Wider', scopes: ['closures:write'] } }, { token: manager.apiKey });
    expect(widerGql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(widerGql.body.errors?.[0]?.message).toContain('closures:write');
    expect((await t.rest('GET', '/v1/api-keys', { token: manager.apiKey })).status).toBe(200);
  });

  it('rolls and revokes only keys within its own scopes; never a full key', async () => {
    const manager = await createKey({ name: 'Manager', scopes: ['credentials:write', 'closures:read'] });
    const stronger = await createKey({ name: 'Writer', scopes: ['closures:read', 'closures:write'] });
    const fullKey = await createKey({ name: 'Full' });
    for (const target of [stronger, fullKey]) {
      const roll = await t.rest('POST', `/v1/api-keys/${target.id}/roll`, { token: manager.apiKey, json: {} });
      expect(roll.status).toBe(403);
      const revoke = await t.rest('POST', `/v1/api-keys/${target.id}/revoke`, { token: manager.apiKey, json: {} });
      expect(revoke.status).toBe(403);
      const gql = await t.gql('mutation($id: ID!) { rollApiKey(id: $id) { id } }', { id: target.id }, { token: manager.apiKey });
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const gqlRevoke = await t.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: target.id }, { token: manager.apiKey });
      expect(gqlRevoke.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      // still working, still as it was
      expect((await t.rest('GET', closuresPath(), { token: target.apiKey })).status).toBe(200);
    }
    const within = await createKey({ name: 'Within', scopes: ['closures:read'] });
    expect((await t.rest('POST', `/v1/api-keys/${within.id}/roll`, { token: manager.apiKey, json: {} })).status).toBe(200);
  });

  it('an OAuth token creates keys within its scopes, never a full key, even when its client holds every scope', async () => {
    const clinic = await t.accessToken('clinic'); // the demo client: every scope, as a list
    const full = await t.rest('POST', '/v1/api-keys', { token: clinic, json: { name: 'Full' } });
    expect(full.status).toBe(403);
    const fullGql = await t.gql(createKeyMutation, { input: { name: 'Full' } }, { token: clinic });
    expect(fullGql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const listed = await createKey({ name: 'Listed', scopes: EVERY_SCOPE }, clinic);
    expect(listed.restricted).toBe(true);
    // a narrower client with credentials:write
    const client = (await t.rest('POST', '/v1/oauth-clients', { json: { name: 'Narrow', scopes: ['credentials:write', 'closures:read'] } }))
      .body.data;
    const token = (
      await t.rest('POST', '/oauth/token', {
        token: null,
        json: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          audience: t.deps.tokens.audience,
        },
      })
    ).body.access_token as string;
    expect((await t.rest('POST', '/v1/api-keys', { token, json: { name: 'Wider', scopes: ['templates:read'] } })).status).toBe(403);
    const gql = await t.gql(createKeyMutation, { input: { name: 'Wider', scopes: ['templates:read'] } }, { token });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await createKey({ name: 'Within', scopes: ['closures:read'] }, token)).scopes).toEqual(['closures:read']);
  });

  it('a credential without credentials:write manages none (403)', async () => {
    const key = (await createKey({ name: 'Reader', scopes: ['closures:read', 'organizations:read'] })).apiKey;
    expect((await t.rest('POST', '/v1/api-keys', { token: key, json: { name: 'X', scopes: ['closures:read'] } })).status).toBe(403);
    expect((await t.rest('GET', '/v1/api-keys', { token: key })).status).toBe(403);
    const oauth = await t.gql('{ apiKeys { id } }', {}, { token: await t.accessToken('clinicReadOnly') });
    expect(oauth.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('expiry, roll and revoke', () => {
  it('refuses a key from its expiry on (401)', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const key = (await createKey({ name: 'Short', expiresAt: '2026-03-02T16:00:00Z' })).apiKey;
    expect((await t.rest('GET', closuresPath(), { token: key })).status).toBe(200);
    t.clock.set('2026-03-02T16:00:00Z');
    expect((await t.rest('GET', closuresPath(), { token: key })).status).toBe(401);
  });

  it('rolls: a new key at once, the old one working until the chosen time (REST)', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const old = await createKey({ name: 'Rolled', scopes: ['closures:read'] });
    expect((await t.rest('GET', closuresPath(), { token: old.apiKey })).status).toBe(200); // cached in the read model
    const tooLate = await t.rest('POST', `/v1/api-keys/${old.id}/roll`, { json: { expiresAt: '2026-03-09T15:00:01Z' } });
    expect(tooLate.status).toBe(400);
    expect(JSON.stringify(tooLate.body)).toContain('within 7 days');
    const rolled = await t.rest('POST', `/v1/api-keys/${old.id}/roll`, { json: { expiresAt: '2026-03-03T15:00:00Z' } });
    expect(rolled.status).toBe(200);
    const fresh = rolled.body.data;
    expect(fresh).toMatchObject({ name: 'Rolled', scopes: ['closures:read'], restricted: true });
    expect(fresh.apiKey).not.toBe(old.apiKey);
    t.clock.set('2026-03-03T14:59:00Z');
    expect((await t.rest('GET', closuresPath(), { token: old.apiKey })).status).toBe(200);
    expect((await t.rest('GET', closuresPath(), { token: fresh.apiKey })).status).toBe(200);
    t.clock.set('2026-03-03T15:00:00Z');
    expect((await t.rest('GET', closuresPath(), { token: old.apiKey })).status).toBe(401);
    expect((await t.rest('GET', closuresPath(), { token: fresh.apiKey })).status).toBe(200);
  });

  it('rolls and revokes through GraphQL; a revoked key is refused at once', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const created = await t.gql('mutation { createApiKey(input: {name: "Twin", scopes: ["closures:read"]}) { id apiKey masked } }');
    expect(created.body.errors).toBeUndefined();
    const old = created.body.data.createApiKey;
    expect((await t.rest('GET', closuresPath(), { token: old.apiKey })).status).toBe(200);
    const rolled = await t.gql('mutation($id: ID!) { rollApiKey(id: $id) { id apiKey } }', { id: old.id });
    expect(rolled.body.errors).toBeUndefined();
    // without expiresAt the old key stops now
    expect((await t.rest('GET', closuresPath(), { token: old.apiKey })).status).toBe(401);
    const fresh = rolled.body.data.rollApiKey;
    expect((await t.rest('GET', closuresPath(), { token: fresh.apiKey })).status).toBe(200);
    const listed = await t.gql('{ apiKeys { id masked scopes restricted } }');
    expect(listed.body.data.apiKeys.map((k: { id: string }) => k.id)).toContain(fresh.id);
    const revoked = await t.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }', { id: fresh.id });
    expect(revoked.body.data.revokeApiKey.revokedAt).toBe('2026-03-02T15:00:00.000Z');
    expect((await t.rest('GET', closuresPath(), { token: fresh.apiKey })).status).toBe(401);
    expect((await t.rest('POST', `/v1/api-keys/${fresh.id}/revoke`)).status).toBe(404);
  });

  it("answers another tenant's key as missing (404) and leaves it working", async () => {
    const foreign = await createKey({ name: 'Other' }, orgs().other.apiKey);
    expect((await t.rest('POST', `/v1/api-keys/${foreign.id}/revoke`)).status).toBe(404);
    expect((await t.rest('POST', `/v1/api-keys/${foreign.id}/roll`, { json: {} })).status).toBe(404);
    expect((await t.rest('GET', `/v1/organizations/${orgs().other.id}`, { token: foreign.apiKey })).status).toBe(200);
  });
});

describe('last use', () => {
  it('is shown at once on this instance without a write per request, and written by the periodic flush', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const created = await createKey({ name: 'Used', scopes: ['closures:read'] });
    t.clock.set('2026-03-02T15:05:00Z');
    const { sql } = await t.statements(async () => {
      for (let i = 0; i < 3; i++) expect((await t.rest('GET', closuresPath(), { token: created.apiKey })).status).toBe(200);
    });
    expect(sql.filter((s) => /UPDATE "ApiKey"/i.test(s))).toEqual([]);
    expect((await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).toBeNull();
    const list = await t.rest('GET', '/v1/api-keys');
    expect(list.body.data.apiKeys.find((k: { id: string }) => k.id === created.id).lastUsedAt).toBe('2026-03-02T15:05:00.000Z');
    await (t.deps.keyUsage as unknown as { flush(): Promise<void> }).flush();
    expect((await t.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt?.toISOString()).toBe(
      '2026-03-02T15:05:00.000Z',
    );
  });
});
