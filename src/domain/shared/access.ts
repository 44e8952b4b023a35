// Who may act on what (docs/decisions.md §2). An Actor is what a credential resolves to; its reach is its
// owner organization, plus the owner's children when the owner is an account organization. Reach is
// decided from the target organization's own record (its parent), never from a list of the owner's
// children: one comparison whatever the number of locations under the account.
import type { DomainDeps } from './deps.js';
import { Forbidden, NotFound } from './errors.js';

export const SCOPES = [
  'organizations:read',
  'organizations:write',
  'closures:read',
  'closures:write',
  'office-hours:read',
  'office-hours:write',
  'templates:read',
  'templates:write',
  'bots:read',
  'bots:write',
  'phone-numbers:write',
  'insurances:read',
  'insurances:write',
  'call-requests:read',
  'call-requests:write',
  'calls:dispatch',
  'conversations:read',
  'conversations:write',
  // the text of a transcript (its messages); conversations:read alone answers the conversations' list fields
  'transcripts:read',
  // the words as said behind a redaction, where the organization's policy keeps them (governance/redactionPolicy.ts)
  'transcripts:read_unredacted',
  // who read which transcript (domain/governance/accessLog.ts)
  'access-log:read',
  // erasing a patient's data on request, and reading how far an erasure got (domain/calls/erasure.ts)
  'erasure:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  // managing credentials, each within what the managing credential holds itself (credentialGrants.ts)
  'credentials:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope lets a credential do, as the OpenAPI document's OAuth flow lists them. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'organizations:read': 'Read organizations, their redaction and retention settings',
  'organizations:write': 'Change organizations (switch communications off and on) and their settings',
  'closures:read': 'Read closures and special days',
  'closures:write': 'Create, change and delete closures and special days',
  'office-hours:read': 'Read office hours and availability',
  'office-hours:write': 'Replace office hours',
  'templates:read': 'Read workflow templates',
  'templates:write': 'Create and change workflow templates',
  'bots:read': 'Read bots and export their workflows',
  'bots:write': 'Create, rename, switch off and on, and delete bots',
  'phone-numbers:write': 'Register, change, attach, detach and remove phone numbers',
  'insurances:read': 'Read accepted insurances',
  'insurances:write': 'Change accepted insurances',
  'call-requests:read': 'Read call requests, batches and the calling policy',
  'call-requests:write': 'Place and cancel call requests and batches; change the calling policy and suppressions',
  'calls:dispatch': 'Run calls as an agent runtime: claim due calls under a lease, start them and report their outcome',
  'conversations:read': "Read conversations' list fields (not their words)",
  'conversations:write': 'Record conversations and their turns',
  'transcripts:read': "Read conversations' words (each read is in the access log)",
  'transcripts:read_unredacted': 'Read the words as said behind redactions, where the policy keeps them (logged as such)',
  'access-log:read': 'Read, export and verify the transcript access log',
  'erasure:write': "Erase a patient's data on request and follow the erasure",
  'events:read': 'Read the event log',
  'webhooks:read': 'Read webhook endpoints and their deliveries',
  'webhooks:write': 'Create, change, test and delete webhook endpoints',
  'credentials:write': 'Create and manage API keys and OAuth clients, within what this credential holds',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export interface Actor {
  /** The credential owner's organization. */
  orgId: string;
  ownerIsAccount: boolean;
  scopes: ReadonlySet<Scope>;
  /** A full API key: every scope, including scopes added later. Only such a key may make or manage another full key. */
  full: boolean;
  /** The credential acting; its name is recorded in the event log (who changed what). */
  credential: { kind: 'apiKey' | 'oauth'; id: string; name: string };
}

export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.has(scope)) throw new Forbidden(`This credential lacks the scope ${scope}`);
}

/** What reach is decided by: an organization's id and its parent's. */
export interface OrganizationLink {
  id: string;
  parentId: string | null;
}

/** Whether the actor may act on this organization: its own, or a child of its account organization. */
export function reaches(actor: Actor, org: OrganizationLink | null | undefined): boolean {
  return org != null && (org.id === actor.orgId || (actor.ownerIsAccount && org.parentId === actor.orgId));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether the actor may act on the organization `orgId`. The owner's own organization is answered at
 * once; for an account owner any other id is decided by that organization's parent, read from the read
 * model (cached; a new child is found by its own record, so it is reachable at once on every instance).
 */
export async function canReach(deps: Pick<DomainDeps, 'readModel'>, actor: Actor, orgId: string | null | undefined): Promise<boolean> {
  if (orgId == null) return false;
  if (orgId === actor.orgId) return true;
  if (!actor.ownerIsAccount || !UUID.test(orgId)) return false;
  return reaches(actor, await deps.readModel.organization(orgId));
}

/** Throws NotFound (never Forbidden) for an organization outside reach, so that its existence does not leak. */
export async function assertReach(
  deps: Pick<DomainDeps, 'readModel'>,
  actor: Actor,
  orgId: string | null | undefined,
  what = 'Organization',
): Promise<void> {
  if (!(await canReach(deps, actor, orgId))) throw new NotFound(what);
}
