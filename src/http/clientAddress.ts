// The client address that unauthenticated requests are counted by. X-Forwarded-For is trusted only
// when TRUST_PROXY says so (anyone can send it); then its LAST entry is used: the address your proxy
// saw and appended, not whatever the client wrote in front of it.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** Used when the app is called without a socket (app.fetch in tests, other runtimes). */
export const UNKNOWN_ADDRESS = 'local';

export function clientAddress(c: Context, trustProxy: boolean): string {
  let socketAddress: string | undefined;
  try {
    socketAddress = getConnInfo(c).remote.address;
  } catch {
    socketAddress = undefined; // no Node socket behind this request
  }
  return addressOf(trustProxy ? c.req.header('x-forwarded-for') : undefined, socketAddress);
}

/** The same rule from the raw parts: `forwardedFor` is passed only when the proxy is trusted. */
export function addressOf(forwardedFor: string | undefined, socketAddress: string | undefined): string {
  if (forwardedFor) {
    const last = forwardedFor.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return socketAddress ?? UNKNOWN_ADDRESS;
}
