// GraphQL over HTTP: the one module that answers GET and POST /graphql (app.ts mounts it).
//
// Every operation goes through the same steps (yoga.ts lists them, operationSteps.ts says what a step is):
// the metrics label, armor's limits, the parse/validate cache, compiled queries (preparedQueries.ts),
// masked errors (errors.ts), the budgets' 429 and cost extension (rateLimits.ts), request ids. A step is
// defined once, as yoga plugins plus what it does on the prepared path; a step added to yoga.ts must say
// the latter (the type requires it). What differs between requests is how the parameters are read, how
// the steps are driven, and how the answer is written:
//
//   prepared    a plain POST (below) of a query operation that yoga's pipeline already parsed, validated and
//               compiled (same text, same operationName): its steps' prepared hooks run around the compiled
//               query, hook by hook in yoga's order (operationSteps.ts), without yoga's and envelop's
//               orchestration, which cost more than the operation itself on a small query. Written as the
//               fast path writes.
//   fast path   a plain POST — a JSON object of query/variables/operationName/extensions, no Idempotency-Key,
//               an Accept that asks for JSON: the parameters come from the body already read (and bounded),
//               yoga's `getResultForParams` runs every plugin, and yoga's own `processRegularResult` writes the
//               answer (status and headers by the GraphQL-over-HTTP rules) as a Response of the running
//               server's class, which the Node adapter writes in one go.
//   yoga.fetch  anything else (GET and GraphiQL, SSE subscriptions, multipart, batches, other content types,
//               malformed parameters, keyed mutations): yoga reads the request and writes the answer.
//
// The prepared path is part of the fast path (on when GRAPHQL_FAST_PATH and GRAPHQL_JIT are; the parity
// suite alone turns it off by itself, config.graphqlPreparedPath); GRAPHQL_FAST_PATH=false sends every
// request through yoga.fetch; test/api/graphqlPaths.parity.test.ts runs the same cases every way (with and
// without GRAPHQL_JIT, each twice: the second run of a compiled query is the prepared one) and expects the
// same status, headers and body.
import { isAsyncIterable } from '@graphql-tools/utils';
import type { Context } from 'hono';
import { type ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import type { AppDeps } from '../deps.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/key.js';
import { clientAddress } from '../http/clientAddress.js';
import type { AppEnv } from '../http/appEnv.js';
import { withNativeBody } from '../http/nativeAnswer.js';
import { BodyError, type BodySource, bodySourceOf, readLimited } from '../http/body.js';
import { graphqlCodeOf } from '../domain/errorCodes.js';
import { answerGraphQLPost, type GraphQLPost } from './idempotentOperations.js';
import { createGraphQLContext } from './context.js';
import { executePrepared, type OperationStep } from './operationSteps.js';
import type { PreparedQuery } from './preparedQueries.js';
import { withErrorBody } from './transportErrors.js';
import { createGraphQLHandler, type GraphQLServerContext } from './yoga.js';

type Yoga = ReturnType<typeof createGraphQLHandler>['yoga'];

/** The Hono handler of GET and POST /graphql. */
export function graphqlOverHttp(deps: AppDeps): (c: Context<AppEnv>) => Promise<Response> {
  const { yoga, steps, prepared } = createGraphQLHandler(deps);
  const fastPath = deps.config.graphqlFastPath;
  const preparedPath = fastPath && deps.config.graphqlPreparedPath ? prepared : undefined;
  return async (c) => {
    c.set('route', `${c.req.method} /graphql`);
    const address = clientAddress(c, deps.config.trustProxy);
    const serverContext: GraphQLServerContext = {
      deps: c.get('deps'), // the request's (http/requestContext.ts)
      setOrgId: (orgId: string) => c.set('orgId', orgId),
      setOperation: (label: string) => c.set('graphqlOperation', label),
      clientAddress: address,
    };
    if (c.req.method === 'GET') return plainAnswer(c, await withErrorBody(await yoga.fetch(c.req.raw, serverContext), c.req.raw, c.get('requestId')));
    let post: ReadGraphQLPost;
    try {
      post = await graphQLRequest(bodySourceOf(c), yoga.fetchAPI.Request);
    } catch (err) {
      if (err instanceof BodyError) return c.json({ errors: [{ message: err.message, extensions: { code: graphqlCodeOf(err.code), requestId: c.get('requestId') } }] }, err.status);
      throw err;
    }
    if (fastPath && post.headers.get(IDEMPOTENCY_KEY_HEADER) === null) {
      const plain = plainRequest(post.headers, post.bodyText);
      const query = plain && preparedPath?.get(plain.params.query, plain.params.operationName);
      if (query) return answerPrepared(yoga, steps, query, plain, c.req.raw, serverContext, c.get('requestId'));
      if (plain) return answerParams(yoga, plain, c.req.raw, serverContext, c.get('requestId'));
    }
    // a mutation with an Idempotency-Key runs once per key (graphql/idempotentOperations.ts)
    const answer = await answerGraphQLPost(serverContext.deps, post, address, async (actor) => yoga.fetch(post.request(), { ...serverContext, actor }));
    return plainAnswer(c, await withErrorBody(answer, post.request(), c.get('requestId')));
  };
}

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

type PlainMediaType = 'application/json' | 'application/graphql-response+json';

/**
 * The fast path: the request (whose headers the context reads: credentials) with the parameters already
 * read, through the one execution path, written as yoga writes a regular result.
 */
async function answerParams(
  yoga: Yoga,
  { params, mediaType }: { params: GraphQLParams; mediaType: PlainMediaType },
  request: Request,
  serverContext: GraphQLServerContext,
  requestId: string | undefined,
): Promise<Response> {
  const result = await yoga.getResultForParams({ params, request }, serverContext as never);
  // not reached (plainRequest leaves subscriptions to yoga.fetch); were it, the stream ends here and the answer is a 406
  if (isAsyncIterable(result)) await (result as AsyncIterableIterator<unknown>).return?.();
  const answer = processRegularResult(result as ExecutionResult, serverFetchApi(yoga), mediaType);
  return withErrorBody(answer, request, requestId);
}

/**
 * The prepared path: a plain POST of a query operation this pipeline already parsed, validated and
 * compiled, run by its steps' prepared hooks (operationSteps.ts) and written as the fast path writes.
 */
async function answerPrepared(
  yoga: Yoga,
  steps: readonly OperationStep[],
  query: PreparedQuery,
  { params, mediaType }: { params: GraphQLParams; mediaType: PlainMediaType },
  request: Request,
  serverContext: GraphQLServerContext,
  requestId: string | undefined,
): Promise<Response> {
  const context = createGraphQLContext(serverContext, request);
  const result = await executePrepared(steps, query, { document: query.document, operationName: query.operationName, serverContext, context, variables: params.variables }, params.variables);
  return withErrorBody(processRegularResult(result, serverFetchApi(yoga), mediaType), request, requestId);
}

const serverApis = new WeakMap<Yoga, { Response: typeof Response; api: Yoga['fetchAPI'] }>();

/**
 * yoga's fetch API with the server's Response class as it is when the request is answered (the Node
 * adapter installs its own when it listens, which it writes without reading a stream back).
 */
function serverFetchApi(yoga: Yoga): Yoga['fetchAPI'] {
  let known = serverApis.get(yoga);
  if (known?.Response !== globalThis.Response) serverApis.set(yoga, (known = { Response: globalThis.Response, api: { ...yoga.fetchAPI, Response: globalThis.Response } }));
  return known.api;
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/** The media type yoga would answer with for this Accept header, when it is one yoga answers plainly. */
export function plainMediaType(accept: string | null): PlainMediaType | undefined {
  if (accept === null || accept.trim() === '') return 'application/json';
  const first = accept.split(',')[0]!.trim();
  for (const part of accept.split(',')) {
    const type = part.trim();
    if (!['application/json', 'application/graphql-response+json', '*/*', 'application/*'].includes(type)) return undefined; // q-values, streams…: yoga decides
  }
  return first === 'application/graphql-response+json' ? 'application/graphql-response+json' : 'application/json';
}

/** A plain POST's parameters and answer type, when they are well-formed ones yoga would take as they are. */
function plainRequest(headers: Headers, text: string): { params: GraphQLParams; mediaType: PlainMediaType } | undefined {
  if (!(headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) return undefined;
  const mediaType = plainMediaType(headers.get('accept'));
  if (!mediaType) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = body as Record<string, unknown>;
  for (const key of Object.keys(params)) if (!PARAM_NAMES.has(key)) return undefined;
  const isObject = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  if (typeof params.query !== 'string' || !isObject(params.variables) || !isObject(params.extensions)) return undefined;
  if (params.operationName !== undefined && params.operationName !== null && typeof params.operationName !== 'string') return undefined;
  // a subscription (or anything that may be one) is yoga's: a stream, or a 406 naming text/event-stream
  if (/\bsubscription\b/.test(params.query)) return undefined;
  return { params: params as unknown as GraphQLParams, mediaType };
}

/**
 * A whole (not streamed) answer of yoga.fetch handed to Hono as text: the Node adapter then writes it in
 * one go, where a Response of another fetch implementation (yoga's) would be read back through a stream.
 * A stream (a subscription over SSE) goes out as a stream of Node's own (http/nativeAnswer.ts), so that a
 * client going away ends only its own stream, whatever middleware rebuilt the answer.
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
