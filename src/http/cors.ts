// Cross-origin calls from browsers (CORS). Closed unless CORS_ORIGINS lists origins: without it no
// answer carries Access-Control-Allow-Origin, so a page on another site cannot read any answer, and a
// preflight (OPTIONS) is a 405 like any method a path does not have.
//
// Credentials are bearer tokens sent in the Authorization header, never cookies, so
// Access-Control-Allow-Credentials is never sent: a browser attaches nothing to a cross-site request
// on its own, which is also why a forged request (CSRF) carries no credential.
import { cors } from 'hono/cors';
import type { MiddlewareHandler } from 'hono';
import { ORIGINAL_REQUEST_HEADER, REPLAYED_HEADER } from '../idempotency/key.js';

/** The headers a browser script may send: the credential, the body's type, and the API's own request headers. */
export const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'If-None-Match'];

/** The headers a browser script may read from an answer: caching, the request id, replays, the rate-limit state and the auth challenge. */
export const EXPOSED_HEADERS = [
  'ETag',
  'X-Request-Id',
  REPLAYED_HEADER,
  ORIGINAL_REQUEST_HEADER,
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
];

/** `undefined` when CORS is closed (no origins configured). */
export function corsMiddleware(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    // an origin not on the list gets no Access-Control-Allow-Origin: the browser keeps the answer from the page
    origin: origins.includes('*') ? '*' : [...origins],
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false,
  });
}
