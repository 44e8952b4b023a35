// The hostile values every fuzz target draws from: strings that break naive text handling (NUL, lone
// surrogates, right-to-left overrides, emoji, combining marks, byte-order marks), numbers at and past
// every boundary a JSON or GraphQL number can reach, prototype keys, deep nesting and huge values.
// They are plain data (or RawJson / JsonEntries for what JSON.stringify cannot write), so that a
// failing request shrinks and prints as itself.
import fc from 'fast-check';
import { JsonEntries, RawJson } from './request.js';

/** Characters that trip text handling; each is a valid JS string unit (lone surrogates included). */
export const NASTY_CHARS = [
  '\u0000', // NUL: PostgreSQL text cannot hold it
  '\uD800', // lone high surrogate: not representable in UTF-8
  '\uDFFF', // lone low surrogate
  '\u202E', // RIGHT-TO-LEFT OVERRIDE
  '\u200F', // RIGHT-TO-LEFT MARK
  '\u2066', // LEFT-TO-RIGHT ISOLATE
  '\uFEFF', // byte-order mark / zero-width no-break space
  '\u200B', // zero-width space
  '\u0301', // combining acute accent (alone)
  '\u00A0', // no-break space (whitespace to trim?)
  '\u3000', // ideographic space
  '\u2028', // line separator (breaks naive JS string embedding)
  '\u0085', // next line
  '\t',
  '\r\n',
  '\\',
  '"',
  "'",
  '%',
  '{{',
  '<script>',
  '😀',
  '👩🏽‍⚕️', // ZWJ sequence with a skin tone
  '🦷',
  '\uD83D\uDE00', // a valid surrogate pair (😀)
  '𝕳', // astral letter
  'مرحبا', // Arabic (RTL)
  'שלום', // Hebrew (RTL)
  'Z̴̡̛a̶͓l̷g̸o', // stacked combining marks
  'ﷺ', // one character that expands a lot under NFKC
  'ß',
  'İ', // changes length when lower-cased
];

export const nastyChar = fc.constantFrom(...NASTY_CHARS);

/** Short strings mixing ordinary text and at least one nasty character. */
export const nastyString: fc.Arbitrary<string> = fc
  .tuple(
    nastyChar,
    fc.array(fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 6 }), weight: 2 }, { arbitrary: nastyChar, weight: 3 }), {
      maxLength: 5,
    }),
  )
  .map(([first, parts]) => [...parts.slice(0, 2), first, ...parts.slice(2)].join(''));

/** Greetings as a receptionist might type them, emoji and right-to-left text included. */
export const greetingText: fc.Arbitrary<string> = fc.constantFrom(
  'Thanks for calling, how can I help? 😀',
  'We are closed today 🦷 — please call back tomorrow.',
  'مرحبا، العيادة مغلقة اليوم',
  'שלום! המרפאה סגורה',
  'Grüß Gott, die Praxis ist geschlossen 👩🏽‍⚕️',
  'Closed for the holidays 🎄🎉',
  'Back at 1 pm',
  '\u202Eevil greeting',
);

/**
 * Text that a valid request would carry: mostly plain, sometimes unicode, and sometimes nasty (NUL,
 * lone surrogates, RTL overrides) in an otherwise valid request, where it reaches the database.
 */
export const plainText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: nastyString.filter((s) => s.trim().length > 0 && [...s].length <= maxLength), weight: 1 },
    { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength }).filter((s) => s.trim().length > 0), weight: 4 },
    { arbitrary: greetingText.filter((s) => [...s].length <= maxLength), weight: 1 },
    {
      arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(maxLength, 12) }).filter((s) => s.trim().length > 0),
      weight: 1,
    },
  );

/** A string of `n` code points (or `n` + 1 …): used at and past a maxLength. */
export const stringOfLength = (n: number): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom('a', 'é', '😀', ' ', '\u0000'), fc.constantFrom(0, 1)).map(([c, extra]) => c.repeat(Math.max(0, n + extra)));

/** Strings far past any field's limit (up to 400 kB in UTF-8; transport.ts sends bodies past the 1 MiB limit). */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', '😀', 'é', '\u0000'), fc.constantFrom(3_000, 20_000, 100_000))
  .map(([c, n]) => c.repeat(n));

/** Numbers at every boundary: int32 and safe-integer edges, fractions, and JSON texts JS would rewrite. */
export const boundaryNumber: fc.Arbitrary<number | RawJson> = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1,
    0.5,
    -0.5,
    1.5,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 32,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
    1_000_000,
    1_000_001,
  ),
  fc.constantFrom(
    new RawJson('1e400'),
    new RawJson('-1e400'),
    new RawJson('-0'),
    new RawJson('1.0'),
    new RawJson('1E2'),
    new RawJson('123456789012345678901234567890'),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
export const protoKey = fc.constantFrom(...PROTO_KEYS);

/** Objects whose keys would poison a naive merge: `{"__proto__": {...}}`, `{"constructor": {"prototype": …}}`. */
export const prototypeObject: fc.Arbitrary<JsonEntries> = fc
  .tuple(
    protoKey,
    fc.oneof(
      fc.constant({ isAccount: true, polluted: 'yes' }),
      fc.constant(null),
      fc.constant('x'),
      fc.constant({ prototype: { polluted: true } }),
    ),
  )
  .map(([k, v]) => new JsonEntries([[k, v]]));

/** Arrays or objects nested far deeper than any schema, as JSON text (built without recursion). */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(64, 1_000, 10_000, 100_000), fc.constantFrom('array', 'object'))
  .map(([depth, kind]) =>
    kind === 'array' ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  );

/** Any value of any JSON type, small; a wrong type for almost every field. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom('', ' ', 'null', 'true', '0', '1', '[]', '{}', 'undefined', 'NaN'),
  boundaryNumber,
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxKeys: 2 }),
);

/** Every hostile value, whatever the schema expects. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 4 },
  { arbitrary: nastyString, weight: 4 },
  { arbitrary: boundaryNumber, weight: 2 },
  { arbitrary: prototypeObject, weight: 1 },
  { arbitrary: deepNesting, weight: 1 },
  { arbitrary: hugeString, weight: 1 },
);
