// Registers every /v1 route on a Hono app with the same pipeline:
// authenticate → rate limit → parse the body (JSON | form | multipart) → domain handler → envelope,
// with, for every route alike, conditional GETs (ETag / If-None-Match → 304, conditionalGet.ts) and
// idempotency keys on POST, PUT and PATCH (Idempotency-Key, idempotency.ts).
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/shared/access.js';
import { InvalidInput } from '../domain/shared/errors.js';
import { refuseUnstorableText } from '../domain/shared/storableText.js';
import { authenticateBearer } from '../auth/authentication.js';
import { clientAddress } from '../http/clientAddress.js';
import { limitRest } from '../ratelimit/http.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_METHODS, parseIdempotencyKey } from '../idempotency/key.js';
import { bodySourceOf, parseBody } from '../http/body.js';
import { CONDITIONAL_CACHE_CONTROL, ifNoneMatchHits, weakETagInSlices, withoutFields } from './conditionalGet.js';
import { stringifyInSlices } from '../http/slicedJson.js';
import { successBody } from './envelope.js';
import { coerceFormBody } from './formCoercion.js';
import { answerRestIdempotently, routeSecretField } from './idempotency.js';
import type { RouteDef } from './route.js';
import { getQueryParam } from 'hono/utils/url';
import type { AppEnv } from '../http/appEnv.js';

export async function authenticateRequest(c: Context<AppEnv>, deps: AppDeps): Promise<Actor> {
  // failed attempts are budgeted per client address (auth/authentication.ts)
  const actor = await authenticateBearer(deps, c.req.header('authorization'), clientAddress(c, deps.config.trustProxy));
  c.set('orgId', actor.orgId);
  return actor;
}

/**
 * What a route that declares no query parameters is handed (they are ignored, as before): a handler reads
 * text only from what the pipeline checked, the path parameters, the query it declares and the body.
 */
const NO_QUERY: Record<string, string> = Object.freeze({});

/** A GET of /v1 as the GET pipeline reads it, from Hono's request or from node:http's (directAnswer.ts). */
export interface GetRequest {
  /** The URL as sent, absolute (`http://host/v1/…?…`): the query is read from it. */
  url: string;
  params: Record<string, string>;
  header(name: string): string | undefined;
  /** The client address failed authentications are counted by (http/clientAddress.ts). */
  address: string;
}

/** What the GET pipeline learned on the way, kept when it throws: the headers of the answer so far (the budget's) and the caller's organization. */
export interface GetProgress {
  headers: Record<string, string>;
  orgId?: string;
}

/** A successful GET: 200 with the envelope's JSON, or 304 without a body; `progress.headers` holds ETag, Cache-Control and the budget. */
export interface GetAnswer {
  status: number;
  body: string | null;
}

/**
 * The GET pipeline, one for both ways a request arrives: authenticate → rate limit → the query checked
 * → domain handler → envelope, ETag, Cache-Control, 304 for a matching If-None-Match. Throws what the
 * error envelope answers (errors.ts).
 */
export async function answerGet(route: RouteDef, deps: AppDeps, request: GetRequest, progress: GetProgress): Promise<GetAnswer> {
  // failed attempts are budgeted per client address (auth/authentication.ts)
  const actor = await authenticateBearer(deps, request.header('authorization'), request.address);
  progress.orgId = actor.orgId;
  const limited = limitRest(deps.rateLimit, actor, route, progress.headers); // spec §8: after authentication, before the handler
  if (limited) await limited; // counters in Redis (in memory it decided at once)
  refuseRepeatedQueryParameters(request.url);
  const query = route.query ? (getQueryParam(request.url) as Record<string, string>) : NO_QUERY;
  // text enters here: a NUL or an unpaired surrogate in any path or query parameter is a 400 naming it
  refuseUnstorableText([request.params], [query]);
  const result = await route.handler({ actor, deps, params: request.params, query, body: undefined });
  const { json, etag } = await serialized(route, result);
  progress.headers.ETag = etag;
  progress.headers['Cache-Control'] = CONDITIONAL_CACHE_CONTROL;
  if (ifNoneMatchHits(request.header('if-none-match'), etag)) return { status: 304, body: null };
  return { status: result.status ?? 200, body: json };
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

export function registerRoutes(app: Hono<AppEnv>, routes: readonly RouteDef[]): void {
  for (const route of routes) {
    const pattern = `${route.method} ${route.path}`;
    // what an idempotent replay of this route withholds (domain/shared/shownOnce.ts)
    const replay = { scope: route.scope, secretField: routeSecretField(route.response) };
    app.on(route.method, route.path, async (c) => {
      const deps = c.get('deps'); // the request's (http/requestContext.ts)
      c.set('route', pattern);
      if (route.method === 'GET') {
        const progress: GetProgress = { headers: {} };
        try {
          const answer = await answerGet(
            route,
            deps,
            {
              url: c.req.url,
              params: c.req.param(),
              header: (name) => c.req.header(name),
              address: clientAddress(c, deps.config.trustProxy),
            },
            progress,
          );
          for (const name in progress.headers) c.header(name, progress.headers[name]);
          if (answer.body === null) return c.body(null, answer.status as 304);
          return c.body(answer.body, answer.status as 200, { 'Content-Type': 'application/json' });
        } catch (err) {
          // the budget's headers go out with an error answer too
          for (const name in progress.headers) c.header(name, progress.headers[name]);
          throw err;
        } finally {
          if (progress.orgId !== undefined) c.set('orgId', progress.orgId);
        }
      }
      const actor = await authenticateRequest(c, deps);
      const limitHeaders: Record<string, string> = {};
      try {
        await limitRest(deps.rateLimit, actor, route, limitHeaders); // spec §8: after authentication, before the handler
      } finally {
        for (const name in limitHeaders) c.header(name, limitHeaders[name]);
      }
      refuseRepeatedQueryParameters(c.req.url);
      const idempotencyKey = IDEMPOTENT_METHODS.has(route.method) ? parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER)) : undefined;
      let body: unknown;
      if (route.method !== 'DELETE') {
        const parsed = await parseBody(bodySourceOf(c));
        body = parsed.kind === 'form' && route.body ? coerceFormBody(route.body, parsed.value) : parsed.value;
      }
      const params = c.req.param() as Record<string, string>;
      const query = route.query ? c.req.query() : NO_QUERY;
      // text enters here: a NUL or an unpaired surrogate in any parameter or body field is a 400 naming it,
      // before an idempotency key is claimed
      refuseUnstorableText([params], [query], [body]);
      const answer = async () => {
        const result = await route.handler({ actor, deps, params, query, body });
        return c.json(successBody(result.data, result.message), (result.status ?? 200) as 200);
      };
      return idempotencyKey === undefined ? answer() : answerRestIdempotently(c, deps, actor, replay, idempotencyKey, body, answer);
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
