// Webhook signing secrets: `whsec_` + 32 random bytes in base64 (the Standard Webhooks form), answered
// once when made and stored encrypted with AES-256-GCM under a key derived from the service's signing
// key (crypto/derivedKeys.ts), so every instance can sign and a database dump alone cannot.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { derivedKey, type KeyMaterial } from '../../../crypto/derivedKeys.js';

const PURPOSE = 'webhook secrets v1';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** iv.ciphertext.tag, each base64url. */
export function encryptSecret(key: KeyMaterial, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derivedKey(key, PURPOSE), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

export function decryptSecret(key: KeyMaterial, stored: string): string {
  const [iv, sealed, tag] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', derivedKey(key, PURPOSE), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
}
