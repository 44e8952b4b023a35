// What a credential may grant (docs/decisions.md §2). Managing credentials takes the scope
// credentials:write, and then a credential grants only what it holds itself: a subset of its scopes, and
// a full key (every scope, including scopes added later) only if it is a full key. Rolling a key, rotating
// a client's secret, changing a client's scopes and revoking act on what the target holds, so they are
// checked against it the same way: a narrower credential can neither mint a stronger one nor take over,
// change or revoke one.
import { type Actor, isScope, requireScope, SCOPES } from '../shared/access.js';
import { Forbidden } from '../shared/errors.js';

/** What a credential holds: every scope, including those added later (a full API key), or a list of scopes. */
export type Grant = { full: true } | { full: false; scopes: readonly string[] };

export const FULL_GRANT: Grant = { full: true };

export function requireCredentialsWrite(actor: Actor): void {
  requireScope(actor, 'credentials:write');
}

/** The scopes of `grant` that `actor` lacks, in the order of SCOPES (a scope no longer known is lacked by everyone). */
function lacking(actor: Actor, scopes: readonly string[]): string[] {
  const unknown = scopes.filter((s) => !isScope(s));
  return [...SCOPES.filter((s) => scopes.includes(s) && !actor.scopes.has(s)), ...unknown];
}

/** Throws Forbidden unless `actor` may make a credential holding `grant`. */
export function requireMayGrant(actor: Actor, grant: Grant): void {
  if (grant.full) {
    if (!actor.full) {
      throw new Forbidden(
        'Only a full API key can create a full key (every scope, including scopes added later); ' +
          "name the scopes, at most this credential's own",
      );
    }
    return;
  }
  const missing = lacking(actor, grant.scopes);
  if (missing.length > 0) throw new Forbidden(`This credential cannot grant scopes it does not hold: ${missing.join(', ')}`);
}

/** Throws Forbidden unless `actor` may manage (roll, rotate, re-scope, revoke) a credential holding `grant`. */
export function requireMayManage(actor: Actor, grant: Grant): void {
  if (grant.full) {
    if (!actor.full) throw new Forbidden('Only a full API key can roll or revoke a full key');
    return;
  }
  const missing = lacking(actor, grant.scopes);
  if (missing.length > 0)
    throw new Forbidden(`This credential cannot manage a credential holding scopes it does not hold: ${missing.join(', ')}`);
}
