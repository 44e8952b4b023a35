// Requests by route pattern, method and status (and, on /graphql, by operation name): a counter and a
// duration histogram. Every label value comes from a fixed set, never from the request itself — no
// path, no id, no key — so a client cannot create series (GET /metrics would grow without bound, and
// so would the memory of every Prometheus scraping it).
import { Counter, Histogram, type Registry } from 'prom-client';

/** Methods a route can have; any other method is counted as `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of a request no route matched (404, CORS preflights answered before routing). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The route label of a 405 (a known path, another method). */
export const METHOD_NOT_ALLOWED_ROUTE = 'method not allowed';

/**
 * Most answers take milliseconds (cached reads) and some take seconds (a waiting database); finer at the
 * low end than prom-client's default, so that p50/p99 of the hot path can be told apart.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RequestObservation {
  method: string;
  /** The `route` the handler set (app.ts: `GET /v1/organizations/:orgId`); undefined when none matched. */
  route: string | undefined;
  status: number;
  /** The GraphQL operation label (graphql/operationLabel.ts), on /graphql only. */
  operation: string | undefined;
  seconds: number;
}

export class RequestMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status' | 'operation'>;
  private readonly duration: Histogram<'method' | 'route' | 'status' | 'operation'>;

  constructor(registry: Registry) {
    const labelNames = ['method', 'route', 'status', 'operation'] as const;
    this.requests = new Counter({
      name: 'ocs_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern, status and (on /graphql) operation name.',
      labelNames,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'ocs_http_request_duration_seconds',
      help: 'Time from the request reaching the app to its answer, by method, route pattern, status and (on /graphql) operation name.',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** Called once per request by the request-log middleware (app.ts): two map updates, no allocation beyond the label object. */
  observe(o: RequestObservation): void {
    const labels = this.labelsOf(o);
    this.requests.inc(labels);
    this.duration.observe(labels, o.seconds);
  }

  /**
   * The label set of an observation, made once per combination (every value comes from a fixed set, so
   * these stay few): a request makes no label object and no status text.
   */
  private labelsOf(o: RequestObservation): Labels {
    const method = METHODS.has(o.method) ? o.method : 'other';
    let byStatus = this.labelSets.get(o.route);
    if (!byStatus) this.labelSets.set(o.route, (byStatus = new Map<number, Map<string, Map<string | undefined, Labels>>>()));
    let byMethod = byStatus.get(o.status);
    if (!byMethod) byStatus.set(o.status, (byMethod = new Map<string, Map<string | undefined, Labels>>()));
    let byOperation = byMethod.get(method);
    if (!byOperation) byMethod.set(method, (byOperation = new Map<string | undefined, Labels>()));
    let labels = byOperation.get(o.operation);
    if (!labels) {
      labels = { method, route: routeLabel(o.route), status: String(o.status) };
      if (o.operation !== undefined) labels.operation = o.operation;
      byOperation.set(o.operation, labels);
    }
    return labels;
  }

  private readonly labelSets = new Map<string | undefined, Map<number, Map<string, Map<string | undefined, Labels>>>>();
}

type Labels = Partial<Record<'method' | 'route' | 'status' | 'operation', string>>;

/**
 * The route pattern the code set; the one pattern that carries a part of the request — the 405's
 * `<METHOD> (method not allowed)` — is folded into one value (the method is its own label).
 */
export function routeLabel(route: string | undefined): string {
  if (route === undefined) return UNMATCHED_ROUTE;
  if (route.endsWith('(method not allowed)')) return METHOD_NOT_ALLOWED_ROUTE;
  return route;
}
