// Request bodies: JSON, application/x-www-form-urlencoded and multipart/form-data parsed into the same
// plain value, so that one zod schema validates all three. Form keys may nest with brackets or dots
// (`annualDate[month]`, `annualDate.month`, `breaks[0][start]`, `applicableMediums[]`).
import { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { RestErrorCode } from '../domain/shared/errorCodes.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * At most this many fields in a form body (PHP's `max_input_vars` default; the largest write of any route
 * takes a few hundred). Counted on the bytes — `&`-separated pairs, multipart boundaries — before any
 * object is built, so a body of a hundred thousand tiny fields costs one scan, not a hundred thousand objects.
 */
export const MAX_FORM_FIELDS = 1000;

/** A field name quoted in an error, cut to a readable length (a name may be most of a megabyte). */
function shownName(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

const tooManyFields = () => new BodyError(400, `The form body has more than ${MAX_FORM_FIELDS} fields`);

/** Refuses a url-encoded body of more than MAX_FORM_FIELDS `&`-separated pairs. */
function checkPairCount(bytes: Uint8Array): void {
  let pairs = 1;
  for (let i = bytes.indexOf(0x26); i !== -1; i = bytes.indexOf(0x26, i + 1)) {
    if (++pairs > MAX_FORM_FIELDS) throw tooManyFields();
  }
}

/** Refuses a multipart body of more than MAX_FORM_FIELDS parts (delimiters: `--boundary`, RFC 2046 §5.1.1). */
function checkPartCount(bytes: Uint8Array, contentType: string): void {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return; // the multipart parser refuses it
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // the last delimiter closes the body: parts = delimiters - 1
  let delimiters = 0;
  for (let i = buffer.indexOf(delimiter); i !== -1; i = buffer.indexOf(delimiter, i + delimiter.length)) {
    if (++delimiters > MAX_FORM_FIELDS + 1) throw tooManyFields();
  }
}

/** A body the service cannot read; `code` is its kind in the error catalogue (domain/shared/errorCodes.ts). */
export class BodyError extends Error {
  readonly code: Extract<RestErrorCode, 'malformed_request' | 'payload_too_large' | 'unsupported_media_type'>;
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'malformed_request';
  }
}

export type BodyKind = 'none' | 'json' | 'form';

export interface ParsedBody {
  kind: BodyKind;
  value: unknown;
}

/**
 * What a body is read from: node:http's message (the service's requests, and the app's own in-process
 * ones: app.ts), or a fetch Request (unit tests).
 */
export type BodySource = IncomingMessage | Request;

