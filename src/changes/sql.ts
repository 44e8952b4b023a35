// The change feed's statements: where the event log ends, the events a reader (the change feed's tail, the live
// subscriptions' reader) reads next, and the
// LISTEN/NOTIFY of the PostgreSQL notice channel (on a pg client of its own, not Prisma's).
import { Prisma } from '../generated/prisma/client.js';
import type { SqlRunner } from '../db/sql.js';
import type { LogPosition } from './logPosition.js';

/**
 * The events a reader at `position` reads next, as rows of `columns` of "Event" (each reader selects what
 * it needs; order them by seq and keep the first `limit`): those after the highest read, in order, and
 * the gaps. Two index scans of "Event"("seq"): written as one condition (`seq > read OR seq = ANY(gaps)`),
 * PostgreSQL walks the whole index filtering each entry, a read that grows with the log.
 */
export function unreadEvents(position: LogPosition, columns: Prisma.Sql, limit: number): Prisma.Sql {
  return Prisma.sql`(SELECT ${columns} FROM "Event" WHERE "seq" > ${position.read}::bigint ORDER BY "seq" LIMIT ${limit})
    UNION ALL (SELECT ${columns} FROM "Event" WHERE "seq" = ANY(${position.gapsToRead()}::bigint[]))`;
}

/** The highest seq of the event log (null when it is empty), as text: a bigint. */
export async function lastEventSeq(db: SqlRunner): Promise<string | null> {
  const [row] = await db.$queryRaw<{ seq: string | null }[]>`SELECT max("seq")::text AS "seq" FROM "Event"`;
  return row?.seq ?? null;
}

/** What the change feed needs of an event: its type, organization, and the parent of a location made, archived or brought back. */
export interface ChangeEventRow {
  seq: string;
  type: string;
  orgId: string;
  parentId: string | null;
}

/** The next `limit` events a reader at `position` has not read, in seq order. */
export function unreadChangeEvents(db: SqlRunner, position: LogPosition, limit: number): Promise<ChangeEventRow[]> {
  return db.$queryRaw`
    WITH ev AS (${unreadEvents(position, Prisma.sql`"seq", "type", "orgId", "data"`, limit)})
    SELECT "seq"::text AS "seq", "type", "orgId"::text AS "orgId",
           CASE WHEN "type" IN ('organization.created', 'organization.archived', 'organization.unarchived') THEN "data"->>'parentId' END AS "parentId"
    FROM ev ORDER BY "seq" LIMIT ${limit}`;
}

/** The highest `count` seqs of the event log, ascending: where a live reader starts (liveEvents.ts). */
export async function recentEventSeqs(db: SqlRunner, count: number): Promise<number[]> {
  const rows = await db.$queryRaw<{ seq: string }[]>`
    SELECT "seq"::text AS "seq" FROM (SELECT "seq" FROM "Event" ORDER BY "seq" DESC LIMIT ${count}) r ORDER BY "seq"`;
  return rows.map((row) => Number(row.seq));
}

/** An event as a reader that delivers it reads it (the live subscriptions' reader, the webhook dispatcher). */
export interface LogEventRow {
  seq: string;
  id: string;
  type: string;
  orgId: string;
  occurredAt: Date;
  /** The resource as answered after the change; the live reader reads it only for the organizations watched (null otherwise). */
  data: unknown;
}

/**
 * The next `limit` events a live reader at `position` has not read, in seq order; the data (the resource as
 * answered) is read only for the events of `orgIds`, the organizations someone watches.
 */
export function unreadLiveEvents(db: SqlRunner, position: LogPosition, orgIds: readonly string[], limit: number): Promise<LogEventRow[]> {
  return db.$queryRaw`
    WITH ev AS (${unreadEvents(position, Prisma.sql`"seq", "id", "type", "orgId", "occurredAt", "data"`, limit)})
    SELECT "seq"::text AS "seq", "id"::text AS "id", "type", "orgId"::text AS "orgId", "occurredAt",
           CASE WHEN "orgId" = ANY(${[...orgIds]}::uuid[]) THEN "data" END AS "data"
    FROM ev ORDER BY "seq" LIMIT ${limit}`;
}

/** What the notice channel's statements run on: a pg client. */
interface PgQuery {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** Listens on `channel` (an identifier the service chose, never input: LISTEN takes no parameter). */
export async function listen(client: PgQuery, channel: string): Promise<void> {
  await client.query(`LISTEN ${channel}`);
}

/** Sends `text` on `channel`. */
export async function notify(client: PgQuery, channel: string, text: string): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [channel, text]);
}
