// The polling interval of spec §8 / docs/decisions.md §3, called by BOTH surfaces after the call request is
// loaded (the rule needs its status): GET /v1/call-requests/:id and Query.callRequest. The per-second
// polling budget itself is drawn before (REST step / GraphQL root-field wrapper).
import type { Actor } from '../domain/shared/access.js';
import { RateLimited } from '../domain/shared/errors.js';
import type { RateLimitDeps } from './deps.js';

/** Finished requests may be polled freely (within the per-second budget). */
export const FINISHED_CALL_REQUEST_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled', 'expired']);

/**
 * Throws RateLimited (429, Retry-After = the seconds left) when the owner polls a pending call request
 * again within CALL_REQUEST_MIN_POLL_SECONDS of its previous answered poll; otherwise records this
 * poll. One atomic store operation, so the interval holds across instances. A refused poll does not
 * restart the interval.
 */
export async function enforceCallRequestPollInterval(
  deps: RateLimitDeps,
  actor: Actor,
  callRequestId: string,
  status: string,
): Promise<void> {
  if (FINISHED_CALL_REQUEST_STATUSES.has(status)) return;
  const wait = await deps.rateLimit.claimPoll(actor.orgId, callRequestId);
  if (wait > 0) {
    throw new RateLimited(
      wait,
      `Call request ${callRequestId} is still ${status}; poll it at most every ${deps.config.callRequestMinPollSeconds} s (retry after ${wait} s)`,
    );
  }
}
