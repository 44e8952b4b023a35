// The SQL of src/db, and the one type every folder's sql.ts runs its statements on. Each folder that
// speaks SQL (src/domain/<context>/, src/readmodel, src/changes, src/jobs) keeps its statements in one
// sql.ts, so a reader finds every statement that touches a table, and its column list, in one place.
import { Prisma } from '../generated/prisma/client.js';

/** What a sql.ts function runs its statements on: the client, or a transaction's client. */
export type SqlRunner = Pick<Prisma.TransactionClient, '$queryRaw' | '$executeRaw'>;

/** The liveness probe a health check sends outside the gate. */
export const PING = 'SELECT 1';

/**
 * A timestamp column (stored without a zone, in UTC) as an ISO instant with its Z, for JSON built in SQL: json_build_object
 * would write it without a zone, which `new Date` reads in the process's own zone.
 */
export function jsonInstant(column: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A json column of a raw statement's row (the drivers answer it parsed, or as its text). */
export function jsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The migrations recorded as applied and not rolled back (migrations.ts compares them with prisma/migrations). */
export function appliedMigrations(
  db: Pick<Prisma.TransactionClient, '$queryRaw'>,
): Promise<{ migration_name: string; checksum: string }[]> {
  return db.$queryRaw`SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
}
