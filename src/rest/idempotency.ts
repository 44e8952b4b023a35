// The REST side of idempotency keys (idempotency/idempotentRequests.ts): a POST, PUT or PATCH of /v1
// sent with `Idempotency-Key` is "the same request" when method, path, query and (parsed) body agree;
// its first answer, success or 4xx error, is replayed with `Idempotent-Replayed: true`.
//
// The route's declared scope is checked before the key is claimed or replayed: a credential that may not
// make the request gets its 403 unstored, and never another credential's stored answer.
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { type Actor, requireScope, type Scope } from '../domain/shared/access.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import { answerIdempotently, MAX_STORED_BODY_BYTES } from '../idempotency/idempotentRequests.js';
import { ORIGINAL_REQUEST_HEADER, REPLAYED_HEADER } from '../idempotency/key.js';
import type { AppEnv } from '../http/appEnv.js';
import { successBody } from './envelope.js';
import { restErrorResponse } from './errors.js';

export async function answerRestIdempotently(
  c: Context<AppEnv>,
  deps: AppDeps,
  actor: Actor,
  scope: Scope,
  key: string,
  body: unknown,
  execute: () => Promise<Response>,
): Promise<Response> {
  requireScope(actor, scope);
  const url = new URL(c.req.url);
  const query = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const method = c.req.method;
  const outcome = await answerIdempotently(
    deps,
    {
      ownerOrgId: actor.orgId,
      key,
      fingerprint: requestFingerprint({ method, path: url.pathname, query, body: body ?? null }),
      request: `${method} ${url.pathname}`,
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
    async () => {
      let response: Response;
      try {
        response = await execute();
      } catch (err) {
        // errors are answers too: a 404 or 400 is replayed like a success (a 5xx releases the key)
        response = restErrorResponse(c, err, deps.logger);
      }
      return {
        status: response.status,
        body: await response.text(),
        contentType: response.headers.get('content-type') ?? 'application/json',
      };
    },
  );
  if (outcome.replayed) {
    c.header(REPLAYED_HEADER, 'true');
    c.header(ORIGINAL_REQUEST_HEADER, outcome.originalRequestId);
  }
  return c.body(outcome.response.body, outcome.response.status as 200, { 'Content-Type': outcome.response.contentType });
}
