// The HTTP side of POST /oauth/token (the grant itself: oauthToken.ts). Answers follow RFC 6749 §5
// (`{error, error_description}`, `Cache-Control: no-store`), not the /v1 envelope.
//
// - Client authentication (RFC 6749 §2.3.1): HTTP Basic with the form-url-encoded client id and secret,
//   or `client_id`/`client_secret` in the body. Both in one request is a 400 invalid_request (a client
//   MUST NOT use more than one method); a body `client_id` equal to the Basic one is tolerated.
// - Every answer that is not a token — a body that cannot be read or parsed, a malformed grant, an unknown
//   client or a wrong secret — counts against the per-address budget of failed authentications that
//   bearer tokens draw on (auth/authentication.ts): secret guessing and garbage cost the same.
// - Over that budget the endpoint answers 429 with `error: "invalid_client"` and Retry-After, without
//   looking at the request. RFC 6749 §5.2 has no code for rate limiting; `invalid_client` ("client
//   authentication failed") is what happened — the authentication was refused unchecked — and a client
//   library that knows only §5.2 stops rather than retrying in a loop (`slow_down` belongs to the device
//   grant's polling, RFC 8628, and is not a token-endpoint error here).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addressOverBudget, countFailedAuthentication } from './authentication.js';
import type { AuthDeps } from './deps.js';
import { clientAddress } from '../http/clientAddress.js';
import { headerAsSent } from '../http/repeatedFields.js';
import { BodyError, parseBody } from '../http/body.js';
import { AUTHENTICATED_CLIENT_ERRORS, authenticatedClient, clientCredentialsGrant } from './oauthToken.js';
import { revokeAccessToken } from './tokenRevocation.js';
import type { DomainDeps } from '../domain/shared/deps.js';

type TokenError = { error: string; error_description: string };

/** `Authorization: Basic …` as RFC 6749 §2.3.1 sends it; `null` without one; a TokenError when it is malformed. */
export function basicClientCredentials(
  authorization: string | undefined,
): { client_id: string; client_secret: string } | TokenError | null {
  // another scheme (a bearer token sent out of habit) authenticates no client here: ignored
  if (!authorization || !/^Basic(\s|$)/i.test(authorization)) return null;
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  if (!match) return { error: 'invalid_request', error_description: 'Malformed Basic credentials' };
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { error: 'invalid_request', error_description: 'Malformed Basic credentials: expected client_id:client_secret' };
  try {
    // both parts are form-url-encoded before they are joined (RFC 6749 §2.3.1, appendix B)
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { client_id: decode(decoded.slice(0, colon)), client_secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return { error: 'invalid_request', error_description: 'Malformed Basic credentials: not form-url-encoded' };
  }
}

/** GET /.well-known/jwks.json: the public key access tokens are signed with. */
export function jwksEndpoint(deps: Pick<AuthDeps, 'tokens'>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.label = 'GET /.well-known/jwks.json';
    return reply
      .header('Cache-Control', 'public, max-age=300')
      .type('application/json')
      .send({ keys: [deps.tokens.key.publicJwk] });
  };
}

const isTokenError = (value: object): value is TokenError => 'error' in value;

/**
 * What the token and revocation endpoints share: the failed-authentication budget of the client address, the
 * body (JSON or form) and the client credentials, as HTTP Basic or in the body but not both. Answers the body
 * with the credentials in it, or null once it has answered the request itself.
 */
async function clientRequest(
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ body: Record<string, unknown>; failed: (status: 400 | 401 | 413 | 415, body: TokenError) => Promise<FastifyReply> } | null> {
  reply.header('Cache-Control', 'no-store');
  reply.header('Pragma', 'no-cache');
  const address = clientAddress(request.raw, deps.config.trustProxy);
  const refused = await addressOverBudget(deps.rateLimit, address);
  if (refused) {
    reply.header('Retry-After', String(refused.retryAfter));
    await answer(reply, { error: 'invalid_client', error_description: refused.message }, 429);
    return null;
  }
  const failed = async (status: 400 | 401 | 413 | 415, body: TokenError) => {
    await countFailedAuthentication(deps.rateLimit, address);
    if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="oauth"');
    return answer(reply, body, status);
  };
  let body: unknown;
  try {
    body = (await parseBody(request.raw)).value;
  } catch (err) {
    if (err instanceof BodyError) {
      await failed(err.status, { error: 'invalid_request', error_description: err.message });
      return null;
    }
    throw err;
  }
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  const fields = isObject ? (body as Record<string, unknown>) : {};
  const basic = basicClientCredentials(headerAsSent(request.raw, 'authorization'));
  if (basic && isTokenError(basic)) {
    await failed(400, basic);
    return null;
  }
  if (!basic && !isObject) {
    await failed(400, { error: 'invalid_request', error_description: 'The body must be an object' });
    return null;
  }
  if (!basic) return { body: fields, failed };
  if (fields.client_secret !== undefined || (fields.client_id !== undefined && fields.client_id !== basic.client_id)) {
    await failed(400, {
      error: 'invalid_request',
      error_description: 'Send the client credentials once: as HTTP Basic or in the body, not both',
    });
    return null;
  }
  return { body: { ...fields, ...basic }, failed };
}

const answer = (reply: FastifyReply, body: unknown, status: number) =>
  body === null ? reply.code(status).send() : reply.code(status).type('application/json').send(body);

export function tokenEndpoint(deps: AuthDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.label = 'POST /oauth/token';
    const read = await clientRequest(deps, request, reply);
    if (!read) return reply;
    const result = await clientCredentialsGrant(deps.db, deps.tokens, read.body, deps.clock());
    // a known client asking for another audience or a scope it does not hold has authenticated: not a failed authentication
    if (result.status === 200 || AUTHENTICATED_CLIENT_ERRORS.has(result.body.error)) return answer(reply, result.body, result.status);
    return read.failed(result.status, result.body);
  };
}

/** POST /oauth/revoke (RFC 7009, auth/tokenRevocation.ts): the client revokes one of its access tokens. */
export function revocationEndpoint(deps: AuthDeps & DomainDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.label = 'POST /oauth/revoke';
    const read = await clientRequest(deps, request, reply);
    if (!read) return reply;
    const { client_id, client_secret, token } = read.body;
    if (typeof client_id !== 'string' || !client_id)
      return read.failed(400, { error: 'invalid_request', error_description: 'client_id is required' });
    if (typeof client_secret !== 'string' || !client_secret)
      return read.failed(400, { error: 'invalid_request', error_description: 'client_secret is required' });
    const client = await authenticatedClient(deps.db, client_id, client_secret, deps.clock());
    if (!client) return read.failed(401, { error: 'invalid_client', error_description: 'Unknown client or wrong secret' });
    const result = await revokeAccessToken(deps, deps.tokens, client, token);
    return answer(reply, result.body, result.status);
  };
}
