// Every SQL statement of the organizations context, and the organization record's column list, which the
// read model's loader (src/readmodel/sql.ts) selects too.
import { Prisma } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';
import type { OrganizationRecord } from '../shared/readModel.js';

/** An organization record's own columns, of the row aliased `o` (its child count and first child ids are computed apart). */
export const ORGANIZATION_COLUMNS = Prisma.sql`o."id"::text AS "id", o."name", o."timezone", o."isAccount", o."communicationsEnabled",
  o."archivedAt", o."parentId"::text AS "parentId", o."createdAt", o."updatedAt"`;

/** Where a page of an account's children starts: after the child created at `t` with id `i`. */
export interface ChildKey {
  t: number;
  i: string;
}

/**
 * Up to `take` children of `parentId`, in creation order, after `after` (a row comparison: the index is entered at
 * the position); archived ones only when asked for.
 */
export function childrenAfter(
  db: SqlRunner,
  parentId: string,
  after: ChildKey | undefined,
  take: number,
  includeArchived: boolean,
): Promise<Omit<OrganizationRecord, 'childCount' | 'archivedChildCount' | 'firstChildIds'>[]> {
  const keyset = after
    ? Prisma.sql`AND (o."createdAt", o."id") > (${new Date(after.t).toISOString()}::timestamp(3), ${after.i}::uuid)`
    : Prisma.empty;
  const active = includeArchived ? Prisma.empty : Prisma.sql`AND o."archivedAt" IS NULL`;
  return db.$queryRaw`
    SELECT ${ORGANIZATION_COLUMNS}
    FROM "Organization" o
    WHERE o."parentId" = ${parentId}::uuid ${keyset} ${active}
    ORDER BY o."createdAt", o."id"
    LIMIT ${take}`;
}

/** What archiving decides from, its row locked (FOR UPDATE) until the transaction ends (none when it is not there). */
export function lockArchiveState(
  tx: SqlRunner,
  orgId: string,
): Promise<{ archivedAt: Date | null; isAccount: boolean; parentId: string | null }[]> {
  return tx.$queryRaw`
    SELECT "archivedAt", "isAccount", "parentId"::text AS "parentId" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR UPDATE`;
}

/**
 * An account's archived state, share-locked: creating a location under it, or bringing one back, waits for an archive
 * of the account in progress (which holds the row FOR UPDATE) and then sees what it decided.
 */
export function shareLockArchivedAt(tx: SqlRunner, orgId: string): Promise<{ archivedAt: Date | null }[]> {
  return tx.$queryRaw`SELECT "archivedAt" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR SHARE`;
}

/** How many of an account's locations are active (not archived). */
export function activeChildCount(tx: SqlRunner, parentId: string): Promise<{ active: number }[]> {
  return tx.$queryRaw`SELECT count(*)::int AS "active" FROM "Organization" WHERE "parentId" = ${parentId}::uuid AND "archivedAt" IS NULL`;
}

/** Locks an organization's row (FOR UPDATE) and reads its name and zone (none when it is not there). */
export function lockOrganization(db: SqlRunner, orgId: string): Promise<{ name: string; timezone: string; updatedAt: Date }[]> {
  return db.$queryRaw`SELECT "name", "timezone", "updatedAt" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR UPDATE`;
}
