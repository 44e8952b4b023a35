// Access tokens (docs/decisions.md §2): JWTs signed with the service key, 24 h, with iss/aud/sub/org/scope and, as
// RFC 9068 asks, client_id and jti.
// Verification pins the algorithm, issuer and audience, so `alg: none`, a foreign key, another
// audience or an expired token are all rejected.
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { SigningKey } from './signingKey.js';

export const ACCESS_TOKEN_TTL_SECONDS = 86_400;

export interface TokenSettings {
  key: SigningKey;
  issuer: string;
  audience: string;
}

export interface AccessClaims {
  clientId: string;
  orgId: string;
  scopes: string[];
}

export interface VerifiedClaims extends AccessClaims {
  /** When the token expires (its `exp`), epoch milliseconds. */
  expiresAtMs: number;
  /** Its `jti`; null for a token issued before tokens carried one. */
  jti: string | null;
}

export async function issueAccessToken(settings: TokenSettings, claims: AccessClaims, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  // RFC 9068 §2.2: a JWT access token carries client_id and a jti besides iss, exp, aud, sub and iat
  return new SignJWT({ org: claims.orgId, scope: claims.scopes.join(' '), client_id: claims.clientId })
    .setProtectedHeader({ alg: settings.key.alg, kid: settings.key.kid, typ: 'at+jwt' })
    .setJti(randomUUID())
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(settings.key.privateKey);
}

/** Answers the claims of a valid token, or null for any token that must be refused. */
export async function verifyAccessToken(settings: TokenSettings, token: string, now: Date): Promise<VerifiedClaims | null> {
  try {
    const { payload } = await jwtVerify(token, settings.key.publicKey, {
      algorithms: [settings.key.alg],
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: now,
      requiredClaims: ['exp', 'sub', 'iss', 'aud'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.scope !== 'string') return null;
    return {
      clientId: payload.sub,
      orgId: payload.org,
      scopes: payload.scope.split(' ').filter(Boolean),
      expiresAtMs: payload.exp! * 1000,
      jti: typeof payload.jti === 'string' ? payload.jti : null,
    };
  } catch {
    return null;
  }
}
