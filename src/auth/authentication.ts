// Authentication under a per-address budget of FAILED attempts, so that a flood of bad tokens cannot
// starve the service (each verification costs a database read or a signature check). Once an
// address has failed UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE times in the current minute, its requests
// answer 429 before any verification; valid credentials from it wait for the next window too (they
// cannot be told apart without verifying). The failure itself is one atomic increment, so at most
// `limit` 401s are answered per address and window, also across instances.
import { authenticate, bearerToken } from './authenticate.js';
import type { AuthDeps } from './deps.js';
import type { Actor } from '../domain/shared/access.js';
import { RateLimited, Unauthenticated } from '../domain/shared/errors.js';
import type { RateLimiter } from '../ratelimit/limiter.js';

const PATTERN = 'authentication';

function refused(retryAfter: number): RateLimited {
  return new RateLimited(retryAfter, `Too many failed authentications from this address; retry after ${retryAfter} s`);
}

async function authenticateWithinBudget(limiter: RateLimiter, address: string, verify: () => Promise<Actor>): Promise<Actor> {
  const before = limiter.peekNow('unauthenticated', address, PATTERN) ?? (await limiter.peek('unauthenticated', address, PATTERN));
  if (!before.allowed) throw refused(before.retryAfter);
  try {
    return await verify();
  } catch (err) {
    if (err instanceof Unauthenticated) {
      const after = await limiter.hit('unauthenticated', address, PATTERN);
      if (!after.allowed) throw refused(after.retryAfter);
    }
    throw err;
  }
}

/**
 * The caller of a /v1 request or a GraphQL operation, from its `Authorization: Bearer <token>` header,
 * under the per-address budget of failed attempts. Both surfaces call this one function.
 */
export async function authenticateBearer(deps: AuthDeps, authorization: string | null | undefined, address: string): Promise<Actor> {
  // a request's own deps (http/requestContext.ts) learn its client address here, where both surfaces hand it
  // over: the access log records it (domain/governance/accessLog.ts). The app's shared deps are left alone.
  if (Object.hasOwn(deps, 'requestId')) deps.clientAddress = address;
  return authenticateWithinBudget(deps.rateLimit, address, async () => {
    const token = bearerToken(authorization);
    if (!token) throw new Unauthenticated('Missing credentials: send Authorization: Bearer <API key or access token>');
    return authenticate(deps, deps.tokens, token);
  });
}

/** For routes that authenticate on their own (POST /oauth/token): the same budget, checked and counted. */
export async function addressOverBudget(limiter: RateLimiter, address: string): Promise<RateLimited | null> {
  const before = await limiter.peek('unauthenticated', address, PATTERN);
  return before.allowed ? null : refused(before.retryAfter);
}

export async function countFailedAuthentication(limiter: RateLimiter, address: string): Promise<void> {
  await limiter.hit('unauthenticated', address, PATTERN);
}
