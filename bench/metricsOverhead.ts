// What the metrics cost per request: `npx tsx bench/metricsOverhead.ts`. Measures (1) one
// RequestMetrics.observe() — the only metrics work on the request path (everything else is read when
// /metrics is scraped, or is one histogram observation per SQL statement) — and (2) whole requests
// through app.fetch (a cached REST read and a GraphQL query on an in-memory database), in alternating
// rounds with observe() switched on and off, so that machine noise hits both. Prints medians.
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDemoData } from '../src/demo/demoData.js';
import { RequestMetrics } from '../src/metrics/requestMetrics.js';
import { openRuntime } from '../src/runtime.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function observeCost(): number {
  const metrics = new RequestMetrics(new Registry());
  const routes = ['GET /v1/organizations/:orgId', 'GET /v1/organizations/:orgId/availability', 'POST /graphql', 'unmatched'];
  const n = 1_000_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const route = routes[i & 3]!;
    metrics.observe({
      method: route === 'POST /graphql' ? 'POST' : 'GET',
      route,
      status: i % 50 === 0 ? 404 : 200,
      operation: route === 'POST /graphql' ? 'Viewer' : undefined,
      seconds: 0.002,
    });
  }
  return ((performance.now() - started) / n) * 1e6; // ns
}

async function main(): Promise<void> {
  for (let i = 0; i < 3; i++) observeCost(); // warm up
  const observeNs = median([observeCost(), observeCost(), observeCost()]);

  const config = loadConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000000' });
  const runtime = await openRuntime(config);
  const demo = await createDemoData(runtime.deps.db, config.oauthAudience);
  const app = createApp(runtime.deps);
  const key = demo.organizations.clinic.apiKey;
  const orgId = demo.organizations.clinic.id;
  const requests = {
    'REST GET /v1/organizations/:orgId': () =>
      new Request(`http://127.0.0.1/v1/organizations/${orgId}`, { headers: { authorization: `Bearer ${key}` } }),
    'GraphQL { viewer { scopes } }': () =>
      new Request('http://127.0.0.1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: 'query Viewer { viewer { scopes } }' }),
      }),
  };
  const original = RequestMetrics.prototype.observe;
  const noop = () => {};
  const perRequestUs = async (make: () => Request, n: number) => {
    const started = performance.now();
    for (let i = 0; i < n; i++) await (await app.fetch(make())).arrayBuffer();
    return ((performance.now() - started) / n) * 1000;
  };
  console.log(`RequestMetrics.observe(): ${observeNs.toFixed(0)} ns per request (median of 3 × 1,000,000)`);
  for (const [name, make] of Object.entries(requests)) {
    await perRequestUs(make, 2_000); // warm up: caches, JIT
    const on: number[] = [];
    const off: number[] = [];
    for (let round = 0; round < 7; round++) {
      RequestMetrics.prototype.observe = noop;
      off.push(await perRequestUs(make, 3_000));
      RequestMetrics.prototype.observe = original;
      on.push(await perRequestUs(make, 3_000));
    }
    const [a, b] = [median(on), median(off)];
    console.log(
      `${name}: ${a.toFixed(1)} µs per request with metrics, ${b.toFixed(1)} µs without (${(1e6 / a).toFixed(0)} vs ${(1e6 / b).toFixed(0)} requests/s on one core; difference ${(a - b).toFixed(1)} µs)`,
    );
  }
  const scrapeStarted = performance.now();
  const text = await (await app.fetch(new Request('http://127.0.0.1/metrics'))).text();
  console.log(
    `one scrape: ${(performance.now() - scrapeStarted).toFixed(1)} ms, ${text.length} bytes, ${text.split('\n').filter((l) => l && !l.startsWith('#')).length} samples`,
  );
  await runtime.close();
}

await main();
