// The one place rate-limit counters live. Every decision (REST step, GraphQL wrapper, call-request
// polling, unauthenticated floods) is one atomic operation on this store, so that several instances
// sharing one Redis share one budget exactly: there is no read-then-write anywhere on the hot path.
// While Redis is down, FailoverStore counts in memory (per instance) until it returns.
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { MemoryStore } from './memoryStore.js';

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
  /** Resolves when the store answers now, rejects when it does not (GET /healthz). */
  ping(): Promise<void>;
  /** Resolves once the store can answer (Redis connected), or after `timeoutMs` in any case. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A store that never throws: while the backing store fails (Redis down), each operation is answered by
 * an in-memory store of this instance instead, so the limits still hold per instance (with N instances
 * a client may get up to N × the budget) rather than not at all. Every operation tries the backing
 * store first (a dead Redis fails at once: no offline queue), so counting goes back to it as soon as it
 * answers; the counts made in memory meanwhile are not carried over. The warning is itself
 * rate-limited (one line per `warnEveryMs`, with the number of failures since), and a line is logged
 * when the backing store answers again.
 */
export class FailoverStore {
  private failing = false;
  private lastWarnAt = -Infinity;
  private suppressed = 0;
  /** The per-instance counters used while `inner` fails. */
  readonly fallback = new MemoryStore();

  constructor(
    readonly inner: CounterStore,
    private readonly logger: Logger,
    private readonly warnEveryMs = 30_000,
  ) {}

  increment(key: string, ttlMs: number): Promise<number> {
    return this.guard((store) => store.increment(key, ttlMs));
  }
  get(key: string): Promise<number> {
    return this.guard((store) => store.get(key));
  }
  claimInterval(key: string, nowMs: number, intervalMs: number): Promise<number> {
    return this.guard((store) => store.claimInterval(key, nowMs, intervalMs));
  }

  /** Whether incrementNow and getNow answer (the backing store is this process's memory). */
  get synchronous(): boolean {
    return this.inner instanceof MemoryStore;
  }

  /**
   * increment answered at once when the backing store is this process's memory (it cannot fail, so
   * there is nothing to fail over from); undefined otherwise (Redis: use increment).
   */
  incrementNow(key: string, ttlMs: number): number | undefined {
    return this.inner instanceof MemoryStore ? this.inner.incrementNow(key, ttlMs) : undefined;
  }
  /** get answered at once when the backing store is this process's memory; undefined otherwise. */
  getNow(key: string): number | undefined {
    return this.inner instanceof MemoryStore ? this.inner.getNow(key) : undefined;
  }

  /** True while the backing store fails and the counters are this instance's own. */
  get degraded(): boolean {
    return this.failing;
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
    this.logger.warn('rate-limit store unavailable; counting per instance until it returns', {
      store: this.inner.kind,
      ...errorFields(err),
      stack: undefined,
      failuresSinceLastWarning: this.suppressed,
    });
    this.lastWarnAt = now;
    this.suppressed = 0;
  }

  private async guard<T>(op: (store: CounterStore) => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await op(this.inner);
    } catch (err) {
      this.reportFailure(err);
      return op(this.fallback);
    }
    if (this.failing) {
      this.failing = false;
      this.logger.info('rate-limit store available again', { store: this.inner.kind });
    }
    return value;
  }
}
