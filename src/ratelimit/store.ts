// The one place rate-limit counters live. Every decision (REST step, GraphQL wrapper, call-request
// polling, unauthenticated floods) is one atomic operation on this store, so that several instances
// sharing one Redis share one budget exactly: there is no read-then-write anywhere on the hot path.
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';

export interface CounterStore {
  readonly kind: 'memory' | 'redis';
  /** Adds one to `key` atomically and answers the new count; a new key lives `ttlMs`. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** The current count of `key` (0 when absent). */
  get(key: string): Promise<number>;
  /**
   * Atomically: when the mark at `key` is absent or at least `intervalMs` older than `nowMs`, sets it
   * to `nowMs` and answers 0; otherwise leaves it and answers the milliseconds still to wait.
   */
  claimInterval(key: string, nowMs: number, intervalMs: number): Promise<number>;
  /** Resolves once the store can answer (Redis connected), or after `timeoutMs` in any case. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A store that never throws: when the backing store fails (Redis down), operations answer `null`
 * ("unknown") and the limiter lets the request through — the service keeps serving (fail open).
 * The warning is itself rate-limited (one line per `warnEveryMs`, with the number of failures
 * since), and a line is logged when the store answers again.
 */
export class FailOpenStore {
  private failing = false;
  private lastWarnAt = -Infinity;
  private suppressed = 0;

  constructor(
    readonly inner: CounterStore,
    private readonly logger: Logger,
    private readonly warnEveryMs = 30_000,
  ) {}

  increment(key: string, ttlMs: number): Promise<number | null> {
    return this.guard(() => this.inner.increment(key, ttlMs));
  }
  get(key: string): Promise<number | null> {
    return this.guard(() => this.inner.get(key));
  }
  claimInterval(key: string, nowMs: number, intervalMs: number): Promise<number | null> {
    return this.guard(() => this.inner.claimInterval(key, nowMs, intervalMs));
  }

  /** Reports a failure seen outside a command (e.g. the Redis connection's error events). */
  reportFailure(err: unknown): void {
    this.failing = true;
    // real time, not the app clock: this paces log lines, it decides nothing
    const now = Date.now();
    if (now - this.lastWarnAt < this.warnEveryMs) {
      this.suppressed++;
      return;
    }
    this.logger.warn('rate-limit store unavailable; serving without rate limits until it returns', {
      store: this.inner.kind,
      ...errorFields(err),
      stack: undefined,
      failuresSinceLastWarning: this.suppressed,
    });
    this.lastWarnAt = now;
    this.suppressed = 0;
  }

  private async guard<T>(op: () => Promise<T>): Promise<T | null> {
    try {
      const value = await op();
      if (this.failing) {
        this.failing = false;
        this.logger.info('rate-limit store available again', { store: this.inner.kind });
      }
      return value;
    } catch (err) {
      this.reportFailure(err);
      return null;
    }
  }
}
