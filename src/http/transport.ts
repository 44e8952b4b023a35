// What every request goes through, in order, whichever surface answers it (Fastify's hooks, installed by
// createApp before the surfaces): its id and its deps (requestContext.ts), the security headers, CORS;
// for the pages (GraphiQL, the docs, the portal) their compression, ETag and CSP; once the answer exists
// as text, `answerMade`; once it is sent, one log line and its metrics.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import type { RequestDeps } from './appEnv.js';
import { corsStep } from './cors.js';
import { pages } from './pages.js';
import { pathOf } from './requestTarget.js';
import { answerMade, depsForRequest, REQUEST_ID_HEADER, requestIdFrom } from './requestContext.js';
import { API_SECURITY_HEADERS } from './securityHeaders.js';

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
  /** Whether a path is an HTML page or one of its files: compressed, ETag/304, their own CSP (pages.ts). */
  isPage(path: string): boolean;
}

/** The request's log line (written by the request's logger, with its id) and its metrics. */
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

export function useTransport(app: FastifyInstance, deps: RequestDeps, options: TransportOptions): void {
  app.decorateRequest('deps', null as unknown as RequestDeps);
  app.decorateRequest('requestId', '');
  app.decorateRequest('label', undefined);
  app.decorateRequest('orgId', undefined);
  app.decorateRequest('graphqlOperation', undefined);
  app.decorateRequest('startedAt', 0);
  const cors = corsStep(deps.config.corsOrigins);

  // first: X-Request-Id on every answer and the id in every log line; nosniff, no framing, no referrer, a
  // CSP (a page replaces it: pages.ts); CORS, closed unless CORS_ORIGINS lists origins (a preflight ends here)
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    request.startedAt = performance.now();
    const requestId = requestIdFrom(request.headers['x-request-id'] as string | undefined);
    request.requestId = requestId;
    request.deps = depsForRequest(deps, requestId);
    reply.header(REQUEST_ID_HEADER, requestId);
    reply.headers(API_SECURITY_HEADERS);
    if (cors?.(request, reply)) {
      request.label = `OPTIONS (preflight)`;
      reply.code(204).send();
      return;
    }
    done();
  });

  const pageAnswers = pages();
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    answerMade(request.deps);
    return options.isPage(pathOf(request.url)) ? pageAnswers(request, reply, payload) : payload;
  });

  // one log line per request: method, route pattern, status, duration, org id (never a credential);
  // and the request's metrics (route pattern, method, status, GraphQL operation: never an id)
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // onSend runs for every answer Fastify sends; a reply written past it (hijacked, or a stream torn down
    // before onSend) still gives its slot back here. answerMade does nothing the second time
    answerMade(request.deps);
    recordAnswer(request.deps.logger, (answered) => options.observe(answered), {
      method: request.method,
      route: request.label,
      status: reply.statusCode,
      operation: request.graphqlOperation,
      orgId: request.orgId,
      durationMs: performance.now() - request.startedAt,
    });
    done();
  });
  // a client that went away before its answer: the work's slot is given back all the same
  app.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => {
    if (request.deps) answerMade(request.deps);
    done();
  });
}
