// The key that signs access tokens. JWT_PRIVATE_KEY (PEM or JWK) when set; otherwise a key generated
// once and kept in the database, so that every instance on one database and every restart agree.
import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Db } from '../db/client.js';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: KeyObject | CryptoKey;
  publicKey: KeyObject | CryptoKey;
  publicJwk: JWK;
  /**
   * 32 bytes derived (HKDF) from the private key, from which the service derives the keys of its own
   * MACs (crypto/derivedKeys.ts): every instance with this signing key agrees, nobody without it can forge.
   */
  derivationSecret: Uint8Array;
}

/** HKDF-SHA-256 of the private key's secret component (the JWK's `d`). */
function derivationSecretOf(privateJwk: JWK): Uint8Array {
  if (typeof privateJwk.d !== 'string') throw new Error('the signing key has no private component');
  return new Uint8Array(
    hkdfSync('sha256', Buffer.from(privateJwk.d, 'base64url'), 'office-communications-service', 'derivation secret', 32),
  );
}

const STORED_KID = 'default-es256';

function algFor(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }[String(key.asymmetricKeyDetails?.namedCurve)] ?? 'ES256';
    case 'rsa':
      return 'RS256';
    case 'ed25519':
      return 'EdDSA';
    default:
      throw new Error(`JWT_PRIVATE_KEY: unsupported key type ${key.asymmetricKeyType}`);
  }
}

async function fromConfigured(text: string): Promise<SigningKey> {
  const trimmed = text.trim();
  const privateKey = trimmed.startsWith('{')
    ? createPrivateKey({ key: JSON.parse(trimmed) as import('node:crypto').JsonWebKey, format: 'jwk' })
    : createPrivateKey(trimmed.replace(/\\n/g, '\n'));
  const publicKey = createPublicKey(privateKey);
  const alg = algFor(privateKey);
  const publicJwk = await exportJWK(publicKey);
  const { createHash } = await import('node:crypto');
  const kid = createHash('sha256').update(JSON.stringify(publicJwk)).digest('base64url').slice(0, 16);
  const derivationSecret = derivationSecretOf(privateKey.export({ format: 'jwk' }));
  return { kid, alg, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg, use: 'sig' }, derivationSecret };
}

async function fromDatabase(db: Db): Promise<SigningKey> {
  let row = await db.signingKey.findUnique({ where: { kid: STORED_KID } });
  if (!row) {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(pair.privateKey);
    const publicJwk = await exportJWK(pair.publicKey);
    // createMany + skipDuplicates: two instances starting together keep one key, the first one written
    await db.signingKey.createMany({
      data: [{ kid: STORED_KID, privateJwk, publicJwk }],
      skipDuplicates: true,
    });
    row = await db.signingKey.findUniqueOrThrow({ where: { kid: STORED_KID } });
  }
  const privateKey = (await importJWK(row.privateJwk as JWK, 'ES256')) as CryptoKey;
  const publicKey = (await importJWK(row.publicJwk as JWK, 'ES256')) as CryptoKey;
  return {
    kid: row.kid,
    alg: 'ES256',
    privateKey,
    publicKey,
    publicJwk: { ...(row.publicJwk as JWK), kid: row.kid, alg: 'ES256', use: 'sig' },
    derivationSecret: derivationSecretOf(row.privateJwk as JWK),
  };
}

export async function loadSigningKey(db: Db, configured: string | undefined): Promise<SigningKey> {
  return configured ? fromConfigured(configured) : fromDatabase(db);
}
