// POST /oauth/token: the client-credentials grant (spec §5, docs/decisions.md §2). Errors follow RFC 6749
// (`{error, error_description}`), not the /v1 envelope.
import type { Db } from '../db/client.js';
import { isStorableText } from '../domain/shared/storableText.js';
import { secretMatches } from '../crypto/secrets.js';
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, type TokenSettings } from './tokens.js';

export type TokenResponse =
  | { status: 200; body: { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } }
  | { status: 400 | 401; body: { error: string; error_description: string } };

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

export async function clientCredentialsGrant(db: Db, tokens: TokenSettings, body: unknown, now: Date): Promise<TokenResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(400, 'invalid_request', 'The body must be an object');
  const { grant_type, client_id, client_secret, audience } = body as Record<string, unknown>;
  if (grant_type === undefined) return fail(400, 'invalid_request', 'grant_type is required');
  if (grant_type !== 'client_credentials') return fail(400, 'unsupported_grant_type', 'Only client_credentials is supported');
  if (typeof client_id !== 'string' || !client_id) return fail(400, 'invalid_request', 'client_id is required');
  if (typeof client_secret !== 'string' || !client_secret) return fail(400, 'invalid_request', 'client_secret is required');
  if (typeof audience !== 'string' || !audience) return fail(400, 'invalid_request', 'audience is required');
  // a client id the database cannot even compare (NUL, an unpaired surrogate) names no client
  const client = isStorableText(client_id) ? await db.oAuthClient.findUnique({ where: { clientId: client_id } }) : null;
  // the same answer for an unknown client and a wrong secret
  if (!client || client.revokedAt || !clientSecretAccepted(client, client_secret, now)) {
    return fail(401, 'invalid_client', 'Unknown client or wrong secret');
  }
  if (audience !== tokens.audience) return fail(400, 'invalid_grant', `audience must be ${tokens.audience}`);
  const accessToken = await issueAccessToken(tokens, { clientId: client.clientId, orgId: client.orgId, scopes: client.scopes }, now);
  return {
    status: 200,
    body: { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: client.scopes.join(' ') },
  };
}
