// Values for a JSON Schema (the OpenAPI document's request bodies and query parameters): `valid`
// follows the schema, `almostValid` breaks it in exactly one place (a missing required key, an unknown
// key, one field of the wrong type, at or past a boundary, or hostile), so that most requests pass the
// outer layers of validation and test the inner ones. Only the keywords the document uses are read:
// type, enum, const, anyOf/oneOf, properties/required/additionalProperties, items/maxItems,
// minLength/maxLength, minimum/maximum, pattern, format and $ref.
import fc from 'fast-check';
import { JsonEntries } from './request.js';
import { boundaryNumber, hostileValue, nastyString, plainText, protoKey, stringOfLength } from './values.js';

/** A schema as this file reads it: the keywords named above (a document may carry others). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  [keyword: string]: unknown;
}

export interface SchemaContext {
  /** Resolves `#/components/schemas/…` references. */
  resolve(ref: string): JsonSchema;
  /** Values a real client sends for a property the schema describes only loosely (`at`, `startAt`, `open`, …). */
  hint(name: string): fc.Arbitrary<unknown> | undefined;
  /** An id (usually an IdRef of the demo data) for a uuid property or parameter of that name. */
  id(name: string): fc.Arbitrary<unknown>;
}

const MAX_ITEMS = 3;
const MAX_TEXT = 24;

function deref(schema: JsonSchema, ctx: SchemaContext): JsonSchema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = ctx.resolve(s.$ref);
  return s;
}

function alternatives(schema: JsonSchema): JsonSchema[] | undefined {
  if (Array.isArray(schema.anyOf)) return schema.anyOf;
  if (Array.isArray(schema.oneOf)) return schema.oneOf;
  if (Array.isArray(schema.type)) return schema.type.map((type: string) => ({ ...schema, type }));
  return undefined;
}

/** A string (or untyped) schema without enum, format or const: a hint knows realistic values (`startAt`, `open`). */
function isLoose(schema: JsonSchema): boolean {
  if (Object.keys(schema).length === 0) return true;
  return schema.type === 'string' && !schema.enum && !schema.format && schema.const === undefined;
}

