// A fuzzed HTTP request as plain data: what fast-check generates, shrinks and prints. Ids and
// credentials are named (IdRef, `auth`) and resolved only when the request is sent, so that one
// generated request means the same thing whatever the demo data's random UUIDs are in this run.
// `encodeRequest` turns it into bytes; `curlCommand` prints exactly those bytes as a curl command.

/** An id of the demo data, by name ("clinic.org", "other.bot", "random"), resolved at send time. */
export class IdRef {
  constructor(readonly name: string) {}
  toString(): string {
    return `IdRef(${this.name})`;
  }
}

/** A JSON token written as is, for what JSON.stringify cannot produce: `1e400`, `-0`, `1.0`. */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return `RawJson(${this.text})`;
  }
}

/** A JSON object written entry by entry: duplicate keys and `__proto__` keys survive as sent. */
export class JsonEntries {
  constructor(readonly entries: [string, unknown][]) {}
  toString(): string {
    return `JsonEntries(${JSON.stringify(this.entries)})`;
  }
}

/** A query parameter holding JSON (GraphQL's `variables` in a GET), ids resolved when sent. */
export class JsonParam {
  constructor(readonly value: unknown) {}
  toString(): string {
    return `JsonParam(${JSON.stringify(this.value)})`;
  }
}

export type Body =
  | { encoding: 'json'; value: unknown }
  /** Flattened into `a[b][0]=…` fields; `JsonEntries` repeat a field. */
  | { encoding: 'form'; value: unknown }
  | { encoding: 'multipart'; value: unknown }
  /** Bytes as they are: invalid UTF-8, truncated documents, garbage. */
  | { encoding: 'bytes'; bytes: number[] }
  /** `size` bytes of `fill` (an oversized body, without keeping a megabyte in the counterexample). */
  | { encoding: 'huge'; size: number; fill: string };

/** Who calls: a demo credential by name, none, or an Authorization header value as is. */
export type Auth =
  | { credential: 'clinicKey' | 'accountKey' | 'clinic2Key' | 'otherKey' | 'clinicToken' | 'readOnlyToken' }
  | { header: string }
  | { none: true };

export interface FuzzRequest {
  /** The fuzz target this request was made for (a route, a GraphQL field, a transport case). */
  target: string;
  method: string;
  /** Path segments after the origin; strings are inserted as they are (they may hold %-escapes), ids are %-encoded. */
  path: (string | IdRef)[];
  /** Query parameters (%-encoded when sent), then `rawQuery` appended as is. */
  query: [string, string | IdRef | JsonParam][];
  rawQuery?: string;
  auth: Auth;
  /** Extra headers, sent after the generated ones. */
  headers: [string, string][];
  /** undefined: the body encoding's own content type; null: no Content-Type header; a string: that one. */
  contentType?: string | null;
  body?: Body;
}

export interface Resolver {
  id(name: string): string;
  credential(name: string): string;
}

export const ORIGIN = 'http://127.0.0.1:4000';
export const MULTIPART_BOUNDARY = '----fuzz7MA4YWxkTrZu0gW';

const utf8 = new TextEncoder();

