// Header fields node:http and a fetch Request read differently when repeated: node:http keeps the first
// Authorization or Content-Type, a fetch Request joins them (and the request is then refused, or read
// otherwise). The direct answers (rest/directAnswer.ts, graphql/overHttp.ts) leave such a request to Hono.

/** Whether one of `names` (lower case, at most 31) appears more than once in node:http's raw header list. */
export function repeatsField(raw: readonly string[], names: readonly string[]): boolean {
  // one bit per name already seen: nothing allocated on the direct paths, which run this on every request
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
