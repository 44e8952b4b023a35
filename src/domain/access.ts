// Who may act on what (CONTRACT §2). An Actor is what a credential resolves to; its reach is its
// owner organization, plus the owner's children when the owner is an account organization.
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
  'phone-numbers:write',
  'insurances:read',
  'insurances:write',
  'call-requests:read',
  'conversations:read',
  'events:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export interface Actor {
  /** The credential owner's organization. */
  orgId: string;
  ownerIsAccount: boolean;
  /** Organization ids this actor may act on (its own, plus children for an account organization). */
  reach: ReadonlySet<string>;
  scopes: ReadonlySet<Scope>;
  /** The credential acting; its name is recorded in the event log (who changed what). */
  credential: { kind: 'apiKey' | 'oauth'; id: string; name: string };
}

export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.has(scope)) throw new Forbidden(`This credential lacks the scope ${scope}`);
}

export function canReach(actor: Actor, orgId: string | null | undefined): boolean {
  return orgId != null && actor.reach.has(orgId);
}

/** Throws NotFound (never Forbidden) for an organization outside reach, so that its existence does not leak. */
export function assertReach(actor: Actor, orgId: string | null | undefined, what = 'Organization'): void {
  if (!canReach(actor, orgId)) throw new NotFound(what);
}

