// The job queue's statements on its "Job" table (lanes claim their own rows with their own statements).
import { Prisma } from '../generated/prisma/client.js';
import type { SqlRunner } from '../db/sql.js';

/** A claimed job as the queue hands it to its handler. */
export interface JobRow {
  id: string;
  kind: string;
  payload: unknown;
  /** Attempts so far, this one included (1 on the first run). */
  attempts: number;
}

/**
 * Claims up to `limit` jobs of `kinds` due at `now` and not leased (FOR UPDATE SKIP LOCKED: another
 * instance skips them), leasing them until `lockedUntil` and counting the attempt.
 */
export function claimJobRows(db: SqlRunner, kinds: string[], limit: number, now: Date, lockedUntil: Date): Promise<JobRow[]> {
  return db.$queryRaw`
    UPDATE "Job" SET "lockedUntil" = ${lockedUntil.toISOString()}::timestamp(3), "attempts" = "attempts" + 1
    WHERE "id" IN (
      SELECT "id" FROM "Job"
      WHERE "runAt" <= ${now.toISOString()}::timestamp(3) AND "failedAt" IS NULL
        AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${now.toISOString()}::timestamp(3)) AND "kind" = ANY(${kinds}::text[])
      ORDER BY "runAt" LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING "id"::text AS "id", "kind", "payload", "attempts"`;
}

/** Deletes the jobs `ids` (done). */
export async function deleteJobRows(db: SqlRunner, ids: string[]): Promise<void> {
  await db.$executeRaw`DELETE FROM "Job" WHERE "id" = ANY(${ids}::uuid[])`;
}

/**
 * The INSERT of one job (times as ISO text, the payload as JSON text), for a caller's statement (queue.ts
 * jobInsertSql); with `when`, only when that condition holds as the statement runs.
 */
export function jobInsertStatement(
  id: string,
  kind: string,
  payload: string,
  runAt: string,
  createdAt: string,
  when: Prisma.Sql = Prisma.sql`true`,
): Prisma.Sql {
  return Prisma.sql`
      INSERT INTO "Job" ("id", "kind", "payload", "runAt", "createdAt")
      SELECT ${id}::uuid, ${kind}, ${payload}::jsonb, ${runAt}::timestamp(3), ${createdAt}::timestamp(3) WHERE ${when}
      RETURNING "id"`;
}
