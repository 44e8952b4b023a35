// The lists the service answers whole (no paging) stay bounded because writes stop at a limit: a create
// past it is a 409 naming the limit, on both surfaces. Lists that can grow without bound are paged
// instead (conversations, an account's children). Bots, phone numbers and insurances are not created
// through the service; office hours are at most one per weekday.
import type { Prisma } from '../../generated/prisma/client.js';
import { Conflict } from './errors.js';

/** Interactive transactions wait for one another on the embedded database (one connection). */
export const LIMIT_TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 20_000 };

export const LIST_LIMITS = {
  /** Closures per organization (past ones count until deleted). */
  closures: 500,
  /** Workflow templates per organization. */
  templates: 200,
  /** Workflows per bot. */
  workflows: 500,
} as const;

const NAMES: Record<keyof typeof LIST_LIMITS, [owner: string, items: string]> = {
  closures: ['An organization', 'closures'],
  templates: ['An organization', 'templates'],
  workflows: ['A bot', 'workflows'],
};

/**
 * Throws Conflict when `current + adding` would pass the list's limit. Callers count within the
 * transaction that writes, with the owner's row locked, so that concurrent creates cannot pass it together.
 */
export function assertRoomFor(list: keyof typeof LIST_LIMITS, current: number, adding = 1): void {
  const limit = LIST_LIMITS[list];
  if (current + adding > limit) {
    const [owner, items] = NAMES[list];
    throw new Conflict(`${owner} may have at most ${limit} ${items} (this one has ${current}); delete some before adding more`);
  }
}

/**
 * Locks an organization's row against other limit checks (FOR NO KEY UPDATE: inserts of rows that
 * reference it are not blocked) for the rest of the transaction.
 */
export async function lockOrganizationForLimit(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM "Organization" WHERE "id" = ${orgId}::uuid FOR NO KEY UPDATE`;
}
