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
//               orchestration, which cost more than the operation itself on a small query. The answer is
//               written by yoga's rules for a regular result (regularAnswer.ts) as status, headers and text.
//               Behind node:http it is answered straight on node:http's request and response (`direct`,
//               below; app.ts's answerNode), without a fetch Request, a Hono context or a fetch Response,
//               as REST's GETs are (rest/directAnswer.ts), with the same transport: the request id (kept or
//               made) in X-Request-Id and the errors, the security headers, one log line, the request
//               metrics (route `POST /graphql` and the operation label), and what Hono's onError answers for
//               a throw. The body must be read to know whether the query is prepared: it is taken only when
//               node:http holds all of it already, within the body limit (http/body.ts takeReceivedBody);
//               a request that turns out not to be prepared goes on to Hono with those bytes kept for it
//               (keepReadBody), which readLimited then reads as if they were still in the message. Left to
//               Hono before anything is read: another path or method, CORS open (hono/cors decides its
//               headers), an Idempotency-Key, a Content-Encoding, a type other than JSON, an Accept yoga
//               decides, a repeated Authorization or Content-Type, a body not all here yet. Through Hono
//               (app.fetch, CORS open), a prepared query runs the same function and Hono writes its answer.
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
// without GRAPHQL_JIT, each twice: the second run of a compiled query is the prepared one; and over a
// socket with the direct answer and without it, comparing the header names on the wire and the request
// metrics too) and expects the same status, headers and body.
import type { IncomingMessage } from 'node:http';
import { isAsyncIterable } from '@graphql-tools/utils';
import type { Context } from 'hono';
import { type ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import type { AppDeps } from '../deps.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/key.js';
import { addressOf, clientAddress } from '../http/clientAddress.js';
import { cameFromThisMachine } from '../http/loopback.js';
import type { AppEnv } from '../http/appEnv.js';
import { withNativeBody } from '../http/nativeAnswer.js';
import { BodyError, type BodySource, bodySourceOf, keepReadBody, readLimited, takeReceivedBody } from '../http/body.js';
import { repeatsField } from '../http/repeatedFields.js';
import { answerMade, depsForRequest, REQUEST_ID_HEADER, requestIdFrom } from '../http/requestContext.js';
import { API_SECURITY_HEADERS } from '../http/securityHeaders.js';
import { recordAnswer, type TransportOptions } from '../http/transport.js';
import type { Logger } from '../logger.js';
import { graphqlCodeOf } from '../domain/shared/errorCodes.js';
import { answerGraphQLPost, type GraphQLPost } from './idempotentOperations.js';
import { createGraphQLContext } from './context.js';
import { executePrepared, type OperationStep } from './operationSteps.js';
import type { PreparedQuery } from './preparedQueries.js';
import { type PlainMediaType, regularAnswer, type RegularAnswer } from './regularAnswer.js';
import { withErrorBody } from './transportErrors.js';
import { createGraphQLHandler, type GraphQLServerContext } from './yoga.js';

type Yoga = ReturnType<typeof createGraphQLHandler>['yoga'];

/** An answer written straight on node:http's response (the same shape as REST's direct answers, rest/directAnswer.ts). */
export interface DirectGraphQLAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: string;
}

export interface GraphQLOverHttp {
  /** The Hono handler of GET and POST /graphql. */
  handler: (c: Context<AppEnv>) => Promise<Response>;
  /**
   * node:http's request answered directly when it is a plain POST of a prepared query (see the top of the
   * file): the answer to write, or null when it is Hono's to answer (with the body, if it was taken, kept
   * for it: http/body.ts).
   */
  direct: (incoming: IncomingMessage) => Promise<DirectGraphQLAnswer> | null;
}

export interface GraphQLOverHttpOptions {
  /** The request metrics (as the transport middleware observes every request: http/transport.ts). */
  observe: TransportOptions['observe'];
  /** What Hono's onError answers for a throw that is a bug of ours (app.ts: the REST envelope). */
  failure: (
    err: unknown,
    logger: Logger,
    path: string,
    requestId: string,
  ) => { status: number; headers: Record<string, string>; body: unknown };
}

