// Every SQL statement of the organizations context, and the organization record's column list, which the
// read model's loader (src/readmodel/sql.ts) selects too.
import { Prisma } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';
import type { OrganizationRecord } from '../shared/readModel.js';

/** An organization record's own columns, of the row aliased `o` (its child count and first child ids are computed apart). */
export const ORGANIZATION_COLUMNS = Prisma.sql`o."id"::text AS "id", o."name", o."timezone", o."isAccount", o."communicationsEnabled",
  o."parentId"::text AS "parentId", o."createdAt", o."updatedAt"`;

/** Where a page of an account's children starts: after the child created at `t` with id `i`. */
export interface ChildKey {
  t: number;
  i: string;
}

/** Up to `take` children of `parentId`, in creation order, after `after` (a row comparison: the index is entered at the position). */
export function childrenAfter(
  db: SqlRunner,
  parentId: string,
  after: ChildKey | undefined,
  take: number,
): Promise<Omit<OrganizationRecord, 'childCount' | 'firstChildIds'>[]> {
  const keyset = after
    ? Prisma.sql`AND (o."createdAt", o."id") > (${new Date(after.t).toISOString()}::timestamp(3), ${after.i}::uuid)`
    : Prisma.empty;
  return db.$queryRaw`
    SELECT ${ORGANIZATION_COLUMNS}
    FROM "Organization" o
    WHERE o."parentId" = ${parentId}::uuid ${keyset}
    ORDER BY o."createdAt", o."id"
    LIMIT ${take}`;
}

/** Locks an organization's row (FOR UPDATE) and reads its name and zone (none when it is not there). */
export function lockOrganization(db: SqlRunner, orgId: string): Promise<{ name: string; timezone: string; updatedAt: Date }[]> {
  return db.$queryRaw`SELECT "name", "timezone", "updatedAt" FROM "Organization" WHERE "id" = ${orgId}::uuid FOR UPDATE`;
}
