// POST /oauth/revoke: token revocation (RFC 7009) for a client that leaked one of its access tokens. The client
// authenticates as at the token endpoint; the token it names, when it is one of its own and has not expired, is
// refused from then on, on every instance: its `jti` is stored until the token would have expired, the client's
// record in the read model lists it (readmodel/loaders.ts), and the event `oauth_client.token_revoked` carries the
// change to the other instances (changes/eventTail.ts).
//
// As RFC 7009 §2.2 asks, a token that is invalid, expired or already revoked is answered 200 like a revoked one:
// there is nothing left to do. So is a token of another client (nothing is revoked): the answer never tells a
// client whether another client's token is valid. A token issued before tokens carried a `jti` cannot be told
// apart from the client's others: 400 `unsupported_token_type`, revoke the client or wait for its expiry (24 h).
import type { DomainDeps } from '../domain/shared/deps.js';
import { recordEvent } from '../domain/events/log.js';
import type { TokenSettings } from './tokens.js';
import { verifyAccessToken } from './tokens.js';

export type RevocationResponse = { status: 200; body: null } | { status: 400; body: { error: string; error_description: string } };

/** `client`: the authenticated client. */
export async function revokeAccessToken(
  deps: DomainDeps,
  tokens: TokenSettings,
  client: { id: string; clientId: string; orgId: string; name: string },
  token: unknown,
): Promise<RevocationResponse> {
  if (typeof token !== 'string' || !token)
    return { status: 400, body: { error: 'invalid_request', error_description: 'token is required' } };
  const now = deps.clock();
  const claims = await verifyAccessToken(tokens, token, now);
  if (!claims || claims.clientId !== client.clientId) return { status: 200, body: null };
  if (claims.jti === null)
    return {
      status: 400,
      body: {
        error: 'unsupported_token_type',
        error_description:
          'This token was issued before tokens could be revoked one by one: revoke the client, or rotate its secret and wait for the token to expire',
      },
    };
  const jti = claims.jti;
  const revoked = await deps.db.$transaction(async (tx) => {
    // the client's revocations of tokens expired by now are no longer needed: a client's rows stay at what it
    // revoked within a token's lifetime
    await tx.revokedAccessToken.deleteMany({ where: { clientId: client.clientId, expiresAt: { lte: now } } });
    const stored = await tx.revokedAccessToken.createMany({
      data: [{ jti, clientId: client.clientId, expiresAt: new Date(claims.expiresAtMs) }],
      skipDuplicates: true,
    });
    if (stored.count === 0) return false;
    await recordEvent(
      tx,
      deps,
      { kind: 'oauthClient', id: client.id, name: client.name },
      {
        type: 'oauth_client.token_revoked',
        orgId: client.orgId,
        subject: { type: 'oauth_client', id: client.id },
        data: { jti, expiresAt: new Date(claims.expiresAtMs).toISOString() },
      },
    );
    return true;
  });
  if (revoked) deps.changes.publish({ kind: 'credentials', orgId: client.orgId });
  return { status: 200, body: null };
}
