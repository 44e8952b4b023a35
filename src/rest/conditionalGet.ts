// Conditional GETs (RFC 9110 §8.8.3, §13.1.2) for every GET route of /v1, done once here for the router:
// the answer carries a weak ETag derived from what it says, and a request whose If-None-Match names
// that tag gets 304 with no body. A dashboard polling office hours or availability then receives a few
// hundred bytes of headers instead of the document while nothing changed.
// crypto.hash: the one-shot digest (Node 20.12+), without a Hash object per call
import { hash } from 'node:crypto';
import { sha256InSlices } from '../http/slicedJson.js';

/** Responses differ per credential: caches may keep them only for this client, and must revalidate. */
export const CONDITIONAL_CACHE_CONTROL = 'private, no-cache';

/**
 * `W/"<hash>"` of the answer's JSON text. Weak, because it vouches for the meaning of the answer, not
 * its bytes (a route may leave out fields that only echo the time of the request: RouteDef.etagOmits).
 */
export function weakETag(json: string): string {
  return `W/"${hash('sha256', json, 'base64url').slice(0, 27)}"`;
}

/** weakETag, digested in slices (a large answer's digest does not hold other requests: http/slicedJson.ts). */
export async function weakETagInSlices(json: string): Promise<string> {
  return `W/"${(await sha256InSlices(json)).slice(0, 27)}"`;
}

/**
 * Whether If-None-Match matches `etag` by the weak comparison (W/ ignored on both sides), which is the
 * one RFC 9110 prescribes for If-None-Match; `*` matches any current representation.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/**
 * `data` as its ETag sees it: the top-level fields a route's ETag leaves out are set to undefined, which
 * JSON.stringify skips, so the text is that of `data` without them. (A spread is several times cheaper than
 * rebuilding the object from its entries, and this runs on every availability answer.)
 */
export function withoutFields(data: unknown, omits: readonly string[]): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  const view: Record<string, unknown> = { ...data };
  for (const key of omits) view[key] = undefined;
  return view;
}
