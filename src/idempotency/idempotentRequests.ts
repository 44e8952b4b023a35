// Idempotency keys (Stripe's semantics), the one implementation behind both surfaces:
//
// - The first request with a key claims it: one INSERT … ON CONFLICT DO NOTHING on the primary key
//   (credential owner, key), atomic on PGlite and PostgreSQL, so of any number of concurrent requests
//   (on any number of instances) exactly one runs.
// - Each surface checks that the credential may perform the request (its scope) BEFORE the key is
//   claimed or replayed: a refusal is never stored. Keys are the organization's (a key claimed by one
//   credential is taken for all of them: the write never runs twice), but a stored answer is replayed
//   only to the credential that claimed the key; another credential of the organization gets a 422.
// - It runs, and its answer (status and body) is stored with the key for 24 h, as the surface makes it
//   for replays (forReplay): every secret it showed withheld (domain/shared/shownOnce.ts). Answers not worth
//   replaying — 5xx, 401, 403 and 429, or a GraphQL result made only of errors of the moment — release
//   the key instead, so that a retry runs again.
// - What is stored is bounded (MAX_STORED_BODY_BYTES): a larger error releases the key (nothing was
//   done; a retry answers the same), a larger success is stored as the surface's short replacement
//   (same status, a message naming the original request: the write must not run twice, and the
//   resource can be read back).
// - A later request with the key: a different request (fingerprint) is a 422 naming the key; while the
//   first is still in flight a 409 (Retry-After: 1); otherwise the stored answer is replayed.
// - An in-flight claim holds a lease of IN_FLIGHT_LEASE_MS: a holder that died (crash, kill) leaves a
//   claim nobody completes, and after the lease a retry takes the key over instead of a 409 for 24 h.
// - Expired keys are ignored when met and purged at most every PURGE_INTERVAL_MS per process.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { Actor } from '../domain/shared/access.js';
import type { DomainDeps } from '../domain/shared/deps.js';
import { IdempotencyKeyInUse, IdempotencyKeyReused } from '../domain/shared/errors.js';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { IDEMPOTENCY_KEY_HEADER } from './key.js';

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than any request may take (database timeouts end them sooner), short enough to recover from a crash. */
export const IN_FLIGHT_LEASE_MS = 60_000;
export const PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** The most of an answer's body kept with a key (every key of every organization is kept 24 h). */
export const MAX_STORED_BODY_BYTES = 64 * 1024;

export interface IdempotencyDeps extends DomainDeps {
  logger: Logger;
  /** The request being answered: its id is stored with the key, and named to a replay (Idempotent-Original-Request-Id). */
  requestId?: string;
}

export interface IdempotentRequest {
  /** The credential owner: keys of different organizations never meet. */
  ownerOrgId: string;
  /** The credential acting (credentialOf): the only one a stored answer is replayed to. */
  credential: string;
  key: string;
  /** requestFingerprint(…) of what makes the request what it is. */
  fingerprint: string;
  /** "POST /v1/templates", named in the 422 message. */
  request: string;
  /**
   * The answer as a replay shows it, which is what is stored: every secret the first answer showed
   * withheld (the surface's own format). Secrets are shown once and never stored in clear.
   */
  forReplay(response: CapturedResponse, requestId: string): CapturedResponse;
  /** What is stored instead of a success larger than MAX_STORED_BODY_BYTES (the surface's own format). */
  tooLargeToStore(response: CapturedResponse, requestId: string): CapturedResponse;
}

/** The credential a key's answer belongs to: an API key, or an OAuth client (whichever of its tokens acts). */
export function credentialOf(actor: Pick<Actor, 'credential'>): string {
  return `${actor.credential.kind}:${actor.credential.id}`;
}

export interface CapturedResponse {
  status: number;
  body: string;
  contentType: string;
  /** Set by a surface for an answer that is an error worth retrying despite its status (a GraphQL 200). */
  retryable?: boolean;
}

export type IdempotentOutcome =
  { replayed: false; response: CapturedResponse } | { replayed: true; response: CapturedResponse; originalRequestId: string };

/**
 * 5xx and 429 are answers of the moment, not of the request: a retry must run again. 401 and 403 are
 * answers to a credential, not to the request: another credential of the organization must not get them.
 */
export function worthReplaying(response: CapturedResponse): boolean {
  return response.status < 500 && response.status !== 429 && response.status !== 401 && response.status !== 403 && !response.retryable;
}

/** The answer as it is stored: as a replay shows it, a short replacement for a large success, or undefined (release the key). */
function storable(req: IdempotentRequest, response: CapturedResponse, requestId: string): CapturedResponse | undefined {
  if (!worthReplaying(response)) return undefined;
  const replay = req.forReplay(response, requestId);
  if (Buffer.byteLength(replay.body) <= MAX_STORED_BODY_BYTES) return replay;
  return response.status >= 400 ? undefined : req.tooLargeToStore(replay, requestId);
}

const lastPurge = new WeakMap<Db, number>();