export function valid(schema: JsonSchema, ctx: SchemaContext, name = ''): fc.Arbitrary<unknown> {
  schema = deref(schema, ctx);
  const alts = alternatives(schema);
  if (alts) return fc.oneof(...alts.map((a) => valid(a, ctx, name)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const hinted = isLoose(schema) ? ctx.hint(name) : undefined;
  if (hinted) return hinted;
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = schema.minimum ?? -1000;
      const max = Math.min(schema.maximum ?? 1000, min + 1000);
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'string': {
      if (schema.format === 'uuid') return ctx.id(name);
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      const min = schema.minLength ?? 0;
      const max = Math.max(min, Math.min(schema.maxLength ?? MAX_TEXT, MAX_TEXT));
      return fc.oneof(
        { arbitrary: plainText(max).filter((s) => [...s].length >= min), weight: 5 },
        { arbitrary: fc.string({ minLength: min, maxLength: max }), weight: 1 },
      );
    }
    case 'array': {
      const items = schema.items ?? {};
      return fc.array(valid(items, ctx, name), { maxLength: Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS) });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const required = schema.required ?? [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, prop] of Object.entries(properties)) model[key] = valid(prop, ctx, key);
      return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
    }
    default:
      return ctx.hint(name) ?? fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of the wrong type, or at and past the schema's boundaries. */
export function invalidLeaf(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  schema = deref(schema, ctx);
  const edges: fc.Arbitrary<unknown>[] = [];
  const s = alternatives(schema)?.find((a) => a.type && a.type !== 'null') ?? schema;
  if (typeof s.maxLength === 'number') edges.push(stringOfLength(s.maxLength));
  if (typeof s.minLength === 'number' && s.minLength > 0) edges.push(fc.constantFrom('', ' ', '\u3000', '\u200B'));
  if (typeof s.maximum === 'number') edges.push(fc.constantFrom(s.maximum + 1, s.maximum + 0.5, s.maximum * 1000));
  if (typeof s.minimum === 'number') edges.push(fc.constantFrom(s.minimum - 1, s.minimum - 0.5));
  if (typeof s.maxItems === 'number')
    edges.push(fc.constant(Array.from({ length: s.maxItems + 1 }, (_, i) => (s.items?.type === 'string' ? `x${i}` : i))));
  if (Array.isArray(s.enum))
    edges.push(fc.constantFrom(...s.enum.map((e: unknown) => (typeof e === 'string' ? e.toLowerCase() : e)), '', 'UNKNOWN', ' MONDAY'));
  if (s.format === 'uuid')
    edges.push(
      fc.constantFrom(
        'not-a-uuid',
        '',
        '00000000-0000-0000-0000-00000000000',
        'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
        '{00000000-0000-0000-0000-000000000000}',
      ),
    );
  if (s.pattern)
    edges.push(
      fc.constantFrom(
        '2026-02-30T10:00:00Z',
        '2026-13-01T00:00:00Z',
        '2026-03-10T24:00:00Z',
        '2026-03-10T10:00:30Z',
        '2026-03-10T10:00:00+01:00',
        '0000-01-01T00:00:00Z',
        '9999-12-31T23:59:00Z',
      ),
    );
  if (s.type === 'boolean') edges.push(fc.constantFrom('true', 'false', 0, 1, 'yes', ''));
  if (s.type === 'integer') edges.push(boundaryNumber, fc.constantFrom('1', '1.0', ' 1'));
  if (s.type === 'string') edges.push(nastyString, fc.integer(), fc.constant(['a']));
  return fc.oneof({ arbitrary: hostileValue, weight: 2 }, ...edges.map((arbitrary) => ({ arbitrary, weight: 3 })));
}

/** A value that breaks the schema in exactly one place (recursively: one field of one nested object). */
export function almostValid(schema: JsonSchema, ctx: SchemaContext, name = ''): fc.Arbitrary<unknown> {
  schema = deref(schema, ctx);
  const object = alternatives(schema)?.find((a) => deref(a, ctx).type === 'object') ?? schema;
  const o = deref(object, ctx);
  if (o.type === 'object' && o.properties && Object.keys(o.properties).length > 0) {
    const properties = o.properties;
    const keys = Object.keys(properties);
    const required = o.required ?? [];
    const base = valid(o, ctx, name) as fc.Arbitrary<Record<string, unknown>>;
    // built once per key (not in a chain), so that generating a value builds no arbitrary
    const breakOne = fc.oneof(
      ...keys.map((key) =>
        fc
          .tuple(base, fc.oneof(almostValid(properties[key]!, ctx, key), invalidLeaf(properties[key]!, ctx)))
          .map(([value, bad]) => ({ ...value, [key]: bad })),
      ),
    );
    const options: fc.Arbitrary<unknown>[] = [breakOne, breakOne];
    if (required.length > 0) {
      options.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => {
          const copy = { ...value };
          delete copy[key];
          return copy;
        }),
      );
    }
    // an unknown key, a prototype key, or a key given twice (JSON keeps the last one)
    options.push(
      fc
        .tuple(base, fc.oneof(fc.constantFrom('unknownField', 'Description', 'description ', ''), protoKey), hostileValue)
        .map(([value, k, v]) => new JsonEntries([...Object.entries(value), [k, v]])),
    );
    options.push(
      fc.tuple(base, fc.constantFrom(...keys), hostileValue).map(([value, k, v]) => new JsonEntries([...Object.entries(value), [k, v]])),
    );
    return fc.oneof(...options);
  }
  if (schema.type === 'array' && schema.items) {
    return fc
      .tuple(fc.array(valid(schema.items, ctx, name), { maxLength: 2 }), almostValid(schema.items, ctx, name))
      .map(([items, bad]) => [...items, bad]);
  }
  return invalidLeaf(schema, ctx);
}
