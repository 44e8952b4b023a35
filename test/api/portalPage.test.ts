// The developer portal's page and files as a browser receives them (the page in use: test/e2e/portal.browser.test.ts):
// a policy with no inline script or style and no other origin, no framing, the page revalidated by its
// ETag, its files named by their content and kept for a year, each answer compressed once.
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/shared/access.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(t.app.fetch(new Request(new URL(path, 'http://127.0.0.1:4000'), { headers })));
}

/** The page's files, as its HTML links them. */
async function assetPaths(): Promise<{ script: string; stylesheet: string }> {
  const html = await (await get('/portal')).text();
  return {
    script: /<script src="(\/portal\/assets\/portal-[\w-]+\.js)" defer><\/script>/.exec(html)![1]!,
    stylesheet: /<link rel="stylesheet" href="(\/portal\/assets\/portal-[\w-]+\.css)" \/>/.exec(html)![1]!,
  };
}

describe('GET /portal', () => {
  it('is a page with a strict policy: its own files only, nothing inline, calls to this origin, never framed', async () => {
    const page = await get('/portal');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('sha256-');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    // no inline script (the policy would refuse it) and every scope offered as a checkbox
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle="/);
    for (const scope of SCOPES) expect(html).toContain(`value="${scope}"`);
    expect(html).toContain('<label for="signin-key">API key</label>');
  });

  it('is revalidated on every load by its ETag (304 without a body)', async () => {
    const page = await get('/portal');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await get('/portal', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('is sent compressed when the browser accepts it, and decodes to the page and its script', async () => {
    const plain = await (await get('/portal')).text();
    const compressed = await get('/portal', { 'accept-encoding': 'br' });
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await compressed.arrayBuffer())).toString('utf8')).toBe(plain);
    const { script } = await assetPaths();
    const js = await get(script, { 'accept-encoding': 'br' });
    expect(brotliDecompressSync(Buffer.from(await js.arrayBuffer())).toString('utf8')).toContain("const KEY_STORAGE = 'ocs-portal-key'");
  });
});

describe('the portal files', () => {
  it('are named by their content and kept a year; the script sends the key to this origin only', async () => {
    const { script, stylesheet } = await assetPaths();
    const js = await get(script);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const source = await js.text();
    expect(source).toContain('sessionStorage');
    expect(source).not.toMatch(/localStorage|https?:\/\//);
    const css = await get(stylesheet);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers any other name 404 in the envelope, and other methods 405', async () => {
    const missing = await get('/portal/assets/portal-0000.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      success: false,
      code: 'not_found',
      message: 'No route GET /portal/assets/portal-0000.js',
    });
    const traversal = await get('/portal/assets/..%2F..%2Fpackage.json');
    expect(traversal.status).toBe(404);
    const post = await Promise.resolve(t.app.fetch(new Request('http://127.0.0.1:4000/portal', { method: 'POST' })));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});
