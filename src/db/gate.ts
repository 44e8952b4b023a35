// The bound on work waiting for the database (issue: graceful overload). Every statement (or a whole
// transaction) takes a slot; at most `maxConcurrent` run at once (the connection pool's size: more
// would only queue inside the driver, where nothing bounds it), at most `maxWaiting` wait, and none
// waits longer than `queueTimeoutMs`. Past either bound the caller gets DatabaseUnavailable at once,
// which both surfaces answer as 503 + Retry-After (domain/shared/databaseErrors.ts maps it) — so under overload the database keeps working at
// full speed on the work it accepted, and requests that need no database (warm cached reads,
// /healthz) are not stuck behind a queue that only grows.
//
// A connection-level failure (database down) opens a short breaker: for `breakerMs` every statement
// fails at once instead of each waiting for a connection timeout; then one is let through again.

export type UnavailableReason = 'overloaded' | 'timeout' | 'unreachable';

/** Thrown (and kept as `code` by Prisma) when the database cannot take or finish the work in time. */
export class DatabaseUnavailableError extends Error {
  static readonly CODE = 'OCS_DATABASE_UNAVAILABLE';
  readonly code = DatabaseUnavailableError.CODE;
  constructor(
    readonly reason: UnavailableReason,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

export interface GateOptions {
  maxConcurrent: number;
  maxWaiting: number;
  queueTimeoutMs: number;
  /** How long statements fail fast after the database was found unreachable. */
  breakerMs: number;
}

export interface GateStats {
  active: number;
  waiting: number;
  /** Totals since start, for metrics. */
  admitted: number;
  refused: number;
  timedOut: number;
  /** Sum of the milliseconds admitted work waited for a slot. */
  waitedMs: number;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

export class DatabaseGate {
  private active = 0;
  private readonly queue: Waiter[] = [];
  private brokenUntil = 0;
  private lastAnsweredAt = -Infinity;
  private readonly totals = { admitted: 0, refused: 0, timedOut: 0, waitedMs: 0 };

  constructor(readonly options: GateOptions) {}

  stats(): GateStats {
    return { active: this.active, waiting: this.queue.length, ...this.totals };
  }

  /** Runs `work` in a slot; the slot is held until `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Waits for a slot and answers its release function (called exactly once). */
  async acquire(): Promise<() => void> {
    if (Date.now() < this.brokenUntil) {
      this.totals.refused++;
      throw new DatabaseUnavailableError('unreachable', 'The database is unreachable; retry shortly');
    }
    const started = performance.now();
    if (this.active < this.options.maxConcurrent && this.queue.length === 0) {
      this.active++;
    } else {
      if (this.queue.length >= this.options.maxWaiting) {
        this.totals.refused++;
        throw new DatabaseUnavailableError('overloaded', 'The service is overloaded; retry shortly');
      }
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          admit: () => {
            clearTimeout(waiter.timer);
            resolve();
          },
          timer: setTimeout(() => {
            const at = this.queue.indexOf(waiter);
            if (at >= 0) this.queue.splice(at, 1);
            this.totals.timedOut++;
            reject(
              new DatabaseUnavailableError('overloaded', 'The service is overloaded (waited too long for the database); retry shortly'),
            );
          }, this.options.queueTimeoutMs),
        };
        this.queue.push(waiter);
      });
    }
    this.totals.admitted++;
    this.totals.waitedMs += performance.now() - started;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next)
        next.admit(); // the slot passes on: `active` stays the same
      else this.active--;
    };
  }

  /** Called when a statement failed because the database could not be reached. */
  reportUnreachable(): void {
    this.brokenUntil = Date.now() + this.options.breakerMs;
  }

  /** Called when the database answered a statement (whatever the answer). */
  reportAnswered(): void {
    this.lastAnsweredAt = Date.now();
  }

  /** True when the database answered within the last `ms` and has not been found unreachable since. */
  answeredWithin(ms: number): boolean {
    return Date.now() - this.lastAnsweredAt <= ms && Date.now() >= this.brokenUntil;
  }
}
