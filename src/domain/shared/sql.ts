// The SQL the contexts share: the organization row's locks.
import type { SqlRunner } from '../../db/sql.js';

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
