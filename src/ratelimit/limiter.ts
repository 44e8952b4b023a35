// The budgets of spec §8 over the counter store. Windows are FIXED and aligned to the app clock
// (`deps.clock()`): a per-minute window runs from hh:mm:00.000 to hh:mm+1:00.000, a per-second one
// from one whole second to the next. A fixed window makes each decision a single atomic INCR on a
// key named after the window (no read-then-write, no clock shared between instances beyond the time
// itself), which is what lets several instances share one budget exactly. The cost is the usual
// fixed-window burst: up to 2×limit across a window boundary; the spec asks for "per minute".
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { MemoryStore } from './memoryStore.js';
import { RedisStore } from './redisStore.js';
import { type CounterStore, FailoverStore } from './store.js';

/**
 * - perMinute: RATE_LIMIT_PER_MINUTE per organization per endpoint pattern.
 * - callRequestPoll: CALL_REQUEST_READS_PER_SECOND per credential owner, all call-request polls together.
 * - unauthenticated: failed authentications per client address per minute.
 */
export type Budget = 'perMinute' | 'callRequestPoll' | 'unauthenticated';

/** What a refusal is counted under (metrics): a budget, or the minimum interval between polls of one call request. */
export type Refusal = Budget | 'callRequestPollInterval';

export interface Decision {
  allowed: boolean;
  /** The count after this request (this instance's own count while Redis is down). */
  count: number;
  limit: number;
  remaining: number;
  /** End of the current window, epoch milliseconds (a whole second). */
  resetAt: number;
  /** Whole seconds until the window ends, at least 1 (Retry-After). */
  retryAfter: number;
  windowMs: number;
}

export class RateLimiter {
  readonly store: FailoverStore;
  /** Decisions that said no, since start (GET /metrics reads them). */
  readonly refusals: Record<Refusal, number> = { perMinute: 0, callRequestPoll: 0, unauthenticated: 0, callRequestPollInterval: 0 };

  constructor(
    inner: CounterStore,
    private readonly config: Pick<
      Config,
      'rateLimitPerMinute' | 'callRequestReadsPerSecond' | 'callRequestMinPollSeconds' | 'unauthenticatedRateLimitPerMinute'
    >,
    private readonly clock: () => Date,
    logger: Logger,
  ) {
    this.store = new FailoverStore(inner, logger);
  }

  budget(budget: Budget): { limit: number; windowMs: number } {
    switch (budget) {
      case 'perMinute':
        return { limit: this.config.rateLimitPerMinute, windowMs: 60_000 };
      case 'callRequestPoll':
        return { limit: this.config.callRequestReadsPerSecond, windowMs: 1_000 };
      case 'unauthenticated':
        return { limit: this.config.unauthenticatedRateLimitPerMinute, windowMs: 60_000 };
    }
  }

  /**
   * Counts one request of `subject` (an organization id or a client address) on `pattern` (e.g.
   * "GET /v1/organizations/:orgId") and decides: the n-th request of a window is allowed while n ≤ limit.
   */
  async hit(budget: Budget, subject: string, pattern: string): Promise<Decision> {
    const { limit, windowMs } = this.budget(budget);
    const now = this.clock().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    // rejected requests count too: harmless in a fixed window, and it keeps the decision one INCR
    const count = await this.store.increment(this.key(budget, subject, pattern, start), 2 * windowMs);
    return this.counted(budget, this.decide(count, limit, windowMs, start, now, count <= limit));
  }

  /**
   * hit, decided at once when the counters are in this process's memory (no promise: the cached reads
   * call this on every request); undefined when they are in Redis (then call hit).
   */
  hitNow(budget: Budget, subject: string, pattern: string): Decision | undefined {
    if (!this.store.synchronous) return undefined;
    const { limit, windowMs } = this.budget(budget);
    const now = this.clock().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    const count = this.store.incrementNow(this.key(budget, subject, pattern, start), 2 * windowMs)!;
    return this.counted(budget, this.decide(count, limit, windowMs, start, now, count <= limit));
  }

