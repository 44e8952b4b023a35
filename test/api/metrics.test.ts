// GET /metrics (issue 11 item 5): Prometheus text from one registry per app, with requests by route
// pattern, method, status and GraphQL operation; rate-limit refusals by budget; the read model's hits
// and misses; the database's statements, errors and gate; the change channel; Node's default metrics.
// Every label comes from a fixed set: requests naming many ids, unknown paths, odd methods and invented
// operation names add no series. Public by default; METRICS_TOKEN makes it a bearer-token route.
import { METHODS } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { ChangeFeed } from '../../src/changes/feed.js';
import type { ChangeTransport, TransportHandlers } from '../../src/changes/transport.js';
import { loadConfig } from '../../src/config.js';
import { DatabaseGate } from '../../src/db/gate.js';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.js';
import { parsePrometheusText, type Scrape } from '../support/prometheusText.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

async function scrape(app: App = t.app, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await app.fetch(new Request('http://127.0.0.1:4000/metrics', { headers }));
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

const requests = (labels: Record<string, string>) => ['ocs_http_requests_total', labels] as const;

async function graphqlPost(body: Record<string, unknown>): Promise<Response> {
  return t.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
    },
    body: JSON.stringify(body),
  });
}

describe('GET /metrics', () => {
  it('answers the Prometheus text format without credentials: requests by route pattern, method and status, and the defaults', async () => {
    const org = t.demo.organizations.clinic.id;
    const before = await scrape();
    expect((await t.rest('GET', `/v1/organizations/${org}`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/organizations/${org}`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/organizations/${randomUUID()}`)).status).toBe(404);

    const res = await t.fetch('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const after = parsePrometheusText(await res.text());

    const ok = { method: 'GET', route: 'GET /v1/organizations/:orgId', status: '200' };
    expect(after.value(...requests(ok)) - before.value(...requests(ok))).toBe(2);
    expect(after.value('ocs_http_request_duration_seconds_count', ok) - before.value('ocs_http_request_duration_seconds_count', ok)).toBe(
      2,
    );
    const notFound = { ...ok, status: '404' };
    expect(after.value(...requests(notFound)) - before.value(...requests(notFound))).toBe(1);
    // a histogram with buckets from 1 ms up
    expect(after.find('ocs_http_request_duration_seconds_bucket', { ...ok, le: '0.001' })).toHaveLength(1);
    expect(after.value('ocs_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(after.value(...requests(ok)));

    const families = after.families();
    for (const name of [
      // Node.js defaults: event-loop lag and memory among them
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'ocs_http_requests_total',
      'ocs_http_request_duration_seconds',
      'ocs_rate_limit_refusals_total',
      'ocs_rate_limit_store_degraded',
      'ocs_read_model_hits_total',
      'ocs_read_model_misses_total',
      'ocs_read_model_entries',
      'ocs_read_model_bytes',
      'ocs_db_statement_duration_seconds',
      'ocs_db_statement_errors_total',
      'ocs_db_gate_slots',
      'ocs_db_gate_active',
      'ocs_db_gate_waiting',
      'ocs_db_gate_admitted_total',
      'ocs_db_gate_wait_seconds_total',
      'ocs_db_gate_refused_total',
      'ocs_db_gate_timeouts_total',
      'ocs_change_channel_connected',
    ]) {
      expect(families, name).toContain(name);
    }
    expect(after.value('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  /** Methods node:http knows and no route answers (QUERY carries a body: without one it is a 400, not a 405; a fetch Request refuses TRACE and TRACK). */
  const ODD_METHODS = METHODS.filter(
    (m) => !['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'QUERY', 'TRACE', 'TRACK'].includes(m),
  );

  it('labels no id, key or path: many organizations, unknown paths and odd methods add a fixed set of series', async () => {
    const seen: string[] = [];
    let methods = 0;
    const round = async () => {
      for (let i = 0; i < 15; i++) {
        const id = randomUUID();
        const key = `svc-sk-${randomUUID().replaceAll('-', '')}`;
        seen.push(id, key);
        expect((await t.rest('GET', `/v1/organizations/${id}`)).status).toBe(404);
        expect((await t.fetch(`/v1/organizations/${id}/closures?since=${id}`)).status).toBeLessThan(500);
        expect((await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: key })).status).toBe(401);
        expect((await t.fetch(`/nothing/here/${id}`)).status).toBe(404);
        expect((await t.fetch(`/v1/${id}`, { method: 'DELETE' })).status).toBe(404);
        expect((await t.fetch('/healthz', { method: 'PUT' })).status).toBe(405);
        // a method of HTTP's that no route has, another each time (node:http refuses names it does not know)
        expect((await t.fetch(`/healthz?${id}`, { method: ODD_METHODS[methods++ % ODD_METHODS.length] })).status).toBe(405);
      }
    };
    const series = (s: Scrape) => s.find('ocs_http_requests_total').map((x) => JSON.stringify(x.labels));

    await round();
    const first = await scrape();
    await round();
    const second = await scrape();
    expect(series(second).sort()).toEqual(series(first).sort());
    expect(second.find('ocs_http_request_duration_seconds_count')).toHaveLength(
      first.find('ocs_http_request_duration_seconds_count').length,
    );
    for (const value of seen) expect(second.text).not.toContain(value);

    const routes = new Set(second.find('ocs_http_requests_total').map((s) => s.labels.route));
    expect(routes).toContain('unmatched');
    expect(routes).toContain('method not allowed');
    for (const route of routes) expect(route).toMatch(/^(unmatched|method not allowed|(GET|POST|PUT|PATCH|DELETE) \/[\w/:.-]*)$/);
    const methodLabels = new Set(second.find('ocs_http_requests_total').map((s) => s.labels.method));
    expect(methodLabels).toContain('other'); // PROPFIND, MKCOL, … are one value
    expect([...methodLabels].every((m) => ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other'].includes(m!))).toBe(true);
  });

  it('labels GraphQL requests by operation name: names the service knows, else `other` (or `anonymous`)', async () => {
    const id = t.demo.organizations.clinic.id;
    const before = await scrape();
    // a known name, from operationName or from the document alone
    expect((await graphqlPost({ query: 'query Viewer { viewer { scopes } }' })).status).toBe(200);
    expect(
      (
        await graphqlPost({
          query: 'query Organization($id: ID!) { organization(id: $id) { id } }',
          variables: { id },
          operationName: 'Organization',
        })
      ).status,
    ).toBe(200);
    expect((await graphqlPost({ query: 'mutation CreateClosure { __typename }' })).status).toBe(200);
    // invented names, however many, are one value
    const invented = Array.from({ length: 20 }, (_, i) => `Invented${i}_${randomUUID().slice(0, 8)}`);
    for (const name of invented) expect((await graphqlPost({ query: `query ${name} { viewer { scopes } }` })).status).toBe(200);
    const long = `Viewer${'x'.repeat(5_000)}`;
    expect((await graphqlPost({ query: `query ${long} { viewer { scopes } }` })).status).toBe(200);
    // an operationName the document does not have, and one that does not even parse
    expect((await graphqlPost({ query: 'query Viewer { viewer { scopes } }', operationName: 'Secret_abc' })).ok).toBe(false);
    expect((await graphqlPost({ query: 'query {', operationName: 'Nope_1' })).status).toBeLessThan(500);
    expect((await graphqlPost({ query: '{ viewer { scopes } }' })).status).toBe(200);
    const get = await t.fetch(`/graphql?query=${encodeURIComponent('query Viewer { viewer { scopes } }')}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
    });
    expect(get.status).toBe(200);

    const after = await scrape();
    const post = (operation: string, status?: string) => {
      const labels = { method: 'POST', route: 'POST /graphql', operation, ...(status ? { status } : {}) };
      return after.value(...requests(labels)) - before.value(...requests(labels));
    };
    expect(post('Viewer', '200')).toBe(1);
    expect(post('Organization', '200')).toBe(1);
    expect(post('CreateClosure', '200')).toBe(1);
    expect(post('other')).toBe(21 + 2); // the invented names, the unknown operationName, the query that did not parse
    expect(post('anonymous', '200')).toBe(1);
    expect(
      after.value(...requests({ method: 'GET', route: 'GET /graphql', status: '200', operation: 'Viewer' })) -
        before.value(...requests({ method: 'GET', route: 'GET /graphql', status: '200', operation: 'Viewer' })),
    ).toBe(1);
    for (const name of [...invented, 'Secret_abc', 'Nope_1', 'xxxxxxxxxx']) expect(after.text).not.toContain(name);
    // REST requests carry no operation label
    expect(after.find('ocs_http_requests_total', { route: 'GET /v1/organizations/:orgId' }).every((s) => !('operation' in s.labels))).toBe(
      true,
    );
  });

  it('counts the read model’s hits and misses by part', async () => {
    const org = t.demo.organizations.clinic.id;
    const at = (s: Scrape, metric: string, part: string) => s.value(metric, { part });
    const s0 = await scrape();
    expect((await t.rest('GET', `/v1/organizations/${org}`)).status).toBe(200); // the key and the organization are loaded
    const s1 = await scrape();
    expect((await t.rest('GET', `/v1/organizations/${org}`)).status).toBe(200); // and now read from memory
    const s2 = await scrape();
    for (const part of ['credentials', 'organizations']) {
      expect(at(s1, 'ocs_read_model_misses_total', part) - at(s0, 'ocs_read_model_misses_total', part), part).toBeGreaterThan(0);
      expect(at(s2, 'ocs_read_model_misses_total', part) - at(s1, 'ocs_read_model_misses_total', part), part).toBe(0);
      expect(at(s2, 'ocs_read_model_hits_total', part) - at(s1, 'ocs_read_model_hits_total', part), part).toBeGreaterThan(0);
      expect(at(s2, 'ocs_read_model_entries', part), part).toBeGreaterThan(0);
    }
    expect(
      s2
        .find('ocs_read_model_hits_total')
        .map((s) => s.labels.part)
        .sort(),
    ).toEqual(['credentials', 'organizations', 'schedules', 'tokens']);
  });

  it('times every SQL statement but transaction control, and counts failed statements', async () => {
    const count = (s: Scrape) => s.value('ocs_db_statement_duration_seconds_count');
    const before = await scrape();
    const { sql } = await t.statements(() =>
      t.deps.db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await tx.$queryRaw`SELECT 2`;
      }),
    );
    expect(sql).toHaveLength(2);
    const afterTransaction = await scrape();
    expect(count(afterTransaction) - count(before)).toBe(2);

    await expect(t.deps.db.$queryRawUnsafe('SELECT * FROM no_such_table')).rejects.toThrow();
    const afterError = await scrape();
    expect(count(afterError) - count(afterTransaction)).toBe(1);
    const errors = (s: Scrape) => s.value('ocs_db_statement_errors_total', { reason: 'error' });
    expect(errors(afterError) - errors(afterTransaction)).toBe(1);
    expect(afterError.value('ocs_db_gate_slots')).toBe(t.deps.database.gate.options.maxConcurrent);
  });

  it.runIf(process.env.TEST_DB === 'postgres')('counts a statement PostgreSQL cancelled (statement_timeout) as a timeout', async () => {
    const timeouts = (s: Scrape) => s.value('ocs_db_statement_errors_total', { reason: 'timeout' });
    const before = await scrape();
    await expect(
      t.deps.db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("SET LOCAL statement_timeout = '50ms'");
        await tx.$queryRawUnsafe('SELECT pg_sleep(2)');
      }),
    ).rejects.toThrow();
    const after = await scrape();
    expect(timeouts(after) - timeouts(before)).toBe(1);
    expect(after.value('ocs_db_statement_errors_total', { reason: 'error' })).toBe(
      before.value('ocs_db_statement_errors_total', { reason: 'error' }),
    );
  });

  it('reports the database gate: slots in use, work waiting, admitted, refused and timed out', async () => {
    const gate = new DatabaseGate({ maxConcurrent: 1, maxWaiting: 1, queueTimeoutMs: 30, breakerMs: 1_000 });
    const app = createApp({ ...t.deps, database: { ...t.deps.database, gate } });
    const release = await gate.acquire();
    const queued = gate.acquire(); // waits for the only slot
    await expect(gate.acquire()).rejects.toThrow(/overloaded/); // the queue is full: refused at once
    const waiting = await scrape(app);
    expect(waiting.value('ocs_db_gate_active')).toBe(1);
    expect(waiting.value('ocs_db_gate_waiting')).toBe(1);
    expect(waiting.value('ocs_db_gate_refused_total')).toBe(1);
    await expect(queued).rejects.toThrow(/waited too long/);
    release();
    (await gate.acquire())();

    const after = await scrape(app);
    expect(after.value('ocs_db_gate_slots')).toBe(1);
    expect(after.value('ocs_db_gate_active')).toBe(0);
    expect(after.value('ocs_db_gate_waiting')).toBe(0);
    expect(after.value('ocs_db_gate_admitted_total')).toBe(2);
    expect(after.value('ocs_db_gate_refused_total')).toBe(1);
    expect(after.value('ocs_db_gate_timeouts_total')).toBe(1);
    expect(after.value('ocs_db_gate_wait_seconds_total')).toBeGreaterThanOrEqual(0);
  });

  it('reports whether the change channel is up, whether the event log is read, and whether rate limits are counted per instance', async () => {
    expect((await scrape()).value('ocs_change_channel_connected', { transport: 'local' })).toBe(1);

    let handlers!: TransportHandlers;
    const transport: ChangeTransport = {
      name: 'redis',
      start: (h) => {
        handlers = h;
        h.onConnection(false);
        return Promise.resolve();
      },
      send: () => Promise.reject(new Error('down')),
      close: async () => {},
    };
    const changes = new ChangeFeed(transport, t.deps.logger);
    await changes.start();
    const limiter = createRateLimiter(t.deps.config, t.deps.logger, t.clock.now);
    const app = createApp({ ...t.deps, changes, rateLimit: limiter });
    const down = await scrape(app);
    expect(down.find('ocs_change_channel_connected')).toEqual([
      { name: 'ocs_change_channel_connected', labels: { transport: 'redis' }, value: 0 },
    ]);
    expect(down.value('ocs_rate_limit_store_degraded')).toBe(0);

    handlers.onConnection(true);
    limiter.store.reportFailure(new Error('Redis is down'));
    const up = await scrape(app);
    expect(up.value('ocs_change_channel_connected', { transport: 'redis' })).toBe(1);
    expect(up.value('ocs_rate_limit_store_degraded')).toBe(1);
    expect(up.value('ocs_change_log_in_sync')).toBe(1);
    changes.setInSync(false); // the event log reader could not read it
    expect((await scrape(app)).value('ocs_change_log_in_sync')).toBe(0);
    await changes.close();
    await limiter.close();
  });

  it('keeps one registry per app: another app’s requests are not in it', async () => {
    const other = createApp(t.deps);
    const before = await scrape(other);
    const route = { route: 'GET /v1/organizations/:orgId' };
    expect((await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`)).status).toBe(200);
    expect((await scrape(other)).value('ocs_http_requests_total', route)).toBe(before.value('ocs_http_requests_total', route));
  });
});

describe('rate-limit refusals', () => {
  let app: App;
  let limiter: RateLimiter;
  beforeAll(() => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '5',
      CALL_REQUEST_READS_PER_SECOND: '3',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '4',
    });
    limiter = createRateLimiter(config, t.deps.logger, t.clock.now);
    app = createApp({ ...t.deps, config, rateLimit: limiter });
  });
  afterAll(() => limiter.close());

  const call = async (path: string, token: string | null = t.demo.organizations.clinic.apiKey, init: RequestInit = {}) =>
    (
      await app.fetch(
        new Request(`http://127.0.0.1:4000${path}`, {
          ...init,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
        }),
      )
    ).status;

  it('are counted by budget, on both surfaces', async () => {
    t.clock.set('2026-03-09T13:30:10.000Z');
    const org = t.demo.organizations.clinic.id;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await call(`/v1/organizations/${org}`));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // the GraphQL twin draws on the same budget
    const gql = await call('/graphql', undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: 'query($id: ID!) { organization(id: $id) { id } }', variables: { id: org } }),
    });
    expect(gql).toBe(429);

    const completed = t.demo.callRequests.clinic.completed;
    const polls: number[] = [];
    for (let i = 0; i < 4; i++) polls.push(await call(`/v1/call-requests/${completed}`));
    expect(polls).toEqual([200, 200, 200, 429]);

    t.clock.advance(1_000);
    const queued = t.demo.callRequests.clinic.queued;
    expect(await call(`/v1/call-requests/${queued}`)).toBe(200);
    expect(await call(`/v1/call-requests/${queued}`)).toBe(429); // polled again within CALL_REQUEST_MIN_POLL_SECONDS

    const failed: number[] = [];
    for (let i = 0; i < 5; i++) failed.push(await call(`/v1/organizations/${org}`, 'svc-sk-wrong'));
    expect(failed).toEqual([401, 401, 401, 401, 429]);

    const s = await scrape(app);
    const refusals = Object.fromEntries(s.find('ocs_rate_limit_refusals_total').map((x) => [x.labels.budget, x.value]));
    expect(refusals).toEqual({ perMinute: 2, callRequestPoll: 1, callRequestPollInterval: 1, unauthenticated: 1 });
    expect(s.value('ocs_http_requests_total', { status: '429' })).toBe(5);
  });
});

