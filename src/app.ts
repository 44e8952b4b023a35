// createApp(deps) → a Hono app whose `fetch` answers every route. No globals: tests build one per file.
import { Hono } from 'hono';
import { clientCredentialsGrant } from './auth/oauthToken.js';
import { corsMiddleware } from './cors.js';
import type { AppDeps } from './deps.js';
import { graphqlOverHttp } from './graphql/overHttp.js';
import { checkHealth } from './health.js';
import { BodyError, bodySourceOf, parseBody } from './rest/body.js';
import type { AppEnv } from './rest/appEnv.js';
import { API_DOCS_ROUTES, registerApiDocs } from './rest/docsPage.js';
import { errorBody } from './rest/envelope.js';
import { serverUrlFromAudience } from './rest/openapi.js';
import { restErrorResponse } from './rest/errors.js';
import { methodsForPath, registerRoutes } from './rest/router.js';
import { allRoutes } from './rest/routes/index.js';
import { addressOverBudget, countFailedAuthentication } from './auth/authentication.js';
import { clientAddress } from './ratelimit/clientAddress.js';
import { requestIdMiddleware } from './requestContext.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import { createMetrics } from './metrics/metrics.js';

export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  // one registry per app (metrics/metrics.ts), served at GET /metrics
  const metrics = createMetrics(deps);

  // first: X-Request-Id on every answer, and the id in every log line of the request (requestContext.ts)
  app.use('*', requestIdMiddleware(deps));

  // one log line per request: method, route pattern, status, duration, org id (never a credential);
  // and the request's metrics (route pattern, method, status, GraphQL operation: never an id)
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    const durationMs = performance.now() - started;
    c.get('deps').logger.info('request', {
      method: c.req.method,
      route: c.get('route') ?? 'unmatched',
      status: c.res.status,
      durationMs: Math.round(durationMs * 100) / 100,
      orgId: c.get('orgId') ?? null,
    });
    metrics.requests.observe({ method: c.req.method, route: c.get('route'), status: c.res.status, operation: c.get('graphqlOperation'), seconds: durationMs / 1000 });
  });

  // CORS: closed unless CORS_ORIGINS lists origins (cors.ts)
  const corsHandler = corsMiddleware(deps.config.corsOrigins);
  if (corsHandler) app.use('*', corsHandler);

  app.get('/healthz', async (c) => {
    c.set('route', 'GET /healthz');
    const { httpStatus, health } = await checkHealth(c.get('deps'));
    return c.json(health, httpStatus);
  });

  // Prometheus text format; public unless METRICS_TOKEN is set (metrics/endpoint.ts)
  app.get('/metrics', metricsEndpoint(deps, metrics.registry));

  app.get('/.well-known/jwks.json', (c) => {
    c.set('route', 'GET /.well-known/jwks.json');
    c.header('Cache-Control', 'public, max-age=300');
    return c.json({ keys: [deps.tokens.key.publicJwk] });
  });

  app.post('/oauth/token', async (c) => {
    c.set('route', 'POST /oauth/token');
    c.header('Cache-Control', 'no-store');
    // client-secret guessing draws on the same per-address budget of failed authentications
    const address = clientAddress(c, deps.config.trustProxy);
    const refused = await addressOverBudget(deps.rateLimit, address);
    if (refused) {
      c.header('Retry-After', String(refused.retryAfter));
      return c.json({ error: 'slow_down', error_description: refused.message }, 429);
    }
    let body: unknown;
    try {
      body = (await parseBody(bodySourceOf(c))).value;
    } catch (err) {
      if (err instanceof BodyError) return c.json({ error: 'invalid_request', error_description: err.message }, err.status === 413 ? 413 : 400);
      throw err;
    }
    const result = await clientCredentialsGrant(deps.db, deps.tokens, body, deps.clock());
    if (result.status === 401) {
      c.header('WWW-Authenticate', 'Basic realm="oauth"');
      await countFailedAuthentication(deps.rateLimit, address);
    }
    return c.json(result.body, result.status);
  });

  // GraphQL over HTTP: one module, one execution path (graphql/overHttp.ts)
  app.on(['GET', 'POST'], '/graphql', graphqlOverHttp(deps));

  registerApiDocs(app, allRoutes, { serverUrl: serverUrlFromAudience(deps.config.oauthAudience) });
  registerRoutes(app, allRoutes);

  const known = [
    ...allRoutes.map((r) => ({ method: r.method, path: r.path })),
    { method: 'GET', path: '/healthz' },
    { method: 'GET', path: '/metrics' },
    { method: 'GET', path: '/.well-known/jwks.json' },
    { method: 'POST', path: '/oauth/token' },
    { method: 'GET', path: '/graphql' },
    { method: 'POST', path: '/graphql' },
    ...API_DOCS_ROUTES,
  ];

  app.notFound((c) => {
    const methods = methodsForPath(known, c.req.path);
    if (methods.length > 0) {
      c.set('route', `${c.req.method} (method not allowed)`);
      c.header('Allow', methods.join(', '));
      return c.json(errorBody(`Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}`), 405);
    }
    return c.json(errorBody(`No route ${c.req.method} ${c.req.path}`), 404);
  });

  app.onError((err, c) => restErrorResponse(c, err, (c.get('deps') ?? deps).logger));

  return app;
}

export type App = ReturnType<typeof createApp>;
