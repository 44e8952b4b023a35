// OAuth as a stock client library does it (issue 37 §2), against a real socket on 127.0.0.1: oauth4webapi (panva's
// low-level client, RFC-strict) asks for tokens with client_secret_basic and client_secret_post, narrowed by `scope`,
// with no `audience` (the service's own by default) or an RFC 8707 `resource`; validates the access token as a
// resource server must (RFC 9068: typ at+jwt, iss, exp, aud, sub, client_id, iat, jti, against the published keys);
// and revokes it (RFC 7009), after which the service refuses it.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((request, response) => t.app.listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The authorization server as the client library knows it (plain http on loopback is allowed explicitly). */
function authorizationServer(): oauth.AuthorizationServer {
  return {
    issuer: t.deps.tokens.issuer,
    token_endpoint: `${baseUrl}/oauth/token`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    jwks_uri: `${baseUrl}/.well-known/jwks.json`,
  };
}
const insecure = { [oauth.allowInsecureRequests]: true };

async function newClient(scopes: string[]) {
  const res = await t.rest('POST', '/v1/oauth-clients', { json: { name: 'Stock client', scopes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { clientId: string; clientSecret: string };
}

async function tokenOf(
  as: oauth.AuthorizationServer,
  client: { clientId: string; clientSecret: string },
  auth: 'basic' | 'post',
  parameters: Record<string, string>,
) {
  const authentication = auth === 'basic' ? oauth.ClientSecretBasic(client.clientSecret) : oauth.ClientSecretPost(client.clientSecret);
  const response = await oauth.clientCredentialsGrantRequest(as, { client_id: client.clientId }, authentication, parameters, insecure);
  return oauth.processClientCredentialsResponse(as, { client_id: client.clientId }, response);
}

/** Validates `token` as a resource server would (RFC 9068), on a request to the service. */
function validate(as: oauth.AuthorizationServer, token: string) {
  const request = new Request(`${baseUrl}/v1/organizations`, { headers: { authorization: `Bearer ${token}` } });
  return oauth.validateJwtAccessToken(as, request, t.deps.tokens.audience, insecure);
}

describe('a stock OAuth client (oauth4webapi)', () => {
  it('gets a token narrowed to the scope it asks, with every claim RFC 9068 requires, and the service honours it', async () => {
    // signatures are checked against the key of the app's clock: the library checks exp/iat against its own
    t.clock.real();
    const as = authorizationServer();
    const client = await newClient(['organizations:read', 'closures:read', 'closures:write']);
    const narrowed = await tokenOf(as, client, 'basic', { scope: 'closures:read' });
    expect(narrowed.token_type).toBe('bearer');
    expect(narrowed.scope).toBe('closures:read');
    const claims = await validate(as, narrowed.access_token);
    expect(claims).toMatchObject({
      iss: t.deps.tokens.issuer,
      aud: t.deps.tokens.audience,
      client_id: client.clientId,
      scope: 'closures:read',
    });
    expect(typeof claims.jti).toBe('string');
    expect(typeof claims.sub).toBe('string');
    // what it may do is what it asked for, not all the client holds
    const closures = `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
    expect((await t.rest('GET', closures, { token: narrowed.access_token })).status).toBe(200);
    const write = await t.rest('POST', closures, {
      token: narrowed.access_token,
      json: { description: 'Staff day', annualDate: { month: 5, day: 2 }, chatGreeting: null, phoneGreeting: null },
    });
    expect(write.status).toBe(403);

    // client_secret_post, no scope: everything the client holds; an RFC 8707 resource naming the service is accepted
    const whole = await tokenOf(as, client, 'post', { resource: t.deps.tokens.audience });
    expect(whole.scope?.split(' ').sort()).toEqual(['closures:read', 'closures:write', 'organizations:read']);
  });

  it('is told invalid_scope for a scope the client does not hold, and invalid_client for a wrong secret', async () => {
    const as = authorizationServer();
    const client = await newClient(['closures:read']);
    await expect(tokenOf(as, client, 'basic', { scope: 'closures:write' })).rejects.toMatchObject({ error: 'invalid_scope' });
    // a failed Basic authentication is a 401 with its challenge (RFC 6749 §5.2), which the library reports as such
    const refused = await tokenOf(as, { ...client, clientSecret: 'wrong' }, 'basic', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = refused as oauth.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause[0]).toMatchObject({ scheme: 'basic' });
    expect(await challenge.response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('revokes a leaked token (RFC 7009): the service refuses it from then on', async () => {
    t.clock.real();
    const as = authorizationServer();
    const client = await newClient(['organizations:read']);
    const { access_token: token } = await tokenOf(as, client, 'basic', {});
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect((await t.rest('GET', path, { token })).status).toBe(200);
    const response = await oauth.revocationRequest(
      as,
      { client_id: client.clientId },
      oauth.ClientSecretBasic(client.clientSecret),
      token,
      insecure,
    );
    await oauth.processRevocationResponse(response);
    expect((await t.rest('GET', path, { token })).status).toBe(401);
  });
});