/** Replaces every IdRef by its id (RawJson and JsonEntries are kept for the encoders). */
export function resolveIds(value: unknown, resolver: Resolver): unknown {
  if (value instanceof IdRef) return resolver.id(value.name);
  if (value instanceof RawJson) return value;
  if (value instanceof JsonEntries) return new JsonEntries(value.entries.map(([k, v]) => [k, resolveIds(v, resolver)]));
  if (Array.isArray(value)) return value.map((v) => resolveIds(v, resolver));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: resolveIds(v, resolver), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** JSON text of a value tree; iterative, so that a 100 000-deep nesting does not overflow the test's own stack. */
export function jsonText(value: unknown): string {
  type Task = { text: string } | { value: unknown };
  const out: string[] = [];
  const stack: Task[] = [{ value }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if ('text' in task) {
      out.push(task.text);
      continue;
    }
    const v = task.value;
    if (v instanceof RawJson) out.push(v.text);
    else if (v === null || v === undefined || typeof v !== 'object') out.push(JSON.stringify(v ?? null) ?? 'null');
    else {
      const isArray = Array.isArray(v);
      const entries: [string | null, unknown][] = isArray
        ? (v as unknown[]).map((x) => [null, x])
        : v instanceof JsonEntries
          ? v.entries
          : Object.entries(v as Record<string, unknown>);
      out.push(isArray ? '[' : '{');
      stack.push({ text: isArray ? ']' : '}' });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        stack.push({ value: x });
        stack.push({ text: `${i > 0 ? ',' : ''}${k === null ? '' : `${JSON.stringify(k)}:`}` });
      }
    }
  }
  return out.join('');
}

/** Form fields of a value tree: `{a: {b: [1]}}` → `a[b][0]=1`; null → ""; JsonEntries repeat keys. */
export function formFields(value: unknown, prefix = ''): [string, string][] {
  const key = (k: string) => (prefix ? `${prefix}[${k}]` : k);
  if (value instanceof JsonEntries) return value.entries.flatMap(([k, v]) => formFields(v, key(k)));
  if (value instanceof RawJson) return [[prefix || 'value', value.text]];
  if (Array.isArray(value)) return value.length === 0 ? [[prefix || 'value', '']] : value.flatMap((v, i) => formFields(v, key(String(i))));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => formFields(v, key(k)));
  // objects and arrays are split above: what is left is a scalar
  const scalar = value as string | number | boolean | bigint | null | undefined;
  const text = scalar === null || scalar === undefined ? '' : String(scalar);
  return [[prefix || 'value', text]];
}

/** %-encodes the UTF-8 of a string (a lone surrogate becomes U+FFFD, as a browser would send it). */
export function percentEncode(text: string): string {
  const wellFormed = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return encodeURIComponent(wellFormed).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

export interface EncodedRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer> | undefined;
}

