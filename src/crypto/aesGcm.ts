// AES-256-GCM sealing as the service stores it: `iv.ciphertext.tag`, each base64url, a fresh 12-byte iv each time.
// Additional data (authenticated, not stored) binds a sealed value to where it belongs. Used for webhook signing
// secrets and for transcripts and their data keys.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function sealAesGcm(key: Uint8Array, plain: Uint8Array | string, aad?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const sealed = Buffer.concat([typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain), cipher.final()]);
  return `${iv.toString('base64url')}.${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/** The plain bytes of a sealed value; throws when it is not one, or was sealed under another key or additional data. */
export function openAesGcm(key: Uint8Array, stored: string, aad?: string): Buffer {
  const parts = stored.split('.');
  if (parts.length !== 3) throw new Error('a sealed value is not iv.ciphertext.tag');
  const [iv, sealed, tag] = parts.map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv!);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(sealed!), decipher.final()]);
}
