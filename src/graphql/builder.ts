// Configures the Pothos builder (plugins, Prisma types, context, scalars) and defines no types;
// each type lives in graphql/schema/<entity>.ts with its queries and mutations beside it.
import SchemaBuilder, { type ArgBuilder } from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ZodPlugin from '@pothos/plugin-zod';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import { InvalidInput, issuesFromZod } from '../domain/shared/errors.js';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin, ZodPlugin],
  defaultFieldNullability: false,
  prisma: {
    // the client is taken from the context: every app (and every test) has its own database
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  zod: {
    // one error shape for every invalid input, on both surfaces (docs/decisions.md §5)
    validationError: (zodError) => new InvalidInput(issuesFromZod(zodError)),
  },
});

// graphql-scalars' DateTime names a refused value with JSON.stringify, which overflows the stack on a variable
// nested thousands of arrays deep (a 500): anything but a string, a number or a Date is refused before it is named
const DateTime = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  parseValue(value: unknown) {
    if (typeof value !== 'string' && typeof value !== 'number' && !(value instanceof Date)) {
      throw new GraphQLError(
        `DateTime cannot represent a value of type ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}; send an ISO-8601 date-time string`,
      );
    }
    return DateTimeResolver.parseValue(value);
  },
});
builder.addScalarType('DateTime', DateTime, {});
builder.addScalarType('JSON', JSONResolver, {});

builder.queryType({ description: 'Read operations. Every field requires a bearer credential (API key or OAuth access token).' });
builder.mutationType({ description: 'Write operations. Every field requires a bearer credential with the matching :write scope.' });

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

/** The argument builder (`t.arg`), for arguments shared by several fields. */
export type ArgBuilderOf = ArgBuilder<BuilderTypes>;

/** The field builder of an object type whose resolvers receive `Shape` (for fields shared by several types). */
export type FieldBuilderOf<Shape> = PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>;
