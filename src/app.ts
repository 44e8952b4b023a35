// createApp(deps) → the service's HTTP app: one Fastify instance whose hooks every request passes through
// (http/transport.ts) and whose routes are the two surfaces (/v1, declared once as data in rest/routes;
// /graphql, graphql/overHttp.ts) and the pages. No globals: tests build one per file.
//
// The same app answers node:http's requests (`listener`, behind http/server.ts's limits and queue) and
// requests made in the process (`fetch`, a fetch Request in, a Response out: the tests' way in), through
// the same routing, hooks and handlers.
import { type IncomingMessage, METHODS, type ServerResponse } from 'node:http';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { jwksEndpoint, tokenEndpoint, revocationEndpoint } from './auth/tokenEndpoint.js';
import type { AppDeps } from './deps.js';
import type { graphqlOverHttp } from './graphql/overHttp.js';
import { checkHealth } from './health.js';
import { UNKNOWN_ADDRESS } from './http/clientAddress.js';
import { REQUEST_ID_HEADER, requestIdFrom } from './http/requestContext.js';
import { API_SECURITY_HEADERS } from './http/securityHeaders.js';
import { envelope, NOT_HTTP } from './http/server.js';
import { useTransport } from './http/transport.js';
import { pathOf } from './http/requestTarget.js';
import { API_DOCS_ROUTES, DOCS_PATH, OPENAPI_PATH, registerApiDocs } from './rest/docsPage.js';
import { errorBody } from './rest/envelope.js';
import { serverUrlFromAudience } from './rest/openapi.js';
import { sendRestError } from './rest/errors.js';
import { methodsForPath, registerRoutes } from './rest/router.js';
import { allRoutes } from './rest/routes/index.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import { createMetrics } from './metrics/metrics.js';
import { LANDING_ROUTES, registerLanding } from './portal/landing.js';
import { PORTAL_PATH, PORTAL_ROUTES, registerPortal } from './portal/page.js';

/** Longer than any id or name a path carries; a longer path segment is a 404 like any unknown path. */
const MAX_PARAM_LENGTH = 4096;

/** A dot segment (`.`, `..`, either percent-encoded) in a path: URL parsing removes it (`/a/%2e%2e/b` is `/b`). */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

/** The target with its path's dot segments resolved, as URL parsing resolves them; most targets have none. */
function withoutDotSegments(url: string): string {
  const path = pathOf(url);
  if (!DOT_SEGMENT.test(path)) return url;
  return new URL(path, 'http://localhost').pathname + url.slice(path.length);
}

