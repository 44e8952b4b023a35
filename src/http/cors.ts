// Cross-origin calls from browsers (CORS). Closed unless CORS_ORIGINS lists origins: without it no
// answer carries Access-Control-Allow-Origin, so a page on another site cannot read any answer, and a
// preflight (OPTIONS) is a 405 like any method a path does not have.
//
// Credentials are bearer tokens sent in the Authorization header, never cookies, so
// Access-Control-Allow-Credentials is never sent: a browser attaches nothing to a cross-site request
// on its own, which is also why a forged request (CSRF) carries no credential.
import type { FastifyReply, FastifyRequest } from 'fastify';
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

const ALLOWED_METHODS = 'GET,POST,PUT,PATCH,DELETE';

/**
 * The CORS step of the transport (transport.ts), or `undefined` when CORS is closed (no origins configured).
 * It answers a preflight (OPTIONS) itself, 204 with what may be sent, and says true; for any other request
 * it adds the origin and the exposed headers and says false.
 */
export function corsStep(origins: readonly string[]): ((request: FastifyRequest, reply: FastifyReply) => boolean) | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.includes('*');
  const exposed = EXPOSED_HEADERS.join(',');
  return (request, reply) => {
    const origin = request.headers.origin ?? '';
    // an origin not on the list gets no Access-Control-Allow-Origin: the browser keeps the answer from the page
    const allowed = any ? '*' : origins.includes(origin) ? origin : undefined;
    if (allowed) reply.header('Access-Control-Allow-Origin', allowed);
    reply.header('Access-Control-Expose-Headers', exposed);
    if (!any) reply.header('Vary', 'Origin');
    if (request.method !== 'OPTIONS') return false;
    reply.header('Access-Control-Max-Age', '600');
    reply.header('Access-Control-Allow-Methods', ALLOWED_METHODS);
    reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(','));
    reply.header('Vary', any ? 'Access-Control-Request-Headers' : 'Origin, Access-Control-Request-Headers');
    return true;
  };
}
