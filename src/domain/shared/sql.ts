// The SQL the contexts share: the organization row's locks, which table holds an id, and the keyset of lists
// ordered by an instant.
import { Prisma } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';
import type { InstantIdPosition } from './pageCursors.js';

/**
 * Locks an organization's row against other limit checks (FOR NO KEY UPDATE: inserts of rows that
 * reference it are not blocked) for the rest of the transaction.
 */
export async function lockOrganizationNoKeyUpdate(tx: SqlRunner, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM "Organization" WHERE "id" = ${orgId}::uuid FOR NO KEY UPDATE`;
}

/** Locks the organization's row (FOR UPDATE) for the rest of the transaction. */
export async function lockOrganizationRow(tx: SqlRunner, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR UPDATE`;
}

/** The tables whose rows a global id (GraphQL `node`) may name: each keyed by a UUID primary key. */
export const NODE_TABLES = [
  'Organization',
  'Bot',
  'PhoneNumber',
  'Insurance',
  'WorkflowTemplate',
  'CallRequest',
  'CallBatch',
  'Conversation',
  'WebhookEndpoint',
  'Event',
] as const;
export type NodeTable = (typeof NODE_TABLES)[number];

/**
 * Which of NODE_TABLES holds each of `ids`, with the organization that owns the row and that one's parent (reach is
 * decided from them before anything else is read): one primary-key probe per table, in one statement. Ids found
 * nowhere are left out.
 */
export interface NodeTableRow {
  id: string;
  table: NodeTable;
  orgId: string;
  parentId: string | null;
}

export function tablesOfIds(db: SqlRunner, ids: readonly string[]): Promise<NodeTableRow[]> {
  const probes = NODE_TABLES.map((table) => {
    const owner = table === 'Organization' ? Prisma.raw('x."id"') : Prisma.raw('x."orgId"');
    return Prisma.sql`SELECT x."id"::text AS "id", ${table}::text AS "table", o."id"::text AS "orgId", o."parentId"::text AS "parentId"
      FROM ${Prisma.raw(`"${table}"`)} x JOIN "Organization" o ON o."id" = ${owner} WHERE x."id" = ANY(${[...ids]}::uuid[])`;
  });
  return db.$queryRaw`${Prisma.join(probes, ' UNION ALL ')}`;
}

/**
 * The rows after `after` in a list ordered by the instant `column` descending, ties by id ascending (a page's
 * keyset): the first condition bounds the index scan (it starts at t); the second drops the rows at t up to and
 * including i. Nothing without a position (the first page).
 */
export function afterInstantId(column: 'createdAt' | 'startTime', after: InstantIdPosition | undefined): Prisma.Sql {
  if (!after) return Prisma.empty;
  const at = new Date(after.t).toISOString();
  const col = Prisma.raw(`"${column}"`);
  return Prisma.sql`AND ${col} <= ${at}::timestamp(3) AND (${col} < ${at}::timestamp(3) OR "id" > ${after.i}::uuid)`;
}