export function graphqlOverHttp(deps: AppDeps, options: GraphQLOverHttpOptions): GraphQLOverHttp {
  const { yoga, steps, prepared } = createGraphQLHandler(deps);
  const fastPath = deps.config.graphqlFastPath;
  const preparedPath = fastPath && deps.config.graphqlPreparedPath ? prepared : undefined;
  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    c.set('route', `${c.req.method} /graphql`);
    const address = clientAddress(c, deps.config.trustProxy);
    const serverContext: GraphQLServerContext = {
      deps: c.get('deps'), // the request's (http/requestContext.ts)
      setOrgId: (orgId: string) => c.set('orgId', orgId),
      setOperation: (label: string) => c.set('graphqlOperation', label),
      clientAddress: address,
    };
    if (c.req.method === 'GET') {
      const fromThisMachine = cameFromThisMachine(c);
      const answer = await plainAnswer(
        c,
        await withErrorBody(await yoga.fetch(c.req.raw, { ...serverContext, fromThisMachine }), c.req.raw, c.get('requestId')),
      );
      // a page holding the demo's key is kept by no cache (pages.ts only revalidates pages)
      if (fromThisMachine && deps.demoApiKey && answer.headers.get('content-type')?.startsWith('text/html'))
        answer.headers.set('Cache-Control', 'no-store');
      return answer;
    }
    let post: ReadGraphQLPost;
    try {
      post = await graphQLRequest(bodySourceOf(c), yoga.fetchAPI.Request);
    } catch (err) {
      if (err instanceof BodyError)
        return c.json(
          { errors: [{ message: err.message, extensions: { code: graphqlCodeOf(err.code), requestId: c.get('requestId') } }] },
          err.status,
        );
      throw err;
    }
    if (fastPath && post.headers.get(IDEMPOTENCY_KEY_HEADER) === null) {
      const mediaType = plainRequestType(post.headers.get('content-type'), post.headers.get('accept'));
      const read = mediaType && readParams(post.bodyText);
      if (mediaType && read?.query) {
        const answer = await preparedAnswer(
          steps,
          read.query,
          { params: read.params, mediaType },
          serverContext,
          post.headers.get('authorization'),
        );
        return c.body(answer.body, answer.status as 200, answer.headers);
      }
      if (mediaType && read) return answerParams(yoga, { params: read.params, mediaType }, c.req.raw, serverContext, c.get('requestId'));
    }
    // a mutation with an Idempotency-Key runs once per key (graphql/idempotentOperations.ts)
    const answer = await answerGraphQLPost(serverContext.deps, post, address, async (actor) =>
      yoga.fetch(post.request(), { ...serverContext, actor }),
    );
    return plainAnswer(c, await withErrorBody(answer, post.request(), c.get('requestId')));
  };

  const corsOpen = deps.config.corsOrigins.length > 0;
  const direct = (incoming: IncomingMessage): Promise<DirectGraphQLAnswer> | null => {
    // CORS open: hono/cors decides the headers (as for REST's direct answers)
    if (!preparedPath || corsOpen || incoming.method !== 'POST' || incoming.url !== '/graphql') return null;
    const headers = incoming.headers;
    // what the Hono path would read differently, or not as a plain POST: left to it
    if (headers['idempotency-key'] !== undefined || headers['content-encoding'] !== undefined) return null;
    const mediaType = plainRequestType(headers['content-type'], headers.accept);
    if (!mediaType || repeatsField(incoming.rawHeaders, CREDENTIAL_AND_TYPE)) return null;
    // all of it here already (the usual case), within the limits; else Hono reads it as it comes
    const bytes = takeReceivedBody(incoming);
    if (!bytes) return null;
    const read = readParams(utf8.decode(bytes));
    if (!read?.query) {
      keepReadBody(incoming, bytes);
      return null;
    }
    return answerDirectly(incoming, read.query, { params: read.params, mediaType });
  };

  function readParams(text: string): { params: GraphQLParams; query?: PreparedQuery } | undefined {
    const params = plainParams(text);
    if (!params) return undefined;
    return { params, query: preparedPath?.get(params.query, params.operationName) };
  }

  async function answerDirectly(incoming: IncomingMessage, query: PreparedQuery, plain: PlainRequest): Promise<DirectGraphQLAnswer> {
    const started = performance.now();
    const headers = incoming.headers;
    const requestId = requestIdFrom(headers['x-request-id'] as string | undefined);
    const requestDeps = depsForRequest(deps, requestId);
    let orgId: string | undefined;
    let operation: string | undefined;
    const serverContext: GraphQLServerContext = {
      deps: requestDeps,
      setOrgId: (id) => (orgId = id),
      setOperation: (label) => (operation = label),
      clientAddress: addressOf(
        deps.config.trustProxy ? (headers['x-forwarded-for'] as string | undefined) : undefined,
        incoming.socket.remoteAddress,
      ),
    };
    let answer: { status: number; headers: Record<string, string | number>; body: string };
    try {
      answer = await preparedAnswer(steps, query, plain, serverContext, headers.authorization ?? null);
    } catch (err) {
      const failed = options.failure(err, requestDeps.logger, '/graphql', requestId);
      answer = {
        status: failed.status,
        headers: { ...failed.headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(failed.body),
      };
    }
    answerMade(requestDeps);
    const written = answer.headers;
    written[REQUEST_ID_HEADER] = requestId;
    Object.assign(written, API_SECURITY_HEADERS);
    written['Content-Length'] = Buffer.byteLength(answer.body);
    recordAnswer(requestDeps.logger, options.observe, {
      method: 'POST',
      route: 'POST /graphql',
      status: answer.status,
      operation,
      orgId,
      durationMs: performance.now() - started,
    });
    return answer;
  }

  return { handler, direct };
}

