// Keys for the service's own MACs and encryption, derived from the signing key's derivation secret
// (auth/signingKey.ts) with HKDF, one per purpose: every instance that signs with the same key derives the
// same keys (no second secret to distribute), and a key derived for one purpose is useless for another.
// Here, below auth/ and domain/, because both use it (page cursors, webhook secrets).
import { hkdfSync } from 'node:crypto';

/** What keys are derived from: the signing key (auth/signingKey.ts) is one. */
export interface KeyMaterial {
  derivationSecret: Uint8Array;
}

const cache = new WeakMap<KeyMaterial, Map<string, Uint8Array>>();

export function derivedKey(material: KeyMaterial, purpose: string): Uint8Array {
  let keys = cache.get(material);
  if (!keys) cache.set(material, (keys = new Map<string, Uint8Array>()));
  let key = keys.get(purpose);
  if (!key) keys.set(purpose, (key = new Uint8Array(hkdfSync('sha256', material.derivationSecret, '', purpose, 32))));
  return key;
}
