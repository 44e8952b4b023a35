// The committed schema.graphql is the printed schema, and the schema documents itself: every type,
// field and argument has a description (they are the docs GraphiQL and codegen users read).
import { readFileSync } from 'node:fs';
import {
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  NoDeprecatedCustomRule,
  parse,
  specifiedRules,
  validate,
  type GraphQLArgument,
  type GraphQLNamedType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../src/cli/printSchema.js';
import { GRAPHIQL_EXAMPLES } from '../../src/graphql/graphiql.js';
import { schema } from '../../src/graphql/schema/index.js';

const blank = (text: string | null | undefined) => !text || text.trim() === '';

/** Every schema element without a description, as `Type`, `Type.field` or `Type.field(arg)`. */
function undocumented(): string[] {
  const missing: string[] = [];
  const checkArgs = (owner: string, args: readonly GraphQLArgument[]) => {
    for (const arg of args) if (blank(arg.description)) missing.push(`${owner}(${arg.name})`);
  };
  for (const type of Object.values<GraphQLNamedType>(schema.getTypeMap())) {
    if (type.name.startsWith('__') || (isScalarType(type) && isSpecifiedScalarType(type))) continue;
    if (blank(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        checkArgs(`${type.name}.${field.name}`, field.args);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
    }
    // enum values are self-explanatory names (MONDAY, PHONE…); the enum type itself must say what it is
  }
  return missing;
}

describe('the GraphQL schema', () => {
  it('is printed, current, in schema.graphql', () => {
    let committed = '';
    try {
      committed = readFileSync(SCHEMA_FILE, 'utf8');
    } catch {
      /* missing: reported below like a stale file */
    }
    expect(committed === printedSchema(), 'schema.graphql is stale: run `npm run schema:print` and commit the result').toBe(true);
  });

  it('accepts the example operations GraphiQL opens with, none of them using a deprecated field', () => {
    expect(validate(schema, parse(GRAPHIQL_EXAMPLES), [...specifiedRules, NoDeprecatedCustomRule]).map((e) => e.message)).toEqual([]);
  });

  it('documents every type, field and argument', () => {
    expect(undocumented(), 'these schema elements have no description').toEqual([]);
  });
});
