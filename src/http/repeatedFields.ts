// Header fields node:http and a fetch Request read differently when repeated: node:http keeps the first
// Authorization or Content-Type, a fetch Request joins them (and the request is then refused, or read
// otherwise). The direct answers (rest/directAnswer.ts, graphql/overHttp.ts) leave such a request to Hono.

/** Whether one of `names` (lower case) appears more than once in node:http's raw header list. */
export function repeatsField(raw: readonly string[], names: readonly string[]): boolean {
  const seen = new Array<number>(names.length).fill(0);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    for (let n = 0; n < names.length; n++) {
      if (name.length === names[n]!.length && name.toLowerCase() === names[n] && ++seen[n]! > 1) return true;
    }
  }
  return false;
}
