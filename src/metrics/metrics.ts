// The app's metrics: one prom-client registry per app (createApp builds it; tests build several apps in
// one process, so nothing goes into prom-client's global registry), holding
// - Node.js's default metrics (process CPU and memory, heap, event-loop lag, GC, handles),
// - requests by route, method, status and GraphQL operation (requestMetrics.ts),
// - the database: statements, errors, the gate's waits and refusals (databaseMetrics.ts),
// - the read model, rate-limit refusals and the change channel (serviceStateMetrics.ts).
// Served by GET /metrics (endpoint.ts). docs/operating.md "Metrics" lists every name.
import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerDatabaseMetrics } from './databaseMetrics.js';
import { RequestMetrics } from './requestMetrics.js';
import { registerServiceStateMetrics } from './serviceStateMetrics.js';
import type { MetricsDeps } from './deps.js';

export interface Metrics {
  registry: Registry;
  requests: RequestMetrics;
}

export function createMetrics(
  deps: Pick<MetricsDeps, 'database' | 'readModel' | 'rateLimit' | 'changes' | 'requestQueue' | 'jobs'>,
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics(registry);
  registerDatabaseMetrics(registry, deps.database);
  registerServiceStateMetrics(registry, deps);
  return { registry, requests };
}
