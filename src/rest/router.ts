// Registers every /v1 route on the Fastify app with the same pipeline:
// authenticate → rate limit → parse the body (JSON | form | multipart) → domain handler → envelope,
// with, for every route alike, conditional GETs (ETag / If-None-Match → 304, conditionalGet.ts) and
// idempotency keys on POST, PUT and PATCH (Idempotency-Key, idempotency.ts).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RestDeps } from './deps.js';
import { InvalidInput } from '../domain/shared/errors.js';
import { refuseUnstorableText } from '../domain/shared/storableText.js';
import { authenticateBearer } from '../auth/authentication.js';
import { clientAddress } from '../http/clientAddress.js';
import { limitRest } from '../ratelimit/http.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METHODS,
  ORIGINAL_REQUEST_HEADER,
  parseIdempotencyKey,
  REPLAYED_HEADER,
} from '../idempotency/key.js';
import { parseBody } from '../http/body.js';
import { headerAsSent } from '../http/repeatedFields.js';
import '../http/appEnv.js';
import { CONDITIONAL_CACHE_CONTROL, ifNoneMatchHits, weakETagInSlices, withoutFields } from './conditionalGet.js';
import { stringifyInSlices } from '../http/slicedJson.js';
import { successBody } from './envelope.js';
import { restErrorAnswer } from './errors.js';
import { coerceFormBody } from './formCoercion.js';
import { answerRestIdempotently, routeSecretField } from './idempotency.js';
import type { RouteDef } from './route.js';
import type { ReplayWithheld } from '../domain/shared/shownOnce.js';

/**
 * What a route that declares no query parameters is handed (they are ignored, as before): a handler reads
 * text only from what the pipeline checked, the path parameters, the query it declares and the body.
 */
const NO_QUERY: Record<string, string> = Object.freeze({});

const NDJSON = 'application/x-ndjson; charset=utf-8';

/** What the pipeline learned on the way, kept when it throws: the headers of the answer so far (the budget's) and the caller's organization. */
interface Progress {
  headers: Record<string, string>;
  orgId?: string;
}

/**
 * A successful answer: the status and the envelope's JSON, or null for a 304, or the lines of a streaming route;
 * `progress.headers` holds ETag, Cache-Control and the budget.
 */
interface Answer {
  status: number;
  body: string | null;
  lines?: AsyncIterable<readonly unknown[]>;
}

/** NDJSON: one line per value, each page written as one chunk. */
async function* ndjson(pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  for await (const page of pages) {
    if (page.length === 0) continue;
    let chunk = '';
    for (const line of page) chunk += JSON.stringify(line) + '\n';
    yield chunk;
  }
}

/**
 * The pipeline of every /v1 request: authenticate → rate limit → the query checked → (a write: the body
 * parsed, the Idempotency-Key honoured) → domain handler → envelope; a GET gets its ETag, Cache-Control
 * and a 304 for a matching If-None-Match. Throws what the error envelope answers (errors.ts).
 */
