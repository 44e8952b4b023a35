// Every SQL statement the service sends passes through here, under the driver adapter Prisma talks to:
// the one place that bounds the work waiting for the database (gate.ts), puts a time limit on each
// statement, turns a lost connection into DatabaseUnavailableError (503), and tells an observer about
// each statement (metrics; the statement-count test).
//
// A transaction takes one slot for its whole life and its statements take none: a transaction that
// holds a connection must never wait behind work that waits for that connection.
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { type DatabaseGate, DatabaseUnavailableError } from './gate.js';

export interface StatementEvent {
  sql: string;
  /** Milliseconds the statement ran (after it got its slot). */
  durationMs: number;
  /** Milliseconds it waited for a slot (0 inside a transaction). */
  waitedMs: number;
  /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT…: transaction control, which some drivers send as statements and others do not. */
  control: boolean;
  error?: unknown;
}

export interface DatabaseObserver {
  onStatement(event: StatementEvent): void;
  /**
   * Events were committed to the log: after the commit of a transaction that inserted into "Event", or
   * after such a statement outside a transaction. The job queue looks at once for the webhooks they call
   * for, whatever the write was (not every write publishes a change that would wake it).
   */
  onEventsCommitted?(): void;
}

/** A statement that appends to the event log (Prisma's INSERT, or one of the log's own statements). */
const EVENT_INSERT = /INSERT INTO (?:"public"\.)?"Event"/;

export interface InstrumentOptions {
  gate: DatabaseGate;
  /** A statement that takes longer fails with DatabaseUnavailableError('timeout'). */
  statementTimeoutMs: number;
  observers: Set<DatabaseObserver>;
}

/** Driver errors that mean the database cannot be reached (rather than a bad statement). */
export function isConnectionFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const kind = (e as { cause?: { kind?: string } }).cause?.kind ?? (e as { kind?: string }).kind;
    if (kind === 'DatabaseNotReachable' || kind === 'ConnectionClosed' || kind === 'SocketTimeout' || kind === 'TooManyConnections')
      return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03'].includes(code))
      return true;
    const message = e instanceof Error ? e.message : '';
    if (
      /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error/i.test(
        message,
      )
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** PostgreSQL cancelled the statement: its statement_timeout (57014, query_canceled). */
export function isServerTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown; originalCode?: unknown }).originalCode ?? (e as { code?: unknown }).code;
    if (code === '57014') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION|START TRANSACTION)\b/i;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseUnavailableError('timeout', `The database did not answer within ${ms} ms; retry shortly`)),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

class Instrumented {
  constructor(private readonly options: InstrumentOptions) {}

  private eventsCommitted(): void {
    for (const observer of this.options.observers) observer.onEventsCommitted?.();
  }

  /** Runs one statement: in a new slot (outside a transaction) or in the transaction's. */
  async statement<T>(query: SqlQuery, inTransaction: boolean, run: () => Promise<T>): Promise<T> {
    const { gate, statementTimeoutMs, observers } = this.options;
    const waitStart = performance.now();
    const release = inTransaction ? () => {} : await gate.acquire();
    const waitedMs = inTransaction ? 0 : performance.now() - waitStart;
    const started = performance.now();
    let error: unknown;
    const running = run();
    // the slot is held until the driver is really done, even when the caller stopped waiting
    running.then(release, release);
    try {
      const result = await withTimeout(running, statementTimeoutMs);
      gate.reportAnswered();
      return result;
    } catch (err) {
      error = err;
      if (isConnectionFailure(err)) {
        gate.reportUnreachable();
        throw new DatabaseUnavailableError('unreachable', 'The database is unreachable; retry shortly');
      }
      if (isServerTimeout(err))
        throw new DatabaseUnavailableError('timeout', `The database did not answer within ${statementTimeoutMs} ms; retry shortly`);
      if (!(err instanceof DatabaseUnavailableError)) gate.reportAnswered(); // an error answer is an answer
      throw err;
    } finally {
      const event: StatementEvent = {
        sql: query.sql,
        durationMs: performance.now() - started,
        waitedMs,
        control: TRANSACTION_CONTROL.test(query.sql),
        ...(error ? { error } : {}),
      };
      for (const observer of observers) observer.onStatement(event);
    }
  }

  /** A statement outside a transaction: committed once it answered. */
  private async alone<T>(q: SqlQuery, run: () => Promise<T>): Promise<T> {
    const result = await this.statement(q, false, run);
    if (EVENT_INSERT.test(q.sql)) this.eventsCommitted();
    return result;
  }

  transaction(tx: Transaction, release: () => void): Transaction {
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        release();
      }
    };
    // events appended in this transaction: told once it committed (by commit(), or a COMMIT statement)
    let wroteEvents = false;
    const committed = () => {
      if (wroteEvents) {
        wroteEvents = false;
        this.eventsCommitted();
      }
    };
    const inside = async <T>(q: SqlQuery, run: () => Promise<T>): Promise<T> => {
      const result = await this.statement(q, true, run);
      if (EVENT_INSERT.test(q.sql)) wroteEvents = true;
      else if (/^\s*COMMIT\b/i.test(q.sql)) committed();
      return result;
    };
    // arrow functions: `this` is the Instrumented, not the handler
    return new Proxy(tx, {
      get: (target, property, receiver) => {
        if (property === 'queryRaw') return (q: SqlQuery) => inside(q, () => target.queryRaw(q));
        if (property === 'executeRaw') return (q: SqlQuery) => inside(q, () => target.executeRaw(q));
        if (property === 'commit' || property === 'rollback') {
          const end = property === 'commit' ? () => target.commit() : () => target.rollback();
          return async () => {
            try {
              const result = await end();
              if (property === 'commit') committed();
              return result;
            } finally {
              finish();
            }
          };
        }
        return forwarded(target, property, receiver);
      },
    });
  }

  adapter(inner: SqlDriverAdapter): SqlDriverAdapter {
    return new Proxy(inner, {
      get: (target, property, receiver) => {
        if (property === 'queryRaw') return (q: SqlQuery): Promise<SqlResultSet> => this.alone(q, () => target.queryRaw(q));
        if (property === 'executeRaw') return (q: SqlQuery): Promise<number> => this.alone(q, () => target.executeRaw(q));
        if (property === 'startTransaction') {
          return async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
            const release = await this.options.gate.acquire();
            try {
              return this.transaction(await withTimeout(target.startTransaction(...args), this.options.statementTimeoutMs), release);
            } catch (err) {
              release();
              if (isConnectionFailure(err)) {
                this.options.gate.reportUnreachable();
                throw new DatabaseUnavailableError('unreachable', 'The database is unreachable; retry shortly');
              }
              throw err;
            }
          };
        }
        return forwarded(target, property, receiver);
      },
    });
  }
}

/** The factory Prisma gets: the same adapter, every statement gated, timed and observed. */
export function instrumentAdapterFactory(
  factory: SqlMigrationAwareDriverAdapterFactory,
  options: InstrumentOptions,
): SqlMigrationAwareDriverAdapterFactory {
  const instrumented = new Instrumented(options);
  return new Proxy(factory, {
    get(target, property, receiver) {
      if (property === 'connect') return async () => instrumented.adapter(await target.connect());
      return forwarded(target, property, receiver);
    },
  });
}

/** A property of a proxied object as the proxy hands it out: its methods bound to the object itself. */
function forwarded(target: object, property: string | symbol, receiver: unknown): unknown {
  const value: unknown = Reflect.get(target, property, receiver);
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
