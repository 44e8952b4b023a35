// Webhook signing secrets: `whsec_` + 32 random bytes in base64 (the Standard Webhooks form), answered
// once when made and stored encrypted with AES-256-GCM under a key derived from the service's signing
// key (crypto/derivedKeys.ts), so every instance can sign and a database dump alone cannot.
import { randomBytes } from 'node:crypto';
import { openAesGcm, sealAesGcm } from '../../../crypto/aesGcm.js';
import { derivedKey, type KeyMaterial } from '../../../crypto/derivedKeys.js';

const PURPOSE = 'webhook secrets v1';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** iv.ciphertext.tag, each base64url (crypto/aesGcm.ts). */
export function encryptSecret(key: KeyMaterial, secret: string): string {
  return sealAesGcm(derivedKey(key, PURPOSE), secret);
}

export function decryptSecret(key: KeyMaterial, stored: string): string {
  return openAesGcm(derivedKey(key, PURPOSE), stored).toString('utf8');
}