/** A repeated one of these: the Hono path reads such a request (http/repeatedFields.ts). */
const CREDENTIAL_AND_TYPE = ['authorization', 'content-type'];

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

interface PlainRequest {
  params: GraphQLParams;
  mediaType: PlainMediaType;
}

/**
 * The fast path: the request (whose headers the context reads: credentials) with the parameters already
 * read, through the one execution path, written as yoga writes a regular result.
 */
async function answerParams(
  yoga: Yoga,
  { params, mediaType }: PlainRequest,
  request: Request,
  serverContext: GraphQLServerContext,
  requestId: string | undefined,
): Promise<Response> {
  const result = await yoga.getResultForParams({ params, request }, serverContext);
  // not reached (plainRequest leaves subscriptions to yoga.fetch); were it, the stream ends here and the answer is a 406
  if (isAsyncIterable(result)) await (result as AsyncIterableIterator<unknown>).return?.();
  const answer = processRegularResult(result as ExecutionResult, serverFetchApi(yoga), mediaType);
  return withErrorBody(answer, request, requestId);
}

/**
 * The prepared path: a plain POST of a query operation this pipeline already parsed, validated and
 * compiled, run by its steps' prepared hooks (operationSteps.ts), its answer written by yoga's rules
 * (regularAnswer.ts) for node:http (the direct answer) or Hono (the same request through the app).
 */
async function preparedAnswer(
  steps: readonly OperationStep[],
  query: PreparedQuery,
  { params, mediaType }: PlainRequest,
  serverContext: GraphQLServerContext,
  authorization: string | null,
): Promise<RegularAnswer> {
  const context = createGraphQLContext(serverContext, { authorization });
  const operation = { document: query.document, operationName: query.operationName, serverContext, context, variables: params.variables };
  const result = await executePrepared(steps, query, operation, params.variables);
  return regularAnswer(result, mediaType);
}

const serverApis = new WeakMap<Yoga, { Response: typeof Response; api: Yoga['fetchAPI'] }>();

/**
 * yoga's fetch API with the server's Response class as it is when the request is answered (the Node
 * adapter installs its own when it listens, which it writes without reading a stream back).
 */
function serverFetchApi(yoga: Yoga): Yoga['fetchAPI'] {
  let known = serverApis.get(yoga);
  if (known?.Response !== globalThis.Response)
    serverApis.set(yoga, (known = { Response: globalThis.Response, api: { ...yoga.fetchAPI, Response: globalThis.Response } }));
  return known.api;
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/** The media type yoga would answer with for this Accept header, when it is one yoga answers plainly. */
export function plainMediaType(accept: string | null | undefined): PlainMediaType | undefined {
  if (accept == null || accept.trim() === '') return 'application/json';
  const first = accept.split(',')[0]!.trim();
  for (const part of accept.split(',')) {
    const type = part.trim();
    if (!['application/json', 'application/graphql-response+json', '*/*', 'application/*'].includes(type)) return undefined; // q-values, streams…: yoga decides
  }
  return first === 'application/graphql-response+json' ? 'application/graphql-response+json' : 'application/json';
}

/** A plain POST's answer type, when its Content-Type and Accept are ones yoga would take as they are. */
function plainRequestType(contentType: string | null | undefined, accept: string | null | undefined): PlainMediaType | undefined {
  if (!(contentType ?? '').toLowerCase().startsWith('application/json')) return undefined;
  return plainMediaType(accept);
}

/** The parameters of a plain POST's JSON body, when they are well-formed ones yoga would take as they are. */
function plainParams(text: string): GraphQLParams | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = body as Record<string, unknown>;
  for (const key in params) if (!PARAM_NAMES.has(key)) return undefined;
  const isObject = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  if (typeof params.query !== 'string' || !isObject(params.variables) || !isObject(params.extensions)) return undefined;
  if (params.operationName !== undefined && params.operationName !== null && typeof params.operationName !== 'string') return undefined;
  // a subscription (or anything that may be one) is yoga's: a stream, or a 406 naming text/event-stream
  if (/\bsubscription\b/.test(params.query)) return undefined;
  return params as unknown as GraphQLParams;
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
      return (request = new RequestClass(raw.url, {
        method: raw.method,
        headers: forYoga,
        body: bytes,
        ...(streams ? { signal: raw.signal } : {}),
      }));
    },
  };
}
