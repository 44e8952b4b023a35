// Header fields node:http reads differently from a fetch Request when repeated: node:http keeps the first
// Authorization or Content-Type and drops the rest. A request naming two credentials (or two body types)
// is read here as a fetch Request reads it, every value joined, so that it is refused (or read) as the
// whole of what was sent, never as whichever one came first.
import type { IncomingMessage } from 'node:http';

/** Whether one of `names` (lower case, at most 31) appears more than once in node:http's raw header list. */
export function repeatsField(raw: readonly string[], names: readonly string[]): boolean {
  // one bit per name already seen: nothing allocated, as this runs on every request
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    for (let n = 0; n < names.length; n++) {
      if (name.length !== names[n]!.length || name.toLowerCase() !== names[n]) continue;
      if (seen & (1 << n)) return true;
      seen |= 1 << n;
    }
  }
  return false;
}

/** The value of `name` (lower case) as sent: every occurrence joined with ", " (as a fetch Request reads it). */
export function headerAsSent(incoming: IncomingMessage, name: 'authorization' | 'content-type'): string | undefined {
  const value = incoming.headers[name];
  if (value === undefined || !repeatsField(incoming.rawHeaders, [name])) return value;
  const values: string[] = [];
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) values.push(raw[i + 1]!);
  return values.join(', ');
}
