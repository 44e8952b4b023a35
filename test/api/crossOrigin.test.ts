// Browsers on other sites: CORS is closed unless CORS_ORIGINS lists origins (then preflights answer for
// those origins only), and a forged cross-site request (CSRF) cannot change anything: GET never runs a
// mutation, and credentials are bearer tokens a browser never attaches on its own (no cookies).
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const site = 'https://app.example.com';
const evil = 'https://evil.example';

let openApp: App;
beforeAll(() => {
  openApp = createApp({ ...t.deps, config: { ...t.deps.config, corsOrigins: [site, 'http://localhost:3000'] } });
});

function call(app: App, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(new URL(path, 'http://127.0.0.1:4000'), init)));
}

const preflight = (origin: string, method = 'POST') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
});

describe('CORS closed (CORS_ORIGINS unset, the default)', () => {
  it('sends no Access-Control-Allow-Origin on REST, GraphQL or /oauth/token answers', async () => {
    const auth = { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, origin: site };
    const answers = await Promise.all([
      call(t.app, `/v1/organizations/${t.demo.organizations.clinic.id}`, { headers: auth }),
      call(t.app, '/graphql', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { scopes } }' }),
      }),
      call(t.app, '/oauth/token', { method: 'POST', headers: { origin: site, 'content-type': 'application/json' }, body: '{}' }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 400]);
    for (const r of answers) {
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('answers a preflight 405 without any CORS header, so the browser sends nothing', async () => {
    for (const path of [`/v1/organizations/${t.demo.organizations.clinic.id}/closures`, '/graphql']) {
      const res = await call(t.app, path, preflight(site));
      expect(res.status).toBe(405);
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('CORS open to the origins of CORS_ORIGINS', () => {
  it('answers a preflight from a listed origin with what it may send', async () => {
    const res = await call(openApp, `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, preflight(site));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(site);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,Idempotency-Key,X-Request-Id,If-None-Match');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull(); // no cookies: bearer tokens only
    expect(res.headers.get('vary')).toMatch(/Origin/);
    const graphql = await call(openApp, '/graphql', preflight('http://localhost:3000'));
    expect(graphql.status).toBe(204);
    expect(graphql.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('lets a listed origin read answers and the rate-limit headers, on both surfaces', async () => {
    const headers = { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, origin: site };
    const rest = await call(openApp, `/v1/organizations/${t.demo.organizations.clinic.id}`, { headers });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('access-control-allow-origin')).toBe(site);
    expect(rest.headers.get('access-control-expose-headers')).toBe(
      'ETag,X-Request-Id,Idempotent-Replayed,Original-Request,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,Retry-After,WWW-Authenticate',
    );
    expect(rest.headers.get('vary')).toMatch(/Origin/);
    const gql = await call(openApp, '/graphql', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { scopes } }' }),
    });
    expect(gql.status).toBe(200);
    expect(gql.headers.get('access-control-allow-origin')).toBe(site);
  });

  it('gives an origin that is not listed no Access-Control-Allow-Origin', async () => {
    const pre = await call(openApp, '/graphql', preflight(evil));
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await call(openApp, `/v1/organizations/${t.demo.organizations.clinic.id}`, {
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, origin: evil },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('forged cross-site requests (CSRF)', () => {
  it('never runs a mutation sent with GET (405, nothing changed)', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const query = `mutation { disableOrganization(orgId: "${orgId}") { status changed } }`;
    const res = await call(t.app, `/graphql?query=${encodeURIComponent(query)}`, {
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, accept: 'application/json' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const body = (await res.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toBe('Can only perform a mutation operation from a POST request.');
    const org = await t.db.prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    expect(org.communicationsEnabled).toBe(true);
    // the same operation by POST does run (the refusal above is about the method)
    const post = await t.gql(query);
    expect(post.body.data.disableOrganization).toEqual({ status: 'disabled', changed: true });
  });

  it('does not change anything for a form post that carries cookies but no bearer token', async () => {
    // what a page on another site can make a browser send without a preflight
    const orgId = t.demo.organizations.clinic.id;
    const query = `mutation { disableOrganization(orgId: "${orgId}") { status } }`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded', cookie: 'session=anything', origin: evil };
    const gql = await call(t.app, '/graphql', { method: 'POST', headers, body: JSON.stringify({ query }) });
    const gqlBody = (await gql.json()) as { errors: { extensions: { code: string } }[] };
    expect(gqlBody.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    const rest = await call(t.app, `/v1/organizations/${orgId}/disable`, { method: 'POST', headers, body: '' });
    expect(rest.status).toBe(401);
    const org = await t.db.prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    expect(org.communicationsEnabled).toBe(true);
  });
});
