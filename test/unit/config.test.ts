// The configuration of the HTTP limits and of CORS (src/config.ts): defaults, parsing, and a one-line
// error naming the variable for a bad value.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('HTTP limits and CORS configuration', () => {
  it("has safe defaults: timeouts on (keep-alive past a load balancer's 60 s, headers past keep-alive), 16 KiB / 100 header fields, CORS closed", () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      headersTimeoutMs: 66_000,
      requestTimeoutMs: 90_000,
      keepAliveTimeoutMs: 65_000,
      maxHeaderBytes: 16_384,
      maxHeaders: 100,
      maxQueuedRequests: 2_000,
    });
    expect(config.corsOrigins).toEqual([]);
  });

  it('reads the variables, and CORS_ORIGINS as a comma-separated list', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '4000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500',
      HTTP_MAX_HEADER_BYTES: '32768',
      HTTP_MAX_HEADERS: '50',
      CORS_ORIGINS: ' https://app.example.com, http://localhost:3000 ,',
    });
    expect(config.http).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1500,
      maxHeaderBytes: 32_768,
      maxHeaders: 50,
      maxQueuedRequests: 2_000,
    });
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:3000']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_MS: '0' }, 'HTTP_HEADERS_TIMEOUT_MS: HTTP_HEADERS_TIMEOUT_MS must be a positive integer, got "0"'],
    [{ HTTP_MAX_HEADERS: 'many' }, 'HTTP_MAX_HEADERS: HTTP_MAX_HEADERS must be a positive integer, got "many"'],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' },
      'HTTP_HEADERS_TIMEOUT_MS: HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
    ],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000' }, 'HTTP_HEADERS_TIMEOUT_MS: HTTP_HEADERS_TIMEOUT_MS must exceed HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [
      { CORS_ORIGINS: 'https://app.example.com/path' },
      'CORS_ORIGINS: CORS_ORIGINS must list origins like https://app.example.com (scheme, host and port only) or *, got "https://app.example.com/path"',
    ],
    [{ CORS_ORIGINS: 'app.example.com' }, 'got "app.example.com"'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('METRICS_TOKEN', () => {
  it('is unset (GET /metrics public) by default and when empty; read as given otherwise', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a1b2c3d4e5f6a7b8c9d0' }).metricsToken).toBe('a1b2c3d4e5f6a7b8c9d0');
  });

  it.each(['short', 'has a space in it, long enough', 'tab\tseparated-0123456789', 'non-ascii-ünïcødé-0123456789'])(
    'refuses %j',
    (value) => {
      expect(() => loadConfig({ METRICS_TOKEN: value })).toThrow(
        'METRICS_TOKEN: METRICS_TOKEN must be at least 16 visible ASCII characters without spaces',
      );
    },
  );
});

describe('OAuth issuer', () => {
  it('is http://HOST:PORT by default, and the origin of OAUTH_AUDIENCE when that names one (the same on every instance)', () => {
    expect(loadConfig({ PORT: '4001' }).oauthIssuer).toBe('http://127.0.0.1:4001');
    for (const PORT of ['4001', '4002']) {
      const config = loadConfig({ PORT, OAUTH_AUDIENCE: 'https://api.example.com/v1' });
      expect(config.oauthIssuer).toBe('https://api.example.com');
      expect(config.oauthAudience).toBe('https://api.example.com/v1');
    }
    expect(loadConfig({ PORT: '4001', OAUTH_AUDIENCE: 'urn:example:ocs' }).oauthIssuer).toBe('http://127.0.0.1:4001');
  });
});

describe('the configuration table of docs/operating.md', () => {
  it('names every variable src/config.ts reads', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const readme = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const variables = [...source.matchAll(/^ {2,4}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(20);
    expect(variables.filter((name) => !table.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
