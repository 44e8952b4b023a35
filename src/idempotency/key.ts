// The Idempotency-Key header (Stripe's semantics): its name, the headers of a replay, and what a key
// may look like. Shared by both surfaces.
import { InvalidInput } from '../domain/shared/errors.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** `true` on an answer replayed from the first request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** On a replay: the X-Request-Id of the request whose answer is replayed (Stripe's `Original-Request`). */
export const ORIGINAL_REQUEST_HEADER = 'Original-Request';

/** Methods whose requests a key applies to. GET and DELETE are idempotent by themselves: a key there is ignored. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Visible ASCII (no spaces, no control characters): a UUID, a ULID or any client-made token fits. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/**
 * The key sent in `Idempotency-Key`, or undefined when the header is absent. A key that is empty,
 * longer than 255 characters, or has characters other than visible ASCII is a 400 naming the header.
 */
export function parseIdempotencyKey(header: string | null | undefined): string | undefined {
  if (header === null || header === undefined) return undefined;
  const key = header.trim();
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY_PATTERN.test(key)) {
    throw InvalidInput.of(
      IDEMPOTENCY_KEY_HEADER,
      `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (letters, digits, punctuation; no spaces), e.g. a UUID`,
    );
  }
  return key;
}
