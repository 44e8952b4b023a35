// createApp(deps) → a Hono app whose `fetch` answers every route. No globals: tests build one per file.
import { type Context, Hono } from 'hono';
import { jwksEndpoint, tokenEndpoint } from './auth/tokenEndpoint.js';
import type { AppDeps } from './deps.js';
import { answerGraphQLPost, type GraphQLPost } from './graphql/idempotentOperations.js';
import { answerDirectly } from './graphql/directAnswer.js';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency/key.js';
import { withErrorBody } from './graphql/transportErrors.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import { checkHealth } from './health.js';
import { withNativeBody } from './http/nativeAnswer.js';
import { useTransport } from './http/transport.js';
import { BodyError, type BodySource, bodySourceOf, readLimited } from './http/body.js';
import type { AppEnv } from './http/appEnv.js';
import { API_DOCS_ROUTES, DOCS_PATH, registerApiDocs } from './rest/docsPage.js';
import { errorBody } from './rest/envelope.js';
import { serverUrlFromAudience } from './rest/openapi.js';
import { restErrorResponse } from './rest/errors.js';
import { methodsForPath, registerRoutes } from './rest/router.js';
import { allRoutes } from './rest/routes/index.js';
import { clientAddress } from './http/clientAddress.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import { createMetrics } from './metrics/metrics.js';

export function createApp(deps: AppDeps) {
  // a trailing slash names the same resource (`/v1/templates/` is `/v1/templates`), never a 405
  const app = new Hono<AppEnv>({ strict: false });
  // one registry per app (metrics/metrics.ts), served at GET /metrics
  const metrics = createMetrics(deps);

  // the request's id, log line and metrics, security headers, CORS, the pages' compression (http/transport.ts)
  useTransport(app, deps, {
    observe: (request) => metrics.requests.observe(request),
    pagePaths: ['/graphql', DOCS_PATH, `${DOCS_PATH}/*`],
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

  const graphql = createGraphQLHandler(deps);
  const { yoga } = graphql;
  app.on(['GET', 'POST'], '/graphql', async (c) => {
    c.set('route', `${c.req.method} /graphql`);
    const serverContext = {
      deps: c.get('deps'), // the request's (http/requestContext.ts)
      setOrgId: (orgId: string) => c.set('orgId', orgId),
      setOperation: (label: string) => c.set('graphqlOperation', label),
      clientAddress: clientAddress(c, deps.config.trustProxy),
    };
    if (c.req.method === 'GET') return plainAnswer(c, await withErrorBody(await yoga.fetch(c.req.raw, serverContext), c.req.raw));
    let post: ReadGraphQLPost;
    try {
      post = await graphQLRequest(bodySourceOf(c), yoga.fetchAPI.Request);
    } catch (err) {
      if (err instanceof BodyError) return c.json({ errors: [{ message: err.message, extensions: { code: 'BAD_REQUEST', requestId: c.get('requestId') } }] }, err.status);
      throw err;
    }
    if (post.headers.get(IDEMPOTENCY_KEY_HEADER) === null) {
      // a plain JSON POST is answered from its parameters and goes out as text at once (directAnswer.ts);
      // what the context and the parameter checks read of the request: its headers, method and address
      const plain = { headers: post.headers, method: 'POST', url: c.req.url } as unknown as Request;
      const direct = await answerDirectly(graphql, plain, post.bodyText, serverContext);
      if (direct) return c.body(direct.body, direct.status as 200, direct.headers);
    }
    // a mutation with an Idempotency-Key runs once per key (graphql/idempotentOperations.ts)
    const answer = await answerGraphQLPost(serverContext.deps, post, serverContext.clientAddress, async (actor) => yoga.fetch(post.request(), { ...serverContext, actor }));
    return plainAnswer(c, await withErrorBody(answer, post.request()));
  });

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

/**
 * A whole (not streamed) GraphQL answer handed to Hono as text: the Node adapter then writes it in one
 * go, where a Response of another fetch implementation (yoga's) would be read back through a stream.
 * A stream (a subscription over SSE) goes out as a stream of Node's own (http/nativeAnswer.ts).
 */
async function plainAnswer(c: Context<AppEnv>, answer: Response): Promise<Response> {
  const type = answer.headers.get('content-type') ?? '';
  if (!answer.body || type.includes('event-stream') || type.includes('multipart')) return withNativeBody(answer);
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return c.body(await answer.text(), answer.status as 200, headers);
}

interface ReadGraphQLPost extends GraphQLPost {
  /** The request as yoga takes it (made on first use: a plain JSON POST is answered without one). */
  request(): Request;
}

const utf8 = new TextDecoder();

/**
 * A GraphQL POST, with the body limit of /v1 applied, and `curl -d '{"query":…}'` (which sends
 * application/x-www-form-urlencoded) read as the JSON it is.
 */
async function graphQLRequest(source: BodySource, RequestClass: typeof Request): Promise<ReadGraphQLPost> {
  const { request: raw } = source;
  const bytes = await readLimited(source);
  let headers = raw.headers;
  const type = (headers.get('content-type') ?? '').toLowerCase();
  if ((type === '' || type.startsWith('application/x-www-form-urlencoded')) && /^\s*\{/.test(utf8.decode(bytes.subarray(0, 64)))) {
    headers = new Headers(headers);
    headers.set('content-type', 'application/json');
  }
  let request: Request | undefined;
  return {
    headers,
    bodyText: utf8.decode(bytes),
    request: () => {
      if (request) return request;
      const forYoga = new Headers(headers);
      forYoga.delete('content-length');
      forYoga.delete('content-encoding'); // the bytes are decoded (readLimited)
      // yoga's own Request class (no conversion inside yoga); the client's abort signal only for a stream
      // (a subscription ends when its client goes away), the one answer that outlives the request
      const streams = (forYoga.get('accept') ?? '').includes('text/event-stream');
      return (request = new RequestClass(raw.url, { method: raw.method, headers: forYoga, body: bytes, ...(streams ? { signal: raw.signal } : {}) }));
    },
  };
}
