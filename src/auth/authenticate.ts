// Bearer credential → Actor. A full API key (svc-sk-v2-…, svc-sk-v1-…) carries every scope, a restricted
// one only its own, and an expired one (after a roll, or its chosen expiry) is refused; OAuth access
// tokens carry their client's scopes. Credentials, verified tokens and the owner's record come from the
// read model: a warm request authenticates without a statement, and a revoked key or client or a changed
// scope reaches it through the change feed.
import { type Actor, isScope, SCOPES, type Scope } from '../domain/shared/access.js';
import { Unauthenticated } from '../domain/shared/errors.js';
import type { ApiKeyRecord, OAuthClientRecord, OrganizationRecord, VerifiedToken } from '../domain/shared/readModel.js';
import type { ReadModel } from '../readmodel/readModel.js';
import type { DomainDeps } from '../domain/shared/deps.js';
import { API_KEY_PATTERN, hashesEqual, hashSecret } from '../crypto/secrets.js';
import { type TokenSettings, verifyAccessToken } from './tokens.js';

// The actor carries no list of the owner's children: reach is decided per target organization from
// its parent (domain/shared/access.ts), so a request costs the same under an account of any size.
function actorFor(owner: OrganizationRecord, scopes: Iterable<Scope>, full: boolean, credential: Actor['credential']): Actor {
  return { orgId: owner.id, ownerIsAccount: owner.isAccount, scopes: new Set(scopes), full, credential };
}

/**
 * The actor of an API key, made once per pair of records the read model holds. Its records are
 * replaced, never changed, when a change (a revoked key, new scopes, a moved organization) or their age
 * makes it load them again, so an actor found here for the same two objects is the one they give; the
 * key's own checks (revoked, expired) still run on every request. Weak: an actor goes with its records.
 */
const apiKeyActors = new WeakMap<ApiKeyRecord, { owner: OrganizationRecord; actor: Actor }>();

function apiKeyActor(key: ApiKeyRecord, owner: OrganizationRecord): Actor {
  const known = apiKeyActors.get(key);
  if (known?.owner === owner) return known.actor;
  const full = key.scopes === null;
  const actor = actorFor(owner, full ? SCOPES : key.scopes!.filter(isScope), full, { kind: 'apiKey', id: key.id, name: key.name });
  apiKeyActors.set(key, { owner, actor });
  return actor;
}

/**
 * The actor of an access token, made once per token's verified claims (kept by the read model until the
 * token expires) and its client's and owner's records, as apiKeyActor is: new scopes or a revoked client
 * arrive as new records and make a new actor. Weak: an actor goes with the claims.
 */
const tokenActors = new WeakMap<VerifiedToken, { client: OAuthClientRecord; owner: OrganizationRecord; actor: Actor }>();

function tokenActor(claims: VerifiedToken, client: OAuthClientRecord, owner: OrganizationRecord): Actor {
  const known = tokenActors.get(claims);
  if (known?.client === client && known.owner === owner) return known.actor;
  // a token never grants more than its client holds now; a client holds a list of scopes, never "full"
  const scopes = claims.scopes.filter(isScope).filter((s) => client.scopes.includes(s));
  const actor = actorFor(owner, scopes, false, { kind: 'oauth', id: client.id, name: client.name });
  tokenActors.set(claims, { client, owner, actor });
  return actor;
}

/** Extracts the token of an `Authorization: Bearer <token>` header; null when absent. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new Unauthenticated('The Authorization header must be "Bearer <token>"');
  return match[1]!;
}

export async function authenticate(
  deps: { readModel: ReadModel; clock: () => Date; keyUsage?: DomainDeps['keyUsage'] },
  tokens: TokenSettings,
  token: string,
): Promise<Actor> {
  const { readModel } = deps;
  if (token.startsWith('svc-sk-')) {
    if (!API_KEY_PATTERN.test(token)) throw new Unauthenticated('Invalid API key');
    const hash = hashSecret(token); // hashed once: the lookup key and the constant-time comparison
    const key = await readModel.apiKey(hash);
    if (!key || !hashesEqual(hash, key.hash) || key.revoked) throw new Unauthenticated('Invalid API key');
    if (key.expiresAtMs !== null && key.expiresAtMs <= deps.clock().getTime()) throw new Unauthenticated('This API key has expired');
    const owner = await readModel.organization(key.orgId);
    if (!owner) throw new Unauthenticated('Invalid API key');
    deps.keyUsage?.touch(key.id, deps.clock().getTime());
    return apiKeyActor(key, owner);
  }
  const now = deps.clock();
  let claims = readModel.verifiedToken(token, now.getTime());
  if (!claims) {
    const verified = await verifyAccessToken(tokens, token, now);
    if (!verified) throw new Unauthenticated('Invalid or expired access token');
    claims = verified;
    readModel.rememberToken(token, verified);
  }
  const client = await readModel.oauthClient(claims.clientId);
  if (!client || client.revoked || client.orgId !== claims.orgId) throw new Unauthenticated('Invalid or expired access token');
  if (claims.jti !== null && client.revokedTokens.includes(claims.jti)) throw new Unauthenticated('Invalid or expired access token');
  const owner = await readModel.organization(client.orgId);
  if (!owner) throw new Unauthenticated('Invalid or expired access token');
  return tokenActor(claims, client, owner);
}