async function answerRoute(
  route: RouteDef,
  replay: { scope: RouteDef['scope']; secretField: ReplayWithheld | undefined },
  request: FastifyRequest,
  progress: Progress,
): Promise<Answer> {
  const deps: RestDeps = request.deps; // the request's (http/requestContext.ts)
  // failed attempts are budgeted per client address (auth/authentication.ts)
  const actor = await authenticateBearer(
    deps,
    headerAsSent(request.raw, 'authorization'),
    clientAddress(request.raw, deps.config.trustProxy),
  );
  progress.orgId = actor.orgId;
  const limited = limitRest(deps.rateLimit, actor, route, progress.headers); // spec §8: after authentication, before the handler
  if (limited) await limited; // counters in Redis (in memory it decided at once)
  refuseRepeatedQueryParameters(request.url);
  // plain objects, as the domain and the text checks take them (Fastify's have no prototype of their own)
  const params: Record<string, string> = { ...(request.params as Record<string, string>) };
  const query = route.query ? { ...(request.query as Record<string, string>) } : NO_QUERY;
  if (route.method === 'GET') {
    // text enters here: a NUL or an unpaired surrogate in any path or query parameter is a 400 naming it
    refuseUnstorableText([params], [query]);
    const result = await route.handler({ actor, deps, params, query, body: undefined });
    if ('lines' in result) return { status: 200, body: null, lines: result.lines };
    const { json, etag } = await serialized(route, result);
    progress.headers.ETag = etag;
    progress.headers['Cache-Control'] = CONDITIONAL_CACHE_CONTROL;
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return { status: 304, body: null };
    return { status: result.status ?? 200, body: json };
  }
  const idempotencyKey = IDEMPOTENT_METHODS.has(route.method)
    ? parseIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()] as string | undefined)
    : undefined;
  let body: unknown;
  if (route.method !== 'DELETE') {
    const parsed = await parseBody(request.raw);
    body = parsed.kind === 'form' && route.body ? coerceFormBody(route.body, parsed.value) : parsed.value;
  }
  // text enters here: a NUL or an unpaired surrogate in any parameter or body field is a 400 naming it,
  // before an idempotency key is claimed
  refuseUnstorableText([params], [query], [body]);
  const run = async () => {
    const result = await route.handler({ actor, deps, params, query, body });
    if ('lines' in result) throw new Error(`${route.method} ${route.path}: a write does not stream`);
    return { status: result.status ?? 200, body: JSON.stringify(successBody(result.data, result.message)) };
  };
  if (idempotencyKey === undefined) return run();
  const answer = await answerRestIdempotently(
    { method: route.method, url: request.url, body },
    deps,
    actor,
    replay,
    idempotencyKey,
    async () => {
      try {
        return await run();
      } catch (err) {
        const refusal = restErrorAnswer(err, deps.logger, request.url, deps.requestId);
        Object.assign(progress.headers, refusal.headers);
        return { status: refusal.status, body: JSON.stringify(refusal.body) };
      }
    },
  );
  if (answer.replayed) {
    progress.headers[REPLAYED_HEADER] = 'true';
    progress.headers[ORIGINAL_REQUEST_HEADER] = answer.replayed.originalRequestId;
  }
  return { status: answer.response.status, body: answer.response.body };
}

/**
 * The text of an answer and its tag; a route with `etagOmits` leaves the fields echoing the instant out of
 * the tag. Written, and tagged, in slices: a large answer does not hold other requests while it is
 * (http/slicedJson.ts).
 */
async function serialized(route: RouteDef, result: { data: unknown; message?: string }): Promise<{ json: string; etag: string }> {
  const json = await stringifyInSlices(successBody(result.data, result.message));
  const etag = route.etagOmits
    ? await weakETagInSlices(await stringifyInSlices(successBody(withoutFields(result.data, route.etagOmits), result.message)))
    : await weakETagInSlices(json);
  return { json, etag };
}

export function registerRoutes(app: FastifyInstance, routes: readonly RouteDef[]): void {
  for (const route of routes) {
    const label = `${route.method} ${route.path}`;
    // what an idempotent replay of this route withholds (domain/shared/shownOnce.ts)
    const replay = { scope: route.scope, secretField: routeSecretField(route.response) };
    app.route({
      method: route.method,
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        request.label = label;
        const progress: Progress = { headers: {} };
        try {
          const answer = await answerRoute(route, replay, request, progress);
          reply.headers(progress.headers).code(answer.status);
          if (answer.lines) return reply.type(NDJSON).send(Readable.from(ndjson(answer.lines), { objectMode: false }));
          if (answer.body === null) return reply.send();
          return reply.type('application/json').send(answer.body);
        } catch (err) {
          // the budget's headers go out with an error answer too
          reply.headers(progress.headers);
          throw err;
        } finally {
          request.orgId = progress.orgId;
        }
      },
    });
  }
}

/**
 * A query parameter given twice (`?orgId=A&orgId=B`) is a 400 naming it, like an unknown one: taking
 * either value silently would answer a request the client did not mean.
 */
function refuseRepeatedQueryParameters(url: string): void {
  const start = url.indexOf('?');
  // one parameter cannot be repeated (most reads send none or one)
  if (start < 0 || url.indexOf('&', start) < 0) return;
  const query = url.slice(start + 1);
  // names without escapes (`%`, `+`) read as written; otherwise URLSearchParams decodes them
  const names = /[%+]/.test(query) ? new URLSearchParams(query).keys() : plainNames(query);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw InvalidInput.of(name, 'is given more than once; send it once');
    seen.add(name);
  }
}

/** The parameter names of a query without escapes, as URLSearchParams reads them (empty parts skipped). */
function plainNames(query: string): string[] {
  const names: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    names.push(equals < 0 ? part : part.slice(0, equals));
  }
  return names;
}

/** The paths and methods the app answers, for 405 (wrong method) versus 404 (no such path). */
export function methodsForPath(routes: readonly { method: string; path: string }[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    const pattern = new RegExp('^' + r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[^/]+/g, '/[^/]+') + '/?$');
    if (pattern.test(path)) methods.add(r.method);
  }
  return [...methods];
}
