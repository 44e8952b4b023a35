// Card numbers and SSNs never reach a stored turn (src/domain/governance/redaction.ts): picked cases for the forms
// people say them in and for what must stay (order numbers, dates, phone numbers, invalid SSNs), and properties over
// generated cards and SSNs embedded in generated text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactTranscript } from '../../src/domain/governance/redaction.js';

const redact = (text: string) => redactTranscript(text).text;

/** The Luhn check digit that completes `body`. */
function checkDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(body[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

describe('card numbers', () => {
  it.each([
    ['4111111111111111', '[card]'],
    ['my card is 4111 1111 1111 1111, thanks', 'my card is [card], thanks'],
    ['4111-1111-1111-1111', '[card]'],
    ['amex 3782 822463 10005 please', 'amex [card] please'],
    ['13 digits 4222222222222 ok', '13 digits [card] ok'],
    ['19 digits 6011 0009 9013 9424 124', '19 digits [card]'],
    ['card 4111 1111 1111 1111 expiry 12 27 code 123', 'card [card] expiry 12 27 code 123'],
    ['card 4111 1111 1111 1111 1227', 'card [card] 1227'],
    ['two: 4111111111111111 and 5500-0000-0000-0004.', 'two: [card] and [card].'],
  ])('%s', (text, stored) => {
    expect(redact(text)).toBe(stored);
  });

  it.each([
    ['order 4111111111111112 (fails Luhn)'],
    ['twelve digits 411111111111'],
    ['a phone number +1 415 555 2671'],
    ['on 2026-11-28 at 10:30'],
    ['twenty digits without a break 41111111111111111234'],
    ['4111..1111..1111..1111 (not single separators)'],
  ])('keeps %s', (text) => {
    expect(redactTranscript(text)).toEqual({ text, redacted: false });
  });

  it('removes every generated card, in any grouping, wherever it is said', () => {
    const card = fc
      .tuple(fc.constantFrom(...'3456'), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 17 }))
      .map(([first, rest]) => `${first}${rest.join('')}`)
      .map((body) => body + checkDigit(body));
    const grouped = fc
      .tuple(card, fc.constantFrom(' ', '-', ''), fc.integer({ min: 3, max: 6 }))
      .map(([digits, sep, size]) => (digits.match(new RegExp(`.{1,${size}}`, 'g')) ?? []).join(sep));
    const words = fc.stringMatching(/^[a-z ,.!?]{0,30}$/);
    fc.assert(
      fc.property(words, grouped, words, (before, said, after) => {
        const text = `${before} ${said} ${after}`;
        const out = redactTranscript(text);
        expect(out.redacted).toBe(true);
        expect(out.text).toContain('[card]');
        expect(out.text.replace(/\D/g, '')).toBe('');
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('social security numbers', () => {
  it.each([
    ['SSN 123-45-6789.', 'SSN [ssn].'],
    ['it is 123 45 6789', 'it is [ssn]'],
  ])('%s', (text, stored) => {
    expect(redact(text)).toBe(stored);
  });

  it.each([
    ['000-12-3456'],
    ['666-12-3456'],
    ['912-34-5678'],
    ['123-00-4567'],
    ['123-45-0000'],
    ['123-45 6789 (mixed separators)'],
    ['123456789 (no separators)'],
    ['call 415-555-2671'],
  ])('keeps %s', (text) => {
    expect(redactTranscript(text)).toEqual({ text, redacted: false });
  });

  it('removes every valid generated SSN', () => {
    const ssn = fc
      .tuple(
        fc.integer({ min: 1, max: 899 }).filter((n) => n !== 666),
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 1, max: 9999 }),
        fc.constantFrom('-', ' '),
      )
      .map(([a, g, s, sep]) => `${String(a).padStart(3, '0')}${sep}${String(g).padStart(2, '0')}${sep}${String(s).padStart(4, '0')}`);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,20}$/), ssn, (before, said) => {
        const out = redactTranscript(`${before} ${said}.`);
        expect(out).toEqual({ text: `${before} [ssn].`, redacted: true });
      }),
      { numRuns: 2_000 },
    );
  });
});
