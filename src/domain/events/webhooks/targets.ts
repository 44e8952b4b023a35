// Which webhook targets are allowed: https:// only, and never loopback, private, link-local, metadata
// or other special addresses, unless WEBHOOK_ALLOW_PRIVATE_TARGETS (local development). The URL is
// checked when an endpoint is saved; the address after DNS, at every delivery (delivery.ts).
import { BlockList, isIP } from 'node:net';

// addresses no webhook may reach unless private targets are allowed (one list per family: a BlockList
// matches IPv4 addresses against IPv4-mapped IPv6 rules too)
const refused = new BlockList();
const refused6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  refused6.addSubnet(net, prefix, 'ipv6');

/** True when `address` is loopback, private, link-local (metadata 169.254.169.254 included) or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family === 6) {
    // an IPv4-mapped address (::ffff:1.2.3.4 or ::ffff:102:304) is judged as the IPv4 address it carries
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (dotted) return refused.check(dotted[1]!, 'ipv4');
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hex) {
      const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
      return refused.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
    }
    return refused6.check(address, 'ipv6');
  }
  return true;
}

export class TargetRefused extends Error {}

/** Why a URL may not be a webhook target (its scheme), or null; the address is checked at delivery. */
export function urlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) return 'must be an https:// URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  return null;
}

