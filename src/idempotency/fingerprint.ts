// What makes two requests "the same request" for an Idempotency-Key: a SHA-256 over a canonical JSON
// of their parts (object keys sorted), so that a JSON body and a form body with the same fields, or
// the same fields in another order, are the same request, and any other difference is not.
import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function requestFingerprint(parts: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(parts)))
    .digest('base64url');
}
