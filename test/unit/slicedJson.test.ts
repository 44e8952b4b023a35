// Answers written in slices (src/http/slicedJson.ts): the text is JSON.stringify's for every JSON value,
// the digest is SHA-256's, and a large answer gives the event loop back while it is made.
import { hash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256InSlices, stringifyInSlices } from '../../src/http/slicedJson.js';

describe('stringifyInSlices', () => {
  it('writes the text JSON.stringify writes, for any JSON value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await stringifyInSlices(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes the same text when the answer is too large for one JSON.stringify (more than 16 list elements)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.array(fc.jsonValue(), { minLength: 17, maxLength: 40 })), async (value) => {
        expect(await stringifyInSlices({ data: value, list: Array.from({ length: 17 }, (_, i) => i) })).toBe(
          JSON.stringify({ data: value, list: Array.from({ length: 17 }, (_, i) => i) }),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('treats what JSON leaves out as JSON.stringify does: undefined members, functions, toJSON, lone surrogates', async () => {
    const value = {
      gone: undefined,
      fn: () => 1,
      when: new Date(Date.UTC(2028, 1, 29, 12)),
      list: [undefined, () => 1, Symbol('s'), new Date(0), [[1, undefined]], { a: undefined, b: 'x' }],
      text: 'NUL \u0000, quote ", surrogate \ud800, emoji 😀',
      nested: { deeper: { toJSON: (key: string) => `key ${key}` } },
    };
    expect(await stringifyInSlices(value)).toBe(JSON.stringify(value));
  });

  it('gives the event loop back while it writes a large answer, and not for a small one', async () => {
    const intervals = Array.from({ length: 20_000 }, (_, i) => ({
      start: i,
      greeting: 'g'.repeat(500),
      break: { reason: 'r'.repeat(500) },
    }));
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      const start = turns;
      await stringifyInSlices({ tiny: [1, 2, 3] });
      // a small answer is made within one turn
      expect(turns).toBe(start);
      const before = turns;
      const text = await stringifyInSlices({ data: { intervals } });
      expect(text).toBe(JSON.stringify({ data: { intervals } }));
      // other work ran between the slices of the large answer
      expect(turns).toBeGreaterThan(before);
    } finally {
      clearInterval(ticking);
    }
  });
});

describe('sha256InSlices', () => {
  it('is the SHA-256 of the text, in pieces or not', async () => {
    for (const text of ['', 'a', 'é😀'.repeat(40_000), 'x'.repeat(64 * 1024 * 3 + 7)])
      expect(await sha256InSlices(text)).toBe(hash('sha256', text, 'base64url'));
  });
});
