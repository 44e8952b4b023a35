// The HTML pages and their files (GraphiQL on a browser GET of /graphql, Swagger UI at /v1/docs): sent
// compressed when the client accepts it (br, else gzip), with a strong ETag (a revalidation answers
// 304 without a body) and a Content-Security-Policy that allows exactly the page's inline scripts, by
// hash. GraphiQL is one 9 MB page of inline scripts; compressing it on every load would cost more than
// answering it, so each distinct answer is compressed once and kept (a handful of entries: the pages
// change only with a deployment).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_CSP } from './securityHeaders.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Distinct answers kept compressed (the GraphiQL page per demo key, the docs page and its three files). */
const MAX_ENTRIES = 16;
const COMPRESSIBLE = /^(text\/html|text\/css|text\/javascript|application\/javascript|application\/json)/;

interface Entry {
  etag: string;
  csp?: string;
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
}

/** The policy of an HTML page: its own files, its inline scripts by hash, inline styles, workers from blobs. */
export function pageCsp(html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Which encoding to send: br, else gzip, when the client accepts it (q=0 refuses). */
function chosenEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : undefined;
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * For the routes of pages and their files, as the transport's last step before an answer goes out (Fastify's
 * onSend): compression, ETag/304, Cache-Control, the page's CSP. Answers the payload to send instead.
 */
export function pages(): (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown> {
  const entries = new Map<string, Entry>();
  return async (request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (request.method !== 'GET' || reply.statusCode !== 200 || !COMPRESSIBLE.test(type) || type.includes('event-stream')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('content-encoding')) return payload;
    const isHtml = type.startsWith('text/html');
    // JSON on /graphql is an API answer, not a page: left alone (the OpenAPI document, a file of its own, is not)
    if (type.startsWith('application/json') && !request.url.startsWith('/v1/docs') && !request.url.startsWith('/v1/openapi.json'))
      return payload;
    const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (bytes.byteLength === 0) return payload;
    const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
    let entry = entries.get(etag);
    if (!entry) {
      entry = { etag, ...(isHtml ? { csp: pageCsp(bytes.toString('utf8')) } : {}) };
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(etag, entry);
    }
    reply.removeHeader('content-length');
    reply.header('ETag', etag);
    reply.header('Vary', 'Accept-Encoding');
    // a file keeps its own (long) Cache-Control; a page is revalidated on every load (it may change with a deployment)
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-cache');
    // a page that set its own policy (the portal's, stricter: no inline script or style at all) keeps it
    // (every answer starts with the API's policy: transport.ts)
    if (entry.csp && reply.getHeader('Content-Security-Policy') === API_CSP) reply.header('Content-Security-Policy', entry.csp);
    if (etagMatches(request.headers['if-none-match'], etag)) {
      reply.removeHeader('content-type');
      reply.code(304);
      return '';
    }
    const encoding = bytes.byteLength >= 1024 ? chosenEncoding(request.headers['accept-encoding']) : undefined;
    if (encoding === 'br')
      payload = await (entry.br ??= brotli(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
      }));
    else if (encoding === 'gzip') payload = await (entry.gzip ??= gzipped(bytes, { level: 6 }));
    else payload = bytes;
    if (encoding) reply.header('Content-Encoding', encoding);
    return payload;
  };
}
