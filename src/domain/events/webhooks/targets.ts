// Which webhook targets are allowed: https:// only, and only public unicast addresses, unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS (off by default everywhere; local development opts in). A URL is checked
// when an endpoint is saved — its host as written, and the addresses its name resolves to then — and the
// address after DNS again at every delivery (delivery.ts), since a name may resolve differently later.
//
// Which addresses are public is the maintained range list of `ipaddr.js` (its `range()` is 'unicast' only
// for addresses outside every special-purpose block: loopback, private, link-local and so metadata,
// carrier-grade NAT, unique-local, site-local, multicast, reserved, 6to4, Teredo, NAT64, IPv4-mapped …),
// plus the deprecated IPv4-compatible block ::/96 it does not list. Nothing says how a name resolved: a
// refusal only says that the target is not allowed.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The deprecated IPv4-compatible IPv6 block (::a.b.c.d): ipaddr.js calls it unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** True when `address` is not a public unicast address (or not an address at all). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isIP(bare.split('%')[0]!)) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return true;
  return parsed.range() !== 'unicast';
}

/** A name that is this machine whatever DNS says (RFC 6761: localhost and every name under it), trailing dots ignored. */
export function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A webhook target refused by policy: never retried, and its message says nothing of how the host resolved. */
export class TargetRefused extends Error {
  constructor() {
    super(TARGET_NOT_ALLOWED);
  }
}

/** The error class a delivery refused by policy records, and the reason a refused URL is given. */
export const TARGET_NOT_ALLOWED = 'target_not_allowed';
export const TARGET_NOT_ALLOWED_REASON =
  'the target is not allowed: webhooks go only to public internet addresses ' +
  '(not loopback, private, link-local, metadata or other special addresses)';

/** Resolves a host name to its addresses (node's dns.lookup with all: true); injectable for tests. */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Why a URL may not be a webhook target (its form: scheme, credentials, a host that is refused as written), or null. */
export function urlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) return 'must be an https:// URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (!parsed.hostname) return 'must name a host';
  if (allowPrivate) return null;
  // the URL parser has already turned every IPv4 spelling (decimal, octal, hex, short) into the dotted form
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) ? isPrivateAddress(host) : isLocalName(host)) return TARGET_NOT_ALLOWED_REASON;
  return null;
}

/** How long a save waits for DNS before taking the URL as it is (the delivery checks the address anyway). */
const SAVE_LOOKUP_MS = 2_000;

/**
 * Why a URL may not be a webhook target, its name resolved now: `urlProblem`, then, unless private targets
 * are allowed, any address of the name that is not public. A name that does not resolve (yet), or not in
 * time, is accepted: every delivery resolves it again and refuses a non-public address.
 */
export async function targetProblem(url: string, allowPrivate: boolean, lookup: HostLookup = systemLookup): Promise<string | null> {
  const problem = urlProblem(url, allowPrivate);
  if (problem || allowPrivate) return problem;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return null;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    lookup(host).catch(() => []),
    new Promise<[]>((resolve) => (timer = setTimeout(() => resolve([]), SAVE_LOOKUP_MS))),
  ]).finally(() => clearTimeout(timer));
  return addresses.some((a) => isPrivateAddress(a.address)) ? TARGET_NOT_ALLOWED_REASON : null;
}
