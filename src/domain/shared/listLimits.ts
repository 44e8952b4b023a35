// The lists the service answers whole (no paging) stay bounded because writes stop at a limit: a create
// past it is a 409 naming the limit, on both surfaces. Lists that can grow without bound are paged
// instead (conversations, an account's children). Bots are not created through the service; office hours
// are at most one per weekday. Every limit of an organization is counted under one lock of its row
// (lockOrganizationForLimit), in the transaction that inserts.
import type { Prisma } from '../../generated/prisma/client.js';
import { Conflict } from './errors.js';
import { lockOrganizationNoKeyUpdate } from './sql.js';

/** Interactive transactions wait for one another on the embedded database (one connection). */
export const LIMIT_TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 20_000 };

export const LIST_LIMITS = {
  /** Closures per organization (past ones count until deleted). */
  closures: 500,
  /** Workflow templates per organization. */
  templates: 200,
  /** Workflows per bot. */
  workflows: 500,
  /** Live API keys per organization: neither revoked nor expired (the keys its list shows). */
  apiKeys: 100,
  /** OAuth clients per organization (revoked ones do not count). */
  oauthClients: 100,
  /** Webhook endpoints per organization. */
  webhookEndpoints: 20,
  /** Phone numbers registered per organization. */
  phoneNumbers: 100,
  /** Insurance acceptance settings per organization. */
  insurances: 200,
  /** Bots per organization. */
  bots: 100,
  /** Call batches in progress per organization (not yet completed; up to 5,000 calls each). */
  callBatches: 20,
} as const;

const NAMES: Record<keyof typeof LIST_LIMITS, [owner: string, items: string, remedy: string]> = {
  closures: ['An organization', 'closures', 'delete some before adding more'],
  templates: ['An organization', 'templates', 'delete some before adding more'],
  workflows: ['A bot', 'workflows', 'delete some before adding more'],
  apiKeys: ['An organization', 'live API keys', 'revoke one first'],
  oauthClients: ['An organization', 'OAuth clients', 'revoke one first'],
  webhookEndpoints: ['An organization', 'webhook endpoints', 'delete one first'],
  insurances: ['An organization', 'insurances', 'delete some before adding more'],
  phoneNumbers: ['An organization', 'phone numbers', 'remove one first'],
  bots: ['An organization', 'bots', 'delete one first'],
  callBatches: ['An organization', 'call batches in progress', 'wait for one to complete, or cancel one'],
};

/**
 * Throws Conflict when `current + adding` would pass the list's limit. Callers count within the
 * transaction that writes, with the owner's row locked, so that concurrent creates cannot pass it together.
 */
export function assertRoomFor(list: keyof typeof LIST_LIMITS, current: number, adding = 1, remedy = NAMES[list][2]): void {
  const limit = LIST_LIMITS[list];
  if (current + adding > limit) {
    const [owner, items] = NAMES[list];
    throw new Conflict(`${owner} may have at most ${limit} ${items} (this one has ${current}); ${remedy}`);
  }
}

/**
 * Locks an organization's row against other limit checks (FOR NO KEY UPDATE: inserts of rows that
 * reference it are not blocked) for the rest of the transaction.
 */
export async function lockOrganizationForLimit(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  await lockOrganizationNoKeyUpdate(tx, orgId);
}
