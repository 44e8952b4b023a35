// API keys and OAuth client secrets are long random tokens; only their SHA-256 is stored. A fast hash
// is enough for 256-bit random secrets (no dictionary to guess from), and lets a key be found by its
// hash with one index lookup on every request.
import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62 drawn without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: keeps the draw uniform
      if (out.length === length) break;
    }
  }
  return out;
}

export const API_KEY_PATTERN = /^svc-sk-v[12]-[0-9A-Za-z]{43}$/;

export function generateApiKey(): string {
  return `svc-sk-v2-${randomBase62(43)}`;
}

export function generateClientSecret(): string {
  return randomBase62(48);
}

export function generateClientId(): string {
  return `cli_${randomBase62(24)}`;
}

export function hashSecret(secret: string): string {
  // the one-shot digest (no Hash object): this runs on every request that carries an API key
  return hash('sha256', secret, 'hex');
}

/** Compares two hex hashes in constant time. */
export function hashesEqual(hash: string, storedHash: string): boolean {
  // every character is looked at whatever differs (no early exit), without a buffer per comparison
  // (this runs on every request that carries an API key); hex compared case-insensitively, as bytes
  if (hash.length !== storedHash.length || hash.length % 2 !== 0) return false;
  let diff = 0;
  let invalid = 0;
  for (let i = 0; i < hash.length; i++) {
    const a = hexValue(hash.charCodeAt(i));
    const b = hexValue(storedHash.charCodeAt(i));
    diff |= a ^ b;
    invalid |= a | b;
  }
  return diff === 0 && (invalid & 256) === 0;
}

/** The value of a hex digit; 256 for anything else (not a hash: never equal). */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return 256;
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  return hashesEqual(hashSecret(secret), storedHash);
}
