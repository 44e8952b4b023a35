// What the budgets' callers hand in (src/deps.ts's AppDeps holds every folder's deps): the limiter, and the
// configuration its messages quote.
import type { Config } from '../config.js';
import type { RateLimiter } from './limiter.js';

export interface RateLimitDeps {
  config: Config;
  /** Rate-limit budgets (spec §8), in memory or in Redis (limiter.ts). */
  rateLimit: RateLimiter;
}
