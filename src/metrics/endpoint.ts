// GET /metrics: the app's registry in Prometheus's text format. Public unless METRICS_TOKEN is set;
// then only `Authorization: Bearer <METRICS_TOKEN>` reads it (401 otherwise). The token is compared in
// constant time (over SHA-256 digests, so that its length is not revealed either), and a wrong one
// counts against the client address's budget of failed authentications like a wrong API key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Registry } from 'prom-client';
import type { AppDeps } from '../deps.js';
import { addressOverBudget, countFailedAuthentication } from '../auth/authentication.js';
import { clientAddress } from '../http/clientAddress.js';
import type { AppEnv } from '../http/appEnv.js';
import { errorBody } from '../rest/envelope.js';

export const METRICS_ROUTE = 'GET /metrics';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsEndpoint(deps: Pick<AppDeps, 'config' | 'rateLimit'>, registry: Registry) {
  const expected = deps.config.metricsToken === undefined ? undefined : digest(deps.config.metricsToken);
  return async (c: Context<AppEnv>) => {
    c.set('route', METRICS_ROUTE);
    c.header('Cache-Control', 'no-store');
    if (expected) {
      const address = clientAddress(c, deps.config.trustProxy);
      const refused = await addressOverBudget(deps.rateLimit, address);
      if (refused) {
        c.header('Retry-After', String(refused.retryAfter));
        return c.json(errorBody('rate_limited', refused.message), 429);
      }
      const given = /^Bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        await countFailedAuthentication(deps.rateLimit, address);
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        return c.json(errorBody('unauthenticated', 'GET /metrics requires Authorization: Bearer <METRICS_TOKEN>'), 401);
      }
    }
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  };
}
