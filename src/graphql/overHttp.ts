// GraphQL over HTTP: the one module that answers GET and POST /graphql (app.ts mounts it as a Fastify
// route, so every request has passed the transport's steps: its id, security headers, CORS, the request
// log and metrics).
//
// Every operation is executed one way: by yoga, through its plugin system, where each step is a plugin
// (yoga.ts lists them: the metrics label, armor's limits, the parse/validate cache, queries compiled by
// graphql-jit (preparedQueries.ts), the budgets' 429 and cost extension (rateLimits.ts), request ids,
// yoga's masking). What differs between requests is only how yoga is handed the request:
//
//   plain       a plain POST — a JSON object of query/variables/operationName/extensions, no Idempotency-Key,
//               an Accept that asks for JSON: the parameters come from the body already read (and bounded),
//               yoga's `getResultForParams` runs every plugin, and yoga's own `processRegularResult` writes the
//               answer (status and headers by the GraphQL-over-HTTP rules). This saves building a fetch
//               Request for yoga to read again.
//   yoga.fetch  anything else (GET and GraphiQL, SSE subscriptions, multipart, batches, other content types,
//               malformed parameters, keyed mutations): yoga reads the request and writes the answer.
//
// GRAPHQL_FAST_PATH=false sends every request through yoga.fetch; test/api/graphqlPaths.parity.test.ts
// runs the same cases both ways and expects the same status, headers and body.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAsyncIterable } from '@graphql-tools/utils';
import { type ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import type { GraphQLDeps } from './deps.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/key.js';
import { clientAddress } from '../http/clientAddress.js';
import { cameFromThisMachine } from '../http/loopback.js';
import '../http/appEnv.js';
import { assertJsonDepth, BodyError, readLimited } from '../http/body.js';
import { headerAsSent } from '../http/repeatedFields.js';
import { graphqlCodeOf } from '../domain/shared/errorCodes.js';
import { answerGraphQLPost, type GraphQLPost } from './idempotentOperations.js';
import { withErrorBody } from './transportErrors.js';
import { createGraphQLHandler, type GraphQLServerContext } from './yoga.js';

type Yoga = ReturnType<typeof createGraphQLHandler>['yoga'];

export interface GraphQLOverHttp {
  /** The Fastify handler of GET and POST /graphql. */
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
}

export function graphqlOverHttp(deps: GraphQLDeps): GraphQLOverHttp {
  const { yoga } = createGraphQLHandler(deps);
  const fastPath = deps.config.graphqlFastPath;
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    request.label = `${request.method} /graphql`;
    const incoming = request.raw;
    const address = clientAddress(incoming, deps.config.trustProxy);
    const serverContext: GraphQLServerContext = {
      deps: request.deps, // the request's (http/requestContext.ts)
      setOrgId: (orgId: string) => (request.orgId = orgId),
      setOperation: (label: string) => (request.graphqlOperation = label),
      clientAddress: address,
    };
    const url = `http://${incoming.headers.host ?? 'localhost'}${request.url}`;
    if (request.method === 'GET') {
      const fromThisMachine = cameFromThisMachine(incoming);
      const yogaRequest = new yoga.fetchAPI.Request(url, { method: 'GET', headers: headersOf(incoming), signal: leaving(reply) });
      const answer = await withErrorBody(
        await yoga.fetch(yogaRequest, { ...serverContext, fromThisMachine }),
        yogaRequest,
        request.requestId,
      );
      // a page holding the demo's key is kept by no cache (pages.ts only revalidates pages)
      if (fromThisMachine && deps.demoApiKey && answer.headers.get('content-type')?.startsWith('text/html'))
        answer.headers.set('Cache-Control', 'no-store');
      return send(reply, answer);
    }
    let post: ReadGraphQLPost;
    try {
      post = await graphQLRequest(incoming, url, yoga.fetchAPI.Request, () => leaving(reply));
    } catch (err) {
      if (err instanceof BodyError)
        return reply
          .code(err.status)
          .type('application/json')
          .send({ errors: [{ message: err.message, extensions: { code: graphqlCodeOf(err.code), requestId: request.requestId } }] });
      throw err;
    }
    if (fastPath && post.headers.get(IDEMPOTENCY_KEY_HEADER) === null) {
      const mediaType = plainRequestType(post.headers.get('content-type'), post.headers.get('accept'));
      const params = mediaType && plainParams(post.bodyText);
      if (mediaType && params)
        return send(reply, await answerParams(yoga, { params, mediaType }, post.headersOnly(), serverContext, request.requestId));
    }
    // a mutation with an Idempotency-Key runs once per key (graphql/idempotentOperations.ts)
    const answer = await answerGraphQLPost(serverContext.deps, post, address, async (actor) =>
      yoga.fetch(post.request(), { ...serverContext, actor }),
    );
    return send(reply, await withErrorBody(answer, post.request(), request.requestId));
  };

  return { handler };
}

