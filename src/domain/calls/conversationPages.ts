// Keyset pages of conversations: the rows after a position in the list's order (newest startTime
// first, ties by id), read from the indexes (orgId, archived, startTime desc, id) and
// (botId, archived, startTime desc, id) of prisma/schema.prisma. A page deep in the list costs what the
// first page costs: each index is entered at the position and read for one page, never skipped through.
//
// A list may span several index ranges (archived and not with includeArchived). Each range is one
// branch of a UNION ALL, read in index order for at most one page; the union is then cut to the page.
// An account's list with includeChildren is one range per archived state over the account and its
// children, named through the parent relation (`orgId IN (SELECT … WHERE parentId = account)`): the
// statement has the same size for 2 locations or 20,000, and the keyset condition still bounds every
// index read to the rows after the position.
import { Prisma } from '../../generated/prisma/client.js';
import type { Conversation } from '../../generated/prisma/client.js';
import type { Db } from '../../db/client.js';

/**
 * One index range: a single organization's (or one of its bots') conversations, archived or not; with
 * `withChildren`, those of the organization and of all its child organizations; `where` narrows the rows.
 */
export type ConversationRange = { orgId: string; archived: boolean; botId?: string; withChildren?: boolean; where?: ConversationRowFilter };

/** Further conditions on the rows of a range (the list's medium, status and startTime filters). */
export interface ConversationRowFilter {
  medium?: string;
  status?: string;
  /** startTime ≥ from, < to (epoch ms). */
  from?: number;
  to?: number;
}

function rowFilterSql(filter: ConversationRowFilter | undefined): Prisma.Sql {
  if (!filter) return Prisma.empty;
  const parts: Prisma.Sql[] = [];
  if (filter.medium) parts.push(Prisma.sql`AND "medium"::text = ${filter.medium}`);
  if (filter.status) parts.push(Prisma.sql`AND "status"::text = ${filter.status}`);
  if (filter.from !== undefined) parts.push(Prisma.sql`AND "startTime" >= ${new Date(filter.from).toISOString()}::timestamp(3)`);
  if (filter.to !== undefined) parts.push(Prisma.sql`AND "startTime" < ${new Date(filter.to).toISOString()}::timestamp(3)`);
  return parts.length === 0 ? Prisma.empty : Prisma.join(parts, ' ');
}

/** Where a page ends: the last row's startTime (epoch ms) and id. */
export interface ConversationPosition {
  t: number;
  i: string;
}

export function positionOf(row: Pick<Conversation, 'startTime' | 'id'>): ConversationPosition {
  return { t: row.startTime.getTime(), i: row.id };
}

/** A row count as SQL: as text cast to bigint, since offset + limit may pass the 32-bit range a bare number would be sent in. */
const count = (n: number) => Prisma.sql`${String(n)}::bigint`;

function rangeQuery(range: ConversationRange, after: ConversationPosition | undefined, take: number): Prisma.Sql {
  const owner = range.botId
    ? Prisma.sql`"botId" = ${range.botId}::uuid AND "orgId" = ${range.orgId}::uuid`
    : range.withChildren
      ? Prisma.sql`"orgId" IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${range.orgId}::uuid OR o."parentId" = ${range.orgId}::uuid)`
      : Prisma.sql`"orgId" = ${range.orgId}::uuid`;
  // "after (t, i)" in (startTime desc, id asc) order. The first condition bounds the index scan (it
  // starts at t); the second drops the rows at t up to and including i.
  const keyset = after
    ? Prisma.sql`AND "startTime" <= ${new Date(after.t).toISOString()}::timestamp(3) AND ("startTime" < ${new Date(after.t).toISOString()}::timestamp(3) OR "id" > ${after.i}::uuid)`
    : Prisma.empty;
  return Prisma.sql`(SELECT * FROM "Conversation" WHERE ${owner} AND "archived" = ${range.archived} ${rowFilterSql(range.where)} ${keyset} ORDER BY "startTime" DESC, "id" ASC LIMIT ${count(take)})`;
}

/**
 * The SQL of one page (exported so that a test can EXPLAIN exactly what runs): `take` rows after
 * `after`, or, for an offset page, after skipping `skip` rows (each range then reads skip + take rows
 * in index order: an offset page still costs its offset, but never sorts the whole list).
 */
export function conversationPageQuery(
  ranges: readonly ConversationRange[],
  after: ConversationPosition | undefined,
  take: number,
  skip = 0,
): Prisma.Sql {
  return Prisma.sql`SELECT * FROM (${Prisma.join(
    ranges.map((r) => rangeQuery(r, after, skip + take)),
    ' UNION ALL ',
  )}) AS page ORDER BY "startTime" DESC, "id" ASC LIMIT ${count(take)} OFFSET ${count(skip)}`;
}

/** Up to `take` conversations after `after` (from the start without it), in list order. */
export async function conversationsAfter(
  db: Db,
  ranges: readonly ConversationRange[],
  after: ConversationPosition | undefined,
  take: number,
): Promise<Conversation[]> {
  if (ranges.length === 0) return [];
  return db.$queryRaw<Conversation[]>(conversationPageQuery(ranges, after, take));
}
