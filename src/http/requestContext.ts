// The request id: every answer carries it in `X-Request-Id`, every log line written while the request
// is answered carries it, GraphQL errors carry it in `extensions.requestId`, and a 500 names it.
//
// It travels explicitly, not in an AsyncLocalStorage: the transport's first step makes the request's own deps
// (`request.deps`, transport.ts), the app's deps with a logger that writes the id, and everything below the router —
// authentication, the domain, idempotency, health — is handed those. Lines about the instance rather than
// a request (the rate-limit store or the change channel lost and back) are written by its own logger,
// without an id. On Node 20 and 22 an AsyncLocalStorage works through promise hooks that run for every
// promise of the process; measured on a cached REST read, they were a fifth of its CPU time (GraphQL,
// which makes more promises, paid more).
import { randomUUID } from 'node:crypto';
import { loggerForRequest } from '../logger.js';
import type { HttpDeps } from './deps.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An incoming id is kept when it is 1..128 characters of letters, digits and `-_.:` (a UUID, a ULID,
 * a load balancer's trace id): it is written into logs and headers, so nothing that could forge a log
 * field, split a header or flood a line gets through. Anything else is replaced by a fresh UUID.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The incoming id when it is sane, else a new one. */
export function requestIdFrom(incoming: string | undefined | null): string {
  const candidate = incoming?.trim();
  return candidate && REQUEST_ID_PATTERN.test(candidate) ? candidate : randomUUID();
}

/** The message of a 500 on both surfaces (which must never happen): it names the request id to quote. */
export function internalErrorMessage(requestId: string | undefined): string {
  return requestId ? `Internal server error; quote request id ${requestId} when reporting it` : 'Internal server error';
}

/** What settles each request's `answerMade` (answerMade, below). */
const answerMadeOf = new WeakMap<HttpDeps, () => void>();

/**
 * The app's deps as one request sees them: its id, a logger that writes the id on every line, and
 * `answerMade`, which settles when the surface says its answer exists as text (answerMade, below).
 */
export function depsForRequest<D extends HttpDeps>(deps: D, requestId: string): D {
  // the app's deps as the prototype, the request's fields its own: nothing copied per request (the
  // deps have a few dozen fields); whoever derives deps from these must keep the prototype, not spread them
  const requestDeps = Object.create(deps) as D;
  requestDeps.logger = loggerForRequest(deps.logger, requestId);
  requestDeps.requestId = requestId;
  requestDeps.answerMade = new Promise<void>((resolve) => answerMadeOf.set(requestDeps, resolve));
  return requestDeps;
}

/**
 * Says that the request's answer exists as text (or that none will be made): an organization's slot for
 * expensive work (domain/shared/tenantWork.ts) is held until then, since making the answer of that work is
 * part of it. Each way a request is answered calls it once its body is made, whatever the outcome.
 */
export function answerMade(requestDeps: HttpDeps): void {
  answerMadeOf.get(requestDeps)?.();
}
