// What every request goes through before a surface answers it, in order: its id (requestContext.ts), one
// log line and its metrics, the security headers, CORS, and for the pages (GraphiQL, the docs) their
// compression, ETag and CSP. createApp installs this first, then the surfaces.
import type { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { Logger } from '../logger.js';
import type { AppEnv } from './appEnv.js';
import { corsMiddleware } from './cors.js';
import { pages } from './pages.js';
import { requestIdMiddleware } from './requestContext.js';
import { securityHeaders } from './securityHeaders.js';

/** One answered request, as the request log writes it and the metrics count it (never an id). */
export interface AnsweredRequest {
  method: string;
  route: string | undefined;
  status: number;
  operation: string | undefined;
  seconds: number;
}

export interface TransportOptions {
  /** Called once per answered request (metrics/metrics.ts's request metrics). */
  observe(request: AnsweredRequest): void;
  /** Paths of HTML pages and their files: compressed, ETag/304, their own CSP (pages.ts). */
  pagePaths: readonly string[];
}

/** The request's log line (written by the request's logger, with its id) and its metrics: one place for every way a request is answered. */
export function recordAnswer(
  logger: Logger,
  observe: TransportOptions['observe'],
  a: {
    method: string;
    route: string | undefined;
    status: number;
    operation: string | undefined;
    orgId: string | undefined;
    durationMs: number;
  },
): void {
  logger.info('request', {
    method: a.method,
    route: a.route ?? 'unmatched',
    status: a.status,
    durationMs: Math.round(a.durationMs * 100) / 100,
    orgId: a.orgId ?? null,
  });
  observe({ method: a.method, route: a.route, status: a.status, operation: a.operation, seconds: a.durationMs / 1000 });
}

export function useTransport(app: Hono<AppEnv>, deps: AppDeps, options: TransportOptions): void {
  // first: X-Request-Id on every answer, and the id in every log line of the request
  app.use('*', requestIdMiddleware(deps));

  // one log line per request: method, route pattern, status, duration, org id (never a credential);
  // and the request's metrics (route pattern, method, status, GraphQL operation: never an id)
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    recordAnswer(c.get('deps').logger, (answered) => options.observe(answered), {
      method: c.req.method,
      route: c.get('route'),
      status: c.res.status,
      operation: c.get('graphqlOperation'),
      orgId: c.get('orgId'),
      durationMs: performance.now() - started,
    });
  });

  // nosniff, no framing, no referrer, a CSP on every answer
  app.use('*', securityHeaders());

  // CORS: closed unless CORS_ORIGINS lists origins
  const corsHandler = corsMiddleware(deps.config.corsOrigins);
  if (corsHandler) app.use('*', corsHandler);

  const pageAnswers = pages();
  for (const path of options.pagePaths) app.use(path, pageAnswers);
}
