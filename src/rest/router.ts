// Registers every /v1 route on a Hono app with the same pipeline:
// authenticate → rate limit → parse the body (JSON | form | multipart) → domain handler → envelope,
// with, for every route alike, conditional GETs (ETag / If-None-Match → 304, conditionalGet.ts) and
// idempotency keys on POST, PUT and PATCH (Idempotency-Key, idempotency.ts).
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';
import { InvalidInput } from '../domain/errors.js';
import { authenticateBearer } from '../auth/authentication.js';
import { clientAddress } from '../http/clientAddress.js';
import { limitRestRequest } from '../ratelimit/http.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_METHODS, parseIdempotencyKey } from '../idempotency/key.js';
import { bodySourceOf, parseBody } from '../http/body.js';
import { CONDITIONAL_CACHE_CONTROL, ifNoneMatchHits, weakETag, withoutFields } from './conditionalGet.js';
import { successBody } from './envelope.js';
import { coerceFormBody } from './formCoercion.js';
import { answerRestIdempotently } from './idempotency.js';
import type { RouteDef } from './route.js';
import type { AppEnv } from '../http/appEnv.js';

export async function authenticateRequest(c: Context<AppEnv>, deps: AppDeps): Promise<Actor> {
  // failed attempts are budgeted per client address (auth/authentication.ts)
  const actor = await authenticateBearer(deps, c.req.header('authorization'), clientAddress(c, deps.config.trustProxy));
  c.set('orgId', actor.orgId);
  return actor;
}

export function registerRoutes(app: Hono<AppEnv>, routes: readonly RouteDef[]): void {
  for (const route of routes) {
    app.on(route.method, route.path, async (c) => {
      const deps = c.get('deps'); // the request's (http/requestContext.ts)
      c.set('route', `${route.method} ${route.path}`);
      const actor = await authenticateRequest(c, deps);
      await limitRestRequest(c, deps.rateLimit, actor, route); // spec §8: after authentication, before the handler
      refuseRepeatedQueryParameters(c.req.url);
      const idempotencyKey = IDEMPOTENT_METHODS.has(route.method) ? parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER)) : undefined;
      let body: unknown;
      if (route.method !== 'GET' && route.method !== 'DELETE') {
        const parsed = await parseBody(bodySourceOf(c));
        body = parsed.kind === 'form' && route.body ? coerceFormBody(route.body, parsed.value) : parsed.value;
      }
      const run = () => route.handler({ actor, deps, params: c.req.param() as Record<string, string>, query: c.req.query(), body, request: c.req.raw });
      if (route.method === 'GET') {
        const result = await run();
        const json = JSON.stringify(successBody(result.data, result.message));
        const etag = weakETag(route.etagOmits ? JSON.stringify(successBody(withoutFields(result.data, route.etagOmits), result.message)) : json);
        c.header('ETag', etag);
        c.header('Cache-Control', CONDITIONAL_CACHE_CONTROL);
        if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return c.body(null, 304);
        return c.body(json, (result.status ?? 200) as 200, { 'Content-Type': 'application/json' });
      }
      const answer = async () => {
        const result = await run();
        return c.json(successBody(result.data, result.message), (result.status ?? 200) as 200);
      };
      return idempotencyKey === undefined ? answer() : answerRestIdempotently(c, deps, actor, route.scope, idempotencyKey, body, answer);
    });
  }
}

/**
 * A query parameter given twice (`?orgId=A&orgId=B`) is a 400 naming it, like an unknown one: taking
 * either value silently would answer a request the client did not mean.
 */
function refuseRepeatedQueryParameters(url: string): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  const seen = new Set<string>();
  for (const name of new URLSearchParams(url.slice(start + 1)).keys()) {
    if (seen.has(name)) throw InvalidInput.of(name, 'is given more than once; send it once');
    seen.add(name);
  }
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
