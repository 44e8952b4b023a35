// Hostile transport around an otherwise generated request: a wrong, missing or malformed content type,
// a body of invalid UTF-8 or garbage, a body past the 1 MiB limit, form fields given twice or with
// prototype names, oversized and numerous headers, odd methods and mangled paths.
import fc from 'fast-check';
import { JsonEntries, type Body, type FuzzRequest } from './request.js';
import { hostileValue, nastyString, protoKey } from './values.js';

export const hostileContentType: fc.Arbitrary<string | null> = fc.constantFrom(
  null,
  '',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=other',
  'multipart/mixed; boundary=x',
  'application/graphql',
  'json',
  ';;;',
  'application/json, text/plain',
);

/** Byte sequences that are not UTF-8 (or not JSON, or not a form). */
export const hostileBytes: fc.Arbitrary<Body> = fc.oneof(
  fc
    .constantFrom(
      [0xff, 0xfe, 0x7b, 0x7d], // UTF-16 BOM then {}
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], // {"a":"\xc3("}: invalid continuation
      [0x7b, 0x22, 0x64, 0x65, 0x73, 0x63, 0x72, 0x69, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d], // {"description":"<CESU surrogate>"}
      [0xc0, 0xaf], // overlong "/"
      [0xf8, 0x88, 0x80, 0x80, 0x80], // 5-byte sequence
      [0xef, 0xbb, 0xbf, 0x7b, 0x7d], // UTF-8 BOM then {}
      [0x00],
      [0x7b],
      [0x64, 0x65, 0x73, 0x63, 0x72, 0x69, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x3d, 0x25, 0xff], // description=%\xff
      [0x61, 0x3d, 0x25, 0x45, 0x44, 0x25, 0x41, 0x30, 0x25, 0x38, 0x30], // a=%ED%A0%80 (a percent-encoded surrogate)
    )
    .map((bytes): Body => ({ encoding: 'bytes', bytes: [...bytes] })),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }).map((bytes): Body => ({ encoding: 'bytes', bytes })),
  fc
    .constantFrom('null', '[]', '""', '1', 'true', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', 'NaN', '{"a":01}', '\u0000')
    .map((text): Body => ({ encoding: 'bytes', bytes: [...new TextEncoder().encode(text)] })),
);

export const hugeBody: fc.Arbitrary<Body> = fc
  .tuple(fc.constantFrom(1024 * 1024 + 1, 3 * 1024 * 1024), fc.constantFrom(' ', 'a', '['))
  .map(([size, fill]): Body => ({ encoding: 'huge', size, fill }));

/** Header sets a proxy in front would refuse, but the app must survive. */
export const hostileHeaders: fc.Arbitrary<[string, string][]> = fc.oneof(
  fc.constantFrom<[string, string][]>(
    [['x-fuzz', 'a'.repeat(100_000)]],
    [['cookie', 'a=' + 'b'.repeat(20_000)]],
    Array.from({ length: 500 }, (_, i): [string, string] => [`x-fuzz-${i}`, String(i)]),
    [['content-length', '99999999999']],
    [['content-length', '-1']],
    [['content-length', 'abc']],
    [['content-encoding', 'gzip']],
    [['transfer-encoding', 'chunked']],
    [['x-forwarded-for', '1.2.3.4, ' + '5.6.7.8, '.repeat(1000)]],
    [['accept', 'application/xml']],
    [['accept', 'text/event-stream']],
    [['accept', 'multipart/mixed']],
    [['accept-charset', 'utf-16']],
    [['host', 'evil.example']],
    [['x-http-method-override', 'DELETE']],
    [['authorization', 'Bearer second-credential']],
  ),
  // header values must be bytes (Latin-1, no CR/LF/NUL) to be sent at all
  fc
    .tuple(
      fc.constantFrom('x-fuzz', 'accept', 'content-type', 'user-agent', 'origin'),
      fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
    )
    .map(([k, v]): [string, string][] => [[k, v]]),
);

