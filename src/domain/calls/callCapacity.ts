// Calls at once (issue 34): an organization's calling policy bounds its calls in progress (claimed and not
// final) — a location's its own, an account's the sum over its locations. The database counts them (CallLoad, kept
// by triggers); a claim takes its capacity against those counts at its end (callDispatch.ts claimDue); this answers
// what is used and free.
import { z } from 'zod';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { viewSchema } from '../shared/viewSchema.js';
import { type EffectivePolicy, effectivePolicy } from './callingPolicy.js';
import { callLoads, queuedDueCounts } from './sql.js';

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

/** The family whose calls one account cap bounds (and whose CallLoad row counts them): the account, or the organization alone. */
export function capacityRoot(org: { id: string; parentId: string | null }): string {
  return org.parentId ?? org.id;
}

/** The capacity of an organization now, read with `db`. */
export async function capacityOf(
  db: Reader,
  org: { id: string; parentId: string | null; isAccount: boolean },
  now: Date,
): Promise<CallCapacityView> {
  const root = capacityRoot(org);
  const [policy, loads, queued] = await Promise.all([
    effectivePolicy(db, org),
    callLoads(db, root, [org.id]),
    queuedDueCounts(db, root, now),
  ]);
  const { limit, inProgress } = capacityFrom(org, policy, loads);
  const own = queued.find((c) => c.orgId === org.id)?.queuedDue ?? 0;
  // an account's queue is its locations'; a location's its own
  return { limit, inProgress, queuedDue: org.isAccount ? queued.reduce((n, c) => n + c.queuedDue, 0) : own };
}

/**
 * The cap that bounds an organization's calls and its calls in progress under it, from its effective policy and the
 * counts of calls in progress (sql.ts callLoads): a claim answers this, from the counts it read under their lock.
 */
export function capacityFrom(
  org: { id: string; isAccount: boolean },
  policy: EffectivePolicy,
  loads: { family: number; own: Map<string, number> },
): CallCapacity {
  if (org.isAccount) return { limit: policy.source === 'own' ? policy.fields.maxConcurrentCalls : null, inProgress: loads.family };
  // a location that sets no cap of its own under an account that does is bounded by the account's sum only
  if (policy.source === 'account') return { limit: policy.fields.maxConcurrentCalls, inProgress: loads.family };
  return { limit: policy.fields.maxConcurrentCalls, inProgress: loads.own.get(org.id) ?? 0 };
}

/** GET …/call-capacity (scope call-requests:read). */
export async function getCallCapacity(deps: DomainDeps, actor: Actor, orgId: string): Promise<CallCapacityView> {
  requireScope(actor, 'call-requests:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  return capacityOf(deps.db, org, deps.clock());
}
