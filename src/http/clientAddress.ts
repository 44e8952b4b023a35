// The client address that unauthenticated requests are counted by. X-Forwarded-For is trusted only
// when TRUST_PROXY says so (anyone can send it); then its LAST entry is used: the address your proxy
// saw and appended, not whatever the client wrote in front of it.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** Used when the app is called without a socket (app.fetch in tests, other runtimes). */
export const UNKNOWN_ADDRESS = 'local';

export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? UNKNOWN_ADDRESS;
  } catch {
    return UNKNOWN_ADDRESS; // no Node socket behind this request
  }
}