export const hostileMethod = fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'OPTIONS', 'PROPFIND', 'FOO');

/** Path tricks around a generated path. */
export const hostilePath: fc.Arbitrary<(path: FuzzRequest['path']) => FuzzRequest['path']> = fc.constantFrom(
  (p) => [...p, ''], // trailing slash
  (p) => ['', ...p], // leading double slash
  (p) => [...p.slice(0, -1), '%ZZ'], // invalid percent-encoding
  (p) => [...p.slice(0, -1), '%C0%AF'], // overlong UTF-8 "/"
  (p) => [...p.slice(0, -1), '%ED%A0%80'], // an encoded lone surrogate
  (p) => [...p.slice(0, -1), '%00'],
  (p) => [...p.slice(0, -1), '..'],
  (p) => [...p.slice(0, -1), '%2e%2e%2fadmin'],
  (p) => [...p.slice(0, -1), 'a'.repeat(10_000)],
  (p) => [...p, 'extra'],
  (p) => p.map((s) => (typeof s === 'string' ? s.toUpperCase() : s)),
);

/** Form fields given twice, with prototype names, or nested far too deep. */
export const hostileFormBody: fc.Arbitrary<Body> = fc.oneof(
  fc
    .tuple(fc.constantFrom('description', 'dayOfWeek', 'status', 'botId', 'name', 'isClosed'), nastyString, nastyString)
    .map(([k, a, b]): Body => ({
      encoding: 'form',
      value: new JsonEntries([
        [k, a],
        [k, b],
      ]),
    })),
  fc
    .tuple(protoKey, hostileValue)
    .map(([k, v]): Body => ({ encoding: 'form', value: new JsonEntries([[k, typeof v === 'object' ? 'x' : v]]) })),
  fc
    .tuple(fc.constantFrom('annualDate', 'breaks', 'a'), protoKey)
    .map(([k, p]): Body => ({ encoding: 'form', value: new JsonEntries([[`${k}[${p}][x]`, '1']]) })),
  fc
    .constantFrom(1_000, 50_000, 300_000)
    .map((depth): Body => ({ encoding: 'form', value: new JsonEntries([['a' + '[b]'.repeat(depth), '1']]) })),
  fc.constantFrom(1_000, 50_000).map((depth): Body => ({ encoding: 'form', value: new JsonEntries([['a' + '.b'.repeat(depth), '1']]) })),
  fc
    .constantFrom(
      'breaks[1000][start]',
      'breaks[999999999999][start]',
      'breaks[-1][start]',
      'breaks[0x1][start]',
      'a[',
      'a]',
      'a[b',
      '[a]',
      'a..b',
      'annualDate[month][day]',
      'annualDate=1&annualDate[month]',
    )
    .map((key): Body => ({ encoding: 'form', value: new JsonEntries([[key, '1']]) })),
);

/** One transport change to a generated request. */
export const transportChange: fc.Arbitrary<(req: FuzzRequest) => FuzzRequest> = fc.oneof(
  hostileContentType.map((contentType) => (req: FuzzRequest) => ({
    ...req,
    contentType,
    body: req.body ?? { encoding: 'json' as const, value: {} },
  })),
  hostileBytes.map((body) => (req: FuzzRequest) => ({ ...req, body, contentType: req.contentType ?? 'application/json' })),
  fc.tuple(hostileBytes, hostileContentType).map(([body, contentType]) => (req: FuzzRequest) => ({ ...req, body, contentType })),
  hugeBody.map((body) => (req: FuzzRequest) => ({ ...req, body, contentType: 'application/json' })),
  hostileHeaders.map((headers) => (req: FuzzRequest) => ({ ...req, headers: [...req.headers, ...headers] })),
  hostileMethod.map((method) => (req: FuzzRequest) => ({ ...req, method })),
  hostilePath.map((change) => (req: FuzzRequest) => ({ ...req, path: change(req.path) })),
  hostileFormBody.map((body) => (req: FuzzRequest) => ({ ...req, body })),
);
