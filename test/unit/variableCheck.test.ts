// Variables are checked once per operation before the executor (src/graphql/variableCheck.ts): every
// operation's variables, every time, and a wrong value is reported each time.
import { GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { variableProblem } from '../../src/graphql/variableCheck.js';

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

  it('checks variables that were wrong every time, and reports the problem each time', () => {
    const { schema, counter } = countingSchema();
    const variables = { value: 42 };
    for (let i = 1; i <= 3; i++) {
      expect(variableProblem(schema, document, 'Echo', variables)?.message).toContain('$value');
      expect(counter.coerced).toBe(i);
    }
  });
});