function headerOf(source: BodySource, name: string): string | null {
  if (source instanceof Request) return source.headers.get(name);
  const value = source.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The body when node:http has already received all of it: taken from the message's buffer at once. A small
 * body travels in the same packets as the request's headers, and requests start a turn of the event loop
 * after they arrive (requestScheduler.ts), so this is the usual case; reading through the stream would cost
 * listeners and several turns of the loop for bytes that are already here. Undefined when it is not all
 * here yet (or was read already): the caller then reads it as it comes.
 */
function receivedInFull(incoming: IncomingMessage): Uint8Array<ArrayBuffer> | undefined {
  // complete: the parser has seen the whole message, every byte of it pushed into the stream's buffer
  if (!incoming.complete || incoming.readableDidRead || incoming.readableEncoding !== null || incoming.readableLength > MAX_BODY_BYTES)
    return undefined;
  const buffered = incoming.read() as Buffer | null;
  if (buffered === null) return new Uint8Array();
  return new Uint8Array(buffered.buffer, buffered.byteOffset, buffered.byteLength) as Uint8Array<ArrayBuffer>;
}

/**
 * The body as sent, decoded from its Content-Encoding (gzip, deflate, br; RFC 9110 §8.4): the limit of
 * MAX_BODY_BYTES applies to the encoded body AND to the decoded one, so a small bomb cannot unpack into
 * more. Any other encoding is a 415.
 */
export async function readLimited(source: BodySource): Promise<Uint8Array<ArrayBuffer>> {
  const encoding = (headerOf(source, 'content-encoding') ?? '').trim().toLowerCase();
  const bytes = await readEncoded(source);
  if (encoding === '' || encoding === 'identity') return bytes;
  const decode = DECODERS[encoding];
  if (!decode) throw new BodyError(415, `Unsupported Content-Encoding "${encoding.slice(0, 50)}"; send gzip, deflate, br or none`);
  if (bytes.byteLength === 0) return bytes;
  let decoded: Buffer;
  try {
    decoded = decode(bytes, { maxOutputLength: MAX_BODY_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new BodyError(413, `The decoded body exceeds ${MAX_BODY_BYTES} bytes`);
    throw new BodyError(400, `The body is not valid ${encoding}`);
  }
  return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength) as Uint8Array<ArrayBuffer>;
}

const DECODERS: Record<string, (bytes: Uint8Array, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

async function readEncoded(source: BodySource): Promise<Uint8Array<ArrayBuffer>> {
  const declared = headerOf(source, 'content-length');
  if (declared && Number(declared) > MAX_BODY_BYTES) throw new BodyError(413, `The body exceeds ${MAX_BODY_BYTES} bytes`);
  if (source instanceof Request && !source.body) return new Uint8Array();
  if (source instanceof IncomingMessage) {
    const received = receivedInFull(source);
    if (received) return received;
  }
  // read as it comes, and no further than the limit: a body without a declared length may be endless
  const stream = (source instanceof Request ? source.body! : source) as AsyncIterable<Uint8Array | string>;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      total += bytes.byteLength;
      if (total > MAX_BODY_BYTES) throw new BodyError(413, `The body exceeds ${MAX_BODY_BYTES} bytes`);
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof BodyError) throw err;
    // the client went away or was cut for being too slow (HTTP_REQUEST_TIMEOUT_MS): nobody reads this
    // answer, but it is the client's doing, not a server error
    throw new BodyError(400, 'The body was not received in full');
  }
  const out = Buffer.concat(chunks, total);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_INDEX = 999;
/** Deeper than any field of any route (a workflow import nests 8 levels); past it a key is refused, not recursed into. */
const MAX_KEY_DEPTH = 32;

/** `a[b][0]`, `a.b.0`, `a[]` → ['a', 'b', '0'] / ['a', ''] */
function keySegments(key: string): string[] {
  const segments: string[] = [];
  const head = /^[^[.]*/.exec(key)![0];
  segments.push(head);
  const rest = key.slice(head.length);
  const re = /\[([^\]]*)\]|\.([^[.]*)/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = re.exec(rest)) !== null) {
    segments.push(match[1] ?? match[2] ?? '');
    consumed = re.lastIndex;
  }
  if (consumed !== rest.length) throw new BodyError(400, `Malformed form field name "${shownName(key)}"`);
  if (segments.length > MAX_KEY_DEPTH)
    throw new BodyError(400, `Form field name "${shownName(key)}" nests deeper than ${MAX_KEY_DEPTH} levels`);
  for (const s of segments) if (FORBIDDEN_SEGMENTS.has(s)) throw new BodyError(400, `Form field name "${shownName(key)}" is not allowed`);
  return segments;
}

type Tree = Record<string, unknown> | unknown[];

function assign(root: Record<string, unknown>, key: string, value: string): void {
  const segments = keySegments(key);
  let node: Tree = root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const nextIsIndex = !last && /^\d*$/.test(segments[i + 1]!);
    if (Array.isArray(node)) {
      let index: number;
      if (segment === '') index = last || !nextIsIndex ? node.length : node.length;
      else if (/^\d+$/.test(segment) && Number(segment) <= MAX_INDEX) index = Number(segment);
      else throw new BodyError(400, `Form field "${shownName(key)}": "${shownName(segment)}" is not an array index (0..${MAX_INDEX})`);
      if (last) {
        node[index] = value;
        return;
      }
      // `breaks[][start]` continues the last element when it lacks that key, like PHP and qs do
      if (segment === '' && node.length > 0) {
        const prev = node[node.length - 1];
        const nextKey = segments[i + 1]!;
        if (prev && typeof prev === 'object' && !(nextKey in prev)) index = node.length - 1;
      }
      node[index] ??= nextIsIndex ? [] : {};
      node = node[index] as Tree;
    } else {
      if (segment === '' && i > 0) throw new BodyError(400, `Malformed form field name "${shownName(key)}"`);
      if (last) {
        const existing = node[segment];
        // a repeated plain key collects its values, as in `applicableMediums=CHAT&applicableMediums=SMS`
        if (existing === undefined) node[segment] = value;
        else if (Array.isArray(existing)) existing.push(value);
        else if (typeof existing === 'string') node[segment] = [existing, value];
        else throw new BodyError(400, `Form field "${shownName(key)}" is given both as a value and as an object`);
        return;
      }
      const existing = node[segment];
      if (existing === undefined) node[segment] = nextIsIndex ? [] : {};
      else if (typeof existing !== 'object')
        throw new BodyError(400, `Form field "${shownName(key)}" is given both as a value and as an object`);
      node = node[segment] as Tree;
    }
  }
}