describe('with METRICS_TOKEN', () => {
  const token = 'metrics-0123456789abcdef0123456789abcdef';
  let app: App;
  let limiter: RateLimiter;
  beforeAll(() => {
    const config = loadConfig({ LOG_LEVEL: 'silent', METRICS_TOKEN: token, UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '3' });
    limiter = createRateLimiter(config, t.deps.logger, t.clock.now);
    app = createApp({ ...t.deps, config, rateLimit: limiter });
  });
  afterAll(() => limiter.close());

  const get = (authorization?: string) =>
    app.fetch(new Request('http://127.0.0.1:4000/metrics', { headers: authorization === undefined ? {} : { authorization } }));

  it('answers only Authorization: Bearer <METRICS_TOKEN>, 401 otherwise', async () => {
    t.clock.set('2026-03-09T13:30:10.000Z');
    for (const authorization of [
      undefined,
      `Bearer ${token.slice(0, -1)}x`,
      `Bearer ${token}x`,
      `Basic ${token}`,
      `Bearer ${t.demo.organizations.clinic.apiKey}`,
    ]) {
      limiter.clear();
      const res = await get(authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.json()).toEqual({
        success: false,
        data: {},
        code: 'unauthenticated',
        message: 'GET /metrics requires Authorization: Bearer <METRICS_TOKEN>',
      });
    }
    const res = await get(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('ocs_http_requests_total');
  });

  it('counts wrong tokens against the address’s budget of failed authentications', async () => {
    t.clock.set('2026-03-09T13:30:10.000Z');
    limiter.clear();
    expect((await get('Bearer wrong-token-0000000000')).status).toBe(401);
    expect((await get('Bearer wrong-token-0000000000')).status).toBe(401);
    expect((await get('Bearer wrong-token-0000000000')).status).toBe(401);
    const refused = await get(`Bearer ${token}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    t.clock.advance(60_000);
    expect((await get(`Bearer ${token}`)).status).toBe(200);
  });
});
