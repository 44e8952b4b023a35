// In-process counters: the default, exact for one instance. Node runs one request's store call at a
// time, so a Map update is atomic here. Expired keys are swept now and then so memory stays bounded.
import type { CounterStore } from './store.js';

interface Entry {
  value: number;
  expiresAt: number;
}

export class MemoryStore implements CounterStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private operations = 0;

  /** `now` paces expiry only (window keys already carry their window); tests may replace it. */
  constructor(private readonly now: () => number = Date.now) {}

  // the store answers at once; the promises are CounterStore's shape, which Redis needs
  increment(key: string, ttlMs: number): Promise<number> {
    return Promise.resolve(this.incrementNow(key, ttlMs));
  }

  get(key: string): Promise<number> {
    return Promise.resolve(this.getNow(key));
  }

  /** increment, answered at once (FailoverStore's synchronous path: a cached read makes no promise for its budgets). */
  incrementNow(key: string, ttlMs: number): number {
    const now = this.now();
    this.sweepNowAndThen(now);
    const entry = this.live(key, now);
    if (entry) {
      entry.value += 1;
      return entry.value;
    }
    this.entries.set(key, { value: 1, expiresAt: now + ttlMs });
    return 1;
  }

  /** get, answered at once. */
  getNow(key: string): number {
    return this.live(key, this.now())?.value ?? 0;
  }

  claimInterval(key: string, nowMs: number, intervalMs: number): Promise<number> {
    return Promise.resolve(this.claimIntervalNow(key, nowMs, intervalMs));
  }

  private claimIntervalNow(key: string, nowMs: number, intervalMs: number): number {
    const now = this.now();
    this.sweepNowAndThen(now);
    const entry = this.live(key, now);
    if (entry) {
      const elapsed = nowMs - entry.value;
      // a mark "in the future" (the clock went back) waits the whole interval rather than none
      if (elapsed < intervalMs) return Math.min(intervalMs, intervalMs - elapsed);
    }
    this.entries.set(key, { value: nowMs, expiresAt: now + 2 * intervalMs });
    return 0;
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  ready(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }

  /** Forgets every counter (tests: a fresh budget per case). */
  clear(): void {
    this.entries.clear();
  }

  /** Number of keys held (tests: the sweep keeps memory bounded). */
  get size(): number {
    return this.entries.size;
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweepNowAndThen(now: number): void {
    if (++this.operations % 1000 !== 0) return;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
