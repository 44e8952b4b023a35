// POST /oauth/token: the client-credentials grant (spec §5, docs/decisions.md §2). Errors follow RFC 6749
// (`{error, error_description}`), not the /v1 envelope.
import type { Db } from '../db/client.js';
import { isStorableText } from '../domain/shared/storableText.js';
import { secretMatches } from '../crypto/secrets.js';
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, type TokenSettings } from './tokens.js';

export type TokenResponse =
  | { status: 200; body: { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } }
  | { status: 400 | 401; body: { error: string; error_description: string } };

/** Errors answered to a client that authenticated: a request it may fix, not a failed authentication (tokenEndpoint.ts). */
export const AUTHENTICATED_CLIENT_ERRORS: ReadonlySet<string> = new Set(['invalid_grant', 'invalid_scope', 'invalid_target']);

/**
 * The scopes a token request asks for (RFC 6749 §3.3: space-delimited, case-sensitive, in any order): all the client
 * holds when `scope` is not sent; an error when it names one the client does not hold, or none.
 */
function requestedScopes(scope: unknown, held: readonly string[]): string[] | string {
  if (scope === undefined) return [...held];
  if (typeof scope !== 'string') return 'scope must be a string of space-separated scopes';
  const asked = [...new Set(scope.split(' ').filter(Boolean))];
  if (asked.length === 0) return 'scope names no scope; leave it out for every scope the client holds';
  const missing = asked.filter((s) => !held.includes(s));
  if (missing.length > 0) return `the client does not hold ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`;
  // in the order the client holds them, as an answer without `scope` lists them
  return held.filter((s) => asked.includes(s));
}

const fail = (status: 400 | 401, error: string, description: string): TokenResponse => ({
  status,
  body: { error, error_description: description },
});

/** The current secret, or the previous one during its overlap after a rotation (domain/credentials/oauthClients.ts). */
export function clientSecretAccepted(
  client: { secretHash: string; previousSecretHash: string | null; previousSecretExpiresAt: Date | null },
  secret: string,
  now: Date,
): boolean {
  if (secretMatches(secret, client.secretHash)) return true;
  return (
    client.previousSecretHash !== null &&
    client.previousSecretExpiresAt !== null &&
    client.previousSecretExpiresAt > now &&
    secretMatches(secret, client.previousSecretHash)
  );
}

/** The client `clientId` names when `secret` is its secret and it is not revoked; null otherwise (one answer for all). */
export async function authenticatedClient(db: Db, clientId: string, secret: string, now: Date) {
  // a client id the database cannot even compare (NUL, an unpaired surrogate) names no client
  const client = isStorableText(clientId) ? await db.oAuthClient.findUnique({ where: { clientId } }) : null;
  return client && !client.revokedAt && clientSecretAccepted(client, secret, now) ? client : null;
}

export async function clientCredentialsGrant(db: Db, tokens: TokenSettings, body: unknown, now: Date): Promise<TokenResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(400, 'invalid_request', 'The body must be an object');
  const { grant_type, client_id, client_secret, audience, resource, scope } = body as Record<string, unknown>;
  if (grant_type === undefined) return fail(400, 'invalid_request', 'grant_type is required');
  if (grant_type !== 'client_credentials') return fail(400, 'unsupported_grant_type', 'Only client_credentials is supported');
  if (typeof client_id !== 'string' || !client_id) return fail(400, 'invalid_request', 'client_id is required');
  if (typeof client_secret !== 'string' || !client_secret) return fail(400, 'invalid_request', 'client_secret is required');
  if (audience !== undefined && (typeof audience !== 'string' || !audience))
    return fail(400, 'invalid_request', 'audience, when sent, must be a non-empty string');
  // RFC 8707 resource indicators: one or more absolute URIs, sent by stock clients instead of `audience`
  const resources = resource === undefined ? [] : Array.isArray(resource) ? resource : [resource];
  if (resources.some((r) => typeof r !== 'string' || !r)) return fail(400, 'invalid_request', 'resource, when sent, must be a URI');
  const client = await authenticatedClient(db, client_id, client_secret, now);
  if (!client) return fail(401, 'invalid_client', 'Unknown client or wrong secret');
  // without `audience` or `resource` the token is for this service, the only audience it issues tokens for
  if (audience !== undefined && audience !== tokens.audience) return fail(400, 'invalid_grant', `audience must be ${tokens.audience}`);
  if (resources.some((r) => r !== tokens.audience)) return fail(400, 'invalid_target', `resource must be ${tokens.audience}`);
  const scopes = requestedScopes(scope, client.scopes);
  if (typeof scopes === 'string') return fail(400, 'invalid_scope', scopes);
  const accessToken = await issueAccessToken(tokens, { clientId: client.clientId, orgId: client.orgId, scopes }, now);
  return {
    status: 200,
    body: { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') },
  };
}
