// Bearer credential → Actor. API keys (svc-sk-v2-…, svc-sk-v1-…) carry every scope; OAuth access
// tokens carry their client's scopes. The owner's reach is read in the same query.
import type { Db } from '../db/client.js';
import { type Actor, isScope, SCOPES, type Scope } from '../domain/access.js';
import { Unauthenticated } from '../domain/errors.js';
import { API_KEY_PATTERN, hashesEqual, hashSecret } from './secrets.js';
import { type TokenSettings, verifyAccessToken } from './tokens.js';

const ownerSelect = { id: true, isAccount: true, children: { select: { id: true } } } as const;

function actorFor(
  owner: { id: string; isAccount: boolean; children: { id: string }[] },
  scopes: Iterable<Scope>,
  credential: Actor['credential'],
): Actor {
  const reach = new Set([owner.id]);
  if (owner.isAccount) for (const child of owner.children) reach.add(child.id);
  return { orgId: owner.id, ownerIsAccount: owner.isAccount, reach, scopes: new Set(scopes), credential };
}

/** Extracts the token of an `Authorization: Bearer <token>` header; null when absent. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new Unauthenticated('The Authorization header must be "Bearer <token>"');
  return match[1]!;
}

export async function authenticate(db: Db, tokens: TokenSettings, token: string, now: Date): Promise<Actor> {
  if (token.startsWith('svc-sk-')) {
    if (!API_KEY_PATTERN.test(token)) throw new Unauthenticated('Invalid API key');
    const hash = hashSecret(token); // hashed once: the lookup key and the constant-time comparison
    const row = await db.apiKey.findUnique({ where: { hash }, include: { org: { select: ownerSelect } } });
    if (!row || !hashesEqual(hash, row.hash) || row.revokedAt) throw new Unauthenticated('Invalid API key');
    return actorFor(row.org, SCOPES, { kind: 'apiKey', id: row.id });
  }
  const claims = await verifyAccessToken(tokens, token, now);
  if (!claims) throw new Unauthenticated('Invalid or expired access token');
  const client = await db.oAuthClient.findUnique({ where: { clientId: claims.clientId }, include: { org: { select: ownerSelect } } });
  if (!client || client.revokedAt || client.orgId !== claims.orgId) throw new Unauthenticated('Invalid or expired access token');
  // a token never grants more than its client holds now
  const scopes = claims.scopes.filter(isScope).filter((s) => client.scopes.includes(s));
  return actorFor(client.org, scopes, { kind: 'oauth', id: client.id });
}