function encodeBody(body: Body, resolver: Resolver): { bytes: Uint8Array<ArrayBuffer>; contentType: string | null } {
  switch (body.encoding) {
    case 'json':
      return { bytes: utf8.encode(jsonText(resolveIds(body.value, resolver))), contentType: 'application/json' };
    case 'form': {
      const text = formFields(resolveIds(body.value, resolver))
        .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)
        .join('&');
      return { bytes: utf8.encode(text), contentType: 'application/x-www-form-urlencoded' };
    }
    case 'multipart': {
      const parts: Uint8Array[] = [];
      for (const [k, v] of formFields(resolveIds(body.value, resolver))) {
        parts.push(utf8.encode(`--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
      }
      parts.push(utf8.encode(`--${MULTIPART_BOUNDARY}--\r\n`));
      return { bytes: concat(parts), contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}` };
    }
    case 'bytes':
      return { bytes: new Uint8Array(body.bytes), contentType: null };
    case 'huge':
      return {
        bytes: utf8.encode(body.fill.repeat(Math.ceil(body.size / Math.max(1, body.fill.length))).slice(0, body.size)),
        contentType: null,
      };
  }
}

export function encodeRequest(req: FuzzRequest, resolver: Resolver): EncodedRequest {
  const path = req.path.map((s) => (s instanceof IdRef ? percentEncode(resolver.id(s.name)) : s)).join('/');
  const paramText = (v: string | IdRef | JsonParam) =>
    v instanceof IdRef ? resolver.id(v.name) : v instanceof JsonParam ? jsonText(resolveIds(v.value, resolver)) : v;
  const query = req.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(paramText(v))}`);
  if (req.rawQuery) query.push(req.rawQuery);
  const url = `${ORIGIN}/${path.replace(/^\/+/, '')}${query.length ? `?${query.join('&')}` : ''}`;
  const headers: [string, string][] = [];
  if ('credential' in req.auth) headers.push(['authorization', `Bearer ${resolver.credential(req.auth.credential)}`]);
  else if ('header' in req.auth) headers.push(['authorization', req.auth.header]);
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (req.body) {
    const encoded = encodeBody(req.body, resolver);
    body = encoded.bytes;
    const contentType = req.contentType === undefined ? encoded.contentType : req.contentType;
    if (contentType !== null) headers.push(['content-type', contentType]);
  } else if (typeof req.contentType === 'string') {
    headers.push(['content-type', req.contentType]);
  }
  headers.push(...req.headers);
  return { method: req.method, url, headers, body };
}

/** Sends an encoded request through a fetch handler (the app's, without a socket). */
export function toFetchRequest(encoded: EncodedRequest): Request {
  const headers = new Headers();
  for (const [k, v] of encoded.headers) headers.append(k, v);
  const withBody = encoded.body !== undefined && encoded.method !== 'GET' && encoded.method !== 'HEAD';
  return new Request(encoded.url, { method: encoded.method, headers, ...(withBody ? { body: encoded.body } : {}) });
}

/** Bash ANSI-C quoting ($'…') of arbitrary bytes: every byte survives, printable ASCII stays readable. */
function ansiC(bytes: Uint8Array): string {
  let out = "$'";
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else if (b === 0x0a) out += '\\n';
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

const LONG = 2048;

/**
 * A shell command printing these bytes: literal runs in $'…', long repetitions (a 300 000-deep `[b]`
 * key, a megabyte of spaces) generated with `yes … | head -c`. Undefined when too little repeats.
 */
function shellGenerator(bytes: Uint8Array): string | undefined {
  const parts: string[] = [];
  let literal: number[] = [];
  let literalTotal = 0;
  const flush = () => {
    if (literal.length) parts.push(`printf '%s' ${ansiC(new Uint8Array(literal))}`);
    literalTotal += literal.length;
    literal = [];
  };
  let p = 0;
  while (p < bytes.length) {
    let best = { unit: 0, length: 0 };
    for (let unit = 1; unit <= 16 && p + unit <= bytes.length; unit++) {
      let end = p + unit;
      while (end < bytes.length && bytes[end] === bytes[end - unit]) end++;
      const length = end - p - ((end - p) % unit);
      if (length > best.length) best = { unit, length };
    }
    const unitBytes = bytes.subarray(p, p + best.unit);
    if (best.length >= 64 && !unitBytes.includes(0x0a) && !unitBytes.includes(0x00) && unitBytes[0] !== 0x2d) {
      flush();
      parts.push(`yes ${ansiC(unitBytes)} | tr -d '\\n' | head -c ${best.length}`);
      p += best.length;
    } else {
      literal.push(bytes[p]!);
      p++;
    }
  }
  flush();
  return literalTotal > 4096 ? undefined : `{ ${parts.join('; ')}; }`;
}

/** The request as one curl command against $BASE (e.g. http://127.0.0.1:4000); long values are generated by the shell. */
export function curlCommand(encoded: EncodedRequest): string {
  const lines = [`curl -sS -i -X ${encoded.method} "$BASE"${ansiC(utf8.encode(encoded.url.slice(ORIGIN.length)))}`];
  for (const [k, v] of encoded.headers) {
    const generated = v.length > LONG ? shellGenerator(utf8.encode(v)) : undefined;
    lines.push(generated ? `-H "${k}: $(${generated})"` : `-H ${ansiC(utf8.encode(`${k}: ${v}`))}`);
  }
  if (encoded.body !== undefined) {
    const generated = encoded.body.byteLength > LONG ? shellGenerator(encoded.body) : undefined;
    if (generated) lines.push(`--data-binary @<(${generated})`);
    else lines.push(`--data-binary ${ansiC(encoded.body)}`);
  }
  return lines.join(' \\\n  ');
}
