// The request id: every answer carries it in `X-Request-Id`, every log line written while the request
// is answered carries it (the logger reads it from here), GraphQL errors carry it in
// `extensions.requestId`, and a 500 names it. It lives in an AsyncLocalStorage so that code deep
// below the surfaces (the rate-limit store, the database, the domain) logs it without passing it along.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './rest/appEnv.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An incoming id is kept when it is 1..128 characters of letters, digits and `-_.:` (a UUID, a ULID,
 * a load balancer's trace id): it is written into logs and headers, so nothing that could forge a log
 * field, split a header or flood a line gets through. Anything else is replaced by a fresh UUID.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being answered, or undefined outside a request (start-up, CLIs). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The incoming id when it is sane, else a new one. */
export function requestIdFrom(incoming: string | undefined | null): string {
  const candidate = incoming?.trim();
  return candidate && REQUEST_ID_PATTERN.test(candidate) ? candidate : randomUUID();
}

/** The message of a 500 on both surfaces (which must never happen): it names the request id to quote. */
export function internalErrorMessage(): string {
  const requestId = currentRequestId();
  return requestId ? `Internal server error; quote request id ${requestId} when reporting it` : 'Internal server error';
}

/** Runs `fn` as part of the request `requestId` (tests, and anything answering outside Hono). */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** The first middleware of the app: choose the id, answer it on every response, run the rest inside it. */
export function requestIdMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', requestId);
    // set before the answer exists, it goes out with every answer made through the context (c.json, c.body,
    // onError, 404/405) at no cost; c.header() after the answer is made would rebuild it (a full Response)
    c.header(REQUEST_ID_HEADER, requestId);
    await storage.run({ requestId }, next);
    // an answer a handler made itself (GraphQL's) did not take the context's headers: set it there, directly
    const headers = c.res.headers;
    if (!headers.has(REQUEST_ID_HEADER)) headers.set(REQUEST_ID_HEADER, requestId);
  };
}
