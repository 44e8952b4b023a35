// Registers every /v1 route on a Hono app with the same pipeline:
// authenticate → rate limit → parse the body (JSON | form | multipart) → domain handler → envelope.
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';
import { authenticateBearer } from '../ratelimit/authentication.js';
import { clientAddress } from '../ratelimit/clientAddress.js';
import { limitRestRequest } from '../ratelimit/http.js';
import { parseBody } from './body.js';
import { successBody } from './envelope.js';
import { coerceFormBody } from './formCoercion.js';
import type { RouteDef } from './route.js';
import type { AppEnv } from './appEnv.js';

export async function authenticateRequest(c: Context<AppEnv>, deps: AppDeps): Promise<Actor> {
  // failed attempts are budgeted per client address (ratelimit/authentication.ts)
  const actor = await authenticateBearer(deps, c.req.header('authorization'), clientAddress(c, deps.config.trustProxy));
  c.set('orgId', actor.orgId);
  return actor;
}

export function registerRoutes(app: Hono<AppEnv>, routes: readonly RouteDef[], deps: AppDeps): void {
  for (const route of routes) {
    app.on(route.method, route.path, async (c) => {
      c.set('route', `${route.method} ${route.path}`);
      const actor = await authenticateRequest(c, deps);
      await limitRestRequest(c, deps.rateLimit, actor, route); // spec §8: after authentication, before the handler
      let body: unknown;
      if (route.method !== 'GET' && route.method !== 'DELETE') {
        const parsed = await parseBody(c.req.raw);
        body = parsed.kind === 'form' && route.body ? coerceFormBody(route.body, parsed.value) : parsed.value;
      }
      const result = await route.handler({ actor, deps, params: c.req.param() as Record<string, string>, query: c.req.query(), body, request: c.req.raw });
      return c.json(successBody(result.data, result.message), (result.status ?? 200) as 200);
    });
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
