// Authentication under a per-address budget of FAILED attempts, so that a flood of bad tokens cannot
// starve the service (each verification costs a database read or a signature check). Once an
// address has failed UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE times in the current minute, its requests
// answer 429 before any verification; valid credentials from it wait for the next window too (they
// cannot be told apart without verifying). The failure itself is one atomic increment, so at most
// `limit` 401s are answered per address and window, also across instances.
import type { Actor } from '../domain/access.js';
import { RateLimited, Unauthenticated } from '../domain/errors.js';
import type { RateLimiter } from './limiter.js';

const PATTERN = 'authentication';

function refused(retryAfter: number): RateLimited {
  return new RateLimited(retryAfter, `Too many failed authentications from this address; retry after ${retryAfter} s`);
}

export async function authenticateWithinBudget(
  limiter: RateLimiter | undefined,
  address: string,
  verify: () => Promise<Actor>,
): Promise<Actor> {
  if (!limiter) return verify();
  const before = await limiter.peek('unauthenticated', address, PATTERN);
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

/** For routes that authenticate on their own (POST /oauth/token): the same budget, checked and counted. */
export async function addressOverBudget(limiter: RateLimiter | undefined, address: string): Promise<RateLimited | null> {
  if (!limiter) return null;
  const before = await limiter.peek('unauthenticated', address, PATTERN);
  return before.allowed ? null : refused(before.retryAfter);
}

export async function countFailedAuthentication(limiter: RateLimiter | undefined, address: string): Promise<void> {
  await limiter?.hit('unauthenticated', address, PATTERN);
}
