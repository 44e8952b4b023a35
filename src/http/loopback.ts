// Whether a request came from a browser on this machine, to this machine: what GraphiQL's demo key
// (GRAPHIQL_DEMO_KEY) is handed to, and nothing else. Proven by the socket, never by what the client
// writes: both ends of the connection are loopback addresses, no proxy forwarded it (a proxy on this
// machine would make every visitor look local), and the Host names this machine (a page of another site
// whose name was made to resolve to 127.0.0.1 — DNS rebinding — sends its own name). A request without a
// socket (app.fetch in tests: its peer is not an address) proves nothing.
import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

/** Headers a proxy adds (and X-Forwarded-*); any of them means the socket's peer is not the browser. */
const FORWARDING_HEADERS = new Set(['forwarded', 'x-real-ip', 'via']);
const forwarding = (name: string) => FORWARDING_HEADERS.has(name) || name.startsWith('x-forwarded-');

/** 127.0.0.0/8, ::1, and 127.x written as an IPv4-mapped IPv6 address (a dual-stack socket's view of it). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(address) && /^(0{0,4}:){1,7}0{0,3}1$|^::1$/.test(address);
}

/** `localhost`, a 127.x address or `[::1]`, with or without a port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return name.toLowerCase() === 'localhost' || isLoopbackAddress(name);
}

export function cameFromThisMachine(incoming: IncomingMessage): boolean {
  const socket = incoming.socket;
  if (!isLoopbackAddress(socket.remoteAddress) || !isLoopbackAddress(socket.localAddress)) return false;
  for (const name in incoming.headers) if (forwarding(name)) return false;
  return isLoopbackHost(incoming.headers.host);
}