  /** The decision the next request would get, without counting it (unauthenticated pre-check). */
  async peek(budget: Budget, subject: string, pattern: string): Promise<Decision> {
    const { limit, windowMs } = this.budget(budget);
    const now = this.clock().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    const count = await this.store.get(this.key(budget, subject, pattern, start));
    // every caller of peek refuses the request when it says no, so a no is a refusal here too
    return this.counted(budget, this.decide(count, limit, windowMs, start, now, count < limit));
  }

  /** peek, decided at once when the counters are in this process's memory; undefined otherwise (then call peek). */
  peekNow(budget: Budget, subject: string, pattern: string): Decision | undefined {
    if (!this.store.synchronous) return undefined;
    const { limit, windowMs } = this.budget(budget);
    const now = this.clock().getTime();
    const start = Math.floor(now / windowMs) * windowMs;
    const count = this.store.getNow(this.key(budget, subject, pattern, start))!;
    return this.counted(budget, this.decide(count, limit, windowMs, start, now, count < limit));
  }

  /** Seconds until the current window of `budget` ends (≥ 1). */
  retryAfter(budget: Budget): number {
    const { windowMs } = this.budget(budget);
    const now = this.clock().getTime();
    return Math.max(1, Math.ceil((Math.floor(now / windowMs) * windowMs + windowMs - now) / 1000));
  }

  /**
   * The minimum interval between two polls of one pending call request by one owner: answers 0 and
   * records this poll, or the whole seconds still to wait (≥ 1). A refused poll does not restart the
   * interval (otherwise a client polling a little too often would never get through).
   */
  async claimPoll(orgId: string, callRequestId: string): Promise<number> {
    const intervalMs = this.config.callRequestMinPollSeconds * 1000;
    const wait = await this.store.claimInterval(`poll:${orgId}:${callRequestId}`, this.clock().getTime(), intervalMs);
    if (wait <= 0) return 0;
    this.refusals.callRequestPollInterval++;
    return Math.max(1, Math.ceil(wait / 1000));
  }

  /** Forgets every counter of an in-memory store and of the fail-over counters (tests); a Redis store is left alone. */
  clear(): void {
    if (this.store.inner instanceof MemoryStore) this.store.inner.clear();
    this.store.fallback.clear();
  }

  close(): Promise<void> {
    return this.store.inner.close();
  }

  private key(budget: Budget, subject: string, pattern: string, windowStart: number): string {
    return `${budget}:${subject}:${pattern}:${windowStart}`;
  }

  private counted(budget: Budget, decision: Decision): Decision {
    if (!decision.allowed) this.refusals[budget]++;
    return decision;
  }

  private decide(count: number, limit: number, windowMs: number, start: number, now: number, allowed: boolean): Decision {
    const resetAt = start + windowMs;
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    return { allowed, count, limit, remaining: Math.max(0, limit - count), resetAt, retryAfter, windowMs };
  }
}

export type RateLimitConfig = Pick<
  Config,
  | 'redisUrl'
  | 'rateLimitKeyPrefix'
  | 'rateLimitPerMinute'
  | 'callRequestReadsPerSecond'
  | 'callRequestMinPollSeconds'
  | 'unauthenticatedRateLimitPerMinute'
>;

/** In memory, or in Redis when `redisUrl` is set. Close it with `close()`. */
export function createRateLimiter(config: RateLimitConfig, logger: Logger, clock: () => Date): RateLimiter {
  if (!config.redisUrl) return new RateLimiter(new MemoryStore(), config, clock, logger);
  // the store reports its failures to the limiter made with it (none before the limiter exists)
  const made: { limiter?: RateLimiter } = {};
  const redis = new RedisStore({
    url: config.redisUrl,
    keyPrefix: config.rateLimitKeyPrefix,
    onError: (err) => made.limiter?.store.reportFailure(err),
  });
  return (made.limiter = new RateLimiter(redis, config, clock, logger));
}
