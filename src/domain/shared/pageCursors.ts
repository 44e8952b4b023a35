// Opaque page cursors: where a page ends (a position in the list's order) plus a digest of the filters
// the list was asked with, sealed with an HMAC. A cursor that was altered, made up, or comes back with
// other filters is a 400 naming the argument, so a client can neither probe positions it was not given
// nor continue one list with another list's cursor. The MAC key is derived from the service's signing
// key (crypto/derivedKeys.ts), so every instance agrees on every cursor.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey, type KeyMaterial } from '../../crypto/derivedKeys.js';
import { InvalidInput } from './errors.js';

export const PAGE_CURSOR_MAX_LENGTH = 512;

/** The key every list seals its cursors with (one purpose for all: a cursor's filters digest tells the lists apart). */
export function pageCursorKey(signingKey: KeyMaterial): Uint8Array {
  return derivedKey(signingKey, 'page cursors v1');
}
const MAC_BYTES = 16;

function digestOf(filters: unknown): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 22);
}

function macOf(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
}

/** A cursor for `position` in the list asked with `filters` (both JSON; `filters` with a stable key order). */
export function sealCursor(key: Uint8Array, position: unknown, filters: unknown): string {
  const payload = Buffer.from(JSON.stringify({ p: position, f: digestOf(filters) })).toString('base64url');
  return `${payload}.${macOf(key, payload).toString('base64url')}`;
}

/**
 * The position sealed in `cursor`, after checking its MAC and that it was issued for `filters`;
 * otherwise InvalidInput on `field` ("cursor" on REST, "after" in GraphQL).
 */
export function openCursor(key: Uint8Array, cursor: string, filters: unknown, field: string): unknown {
  const [payload = '', mac = '', ...rest] = cursor.split('.');
  const given = Buffer.from(mac, 'base64url');
  const expected = macOf(key, payload);
  if (rest.length > 0 || given.length !== MAC_BYTES || !timingSafeEqual(given, expected)) {
    throw InvalidInput.of(field, 'is not a cursor this service issued (altered or made up); start again without it');
  }
  const sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p: unknown; f: string };
  if (sealed.f !== digestOf(filters)) {
    throw InvalidInput.of(
      field,
      'was issued for other filters; send the same filters as for the page it came from, or start again without it',
    );
  }
  return sealed.p;
}

/** A position in a list ordered by an instant, ties by id: the instant in milliseconds and the row's uuid. */
export interface InstantIdPosition {
  t: number;
  i: string;
}

/**
 * `openCursor` for a list ordered by (instant, id): the shape is checked too (a sealed cursor is one this
 * service issued, but the check costs nothing and keeps a bad position out of SQL).
 */
export function openInstantIdCursor(key: Uint8Array, cursor: string, filters: unknown, field: string): InstantIdPosition {
  const position = openCursor(key, cursor, filters, field) as Partial<InstantIdPosition> | null;
  if (
    typeof position?.t !== 'number' ||
    !Number.isFinite(position.t) ||
    typeof position.i !== 'string' ||
    !/^[0-9a-f-]{36}$/.test(position.i)
  ) {
    throw InvalidInput.of(field, 'is not a cursor this service issued (altered or made up); start again without it');
  }
  return { t: position.t, i: position.i };
}
