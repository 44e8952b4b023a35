// Keys for the service's own MACs, derived from the signing key (SigningKey.derivationSecret) with
// HKDF, one per purpose: every instance that signs with the same key derives the same MAC keys (no
// second secret to distribute), and a key derived for one purpose is useless for another.
import { hkdfSync } from 'node:crypto';
import type { SigningKey } from './signingKey.js';

const cache = new WeakMap<SigningKey, Map<string, Uint8Array>>();

export function derivedKey(signingKey: SigningKey, purpose: string): Uint8Array {
  let keys = cache.get(signingKey);
  if (!keys) cache.set(signingKey, (keys = new Map()));
  let key = keys.get(purpose);
  if (!key) keys.set(purpose, (key = new Uint8Array(hkdfSync('sha256', signingKey.derivationSecret, '', purpose, 32))));
  return key;
}
