// Counters in Redis, shared by every instance. Each operation is ONE Lua script, which Redis runs
// atomically: INCR + PEXPIRE on the first hit of a window; GET + compare + SET for poll intervals.
// Commands fail fast while disconnected (no offline queue, no retries, a short timeout), so a dead
// Redis never stalls a request: the FailoverStore around this one counts in memory meanwhile.
import type { Redis } from 'ioredis';
import { ioredis } from '../optionalModules.js';
import type { CounterStore } from './store.js';

const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

// ARGV: now (ms, app clock), interval (ms), key lifetime (ms). Answers 0 (claimed) or ms to wait.
const CLAIM_INTERVAL = `
local prev = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
if prev then
  local elapsed = now - tonumber(prev)
  if elapsed < interval then return math.min(interval, interval - elapsed) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 0`;

type Scripted = Redis & {
  rlIncrement(key: string, ttlMs: number): Promise<number>;
  rlClaimInterval(key: string, nowMs: number, intervalMs: number, ttlMs: number): Promise<number>;
};

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key (several services or test runs can share one database). */
  keyPrefix: string;
  /** Called on connection errors (they are also retried in the background by ioredis). */
  onError?: (err: unknown) => void;
  /** Milliseconds a command may take before it fails (and the request is let through). */
  commandTimeoutMs?: number;
}

export class RedisStore implements CounterStore {
  readonly kind = 'redis' as const;
  readonly redis: Scripted;

  constructor(options: RedisStoreOptions) {
    const redis = new (ioredis().Redis)(options.url, {
      keyPrefix: options.keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      // keep reconnecting forever, at most every 2 s: the service recovers when Redis returns
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    redis.defineCommand('rlIncrement', { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand('rlClaimInterval', { numberOfKeys: 1, lua: CLAIM_INTERVAL });
    // without a listener an 'error' event would crash the process
    redis.on('error', (err) => options.onError?.(err));
    this.redis = redis as Scripted;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    return Number(await this.redis.rlIncrement(key, Math.max(1, Math.ceil(ttlMs))));
  }

  async get(key: string): Promise<number> {
    return Number((await this.redis.get(key)) ?? 0);
  }

  async claimInterval(key: string, nowMs: number, intervalMs: number): Promise<number> {
    return Number(await this.redis.rlClaimInterval(key, nowMs, intervalMs, 2 * intervalMs));
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  ready(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.once('ready', onReady);
    });
  }

  async close(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        /* fall through: drop the connection */
      }
    }
    this.redis.disconnect();
  }
}
