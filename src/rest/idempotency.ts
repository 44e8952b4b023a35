// The REST side of idempotency keys (idempotency/idempotentRequests.ts): a POST, PUT or PATCH of /v1
// sent with `Idempotency-Key` is "the same request" when method, path, query and (parsed) body agree;
// its first answer, success or 4xx error, is replayed with `Idempotent-Replayed: true`.
//
// The route's declared scope is checked before the key is claimed or replayed: a credential that may not
// make the request gets its 403 unstored, and never another credential's stored answer. A route whose
// answer carries a secret (its response type is one of SECRET_FIELDS, domain/shared/shownOnce.ts) stores, and
// replays, that answer with the secret withheld: the secret is shown once. A route whose answer echoes a
// patient's words (PATIENT_WORDS_FIELDS) stores and replays it with the words withheld the same way.
import type { z } from 'zod';
import type { RestDeps } from './deps.js';
import { type Actor, requireScope, type Scope } from '../domain/shared/access.js';
import { type ReplayWithheld, replayWithheldOf, withholdForReplay } from '../domain/shared/shownOnce.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import { answerIdempotently, type CapturedResponse, credentialOf, MAX_STORED_BODY_BYTES } from '../idempotency/idempotentRequests.js';
import { successBody } from './envelope.js';

/** What a replay of a route's success answer withholds: its response type's secret or words field, if it has one (of `data`). */
export function routeSecretField(response: z.ZodType): ReplayWithheld | undefined {
  const id = response.meta()?.id;
  return replayWithheldOf(typeof id === 'string' ? id : undefined);
}

/**
 * A REST answer as a replay shows it: with the withheld field of `data` null and its marker (`secretShownOnce`,
 * `textWithheld`) true. An answer that cannot be read as the envelope is not kept as it is (it may hold the secret
 * or the words in clear).
 */
export function restReplayOf(response: CapturedResponse, secretField: ReplayWithheld | undefined, requestId: string): CapturedResponse {
  if (secretField === undefined || response.status >= 300) return response;
  let envelope: { data?: unknown };
  try {
    envelope = JSON.parse(response.body) as { data?: unknown };
  } catch {
    return notKept(response, requestId);
  }
  const data = envelope?.data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return notKept(response, requestId);
  withholdForReplay(data as Record<string, unknown>, secretField);
  return { ...response, body: JSON.stringify(envelope) };
}

function notKept(response: CapturedResponse, requestId: string): CapturedResponse {
  const message = `Done by request ${requestId}; its answer showed what a replay withholds (a secret, a patient's words): read the resource to see the rest`;
  return { status: response.status, contentType: 'application/json', body: JSON.stringify(successBody(null, message)) };
}

/** What a replayable request is: its method, its target as sent (path and query), its parsed body. */
export interface IdempotentRestRequest {
  method: string;
  url: string;
  body: unknown;
}

/** The answer to send: the first one's (or this one's, when it is the first), and whether it is a replay. */
export interface IdempotentRestAnswer {
  response: CapturedResponse;
  replayed: false | { originalRequestId: string };
}

export async function answerRestIdempotently(
  request: IdempotentRestRequest,
  deps: RestDeps,
  actor: Actor,
  route: { scope: Scope; secretField: ReplayWithheld | undefined },
  key: string,
  /** Runs the request; answers its errors too, as the envelope (never throws a domain error). */
  execute: () => Promise<{ status: number; body: string }>,
): Promise<IdempotentRestAnswer> {
  const { scope, secretField } = route;
  requireScope(actor, scope);
  const url = new URL(request.url, 'http://localhost');
  const query = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const method = request.method;
  const outcome = await answerIdempotently(
    deps,
    {
      ownerOrgId: actor.orgId,
      credential: credentialOf(actor),
      key,
      fingerprint: requestFingerprint({ method, path: url.pathname, query, body: request.body ?? null }),
      request: `${method} ${url.pathname}`,
      forReplay: (response, requestId) => restReplayOf(response, secretField, requestId),
      tooLargeToStore: (response, requestId) => ({
        status: response.status,
        contentType: 'application/json',
        body: JSON.stringify(
          successBody(
            null,
            `Done by request ${requestId}; its answer (${Buffer.byteLength(response.body)} bytes) is larger than a replay keeps (${MAX_STORED_BODY_BYTES} bytes): read the resource to see it`,
          ),
        ),
      }),
    },
    // errors are answers too (`execute` answers them): a 404 or 400 is replayed like a success (a 5xx releases the key)
    async () => ({ ...(await execute()), contentType: 'application/json' }),
  );
  return { response: outcome.response, replayed: outcome.replayed ? { originalRequestId: outcome.originalRequestId } : false };
}