export function createApp(deps: AppDeps) {
  const app = Fastify({
    logger: false,
    // a trailing slash names the same resource (`/v1/templates/` is `/v1/templates`), never a 405
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // a dot segment (`.`, `..`, percent-encoded too) names the path URL parsing makes of it, as for any URL
    rewriteUrl: (request) => withoutDotSegments(request.url ?? '/'),
    // the request id is the transport's (http/requestContext.ts)
    requestIdHeader: false,
    // what Fastify refuses before routing (a path it cannot decode): 400 in the envelope, like every refusal
    frameworkErrors: (error, request, reply) => {
      const requestId = requestIdFrom(request.headers['x-request-id'] as string | undefined);
      deps.logger.info('request refused by the HTTP server', { status: 400, code: error.code ?? null });
      void (reply as FastifyReply)
        .code(400)
        .headers({ [REQUEST_ID_HEADER]: requestId, ...API_SECURITY_HEADERS })
        .type('application/json')
        .send(JSON.stringify(errorBody('malformed_request', `The request cannot be read: ${error.message}`)));
    },
  });
  // bodies are read by the surfaces themselves, under their limits (http/body.ts): Fastify passes them on unread
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (err: null, body?: unknown) => void) => done(null));

  // one registry per app (metrics/metrics.ts), served at GET /metrics
  const metrics = createMetrics(deps);
  const pagePrefixes = [`${DOCS_PATH}`, PORTAL_PATH, OPENAPI_PATH];
  // the request's id, log line and metrics, security headers, CORS, the pages' compression (http/transport.ts)
  useTransport(app, deps, {
    observe: (request) => metrics.requests.observe(request),
    isPage: (path) => path === '/graphql' || pagePrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)),
  });

  app.get('/healthz', async (request, reply) => {
    request.label = 'GET /healthz';
    // the app's database and budgets, the request's logger (it writes the request id)
    const { httpStatus, health } = await checkHealth({ database: deps.database, rateLimit: deps.rateLimit, logger: request.deps.logger });
    return reply.code(httpStatus).type('application/json').send(JSON.stringify(health));
  });

  // Prometheus text format; public unless METRICS_TOKEN is set (metrics/endpoint.ts)
  app.get('/metrics', metricsEndpoint(deps, metrics.registry));

  // the key tokens are verified with, and the client-credentials grant (auth/tokenEndpoint.ts)
  app.get('/.well-known/jwks.json', jwksEndpoint(deps));
  app.post('/oauth/token', tokenEndpoint(deps));
  app.post('/oauth/revoke', revocationEndpoint(deps));

  // GraphQL over HTTP: one module, one execution path (graphql/overHttp.ts). Loaded on first use (or by
  // `loadGraphQL`, which the server calls once it listens): building the schema and the GraphQL server is a
  // large part of a start's work, and the first answers of a start (a health check) need none of it
  let loadingGraphQL: Promise<ReturnType<typeof graphqlOverHttp>> | undefined;
  const loadGraphQL = () => (loadingGraphQL ??= import('./graphql/overHttp.js').then((module) => module.graphqlOverHttp(deps)));
  app.route({ method: ['GET', 'POST'], url: '/graphql', handler: async (request, reply) => (await loadGraphQL()).handler(request, reply) });

  registerApiDocs(app, allRoutes, { serverUrl: serverUrlFromAudience(deps.config.oauthAudience) });
  // the developer portal: a static page calling /graphql and /v1 with the key pasted into it (portal/page.ts)
  registerPortal(app);
  // GET /: links to the pages above and the health check (portal/landing.ts)
  registerLanding(app);
  registerRoutes(app, allRoutes);

  // the routes registered above besides /v1's
  const others = [
    { method: 'GET', path: '/healthz' },
    { method: 'GET', path: '/metrics' },
    { method: 'GET', path: '/.well-known/jwks.json' },
    { method: 'POST', path: '/oauth/token' },
    { method: 'POST', path: '/oauth/revoke' },
    { method: 'GET', path: '/graphql' },
    { method: 'POST', path: '/graphql' },
    ...API_DOCS_ROUTES,
    ...PORTAL_ROUTES,
    ...LANDING_ROUTES,
  ];
  const known = [...allRoutes.map((r) => ({ method: r.method, path: r.path })), ...others];

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const methods = methodsForPath(known, path);
    if (methods.length > 0) {
      request.label = `${request.method} (method not allowed)`;
      return reply
        .code(405)
        .header('Allow', methods.join(', '))
        .type('application/json')
        .send(errorBody('method_not_allowed', `Method ${request.method} is not allowed on ${path}; allowed: ${methods.join(', ')}`));
    }
    return reply
      .code(404)
      .type('application/json')
      .send(errorBody('not_found', `No route ${request.method} ${path}`));
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    // a refusal of Fastify's own (a 4xx it decided, e.g. a body it cannot take) keeps its status, in the envelope
    if (err.code?.startsWith('FST_') && err.statusCode !== undefined && err.statusCode < 500) {
      return reply
        .code(err.statusCode)
        .type('application/json')
        .send(errorBody(err.statusCode === 415 ? 'unsupported_media_type' : 'malformed_request', err.message));
    }
    return sendRestError(reply, err, (request.deps ?? deps).logger, pathOf(request.url), request.requestId);
  });

  /** node:http's requests (http/server.ts hands them here once they may start). */
  const listener = (incoming: IncomingMessage, response: ServerResponse): void => {
    app.routing(incoming, response);
  };

  /** A request made in the process, through the same routing, hooks and handlers; its peer is no address. */
  const fetch = async (request: Request): Promise<Response> => {
    // a method node:http cannot parse never reaches the app over a socket: the server's answer to it
    if (!METHODS.includes(request.method))
      return new Response(envelope(NOT_HTTP.code, NOT_HTTP.message), {
        status: NOT_HTTP.status,
        headers: { 'content-type': 'application/json', connection: 'close' },
      });
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const answer = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers,
      ...(payload ? { payload } : {}),
      remoteAddress: UNKNOWN_ADDRESS,
      payloadAsStream: true,
      signal: request.signal,
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const one of value) out.append(name, String(one));
      else if (value !== undefined) out.set(name, String(value));
    }
    const status = answer.statusCode;
    if (request.method === 'HEAD' || [101, 204, 205, 304].includes(status)) return new Response(null, { status, headers: out });
    const stream = answer.stream();
    const raw = answer.raw as { req?: { destroy(): void }; res?: { destroy(): void } };
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let open = true;
    const end = (err?: unknown) => {
      if (!open) return;
      open = false;
      if (err === undefined) controller.close();
      else controller.error(err);
    };
    // the reader going away, or the request aborted, is the client gone: its connection closes, as a socket's
    // would (the server sees it), and a reader still waiting learns it
    const leave = () => {
      end(new DOMException('The request was aborted', 'AbortError'));
      stream.destroy();
      raw.res?.destroy();
      raw.req?.destroy();
    };
    const body = new ReadableStream<Uint8Array>({
      start(made) {
        controller = made;
        stream.on('data', (chunk: Buffer) => open && controller.enqueue(new Uint8Array(chunk)));
        stream.on('end', () => end());
        stream.on('error', (err) => end(err));
      },
      cancel: leave,
    });
    if (request.signal.aborted) leave();
    else request.signal.addEventListener('abort', leave, { once: true });
    return new Response(body, { status, headers: out });
  };

  return {
    fastify: app,
    listener,
    fetch,
    /** Settles when every route is registered: before the first request of `listener`. */
    ready: async () => void (await app.ready()),
    /** Loads GraphQL (its first request would otherwise); settles when it is ready. */
    loadGraphQL: async () => void (await loadGraphQL()),
    close: async () => void (await app.close()),
  };
}

export type App = ReturnType<typeof createApp>;
