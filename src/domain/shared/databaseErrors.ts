// The database's errors as the domain's: the gate (db/gate.ts) throws its own DatabaseUnavailableError
// and knows nothing of the domain; both surfaces map what they catch through asUnavailable, once.
import { DatabaseUnavailableError } from '../../db/gate.js';
import { Unavailable } from './errors.js';

/**
 * The domain error for a DatabaseUnavailableError, also when Prisma wrapped it (Prisma keeps the
 * adapter error's `code`); undefined for any other error.
 */
export function asUnavailable(err: unknown): Unavailable | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof Unavailable) return e;
    // Prisma's own transaction timeouts (waiting to start one, or a transaction that outlived its timeout)
    // are the database not keeping up, like the gate's: nothing was committed
    if ((e as { code?: unknown }).code === 'P2028') {
      return new Unavailable('The service is overloaded (a database transaction could not run in time); retry shortly', 1);
    }
    if ((e as { code?: unknown }).code === DatabaseUnavailableError.CODE) {
      const message =
        e instanceof DatabaseUnavailableError
          ? e.message
          : /retry shortly/.test(String((e as Error).message))
            ? lastLine((e as Error).message)
            : 'The database is unavailable; retry shortly';
      return new Unavailable(message, 1);
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Prisma puts its invocation report before the driver's message; the last line is ours. */
function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1]!.trim();
}

/**
 * True when the error is a unique index refusing a row (Prisma's P2002, or PostgreSQL's 23505 from a raw
 * statement), also when wrapped: the index, not a read before the insert, decides between two writes at once.
 */
export function isUniqueViolation(err: unknown): boolean {
  return hasCode(err, 'P2002', '23505');
}

/**
 * True when the error is a foreign key refusing a row (Prisma's P2003, or PostgreSQL's 23503), also when wrapped:
 * the row it refers to went away between the read and the write.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  return hasCode(err, 'P2003', '23503');
}

function hasCode(err: unknown, ...codes: string[]): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (codes.includes((e as { code?: unknown }).code as string)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
