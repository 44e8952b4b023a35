// The shortcuts the cached reads take on every request answer exactly what the long way answers: the
// hash comparison, the instant's text, the request metrics' label sets, the budgets decided at once, and
// the request's deps.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { hashesEqual, hashSecret } from '../../src/crypto/secrets.js';
import { formatInstant } from '../../src/domain/shared/localTime.js';
import { depsForRequest } from '../../src/http/requestContext.js';
import { createLogger } from '../../src/logger.js';
import { RequestMetrics } from '../../src/metrics/requestMetrics.js';
import { RateLimiter } from '../../src/ratelimit/limiter.js';
import { MemoryStore } from '../../src/ratelimit/memoryStore.js';
import type { CounterStore } from '../../src/ratelimit/store.js';
import type { AppDeps } from '../../src/deps.js';

describe('hashesEqual', () => {
  const a = hashSecret('svc-sk-v2-one');
  it('is true for the same hash, in either case of hex', () => {
    expect(hashesEqual(a, a)).toBe(true);
    expect(hashesEqual(a, a.toUpperCase())).toBe(true);
  });
  it('is false for another hash, a hash differing in its last digit, another length, or text that is not hex', () => {
    expect(hashesEqual(a, hashSecret('svc-sk-v2-two'))).toBe(false);
    expect(hashesEqual(a, a.slice(0, -1) + (a.endsWith('0') ? '1' : '0'))).toBe(false);
    expect(hashesEqual(a, a.slice(0, -2))).toBe(false);
    expect(hashesEqual('zz' + a.slice(2), 'yy' + a.slice(2))).toBe(false);
    expect(hashesEqual('zz', 'zz')).toBe(false);
  });
});

describe('formatInstant', () => {
  it('answers each instant to the second, whatever was asked before', () => {
    const base = Date.parse('2026-03-08T06:59:59.000Z');
    for (const ms of [base, base + 999, base + 1000, base + 999, base - 1, base + 86_400_000]) {
      expect(formatInstant(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    }
    expect(() => formatInstant(NaN)).toThrow(RangeError);
  });
});

describe('RequestMetrics', () => {
  it('counts each combination of labels in its own series, however often each is seen', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    const seen = [
      { method: 'GET', route: 'GET /v1/a', status: 200, operation: undefined },
      { method: 'GET', route: 'GET /v1/a', status: 200, operation: undefined },
      { method: 'GET', route: 'GET /v1/a', status: 304, operation: undefined },
      { method: 'POST', route: 'POST /graphql', status: 200, operation: 'query organization' },
      { method: 'BREW', route: undefined, status: 404, operation: undefined },
      { method: 'PURGE', route: undefined, status: 404, operation: undefined },
    ];
    for (const o of seen) metrics.observe({ ...o, seconds: 0.002 });
    const text = await registry.metrics();
    expect(text).toContain('ocs_http_requests_total{method="GET",route="GET /v1/a",status="200"} 2');
    expect(text).toContain('ocs_http_requests_total{method="GET",route="GET /v1/a",status="304"} 1');
    expect(text).toContain('ocs_http_requests_total{method="POST",route="POST /graphql",status="200",operation="query organization"} 1');
    expect(text).toContain('ocs_http_requests_total{method="other",route="unmatched",status="404"} 2');
    expect(text).toContain('ocs_http_request_duration_seconds_count{method="GET",route="GET /v1/a",status="200"} 2');
  });
});

describe('budgets decided at once', () => {
  const config = {
    rateLimitPerMinute: 2,
    callRequestReadsPerSecond: 2,
    callRequestMinPollSeconds: 10,
    unauthenticatedRateLimitPerMinute: 1,
  };
  const clock = () => new Date(Date.parse('2026-01-01T10:00:30Z'));

  it('on the in-memory store: the same decisions as hit and peek, counted in the same counters', async () => {
    const limiter = new RateLimiter(new MemoryStore(), config, clock, createLogger('silent'));
    expect(limiter.hitNow('perMinute', 'org', 'GET /x')).toMatchObject({ allowed: true, count: 1, remaining: 1 });
    expect(await limiter.hit('perMinute', 'org', 'GET /x')).toMatchObject({ allowed: true, count: 2, remaining: 0 });
    expect(limiter.hitNow('perMinute', 'org', 'GET /x')).toMatchObject({ allowed: false, count: 3, retryAfter: 30 });
    expect(limiter.peekNow('perMinute', 'org', 'GET /x')).toEqual(await limiter.peek('perMinute', 'org', 'GET /x'));
    expect(limiter.refusals.perMinute).toBe(3);
  });

  it('on another store (Redis): not at once, so that the caller awaits the store', () => {
    const remote: CounterStore = { ...new MemoryStore(), kind: 'redis' } as unknown as CounterStore;
    const limiter = new RateLimiter(remote, config, clock, createLogger('silent'));
    expect(limiter.hitNow('perMinute', 'org', 'GET /x')).toBeUndefined();
    expect(limiter.peekNow('unauthenticated', '10.0.0.1', 'authentication')).toBeUndefined();
  });
});

describe('depsForRequest', () => {
  it("carries the request's id and logger, and everything else of the app's deps, also what is set on them later", () => {
    const lines: string[] = [];
    const deps = { logger: createLogger('info', (l) => lines.push(l)), config: { name: 'app' } } as unknown as AppDeps;
    const request = depsForRequest(deps, 'req-1');
    deps.requestQueue = { waiting: 3, refused: 0 };
    expect(request.config).toBe(deps.config);
    expect(request.requestQueue?.waiting).toBe(3);
    expect(request.requestId).toBe('req-1');
    expect(deps.requestId).toBeUndefined();
    request.logger.info('hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'hello', requestId: 'req-1' });
  });
});
