// http/repeatedFields.ts: which raw header lists the direct paths leave to Hono (a repeated Authorization or
// Content-Type, in any case of spelling); a field named once, or other fields repeated, stay direct.
import { describe, expect, it } from 'vitest';
import { repeatsField } from '../../src/http/repeatedFields.js';

const NAMES = ['authorization', 'content-type'];

describe('repeatsField', () => {
  it('finds a repeated field among the names, whatever its case', () => {
    expect(repeatsField(['Authorization', 'Bearer a', 'host', 'x', 'AUTHORIZATION', 'Bearer b'], NAMES)).toBe(true);
    expect(repeatsField(['content-type', 'application/json', 'Content-Type', 'text/plain'], NAMES)).toBe(true);
  });

  it('leaves alone each name once, other fields repeated, and values that look like names', () => {
    expect(repeatsField(['Authorization', 'Bearer a', 'Content-Type', 'application/json'], NAMES)).toBe(false);
    expect(repeatsField(['Accept', 'a', 'accept', 'b', 'X-Authorization', 'c', 'Authorizations', 'd'], NAMES)).toBe(false);
    expect(repeatsField(['host', 'authorization', 'x-a', 'authorization', 'Authorization', 'Bearer a'], NAMES)).toBe(false);
    expect(repeatsField(['Content-Type', 'a', 'Content-Type', 'b'], ['authorization'])).toBe(false);
    expect(repeatsField([], NAMES)).toBe(false);
  });
});
