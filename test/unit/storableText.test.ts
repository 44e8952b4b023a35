// The storable-text rule (domain/shared/storableText.ts) and where it is applied. Text enters through the REST
// pipeline (path parameters, the declared query, the body: rest/router.ts) and through GraphQL arguments;
// the GraphQL side is checked here structurally: every field of the executable schema that takes an
// argument runs the rule before its resolver, so a field added later cannot forget it. Both surfaces are
// exercised input by input in test/api/storableText.test.ts.
import { isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/shared/errors.js';
import {
  isStorableText,
  refuseUnstorableText,
  UNSTORABLE_NAME_MESSAGE,
  UNSTORABLE_TEXT_MESSAGE,
  unstorableTextIssues,
} from '../../src/domain/shared/storableText.js';
import { schema } from '../../src/graphql/schema/index.js';
import { STORABLE_ARGUMENTS_CHECKED } from '../../src/graphql/storableArguments.js';

describe('isStorableText', () => {
  it.each([
    ['plain text', 'Closed for the holidays', true],
    ['emoji (a surrogate pair)', 'Closed 🎄 today 👩🏽‍⚕️', true],
    ['right-to-left text and combining marks', 'שלום Z̴̡̛a̶͓l', true],
    ['the empty string', '', true],
    ['a NUL', 'a\u0000b', false],
    ['a lone high surrogate', 'a\uD83D', false],
    ['a lone low surrogate', '\uDE00b', false],
    ['a pair in the wrong order', '\uDE00\uD83D', false],
  ])('%s', (_name, text, storable) => {
    expect(isStorableText(text)).toBe(storable);
  });
});

describe('unstorableTextIssues', () => {
  it('names every unstorable string by its path, in objects, lists and under a prefix', () => {
    const value = { description: 'ok', breaks: [{ reason: 'fine' }, { reason: 'a\u0000' }], tags: ['x', '\uD800'] };
    expect(unstorableTextIssues(value)).toEqual([
      { path: 'breaks.1.reason', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'tags.1', message: UNSTORABLE_TEXT_MESSAGE },
    ]);
    expect(unstorableTextIssues({ subjectId: '\u0000' }, 'filter')).toEqual([
      { path: 'filter.subjectId', message: UNSTORABLE_TEXT_MESSAGE },
    ]);
    expect(unstorableTextIssues('\u0000', 'orgId')).toEqual([{ path: 'orgId', message: UNSTORABLE_TEXT_MESSAGE }]);
  });

  it('names a property name that cannot be stored, escaped so that the answer is storable text itself', () => {
    const issues = unstorableTextIssues({ metadata: { 'a\u0000': 'x', ok: 'y' } });
    expect(issues).toEqual([{ path: 'metadata.a\\u0000', message: UNSTORABLE_NAME_MESSAGE }]);
    expect(isStorableText(issues[0]!.path)).toBe(true);
  });

  it('reads objects without a prototype (GraphQL arguments) and leaves parsed scalars alone', () => {
    const args = Object.assign(Object.create(null) as Record<string, unknown>, {
      input: { url: 'https://x/\u0000' },
      at: new Date(0),
      n: 1,
      b: true,
      none: null,
    });
    expect(unstorableTextIssues(args)).toEqual([{ path: 'input.url', message: UNSTORABLE_TEXT_MESSAGE }]);
  });

  it('walks a value nested a hundred thousand levels deep without overflowing the stack', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unstorableTextIssues(deep)).toHaveLength(1);
  });

  it('names at most twenty fields of a value full of them', () => {
    expect(unstorableTextIssues(Array.from({ length: 10_000 }, () => '\u0000'))).toHaveLength(20);
  });

  it('refuseUnstorableText throws one InvalidInput naming the fields of every input, and nothing for storable ones', () => {
    expect(() => refuseUnstorableText([{ orgId: 'fine' }], [{ name: 'Key 🔑' }])).not.toThrow();
    let thrown: unknown;
    try {
      refuseUnstorableText([{ orgId: 'a\u0000' }], [{ name: '\uDFFF' }]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidInput);
    expect((thrown as InvalidInput).issues.map((i) => i.path)).toEqual(['orgId', 'name']);
  });
});

describe('GraphQL arguments', () => {
  it('every field of the executable schema that takes arguments checks them with the rule before it resolves', () => {
    const fields = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .filter((type) => !type.name.startsWith('__'))
      .flatMap((type) => Object.values(type.getFields()).map((field) => ({ name: `${type.name}.${field.name}`, field })))
      .filter(({ field }) => field.args.length > 0);
    expect(fields.length).toBeGreaterThan(50);
    expect(fields.filter(({ field }) => field.extensions[STORABLE_ARGUMENTS_CHECKED] !== true).map((f) => f.name)).toEqual([]);
  });
});
