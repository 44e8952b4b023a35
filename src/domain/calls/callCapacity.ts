// Calls at once (issue 34): an organization's calling policy bounds its calls in progress (claimed and not
// final) — a location's its own, an account's the sum over its locations. The claim decides within its
// statement, under the family's lock (sql.ts claimWithinCapacity); this answers what is used and free.
import { z } from 'zod';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { viewSchema } from '../shared/viewSchema.js';
import { effectivePolicy } from './callingPolicy.js';
import { capacityCounts } from './sql.js';

export interface CallCapacity {
  /** The cap that bounds the organization's calls; null for an account that sets none (each location has its own). */
  limit: number | null;
  /** Calls in progress under that cap (for an account's cap: over all its locations). */
  inProgress: number;
}

export interface CallCapacityView extends CallCapacity {
  /** Queued requests due now, waiting for a claim (for an account: over all its locations). */
  queuedDue: number;
}

export const callCapacitySchema = z
  .object({
    limit: z.int().nullable().describe("The cap that bounds the organization's calls (null: an account that sets none)."),
    inProgress: z.int().describe('Calls in progress under that cap.'),
  })
  .meta({ id: 'CallCapacity' });

export const callCapacityResponse = viewSchema<CallCapacityView>()(
  callCapacitySchema.extend({ queuedDue: z.int().describe('Queued requests due now.') }).meta({ id: 'CallCapacityView' }),
);

type Reader = Pick<DomainDeps['db'], 'callingPolicy' | '$queryRaw' | '$executeRaw'>;

/** The family whose claims share one lock and one account cap: the account, or the organization alone. */
export function capacityRoot(org: { id: string; parentId: string | null }): string {
  return org.parentId ?? org.id;
}

/** The capacity of an organization now, read with `db` (the claim's transaction, or the database). */
export async function capacityOf(
  db: Reader,
  org: { id: string; parentId: string | null; isAccount: boolean },
  now: Date,
): Promise<CallCapacityView> {
  const [policy, counts] = await Promise.all([effectivePolicy(db, org), capacityCounts(db, capacityRoot(org), now)]);
  return capacityFrom(org, policy, counts);
}

/**
 * The cap and the calls in progress under it (what a claim answers), without counting the queue: a claim runs under
 * its family's lock, and counting every queued request there made each claim as slow as the queue is long.
 */
export async function claimCapacityOf(db: Reader, org: { id: string; parentId: string | null; isAccount: boolean }): Promise<CallCapacity> {
  const [policy, counts] = await Promise.all([effectivePolicy(db, org), capacityCounts(db, capacityRoot(org), null)]);
  const { limit, inProgress } = capacityFrom(org, policy, counts);
  return { limit, inProgress };
}

function capacityFrom(
  org: { id: string; isAccount: boolean },
  policy: Awaited<ReturnType<typeof effectivePolicy>>,
  counts: { orgId: string; inProgress: number; queuedDue: number }[],
): CallCapacityView {
  const sum = (key: 'inProgress' | 'queuedDue') => counts.reduce((n, c) => n + c[key], 0);
  const own = counts.find((c) => c.orgId === org.id) ?? { inProgress: 0, queuedDue: 0 };
  if (org.isAccount) {
    return {
      limit: policy.source === 'own' ? policy.fields.maxConcurrentCalls : null,
      inProgress: sum('inProgress'),
      queuedDue: sum('queuedDue'),
    };
  }
  // a location that sets no cap of its own under an account that does is bounded by the account's sum only
  if (policy.source === 'account')
    return { limit: policy.fields.maxConcurrentCalls, inProgress: sum('inProgress'), queuedDue: own.queuedDue };
  return { limit: policy.fields.maxConcurrentCalls, inProgress: own.inProgress, queuedDue: own.queuedDue };
}

/** GET …/call-capacity (scope call-requests:read). */
export async function getCallCapacity(deps: DomainDeps, actor: Actor, orgId: string): Promise<CallCapacityView> {
  requireScope(actor, 'call-requests:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  return capacityOf(deps.db, org, deps.clock());
}
