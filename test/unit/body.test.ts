// Request bodies: JSON, form-urlencoded and multipart parsed into one shape, with limits.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BodyError, formEntriesToObject, MAX_BODY_BYTES, parseBody } from '../../src/http/body.js';
import { coerceFormBody } from '../../src/rest/formCoercion.js';

const post = (body: BodyInit, contentType?: string) =>
  new Request('http://x/v1/y', { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });

async function bodyError(request: Request): Promise<BodyError> {
  try {
    await parseBody(request);
  } catch (err) {
    if (err instanceof BodyError) return err;
    throw err;
  }
  throw new Error('expected a BodyError');
}

describe('parseBody', () => {
  it('parses JSON, form and multipart into the same nested value', async () => {
    const expected = { description: 'Holiday', annualDate: { month: '12', day: '25' }, tags: ['a', 'b'] };
    const json = await parseBody(post(JSON.stringify(expected), 'application/json; charset=utf-8'));
    expect(json).toEqual({ kind: 'json', value: expected });

    const form = await parseBody(
      post('description=Holiday&annualDate%5Bmonth%5D=12&annualDate.day=25&tags[]=a&tags[]=b', 'application/x-www-form-urlencoded'),
    );
    expect(form).toEqual({ kind: 'form', value: expected });

    const fd = new FormData();
    fd.append('description', 'Holiday');
    fd.append('annualDate[month]', '12');
    fd.append('annualDate[day]', '25');
    fd.append('tags', 'a');
    fd.append('tags', 'b');
    const multipart = await parseBody(new Request('http://x/', { method: 'POST', body: fd }));
    expect(multipart).toEqual({ kind: 'form', value: expected });
  });

  it('nests arrays of objects in form bodies', () => {
    expect(
      formEntriesToObject([
        ['breaks[0][start]', '12:00'],
        ['breaks[0][end]', '13:00'],
        ['breaks[1][start]', '15:00'],
        ['breaks.1.end', '15:15'],
      ]),
    ).toEqual({
      breaks: [
        { start: '12:00', end: '13:00' },
        { start: '15:00', end: '15:15' },
      ],
    });
    expect(
      formEntriesToObject([
        ['breaks[][start]', '1'],
        ['breaks[][end]', '2'],
        ['breaks[][start]', '3'],
      ]),
    ).toEqual({
      breaks: [{ start: '1', end: '2' }, { start: '3' }],
    });
  });

  it('refuses prototype keys, huge indices and malformed names', () => {
    expect(() => formEntriesToObject([['__proto__[polluted]', 'x']])).toThrow(BodyError);
    expect(() => formEntriesToObject([['a[constructor][prototype]', 'x']])).toThrow(BodyError);
    expect(() => formEntriesToObject([['a[100000]', 'x']])).toThrow(BodyError);
    expect(() => formEntriesToObject([['a[b', 'x']])).toThrow(BodyError);
    // found by the fuzzer: a key nested 300 000 levels deep overflowed the stack (a 500)
    expect(() => formEntriesToObject([['a' + '[b]'.repeat(300_000), 'x']])).toThrow(/nests deeper than 32 levels/);
    expect(() => formEntriesToObject([['a' + '.b'.repeat(50_000), 'x']])).toThrow(BodyError);
    expect(formEntriesToObject([['a' + '[b]'.repeat(31), 'x']])).toBeTruthy();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers 400 for malformed JSON and multipart, 415 for other types, 413 over 1 MiB', async () => {
    expect((await bodyError(post('{"a":', 'application/json'))).status).toBe(400);
    expect((await bodyError(post('--x\r\nbroken', 'multipart/form-data; boundary=zzz'))).status).toBe(400);
    const xml = await bodyError(post('<a/>', 'application/xml'));
    expect(xml.status).toBe(415);
    expect(xml.message).toContain('application/xml');
    const big = await bodyError(post(JSON.stringify({ a: 'x'.repeat(MAX_BODY_BYTES) }), 'application/json'));
    expect(big.status).toBe(413);
    // a stream without Content-Length is cut off at the limit too
    const stream = new ReadableStream({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const streamed = new Request('http://x/', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect((await bodyError(streamed)).status).toBe(413);
  });

  it('treats an empty body as no body', async () => {
    expect(await parseBody(post('', 'application/json'))).toEqual({ kind: 'none', value: undefined });
  });
});

describe('coerceFormBody', () => {
  const schema = z.strictObject({
    isClosed: z.boolean(),
    count: z.number().int(),
    greeting: z.string().min(1).nullable(),
    mediums: z
      .array(z.enum(['CHAT', 'SMS']))
      .nullable()
      .optional(),
    breaks: z.array(z.object({ start: z.string() })).optional(),
    nested: z.object({ month: z.number(), label: z.string() }).optional(),
  });

  it('turns strings into the types the schema expects', () => {
    expect(
      coerceFormBody(schema, {
        isClosed: 'false',
        count: '12',
        greeting: '',
        mediums: 'CHAT',
        breaks: '',
        nested: { month: '2', label: '007' },
      }),
    ).toEqual({ isClosed: false, count: 12, greeting: null, mediums: ['CHAT'], breaks: [], nested: { month: 2, label: '007' } });
  });

  it('leaves values it cannot convert for validation to reject', () => {
    const coerced = coerceFormBody(schema, { isClosed: 'yes', count: 'abc', greeting: 'hi' });
    expect(coerced).toEqual({ isClosed: 'yes', count: 'abc', greeting: 'hi' });
    expect(schema.safeParse(coerced).success).toBe(false);
  });
});
