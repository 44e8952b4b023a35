// Keyset pages of conversations: the rows after a position in the list's order (newest startTime
// first, ties by id), read from the indexes (orgId, archived, startTime desc, id) and
// (botId, archived, startTime desc, id) of prisma/schema.prisma. A page deep in the list costs what the
// first page costs: each index is entered at the position and read for one page, never skipped through.
//
// A list may span several index ranges (several organizations with includeChildren; archived and not
// with includeArchived). Each range is one branch of a UNION ALL, read in index order for at most one
// page; the union is then cut to the page. So the cost is (branches × page size) rows, whatever the depth.
import { Prisma } from '../generated/prisma/client.js';
import type { Conversation } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';

/** One index range: a single organization's (or bot's) conversations, archived or not. */
export type ConversationRange = { orgId: string; archived: boolean } | { botId: string; archived: boolean };

/** Where a page ends: the last row's startTime (epoch ms) and id. */
export interface ConversationPosition {
  t: number;
  i: string;
}

export function positionOf(row: Pick<Conversation, 'startTime' | 'id'>): ConversationPosition {
  return { t: row.startTime.getTime(), i: row.id };
}

function rangeQuery(range: ConversationRange, after: ConversationPosition | undefined, take: number): Prisma.Sql {
  const owner = 'botId' in range ? Prisma.sql`"botId" = ${range.botId}::uuid` : Prisma.sql`"orgId" = ${range.orgId}::uuid`;
  // "after (t, i)" in (startTime desc, id asc) order. The first condition bounds the index scan (it
  // starts at t); the second drops the rows at t up to and including i.
  const keyset = after
    ? Prisma.sql`AND "startTime" <= ${new Date(after.t).toISOString()}::timestamp(3) AND ("startTime" < ${new Date(after.t).toISOString()}::timestamp(3) OR "id" > ${after.i}::uuid)`
    : Prisma.empty;
  return Prisma.sql`(SELECT * FROM "Conversation" WHERE ${owner} AND "archived" = ${range.archived} ${keyset} ORDER BY "startTime" DESC, "id" ASC LIMIT ${take})`;
}

/** The SQL of one page (exported so that a test can EXPLAIN exactly what runs). */
export function conversationPageQuery(ranges: readonly ConversationRange[], after: ConversationPosition | undefined, take: number): Prisma.Sql {
  return Prisma.sql`SELECT * FROM (${Prisma.join(
    ranges.map((r) => rangeQuery(r, after, take)),
    ' UNION ALL ',
  )}) AS page ORDER BY "startTime" DESC, "id" ASC LIMIT ${take}`;
}

/** Up to `take` conversations after `after` (from the start without it), in list order. */
export async function conversationsAfter(db: Db, ranges: readonly ConversationRange[], after: ConversationPosition | undefined, take: number): Promise<Conversation[]> {
  if (ranges.length === 0) return [];
  return db.$queryRaw<Conversation[]>(conversationPageQuery(ranges, after, take));
}
