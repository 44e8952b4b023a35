// One fuzz target per operation of the OpenAPI document (GET /v1/openapi.json): its path parameters,
// query parameters and request body come from the document's JSON Schemas, so a route added to the
// registry is fuzzed without anyone listing it here.
import fc from 'fast-check';
import { authArbitrary, hint, idArbitrary } from './demoIds.js';
import { almostValid, invalidLeaf, valid, type JsonSchema, type SchemaContext } from './jsonSchema.js';
import type { Body, FuzzRequest } from './request.js';
import { IdRef, percentEncode } from './request.js';
import { transportChange } from './transport.js';
import { rarely, type FuzzTarget } from './target.js';
import { VALID_BODIES } from './validBodies.js';
import { hostileValue, nastyString, protoKey } from './values.js';

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export function schemaContext(doc: OpenApiDocument): SchemaContext {
  return {
    resolve(ref) {
      const name = ref.replace('#/components/schemas/', '');
      const schema = doc.components?.schemas?.[name];
      if (!schema) throw new Error(`unresolvable $ref ${ref}`);
      return schema;
    },
    hint,
    id: idArbitrary,
  };
}

/** A query parameter's value as sent: ids stay IdRefs (resolved when sent), everything else as text. */
function queryText(value: unknown): string | IdRef {
  if (value instanceof IdRef) return value;
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value) ?? '';
  const scalar = value as number | boolean | bigint;
  return String(scalar);
}

type Quality = 'valid' | 'almost' | 'hostile';

function pathArbitrary(path: string, params: Parameter[], ctx: SchemaContext, q: Quality): fc.Arbitrary<(string | IdRef)[]> {
  const segments = path.split('/').filter(Boolean);
  const names = params.filter((p) => p.in === 'path').map((p) => p.name);
  const withBroken = (brokenIndex: number): fc.Arbitrary<(string | IdRef)[]> =>
    fc.tuple(
      ...segments.map((segment): fc.Arbitrary<string | IdRef> => {
        const m = /^\{(.+)\}$/.exec(segment);
        if (!m) return fc.constant(segment);
        if (names.indexOf(m[1]!) !== brokenIndex) return ctx.id(m[1]!) as fc.Arbitrary<string | IdRef>;
        return fc.oneof(
          invalidLeaf({ type: 'string', format: 'uuid' }, ctx).map((v) =>
            percentEncode(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')),
          ),
          nastyString.map(percentEncode),
          fc.constantFrom(
            '00000000-0000-0000-0000-000000000000',
            'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
            '%20',
            '%00',
            'null',
            'undefined',
            '1',
            '-1',
          ),
        );
      }),
    );
  // almost valid: exactly one path parameter malformed (or none, when the body or query is the broken part)
  if (q === 'valid' || names.length === 0) return withBroken(-1);
  return fc.oneof(withBroken(-1), ...names.map((_, i) => withBroken(i)));
}

function queryArbitrary(params: Parameter[], ctx: SchemaContext, q: Quality): fc.Arbitrary<[string, string | IdRef][]> {
  const query = params.filter((p) => p.in === 'query');
  const validQuery = fc
    // a null value of an optional parameter is sent as no parameter
    .tuple(
      ...query.map((p) =>
        p.required
          ? valid(p.schema, ctx, p.name).map((v) => [v])
          : fc.option(valid(p.schema, ctx, p.name), { nil: undefined }).map((v) => (v === undefined || v === null ? [] : [v])),
      ),
    )
    .map((values) => values.flatMap((vs, i) => vs.map((v): [string, string | IdRef] => [query[i]!.name, queryText(v)])));
  if (q === 'valid' || query.length === 0) {
    if (q === 'valid') return validQuery;
    // no query parameters declared: unknown ones must be refused or ignored, never crash
    return fc.oneof(
      fc.constant<[string, string | IdRef][]>([]),
      fc
        .tuple(fc.oneof(fc.constantFrom('limit', 'orgId', 'x'), protoKey), hostileValue)
        .map(([k, v]): [string, string | IdRef][] => [[k, queryText(v)]]),
    );
  }
  const variants = query.flatMap((param): fc.Arbitrary<[string, string | IdRef][]>[] => {
    const others = validQuery.map((base) => base.filter(([k]) => k !== param.name));
    return [
      // one parameter invalid, or hostile
      fc.tuple(others, invalidLeaf(param.schema, ctx)).map(([o, v]) => [...o, [param.name, queryText(v)]]),
      fc.tuple(others, hostileValue).map(([o, v]) => [...o, [param.name, queryText(v)]]),
      // one parameter missing (when required) or given twice
      param.required ? others : validQuery.map((base) => [...base, [param.name, '1']]),
    ];
  });
  // an unknown or prototype parameter
  variants.push(
    fc
      .tuple(validQuery, fc.oneof(fc.constantFrom('unknown', 'Limit', 'orgid'), protoKey), nastyString)
      .map(([base, k, v]) => [...base, [k, v]]),
  );
  return fc.oneof(...variants);
}

const encoding = fc.oneof(
  { arbitrary: fc.constant<'json'>('json'), weight: 6 },
  { arbitrary: fc.constant<'form'>('form'), weight: 2 },
  { arbitrary: fc.constant<'multipart'>('multipart'), weight: 1 },
);

function bodyArbitrary(operation: string, schema: JsonSchema | undefined, ctx: SchemaContext, q: Quality): fc.Arbitrary<Body | undefined> {
  if (!schema) return rarely(hostileValue.map((value): Body => ({ encoding: 'json', value })));
  const realistic = VALID_BODIES[operation];
  const validValue = realistic
    ? fc.oneof({ arbitrary: realistic, weight: 2 }, { arbitrary: valid(schema, ctx), weight: 1 })
    : valid(schema, ctx);
  const value = q === 'valid' ? validValue : q === 'almost' ? almostValid(schema, ctx) : hostileValue;
  return fc.tuple(encoding, value).map(([enc, v]): Body => ({ encoding: enc, value: v }));
}

export function restTargets(doc: OpenApiDocument): FuzzTarget[] {
  const ctx = schemaContext(doc);
  const targets: FuzzTarget[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const params = operation.parameters ?? [];
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      const upper = method.toUpperCase();
      const variant = (q: Quality) =>
        fc.record({
          path: pathArbitrary(path, params, ctx, q),
          query: queryArbitrary(params, ctx, q),
          body: bodyArbitrary(`${upper} ${path}`, bodySchema, ctx, q),
          auth: authArbitrary,
        });
      const base = fc.oneof(
        { arbitrary: variant('valid'), weight: 4 },
        { arbitrary: variant('almost'), weight: 5 },
        { arbitrary: variant('hostile'), weight: 1 },
      );
      const request = fc.tuple(base, rarely(transportChange)).map(([r, change]): FuzzRequest => {
        const req: FuzzRequest = {
          target: `${upper} ${path}`,
          method: upper,
          path: r.path,
          query: r.query,
          auth: r.auth,
          headers: [],
          ...(r.body ? { body: r.body } : {}),
        };
        return change ? change(req) : req;
      });
      targets.push({ name: `${upper} ${path}`, surface: 'rest', writes: upper !== 'GET', request });
    }
  }
  return targets;
}
