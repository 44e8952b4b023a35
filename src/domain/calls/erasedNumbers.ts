// A phone number erased on request (erasure.ts) is kept where it must still be recognised — a suppression, and a
// call request's `to` — as its keyed hash: `erased:` + base64url HMAC-SHA-256 of its E.164 form, with a key derived
// from the signing key (crypto/derivedKeys.ts, purpose "erased phone numbers v1"). The same number always gives the
// same hash, so a later call request to it still meets its suppression; without the key the hash names no number.
import { createHmac } from 'node:crypto';
import { derivedKey, type KeyMaterial } from '../../crypto/derivedKeys.js';

/** The prefix of a number kept as its keyed hash; no E.164 number starts so. */
export const ERASED_NUMBER_PREFIX = 'erased:';

/** The keyed hash an erased number is kept as. */
export function erasedNumber(key: KeyMaterial, e164: string): string {
  return ERASED_NUMBER_PREFIX + createHmac('sha256', derivedKey(key, 'erased phone numbers v1')).update(e164).digest('base64url');
}

/** Whether a stored number is an erased one (its keyed hash). */
export function isErasedNumber(stored: string): boolean {
  return stored.startsWith(ERASED_NUMBER_PREFIX);
}
