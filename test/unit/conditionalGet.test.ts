// The ETag's view of an answer: the fields a route leaves out of its ETag are gone from the JSON text,
// the rest is the answer's text unchanged (same order), so tags stay what they were for unchanged data.
import { describe, expect, it } from 'vitest';
import { weakETag, withoutFields } from '../../src/rest/conditionalGet.js';

describe('withoutFields', () => {
  it('leaves the omitted top-level fields out of the JSON text and keeps the rest in order', () => {
    const data = {
      at: '2026-03-09T12:00:00Z',
      timezone: 'America/New_York',
      localTime: '2026-03-09T08:00',
      state: 'CLOSED',
      nested: { at: 'kept' },
    };
    expect(JSON.stringify(withoutFields(data, ['at', 'localTime']))).toBe(
      '{"timezone":"America/New_York","state":"CLOSED","nested":{"at":"kept"}}',
    );
    expect(data.at).toBe('2026-03-09T12:00:00Z'); // the answer itself is not touched
  });

  it('passes non-objects and arrays through', () => {
    expect(withoutFields(null, ['at'])).toBeNull();
    expect(withoutFields([1, 2], ['at'])).toEqual([1, 2]);
    expect(withoutFields('text', ['at'])).toBe('text');
  });

  it('gives answers that differ only in omitted fields the same weak ETag', () => {
    const tag = (at: string) => weakETag(JSON.stringify({ success: true, data: withoutFields({ at, state: 'OPEN' }, ['at']) }));
    expect(tag('2026-03-09T12:00:00Z')).toBe(tag('2026-03-09T12:45:00Z'));
    expect(tag('x')).not.toBe(weakETag(JSON.stringify({ success: true, data: { state: 'CLOSED' } })));
  });
});
