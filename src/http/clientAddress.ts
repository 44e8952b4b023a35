// The client address that unauthenticated requests are counted by. X-Forwarded-For is trusted only
// when TRUST_PROXY says so (anyone can send it); then its LAST entry is used: the address your proxy
// saw and appended, not whatever the client wrote in front of it.
import type { IncomingMessage } from 'node:http';

/** The peer of a request made in the process (app.fetch in tests, app.ts): not an address. */
export const UNKNOWN_ADDRESS = 'local';

export function clientAddress(incoming: IncomingMessage, trustProxy: boolean): string {
  const forwardedFor = trustProxy ? incoming.headers['x-forwarded-for'] : undefined;
  return addressOf(Array.isArray(forwardedFor) ? forwardedFor.join(', ') : forwardedFor, incoming.socket?.remoteAddress);
}

/** The same rule from the raw parts: `forwardedFor` is passed only when the proxy is trusted. */
export function addressOf(forwardedFor: string | undefined, socketAddress: string | undefined): string {
  if (forwardedFor) {
    const last = forwardedFor.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return socketAddress ?? UNKNOWN_ADDRESS;
}
