// The REST step: after authentication (the owner is known), before the handler. One atomic count on
// the route's budget; the X-RateLimit-* headers describe that budget on every answer of the route
// (success or error); past it, RateLimited → 429 + Retry-After + the error envelope (rest/errors.ts).
import type { Actor } from '../domain/shared/access.js';
import { RateLimited } from '../domain/shared/errors.js';
import type { Budget, Decision, RateLimiter } from './limiter.js';

export interface LimitedRoute {
  method: string;
  path: string;
  budget?: 'perMinute' | 'callRequestPoll';
}

/** The key a request counts under: every call-request poll of an owner shares one budget. */
export function budgetKey(route: LimitedRoute): { budget: Budget; pattern: string } {
  let key = budgetKeys.get(route);
  if (!key) {
    key =
      route.budget === 'callRequestPoll'
        ? { budget: 'callRequestPoll', pattern: CALL_REQUEST_POLLS }
        : { budget: 'perMinute', pattern: `${route.method} ${route.path}` };
    budgetKeys.set(route, key);
  }
  return key;
}

/** Made once per route (a route's fields do not change): every request of the route counts under it. */
const budgetKeys = new WeakMap<LimitedRoute, { budget: Budget; pattern: string }>();

/** The pattern name of the shared call-request polling budget (REST route and GraphQL field). */
export const CALL_REQUEST_POLLS = 'call-request polls';

export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(Math.floor(d.resetAt / 1000)),
  };
}

export function limitMessage(d: Pick<Decision, 'limit' | 'windowMs' | 'retryAfter'>, pattern: string): string {
  const per = d.windowMs === 1000 ? 'second' : 'minute';
  return `Rate limit exceeded: ${d.limit} requests per ${per} for ${pattern}; retry after ${d.retryAfter} s`;
}

/**
 * The same step for a caller that builds its answer's headers itself: they are written into `headers`,
 * also when it refuses. Decided at once (nothing to await, a refusal thrown) when the counters are in
 * this process's memory; a promise when they are in Redis.
 */
export function limitRest(
  limiter: RateLimiter,
  actor: Actor,
  route: LimitedRoute,
  headers: Record<string, string>,
): Promise<void> | undefined {
  const { budget, pattern } = budgetKey(route);
  const now = limiter.hitNow(budget, actor.orgId, pattern);
  if (now) {
    applyDecision(now, pattern, headers);
    return undefined;
  }
  return limiter.hit(budget, actor.orgId, pattern).then((decision) => applyDecision(decision, pattern, headers));
}

function applyDecision(decision: Decision, pattern: string, headers: Record<string, string>): void {
  headers['X-RateLimit-Limit'] = String(decision.limit);
  headers['X-RateLimit-Remaining'] = String(decision.remaining);
  headers['X-RateLimit-Reset'] = String(Math.floor(decision.resetAt / 1000));
  if (!decision.allowed) throw new RateLimited(decision.retryAfter, limitMessage(decision, pattern));
}