/** Deletes expired keys, at most every PURGE_INTERVAL_MS per process (several instances purging is harmless). */
async function purgeExpiredKeys(deps: IdempotencyDeps, now: Date): Promise<void> {
  const last = lastPurge.get(deps.db);
  // either direction: a test clock may move backwards
  if (last !== undefined && Math.abs(now.getTime() - last) < PURGE_INTERVAL_MS) return;
  lastPurge.set(deps.db, now.getTime());
  try {
    const { count } = await deps.db.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
    if (count > 0) deps.logger.debug('expired idempotency keys purged', { count });
  } catch (err) {
    // the purge is housekeeping: the request goes on
    deps.logger.warn('purging expired idempotency keys failed', errorFields(err));
  }
}

type Claim = { kind: 'claimed' } | { kind: 'replay'; response: CapturedResponse; originalRequestId: string };

async function claim(deps: IdempotencyDeps, req: IdempotentRequest, requestId: string): Promise<Claim> {
  const { db } = deps;
  const where = { ownerOrgId: req.ownerOrgId, key: req.key };
  // a few rounds: the row met may be released or expire between the insert and the read
  for (let round = 0; round < 3; round++) {
    const now = deps.clock();
    const lockedUntil = new Date(now.getTime() + IN_FLIGHT_LEASE_MS);
    const inserted = await db.idempotencyKey.createMany({
      data: [
        {
          ...where,
          fingerprint: req.fingerprint,
          request: req.request,
          requestId,
          credential: req.credential,
          lockedUntil,
          createdAt: now,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
        },
      ],
      skipDuplicates: true,
    });
    if (inserted.count === 1) return { kind: 'claimed' };

    const row = await db.idempotencyKey.findUnique({ where: { ownerOrgId_key: where } });
    if (!row) continue;
    if (row.expiresAt <= now) {
      await db.idempotencyKey.deleteMany({ where: { ...where, expiresAt: { lte: now } } });
      continue;
    }
    // before anything else about the first request (which request it was, whether it is done): that is its credential's
    if (row.credential !== null && row.credential !== req.credential) {
      throw new IdempotencyKeyReused(
        `${IDEMPOTENCY_KEY_HEADER} "${req.key}" was used by another credential of this organization; ` +
          'its answer goes only to that credential. Send a new key (or read the resource)',
      );
    }
    if (row.fingerprint !== req.fingerprint) {
      throw new IdempotencyKeyReused(
        `${IDEMPOTENCY_KEY_HEADER} "${req.key}" was already used with a different request (${row.request}); send a new key for a new request`,
      );
    }
    if (row.status !== null) {
      return {
        kind: 'replay',
        response: { status: row.status, body: row.body ?? '', contentType: row.contentType ?? 'application/json' },
        originalRequestId: row.requestId,
      };
    }
    if (row.lockedUntil && row.lockedUntil <= now) {
      // the holder did not finish within its lease (it died): this request takes the key over
      const taken = await db.idempotencyKey.updateMany({
        where: { ...where, status: null, requestId: row.requestId },
        data: { requestId, lockedUntil },
      });
      if (taken.count === 1) return { kind: 'claimed' };
      continue;
    }
    break;
  }
  throw new IdempotencyKeyInUse(
    `${IDEMPOTENCY_KEY_HEADER} "${req.key}": a request with this key is still in progress; retry after it has been answered`,
  );
}

/**
 * Answers `req` once per key: runs `execute` for the first request and stores its answer, replays that
 * answer to the same request sent again, and throws IdempotencyKeyReused (422) or IdempotencyKeyInUse
 * (409) otherwise. `execute` answers errors as responses (a thrown error releases the key and goes on).
 */
export async function answerIdempotently(
  deps: IdempotencyDeps,
  req: IdempotentRequest,
  execute: () => Promise<CapturedResponse>,
): Promise<IdempotentOutcome> {
  await purgeExpiredKeys(deps, deps.clock());
  const requestId = deps.requestId ?? randomUUID();
  const claimed = await claim(deps, req, requestId);
  if (claimed.kind === 'replay') return { replayed: true, response: claimed.response, originalRequestId: claimed.originalRequestId };

  // only the holder completes or releases its claim (a claim taken over after the lease is no longer ours)
  const ours = { ownerOrgId: req.ownerOrgId, key: req.key, requestId, status: null };
  let response: CapturedResponse;
  try {
    response = await execute();
  } catch (err) {
    await settle(deps, 'release', () => deps.db.idempotencyKey.deleteMany({ where: ours }));
    throw err;
  }
  const stored = storable(req, response, requestId);
  if (stored) {
    await settle(deps, 'store', () =>
      deps.db.idempotencyKey.updateMany({
        where: ours,
        data: { status: stored.status, body: stored.body, contentType: stored.contentType, lockedUntil: null },
      }),
    );
  } else {
    await settle(deps, 'release', () => deps.db.idempotencyKey.deleteMany({ where: ours }));
  }
  return { replayed: false, response };
}

/**
 * Stores or releases a claim after the request ran. A failure here must not turn the request's real
 * answer into an error: it is logged, and the claim lapses with its lease (a retry then runs again).
 */
async function settle(deps: IdempotencyDeps, what: 'store' | 'release', write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    deps.logger.error(`idempotency key ${what} failed; the claim lapses after its lease`, errorFields(err));
  }
}
