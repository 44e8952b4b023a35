// Credentials (docs/decisions.md §2): API keys, OAuth client credentials and the JWTs they yield, scopes and reach.
import { revokeApiKey, revokeOAuthClient } from '../../src/auth/provisioning.js';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../src/auth/tokens.js';
import { graphql } from '../generated/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function expectRejected(token: string) {
  const orgPath = `/v1/organizations/${t.demo.organizations.clinic.id}`;
  const rest = await t.rest('GET', orgPath, { token });
  expect(rest.status).toBe(401);
  expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect(rest.body).toMatchObject({ success: false, data: {} });
  const gql = await t.gql(
    graphql(`
      query AuthViewerOrganization {
        viewer {
          organization {
            id
          }
        }
      }
    `),
    {},
    { token },
  );
  expect(gql.status).toBe(401);
  expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  expect(gql.body.data).toBeNull();
}

describe('OAuth client credentials', () => {
  it('issues a 24 h bearer token that works on REST and GraphQL', async () => {
    const c = t.demo.oauthClients.clinic;
    const res = await t.rest('POST', '/oauth/token', {
      token: null,
      json: {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        audience: t.deps.config.oauthAudience,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 86400 });
    expect(res.body.scope.split(' ').sort()).toEqual([...c.scopes].sort());
    const [header, payload] = res.body.access_token
      .split('.')
      .slice(0, 2)
      .map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: c.clientId, org: t.demo.organizations.clinic.id, aud: t.deps.config.oauthAudience });
    expect(payload.exp - payload.iat).toBe(86400);

    const rest = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: res.body.access_token });
    expect(rest.status).toBe(200);
    const gql = await t.gql(
      graphql(`
        query AuthViewerWithScopes {
          viewer {
            organization {
              id
            }
            scopes
          }
        }
      `),
      {},
      { token: res.body.access_token },
    );
    expect(gql.body.data.viewer.organization.id).toBe(t.demo.organizations.clinic.id);
  });

  it('accepts a form-encoded token request', async () => {
    const c = t.demo.oauthClients.clinicReadOnly;
    const res = await t.rest('POST', '/oauth/token', {
      token: null,
      form: {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        audience: t.deps.config.oauthAudience,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.scope.split(' ').every((s: string) => s.endsWith(':read'))).toBe(true);
  });

  it('answers RFC 6749 errors', async () => {
    const c = t.demo.oauthClients.clinic;
    const aud = t.deps.config.oauthAudience;
    const cases: [Record<string, string>, number, string][] = [
      [{ client_id: c.clientId, client_secret: c.clientSecret, audience: aud }, 400, 'invalid_request'],
      [{ grant_type: 'password', client_id: c.clientId, client_secret: c.clientSecret, audience: aud }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'client_credentials', client_id: c.clientId, client_secret: 'wrong', audience: aud }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: 'cli_unknown', client_secret: c.clientSecret, audience: aud }, 401, 'invalid_client'],
      // found by the fuzzer: a client id the database cannot compare was a 500
      [{ grant_type: 'client_credentials', client_id: 'cli_\u0000', client_secret: c.clientSecret, audience: aud }, 401, 'invalid_client'],
      [
        {
          grant_type: 'client_credentials',
          client_id: c.clientId,
          client_secret: c.clientSecret,
          audience: 'https://elsewhere.example/v1',
        },
        400,
        'invalid_grant',
      ],
      [{ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, audience: '' }, 400, 'invalid_request'],
      [
        {
          grant_type: 'client_credentials',
          client_id: c.clientId,
          client_secret: c.clientSecret,
          resource: 'https://elsewhere.example/v1',
        },
        400,
        'invalid_target',
      ],
      [
        { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, scope: 'closures:read nope:write' },
        400,
        'invalid_scope',
      ],
      [{ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, scope: '   ' }, 400, 'invalid_scope'],
    ];
    for (const [body, status, error] of cases) {
      const res = await t.rest('POST', '/oauth/token', { token: null, json: body });
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status, error });
    }
    const malformed = await t.rest('POST', '/oauth/token', { token: null, raw: { body: '{nope', contentType: 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('invalid_request');
  });

  it('takes the client credentials as HTTP Basic (RFC 6749 §2.3.1), but not twice', async () => {
    const c = t.demo.oauthClients.clinicReadOnly;
    const aud = t.deps.config.oauthAudience;
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const ok = await t.rest('POST', '/oauth/token', {
      token: null,
      headers: { authorization: basic(c.clientId, c.clientSecret) },
      form: { grant_type: 'client_credentials', audience: aud },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect((await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: ok.body.access_token })).status).toBe(200);
    const wrong = await t.rest('POST', '/oauth/token', {
      token: null,
      headers: { authorization: basic(c.clientId, 'wrong') },
      form: { grant_type: 'client_credentials', audience: aud },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="oauth"');
    const both = await t.rest('POST', '/oauth/token', {
      token: null,
      headers: { authorization: basic(c.clientId, c.clientSecret) },
      form: { grant_type: 'client_credentials', audience: aud, client_id: c.clientId, client_secret: c.clientSecret },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
    const garbled = await t.rest('POST', '/oauth/token', {
      token: null,
      headers: { authorization: 'Basic %%%' },
      form: { grant_type: 'client_credentials', audience: aud },
    });
    expect(garbled.status).toBe(400);
    expect(garbled.body.error).toBe('invalid_request');
  });

  it('carries what RFC 9068 asks of a JWT access token: client_id and a jti of its own', async () => {
    const c = t.demo.oauthClients.clinic;
    const token = async () => {
      const res = await t.rest('POST', '/oauth/token', {
        token: null,
        json: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return decodeJwt(res.body.access_token as string);
    };
    const [first, second] = [await token(), await token()];
    expect(first).toMatchObject({ client_id: c.clientId, sub: c.clientId, iss: expect.any(String), iat: expect.any(Number) });
    expect(first.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.jti).not.toBe(first.jti);
  });

  it('defaults the audience to the service, and takes an RFC 8707 resource in its place', async () => {
    const c = t.demo.oauthClients.clinicReadOnly;
    const extras: Record<string, string>[] = [
      {},
      { resource: t.deps.config.oauthAudience },
      { audience: t.deps.config.oauthAudience, resource: t.deps.config.oauthAudience },
    ];
    for (const extra of extras) {
      const res = await t.rest('POST', '/oauth/token', {
        token: null,
        form: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(decodeJwt(res.body.access_token as string).aud).toBe(t.deps.config.oauthAudience);
      const rest = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: res.body.access_token });
      expect(rest.status).toBe(200);
    }
  });

  it('issues what the `scope` parameter asks for (RFC 6749 §3.3), and nothing the client does not hold', async () => {
    const c = t.demo.oauthClients.clinic;
    const asked = await t.rest('POST', '/oauth/token', {
      token: null,
      form: {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        scope: 'closures:read  organizations:read closures:read',
      },
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.scope.split(' ').sort()).toEqual(['closures:read', 'organizations:read']);
    expect(
      String(decodeJwt(asked.body.access_token as string).scope)
        .split(' ')
        .sort(),
    ).toEqual(['closures:read', 'organizations:read']);
    // the narrowed token reads closures but cannot write one, on both surfaces
    const orgId = t.demo.organizations.clinic.id;
    const closures = await t.rest('GET', `/v1/organizations/${orgId}/closures`, { token: asked.body.access_token });
    expect(closures.status).toBe(200);
    const made = await t.rest('POST', `/v1/organizations/${orgId}/closures`, {
      json: {
        description: 'Staff training',
        chatGreeting: 'We are training today.',
        phoneGreeting: 'We are in training.',
        startAt: '2030-01-01T10:00:00Z',
        endAt: '2030-01-01T12:00:00Z',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const closureId = made.body.data.id as string;
    const write = await t.rest('DELETE', `/v1/organizations/${orgId}/closures/${closureId}`, { token: asked.body.access_token });
    expect(write.status).toBe(403);
    const viewer = await t.gql('{ viewer { scopes } }', {}, { token: asked.body.access_token });
    expect([...viewer.body.data.viewer.scopes].sort()).toEqual(['closures:read', 'organizations:read']);

    // a read-only client asking for a write scope gets no token
    const readOnly = t.demo.oauthClients.clinicReadOnly;
    const refused = await t.rest('POST', '/oauth/token', {
      token: null,
      form: {
        grant_type: 'client_credentials',
        client_id: readOnly.clientId,
        client_secret: readOnly.clientSecret,
        scope: 'closures:write',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'invalid_scope', error_description: 'the client does not hold closures:write' });
  });

  it('publishes the verification key at /.well-known/jwks.json', async () => {
    const res = await t.rest('GET', '/.well-known/jwks.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.body.keys).toHaveLength(1);
    expect(res.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(res.body.keys[0].d).toBeUndefined();
  });
});

describe('token revocation (RFC 7009)', () => {
  const basic = (c: { clientId: string; clientSecret: string }) =>
    `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;
  async function tokenOf(c: { clientId: string; clientSecret: string }): Promise<string> {
    const res = await t.rest('POST', '/oauth/token', {
      token: null,
      form: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.access_token as string;
  }
  const revoke = (c: { clientId: string; clientSecret: string }, token: string) =>
    t.rest('POST', '/oauth/revoke', {
      token: null,
      headers: { authorization: basic(c) },
      form: { token, token_type_hint: 'access_token' },
    });
  const works = async (token: string) => {
    const rest = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token });
    return rest.status === 200;
  };

  it('refuses a revoked token from then on, on both surfaces, and leaves the client’s other tokens alone', async () => {
    const c = t.demo.oauthClients.clinic;
    const [leaked, other] = [await tokenOf(c), await tokenOf(c)];
    expect(await works(leaked)).toBe(true); // verified and kept by the read model before it is revoked
    const res = await revoke(c, leaked);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectRejected(leaked);
    expect(await works(other)).toBe(true);
    // again: nothing left to do, the same answer, one event
    expect((await revoke(c, leaked)).status).toBe(200);
    const events = await t.deps.db.event.findMany({ where: { type: 'oauth_client.token_revoked' } });
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ jti: decodeJwt(leaked).jti });
    // the credentials in the body work as well as HTTP Basic
    const third = await tokenOf(c);
    const inBody = await t.rest('POST', '/oauth/revoke', {
      token: null,
      json: { token: third, client_id: c.clientId, client_secret: c.clientSecret },
    });
    expect(inBody.status).toBe(200);
    await expectRejected(third);
  });

  it('answers 200 and revokes nothing for another client’s token, an invalid one or an expired one', async () => {
    const c = t.demo.oauthClients.clinic;
    const token = await tokenOf(c);
    expect((await revoke(t.demo.oauthClients.clinicReadOnly, token)).status).toBe(200);
    expect(await works(token)).toBe(true);
    expect((await revoke(c, 'not.a.token')).status).toBe(200);
    const claims = { clientId: c.clientId, orgId: t.demo.organizations.clinic.id, scopes: ['organizations:read'] };
    const expired = await issueAccessToken(t.deps.tokens, claims, new Date(Date.now() - 2 * 86_400_000));
    expect((await revoke(c, expired)).status).toBe(200);
    expect(await t.deps.db.event.count({ where: { type: 'oauth_client.token_revoked' } })).toBe(0);
  });

  it('refuses an unknown client or a wrong secret (401), a missing token (400), and a token that has no jti', async () => {
    const c = t.demo.oauthClients.clinic;
    const token = await tokenOf(c);
    const wrong = await revoke({ clientId: c.clientId, clientSecret: 'wrong' }, token);
    expect({ status: wrong.status, error: wrong.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expect(await works(token)).toBe(true);
    const missing = await t.rest('POST', '/oauth/revoke', { token: null, headers: { authorization: basic(c) }, form: {} });
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: 400, error: 'invalid_request' });
    // a token issued before tokens had a jti (signed by the service, valid) cannot be revoked on its own
    const now = Math.floor(Date.now() / 1000);
    const old = await new SignJWT({ org: t.demo.organizations.clinic.id, scope: 'organizations:read' })
      .setProtectedHeader({ alg: t.deps.tokens.key.alg, kid: t.deps.tokens.key.kid, typ: 'at+jwt' })
      .setIssuer(t.deps.tokens.issuer)
      .setAudience(t.deps.tokens.audience)
      .setSubject(c.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(t.deps.tokens.key.privateKey);
    expect(await works(old)).toBe(true);
    const unsupported = await revoke(c, old);
    expect({ status: unsupported.status, error: unsupported.body.error }).toEqual({ status: 400, error: 'unsupported_token_type' });
  });
});

describe('rejected credentials are 401 on both surfaces', () => {
  it('no credential at all', async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: null });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/Authorization/);
  });

  it('an expired token', async () => {
    const token = await t.accessToken('clinic');
    t.clock.advance(24 * 3600 * 1000 + 1000);
    await expectRejected(token);
  });

  it('a tampered token', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.scope = 'organizations:write closures:write';
    await expectRejected(`${h}.${b64url(payload)}.${s}`);
  });

  it('a token for another audience, signed with the service key', async () => {
    const claims = { clientId: t.demo.oauthClients.clinic.clientId, orgId: t.demo.organizations.clinic.id, scopes: ['organizations:read'] };
    await expectRejected(await issueAccessToken({ ...t.deps.tokens, audience: 'https://other.example/v1' }, claims, new Date()));
    await expectRejected(await issueAccessToken({ ...t.deps.tokens, issuer: 'https://issuer.example' }, claims, new Date()));
  });

  it('an alg: none token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: t.deps.tokens.issuer,
      aud: t.deps.tokens.audience,
      sub: t.demo.oauthClients.clinic.clientId,
      org: t.demo.organizations.clinic.id,
      scope: 'organizations:read',
      iat: now,
      exp: now + 3600,
    };
    await expectRejected(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`);
  });

  it('a token signed by another key', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ org: t.demo.organizations.clinic.id, scope: 'organizations:read' })
      .setProtectedHeader({ alg: 'ES256', kid: t.deps.tokens.key.kid })
      .setIssuer(t.deps.tokens.issuer)
      .setAudience(t.deps.tokens.audience)
      .setSubject(t.demo.oauthClients.clinic.clientId)
      .setExpirationTime('1h')
      .sign(privateKey);
    await expectRejected(token);
  });

  it('a malformed, unknown or revoked API key', async () => {
    await expectRejected('svc-sk-v2-short');
    await expectRejected(`svc-sk-v2-${'A'.repeat(43)}`);
    for (const key of await t.db.prisma.apiKey.findMany({ where: { orgId: t.demo.organizations.clinic.id } }))
      await revokeApiKey(t.deps, key.id);
    await expectRejected(t.demo.organizations.clinic.apiKey);
  });

  it('a token of a revoked OAuth client', async () => {
    const token = await t.accessToken('clinic');
    await revokeOAuthClient(t.deps, t.demo.oauthClients.clinic.clientId);
    await expectRejected(token);
  });

  it('a header that is not "Bearer <token>"', async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, {
      token: null,
      headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    });
    expect(res.status).toBe(401);
  });
});

describe('reach and scopes', () => {
  it("gives 404 for another tenant's organization, exactly like a missing one", async () => {
    const foreign = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}`);
    const missing = await t.rest('GET', '/v1/organizations/6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const gql = await t.gql(
      graphql(`
        query AuthOrganization($id: ID!) {
          organization(id: $id) {
            id
            name
          }
        }
      `),
      { id: t.demo.organizations.other.id },
    );
    expect(gql.body.data.organization).toBeNull();
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('lets an account organization reach its children but not a child reach its parent', async () => {
    const account = t.demo.organizations.account;
    const child = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic2.id}`, { token: account.apiKey });
    expect(child.status).toBe(200);
    const sibling = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic2.id}`);
    expect(sibling.status).toBe(404);
    const parent = await t.rest('GET', `/v1/organizations/${account.id}`);
    expect(parent.status).toBe(404);
    const gql = await t.gql(
      graphql(`
        query AuthViewerParent {
          viewer {
            organization {
              id
              parent {
                id
              }
            }
          }
        }
      `),
    );
    expect(gql.body.data.viewer.organization.parent).toBeNull();
    const fromAccount = await t.gql('{ viewer { organization { children { id parent { id } } } } }', {}, { token: account.apiKey });
    const children = fromAccount.body.data.viewer.organization.children;
    expect(children.map((c: { id: string }) => c.id).sort()).toEqual(
      [t.demo.organizations.clinic.id, t.demo.organizations.clinic2.id].sort(),
    );
    expect(children.every((c: { parent: { id: string } }) => c.parent.id === account.id)).toBe(true);
  });

  it('gives a read-only OAuth client 403 on a write, and leaves the data unchanged', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const rest = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/disable`, { token });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ success: false, data: {} });
    const gql = await t.gql(
      graphql(`
        mutation AuthDisableOrganization($id: ID!) {
          disableOrganization(orgId: $id) {
            changed
          }
        }
      `),
      { id: t.demo.organizations.clinic.id },
      { token },
    );
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const org = await t.db.prisma.organization.findUniqueOrThrow({ where: { id: t.demo.organizations.clinic.id } });
    expect(org.communicationsEnabled).toBe(true);
    const read = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token });
    expect(read.status).toBe(200);
  });

  it('lists the scopes of the credential in viewer', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const gql = await t.gql(
      graphql(`
        query AuthViewerScopes {
          viewer {
            scopes
          }
        }
      `),
      {},
      { token },
    );
    expect(gql.body.data.viewer.scopes).toEqual(t.demo.oauthClients.clinicReadOnly.scopes.slice().sort());
  });
});

describe('secrets at rest', () => {
  it('keeps no plaintext API key or client secret anywhere in the database', async () => {
    const secrets = [
      ...Object.values(t.demo.organizations).map((o) => o.apiKey),
      t.demo.oauthClients.clinic.clientSecret,
      t.demo.oauthClients.clinicReadOnly.clientSecret,
    ];
    // dump every text-like column of every table and search it
    const tables = await t.db.prisma.$queryRawUnsafe<{ tablename: string }[]>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
    );
    let dump = '';
    for (const { tablename } of tables) {
      const rows = await t.db.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(x)::text AS row FROM "${tablename}" x`);
      dump += rows.map((r) => r.row).join('\n');
    }
    expect(dump.length).toBeGreaterThan(1000);
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(-20));
    }
    expect(dump).toMatch(/"hash":"[0-9a-f]{64}"/);
  });
});