/** The request's headers as a fetch Headers (a repeated field joined, as a fetch Request does). */
function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name in incoming.headers) {
    const value = incoming.headers[name];
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // node:http kept only the first of these when repeated
  for (const name of ['authorization', 'content-type'] as const) {
    const sent = headerAsSent(incoming, name);
    if (sent !== undefined) headers.set(name, sent);
  }
  return headers;
}

/** Aborted when the client goes away before its answer is done (a subscription's stream then ends). */
function leaving(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Writes yoga's answer on the reply: a whole answer as text; a stream (a subscription over SSE, a
 * multipart answer) as a stream, which ends that client's subscription when the client goes away.
 */
async function send(reply: FastifyReply, answer: Response): Promise<FastifyReply> {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  const type = answer.headers.get('content-type') ?? '';
  if (!answer.body) return reply.send();
  if (type.includes('event-stream') || type.includes('multipart')) return reply.send(nodeStreamOf(answer.body));
  return reply.send(await answer.text());
}

/** A web stream (yoga's own implementation, or Node's) as a Node stream; destroying it cancels the web stream. */
function nodeStreamOf(body: ReadableStream<Uint8Array>): Readable {
  const reader = body.getReader();
  return new Readable({
    read() {
      reader.read().then(
        ({ done, value }) => {
          if (done) this.push(null);
          else this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        },
        (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    },
    destroy(err, callback) {
      reader.cancel(err ?? undefined).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
}

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

type PlainMediaType = 'application/json' | 'application/graphql-response+json';

interface PlainRequest {
  params: GraphQLParams;
  mediaType: PlainMediaType;
}

/**
 * The plain branch: the request (whose headers the context reads: credentials) with the parameters already
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
  const answer = processRegularResult(result as ExecutionResult, yoga.fetchAPI, mediaType);
  return withErrorBody(answer, request, requestId);
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

interface ReadGraphQLPost extends GraphQLPost {
  /** The request as yoga takes it, to read (made on first use). */
  request(): Request;
  /** The request without its body, for yoga's plugins and the context (its headers) when its parameters are already read. */
  headersOnly(): Request;
}

const utf8 = new TextDecoder();

/**
 * A GraphQL POST, with the body limit of /v1 applied, and `curl -d '{"query":…}'` (which sends
 * application/x-www-form-urlencoded) read as the JSON it is.
 */
async function graphQLRequest(
  incoming: IncomingMessage,
  url: string,
  RequestClass: typeof Request,
  signal: () => AbortSignal,
): Promise<ReadGraphQLPost> {
  const bytes = await readLimited(incoming);
  const headers = headersOf(incoming);
  const type = (headers.get('content-type') ?? '').toLowerCase();
  if ((type === '' || type.startsWith('application/x-www-form-urlencoded')) && /^\s*\{/.test(utf8.decode(bytes.subarray(0, 64))))
    headers.set('content-type', 'application/json');
  const bodyText = utf8.decode(bytes);
  // variables nested past any input's depth are refused before anything walks them
  if ((headers.get('content-type') ?? '').toLowerCase().includes('json')) assertJsonDepth(bodyText);
  let request: Request | undefined;
  return {
    headers,
    bodyText,
    headersOnly: () => new RequestClass(url, { method: 'POST', headers }),
    request: () => {
      if (request) return request;
      const forYoga = new Headers(headers);
      forYoga.delete('content-length');
      forYoga.delete('content-encoding'); // the bytes are decoded (readLimited)
      // yoga's own Request class (no conversion inside yoga); the client's leaving only for a stream
      // (a subscription ends when its client goes away), the one answer that outlives the request
      const streams = (forYoga.get('accept') ?? '').includes('text/event-stream');
      return (request = new RequestClass(url, {
        method: 'POST',
        headers: forYoga,
        body: bytes,
        ...(streams ? { signal: signal() } : {}),
      }));
    },
  };
}
