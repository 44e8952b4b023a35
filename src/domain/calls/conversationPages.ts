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
// index read to the rows after the position. The statements are in sql.ts (conversationPageQuery).
import type { Conversation } from '../../generated/prisma/client.js';

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

/** Where a page ends: the last row's startTime (epoch ms) and id. */
export interface ConversationPosition {
  t: number;
  i: string;
}

export function positionOf(row: Pick<Conversation, 'startTime' | 'id'>): ConversationPosition {
  return { t: row.startTime.getTime(), i: row.id };
}
