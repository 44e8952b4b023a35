// Variables are checked once per operation before the executor (src/graphql/variableCheck.ts); sealed
// variables (a repeated body's, remembered by the prepared path) found valid are not checked again for
// the same operation, and cannot change after their check.
import { GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { sealVariables, variableProblem } from '../../src/graphql/variableCheck.js';

/** A schema whose one argument's scalar counts how often a value is coerced (what a check costs). */
function countingSchema() {
  const counter = { coerced: 0 };
  const Counted = new GraphQLScalarType({
    name: 'Counted',
    parseValue: (value) => {
      counter.coerced++;
      if (typeof value !== 'string') throw new TypeError('a Counted is a string');
      return value;
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { echo: { type: GraphQLString, args: { value: { type: Counted } }, resolve: (_, args) => args.value } },
    }),
  });
  return { schema, counter };
}

const document = parse('query Echo($value: Counted) { echo(value: $value) }');

describe('variableProblem', () => {
  it('checks plain variables every time', () => {
    const { schema, counter } = countingSchema();
    const variables = { value: 'a' };
    expect(variableProblem(schema, document, 'Echo', variables)).toBeUndefined();
    expect(variableProblem(schema, document, 'Echo', variables)).toBeUndefined();
    expect(counter.coerced).toBe(2);
  });

  it('checks sealed variables found valid once per operation', () => {
    const { schema, counter } = countingSchema();
    const variables = sealVariables({ value: 'a' });
    expect(variableProblem(schema, document, 'Echo', variables)).toBeUndefined();
    expect(variableProblem(schema, document, 'Echo', variables)).toBeUndefined();
    expect(counter.coerced).toBe(1);
    // another document (or operation) is checked on its own
    const other = parse('query Echo($value: Counted) { again: echo(value: $value) }');
    expect(variableProblem(schema, other, 'Echo', variables)).toBeUndefined();
    expect(counter.coerced).toBe(2);
  });

  it('checks sealed variables that were wrong every time, and reports the problem each time', () => {
    const { schema, counter } = countingSchema();
    const variables = sealVariables({ value: 42 });
    for (let i = 1; i <= 3; i++) {
      expect(variableProblem(schema, document, 'Echo', variables)?.message).toContain('$value');
      expect(counter.coerced).toBe(i);
    }
  });

  it('seals all the way down: a checked value cannot change after its check', () => {
    const variables = sealVariables({ value: 'a', nested: { list: [{ deep: 1 }] } });
    expect(() => {
      (variables as { value: string }).value = 'b';
    }).toThrow(TypeError);
    expect(() => {
      variables.nested.list[0]!.deep = 2;
    }).toThrow(TypeError);
    expect(() => {
      variables.nested.list.push({ deep: 3 });
    }).toThrow(TypeError);
  });
});
