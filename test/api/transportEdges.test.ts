// The smaller transport findings of issue 19 (defect 6), as a client sees them: a trailing slash, a
// repeated query parameter, a compressed body, the CORS preflight of the API's own headers.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { CORS_ORIGINS: 'https://good.example' } });
const org = () => t.demo.organizations.clinic.id;

describe('paths and queries', () => {
  it('serves a path with a trailing slash as the route', async () => {
    const auth = { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` };
    const res = await t.fetch(`/v1/organizations/${org()}/closures/`, { headers: auth });
    expect(res.status).toBe(200);
    expect((await res.json()).success).toBe(true);
    const post = await t.fetch(`/v1/organizations/${org()}/`, { method: 'DELETE', headers: auth });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).not.toContain('DELETE');
    expect((await t.fetch('/v1/nothing-here/', { headers: auth })).status).toBe(404);
  });

  it('refuses a repeated query parameter with a 400 naming it', async () => {
    const other = t.demo.organizations.clinic2.id;
    const res = await t.rest('GET', `/v1/conversations?orgId=${org()}&orgId=${other}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('orgId: is given more than once; send it once');
    expect(res.body.errors).toEqual([{ path: 'orgId', message: 'is given more than once; send it once' }]);
  });
});

describe('Content-Encoding of a request body', () => {
  const closure = () => ({
    description: 'Zipped',
    chatGreeting: null,
    phoneGreeting: null,
    startAt: '2026-03-10T14:00:00Z',
    endAt: '2026-03-10T18:00:00Z',
  });
  const post = (body: BodyInit, encoding: string) =>
    t.fetch(`/v1/organizations/${org()}/closures`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
        'content-type': 'application/json',
        'content-encoding': encoding,
      },
      body,
    });

  it('decodes gzip', async () => {
    const res = await post(gzipSync(JSON.stringify(closure())), 'gzip');
    expect(res.status).toBe(200);
    expect((await res.json()).data.description).toBe('Zipped');
  });

  it('applies the body limit to the decoded size, and refuses an unknown encoding with 415', async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_BODY_BYTES * 20, 0x20));
    expect(bomb.byteLength).toBeLessThan(MAX_BODY_BYTES);
    const res = await post(bomb, 'gzip');
    expect(res.status).toBe(413);
    expect((await res.json()).message).toBe(`The decoded body exceeds ${MAX_BODY_BYTES} bytes`);
    const unknown = await post(JSON.stringify(closure()), 'compress');
    expect(unknown.status).toBe(415);
    const garbled = await post('not gzip at all', 'gzip');
    expect(garbled.status).toBe(400);
  });

  it('decodes a gzipped GraphQL POST', async () => {
    const res = await t.fetch('/graphql', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(JSON.stringify({ query: '{ viewer { scopes } }' })),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.viewer.scopes.length).toBeGreaterThan(0);
  });
});

describe('CORS for the API headers', () => {
  it('lets a browser send Idempotency-Key, X-Request-Id and If-None-Match, and read ETag, X-Request-Id and replay headers', async () => {
    const preflight = await t.fetch(`/v1/organizations/${org()}/closures`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://good.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'idempotency-key,x-request-id,if-none-match',
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-request-id', 'if-none-match']));
    const res = await t.fetch(`/v1/organizations/${org()}`, {
      headers: { origin: 'https://good.example', authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
    });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    expect(exposed).toEqual(
      expect.arrayContaining(['etag', 'x-request-id', 'idempotent-replayed', 'original-request', 'x-ratelimit-remaining', 'retry-after']),
    );
  });
});

describe('security headers and pages', () => {
  it('puts nosniff, no framing and a closed CSP on API answers', async () => {
    const res = await t.fetch(`/v1/organizations/${org()}`, { headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const missing = await t.fetch('/nowhere');
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends GraphiQL compressed, with an ETag (304 on revalidation) and a CSP allowing its inline scripts by hash', async () => {
    const headers = { accept: 'text/html', 'accept-encoding': 'gzip, br' };
    const res = await t.fetch('/graphql', { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    const compressed = await res.arrayBuffer();
    expect(compressed.byteLength).toBeLessThan(3_000_000);
    const { brotliDecompressSync } = await import('node:zlib');
    expect(brotliDecompressSync(Buffer.from(compressed)).toString('utf8')).toContain('<title>Office Communications Service');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[^']+'/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const again = await t.fetch('/graphql', { headers: { ...headers, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const gzipOnly = await t.fetch('/graphql', { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(gzipOnly.headers.get('content-encoding')).toBe('gzip');
  });

  it('sends the docs files compressed and cacheable', async () => {
    const res = await t.fetch('/v1/docs/swagger-ui-bundle.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('cache-control')).toContain('max-age=');
    const page = await t.fetch('/v1/docs');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
  });
});
