// createApp(deps) → a Hono app whose `fetch` answers every route. No globals: tests build one per file.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { jwksEndpoint, tokenEndpoint } from './auth/tokenEndpoint.js';
import type { AppDeps } from './deps.js';
import type { graphqlOverHttp } from './graphql/overHttp.js';
import { checkHealth } from './health.js';
import { useTransport } from './http/transport.js';
import type { AppEnv } from './http/appEnv.js';
import { API_DOCS_ROUTES, DOCS_PATH, registerApiDocs } from './rest/docsPage.js';
import { errorBody } from './rest/envelope.js';
import { serverUrlFromAudience } from './rest/openapi.js';
import { restErrorAnswer, restErrorResponse } from './rest/errors.js';
import { methodsForPath, registerRoutes } from './rest/router.js';
import { allRoutes } from './rest/routes/index.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import {
  createDirectAnswerer,
  type DirectAnswerer,
  directFailure,
  directNodeListener,
  directRequestOfFetch,
  directResponse,
  writeDirectAnswer,
} from './rest/directAnswer.js';
import { createMetrics } from './metrics/metrics.js';
import { PORTAL_PATH, PORTAL_ROUTES, registerPortal } from './portal/page.js';

export interface AppOptions {
  /** Answer the GETs of /v1 directly (rest/directAnswer.ts); false sends them through Hono (the parity tests compare both). Default true. */
  directGets?: boolean;
  /** Answer a plain POST of a prepared GraphQL query directly on node:http (graphql/overHttp.ts); false sends it through Hono. Default true. */
  directGraphQL?: boolean;
}

export function createApp(deps: AppDeps, options: AppOptions = {}) {
  // a trailing slash names the same resource (`/v1/templates/` is `/v1/templates`), never a 405
  const app = new Hono<AppEnv>({ strict: false });
  // one registry per app (metrics/metrics.ts), served at GET /metrics
  const metrics = createMetrics(deps);

  // the request's id, log line and metrics, security headers, CORS, the pages' compression (http/transport.ts)
  useTransport(app, deps, {
    observe: (request) => metrics.requests.observe(request),
    // `/portal/*` covers `/portal` too (Hono's wildcard matches the bare path)
    pagePaths: ['/graphql', DOCS_PATH, `${DOCS_PATH}/*`, `${PORTAL_PATH}/*`],
  });

  app.get('/healthz', async (c) => {
    c.set('route', 'GET /healthz');
    const { httpStatus, health } = await checkHealth(c.get('deps'));
    return c.json(health, httpStatus);
  });

  // Prometheus text format; public unless METRICS_TOKEN is set (metrics/endpoint.ts)
  app.get('/metrics', metricsEndpoint(deps, metrics.registry));

  // the key tokens are verified with, and the client-credentials grant (auth/tokenEndpoint.ts)
  app.get('/.well-known/jwks.json', jwksEndpoint(deps));
  app.post('/oauth/token', tokenEndpoint(deps));

  // GraphQL over HTTP: one module, one execution path (graphql/overHttp.ts). Loaded on first use (or by
  // `loadGraphQL`, which the server calls once it listens): building the schema and the GraphQL server is a
  // large part of a start's work, and the first answers of a start (a health check) need none of it. Once
  // loaded, a plain POST of a prepared query is answered straight on node:http (answerNode, below)
  let graphql: ReturnType<typeof graphqlOverHttp> | undefined;
  let loadingGraphQL: Promise<ReturnType<typeof graphqlOverHttp>> | undefined;
  const loadGraphQL = () =>
    (loadingGraphQL ??= import('./graphql/overHttp.js').then(
      (module) =>
        (graphql = module.graphqlOverHttp(deps, {
          observe: (request) => metrics.requests.observe(request),
          failure: (err, logger, path, requestId) => restErrorAnswer(err, logger, path, requestId),
        })),
    ));
  app.on(['GET', 'POST'], '/graphql', async (c) => (await loadGraphQL()).handler(c));

  registerApiDocs(app, allRoutes, { serverUrl: serverUrlFromAudience(deps.config.oauthAudience) });
  // the developer portal: a static page calling /graphql and /v1 with the key pasted into it (portal/page.ts)
  registerPortal(app);
  registerRoutes(app, allRoutes);

  // the routes registered above besides /v1's
  const others = [
    { method: 'GET', path: '/healthz' },
    { method: 'GET', path: '/metrics' },
    { method: 'GET', path: '/.well-known/jwks.json' },
    { method: 'POST', path: '/oauth/token' },
    { method: 'GET', path: '/graphql' },
    { method: 'POST', path: '/graphql' },
    ...API_DOCS_ROUTES,
    ...PORTAL_ROUTES,
  ];
  const known = [...allRoutes.map((r) => ({ method: r.method, path: r.path })), ...others];

  app.notFound((c) => {
    const methods = methodsForPath(known, c.req.path);
    if (methods.length > 0) {
      c.set('route', `${c.req.method} (method not allowed)`);
      c.header('Allow', methods.join(', '));
      return c.json(
        errorBody('method_not_allowed', `Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`),
        405,
      );
    }
    return c.json(errorBody('not_found', `No route ${c.req.method} ${c.req.path}`), 404);
  });

  app.onError((err, c) => restErrorResponse(c, err, (c.get('deps') ?? deps).logger));

  // the GETs of /v1 are answered without Hono's Request/Context/Response, through the same pipeline
  // (rest/directAnswer.ts); `fetch` (tests, other runtimes) goes through it as node:http does
  const direct: DirectAnswerer =
    options.directGets === false
      ? () => null
      : createDirectAnswerer(deps, allRoutes, others, (request) => metrics.requests.observe(request));
  const honoFetch = app.fetch;
  app.fetch = (request, env?: AppEnv['Bindings'], executionCtx?) => {
    const pending = direct(directRequestOfFetch(request, env?.incoming?.socket.remoteAddress));
    return pending ? pending.then(directResponse) : honoFetch(request, env, executionCtx);
  };
  const directGet = directNodeListener(direct, deps);
  // node:http's requests: a GET of /v1 or a prepared GraphQL query answered directly, the rest by Hono
  // (http/server.ts); `fetch` leaves GraphQL to Hono, whose prepared path runs the same steps, and so does
  // node:http until GraphQL is loaded (its first request loads it)
  const answerNode = (incoming: IncomingMessage, response: ServerResponse): boolean => {
    if (directGet(incoming, response)) return true;
    const pending = options.directGraphQL === false || !graphql ? null : graphql.direct(incoming);
    if (!pending) return false;
    pending.then(
      (answer) => writeDirectAnswer(response, answer),
      (err: unknown) => directFailure(deps, response, err),
    );
    return true;
  };
  return Object.assign(app, {
    answerNode,
    /** Loads GraphQL (its first request would otherwise); settles when it is ready. */
    loadGraphQL: async () => void (await loadGraphQL()),
  });
}

export type App = ReturnType<typeof createApp>;