export function formEntriesToObject(entries: Iterable<[string, string]>): Record<string, unknown> {
  const root: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) assign(root, key, value);
  return densify(root) as Record<string, unknown>;
}

/** Holes left by sparse indices (`a[0]`, `a[2]`) become undefined entries, which validation then names. */
function densify(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, densify);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = densify(v);
    return out;
  }
  return value;
}

/** Whether a body sent as a form is a JSON object or array (no form's first field name starts with `{"` or `[`). */
function looksLikeJson(text: string): boolean {
  const start = text.trimStart();
  if (!start.startsWith('{') && !start.startsWith('[')) return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** How deep a JSON body may nest its arrays and objects: deeper than any field of any route, with room for metadata. */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses (400) JSON text that nests arrays and objects deeper than MAX_JSON_DEPTH, read from the text before it
 * is parsed: a parsed value that deep would be walked recursively later (validation, storage, an error message)
 * until the stack runs out. Brackets inside strings do not count.
 */
export function assertJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new BodyError(400, `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

export async function parseBody(source: BodySource): Promise<ParsedBody> {
  const bytes = await readLimited(source);
  // the media type is case-insensitive, a multipart boundary is not (RFC 2046 §5.1.1): keep it as sent
  const contentType = headerOf(source, 'content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (bytes.byteLength === 0 && !mediaType.startsWith('multipart/')) return { kind: 'none', value: undefined };
  if (mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json')) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new BodyError(400, 'The body is not valid JSON');
    }
    assertJsonDepth(text);
    try {
      return { kind: 'json', value: JSON.parse(text) };
    } catch {
      throw new BodyError(400, 'The body is not valid JSON');
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    let text: string;
    checkPairCount(bytes);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new BodyError(400, 'The form body is not valid UTF-8');
    }
    // a JSON document sent without its content type (curl -d sends this one): read as a form it would be one field
    // named after the whole document, and refused as an unknown property that says nothing of the cause
    if (looksLikeJson(text))
      throw new BodyError(
        415,
        'The body is JSON but its Content-Type is application/x-www-form-urlencoded (what curl -d sends by default); send the header Content-Type: application/json',
      );
    return { kind: 'form', value: formEntriesToObject(new URLSearchParams(text)) };
  }
  if (mediaType === 'multipart/form-data') {
    checkPartCount(bytes, contentType);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
    } catch {
      throw new BodyError(400, 'The multipart body is malformed');
    }
    const entries: [string, string][] = [];
    for (const [key, value] of form.entries()) {
      if (typeof value !== 'string') throw new BodyError(400, `${shownName(key)}: file uploads are not accepted`);
      entries.push([key, value]);
    }
    return { kind: 'form', value: formEntriesToObject(entries) };
  }
  throw new BodyError(
    415,
    `Unsupported content type "${mediaType}"; send application/json, application/x-www-form-urlencoded or multipart/form-data`,
  );
}
