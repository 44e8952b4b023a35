// One fuzz target per root field of the GraphQL schema (Query and Mutation), built from the schema
// itself: argument values from the argument types (valid, almost valid — one argument or one input
// field broken — and hostile), a random selection set of the return type in which nested fields take
// their own generated arguments (Organization.availability, officeHours …), every argument passed as a
// variable so that ids resolve when the request is sent. A few requests break the document instead:
// variables declared with the wrong type, hostile inline literals, unknown arguments, no selection.
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { authArbitrary, hint, idArbitrary } from './demoIds.js';
import { JsonEntries, JsonParam, type FuzzRequest } from './request.js';
import { rarely, type FuzzTarget } from './target.js';
import { transportChange } from './transport.js';
import { VALID_BODIES } from './validBodies.js';
import { anyJson, boundaryNumber, hostileValue, hugeString, nastyString, plainText, protoKey } from './values.js';

/** `id` arguments name what their field returns: `bot(id)` a bot, `updateTemplate(id)` a template. */
function idName(argName: string, fieldName: string): string {
  if (argName !== 'id') return argName;
  const byField: Record<string, string> = {
    bot: 'botId',
    callRequest: 'callRequestId',
    organization: 'orgId',
    updateTemplate: 'templateId',
  };
  return byField[fieldName] ?? 'id';
}

const MAX_INPUT_DEPTH = 3;

function validInput(type: GraphQLInputType, name: string, field: string, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return validInput(type.ofType, name, field, depth);
  const nullable = (arb: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: arb, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 });
  if (isListType(type)) {
    if (depth >= MAX_INPUT_DEPTH) return fc.constant([]);
    return nullable(fc.array(validInput(type.ofType, name, field, depth + 1), { maxLength: 2 }));
  }
  if (isEnumType(type)) return nullable(fc.constantFrom(...type.getValues().map((v) => v.value as string)));
  if (isInputObjectType(type)) {
    const realistic = VALID_BODIES[type.name];
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const f of Object.values(type.getFields())) {
      if (depth >= MAX_INPUT_DEPTH && !isNonNullType(f.type)) continue;
      model[f.name] = validInput(f.type, f.name, field, depth + 1);
      if (isNonNullType(f.type)) required.push(f.name);
    }
    const generated = fc.record(model, { requiredKeys: required });
    return realistic ? fc.oneof({ arbitrary: realistic, weight: 2 }, { arbitrary: generated, weight: 1 }) : generated;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'ID':
        return idArbitrary(idName(name, field));
      case 'Int':
        return hint(name) ?? fc.integer({ min: 0, max: 100 });
      case 'Float':
        return fc.double({ min: 0, max: 1, noNaN: true });
      case 'Boolean':
        return fc.boolean();
      case 'DateTime':
        return hint('at')!.map((s) => String(s).replace(/\+02:00$/, 'Z'));
      case 'JSON':
        return hint(name) ?? fc.jsonValue({ maxDepth: 2 });
      default:
        return hint(name) ?? plainText();
    }
  }
  return anyJson;
}

/** A value of the wrong type, out of range or hostile for `type` (null for a non-null type included). */
function invalidInput(type: GraphQLInputType): fc.Arbitrary<unknown> {
  const named = getNamedType(type);
  const edges: fc.Arbitrary<unknown>[] = [hostileValue];
  if (isNonNullType(type)) edges.push(fc.constant(null));
  if (isListType(isNonNullType(type) ? type.ofType : type)) edges.push(fc.constant('not a list'), fc.constant([null]));
  if (isEnumType(named)) edges.push(fc.constantFrom(...named.getValues().map((v) => v.value.toLowerCase()), '', 'UNKNOWN', 1));
  if (isScalarType(named)) {
    if (named.name === 'ID')
      edges.push(fc.constantFrom('not-a-uuid', '', '0', 1, 1.5, true, '00000000-0000-0000-0000-00000000000g'), nastyString);
    if (named.name === 'Int') edges.push(boundaryNumber, fc.constantFrom('1', 1.5, 2 ** 31, -(2 ** 31) - 1, 1e21));
    if (named.name === 'String') edges.push(nastyString, hugeString, fc.constantFrom(1, true, ['a'], { a: 1 }));
    if (named.name === 'DateTime')
      edges.push(
        fc.constantFrom('2026-02-30T00:00:00Z', '2026-03-10', 'now', '', '9999-99-99T99:99:99Z', '+275760-09-13T00:00:00.001Z', 0),
      );
    if (named.name === 'Boolean') edges.push(fc.constantFrom('true', 0, 1, ''));
  }
  if (isInputObjectType(named))
    edges.push(
      fc.constantFrom('x', 1, [], true),
      fc.tuple(protoKey, hostileValue).map(([k, v]) => new JsonEntries([[k, v]])),
    );
  return fc.oneof(...edges);
}

/** Valid except in one place: one field of one input object broken, missing, unknown or duplicated. */
function almostInput(type: GraphQLInputType, name: string, field: string, depth = 0): fc.Arbitrary<unknown> {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isInputObjectType(inner) && depth < MAX_INPUT_DEPTH) {
    const fields = Object.values(inner.getFields());
    const base = validInput(inner, name, field, depth) as fc.Arbitrary<Record<string, unknown>>;
    const options: fc.Arbitrary<unknown>[] = fields.map((f) =>
      fc
        .tuple(base, fc.oneof(almostInput(f.type, f.name, field, depth + 1), invalidInput(f.type)))
        .map(([v, bad]) => ({ ...v, [f.name]: bad })),
    );
    options.push(
      fc
        .tuple(base, fc.oneof(fc.constantFrom('unknownField', 'Description'), protoKey), hostileValue)
        .map(([v, k, x]) => new JsonEntries([...Object.entries(v), [k, x]])),
    );
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
    if (required.length) {
      options.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([v, k]) => {
          const copy = { ...v };
          delete copy[k];
          return copy;
        }),
      );
    }
    return fc.oneof(...options);
  }
  if (isListType(inner) && depth < MAX_INPUT_DEPTH) {
    return fc
      .tuple(
        fc.array(validInput(inner.ofType, name, field, depth + 1), { maxLength: 2 }),
        almostInput(inner.ofType, name, field, depth + 1),
      )
      .map(([a, b]) => [...a, b]);
  }
  return invalidInput(type);
}

/** A field of a selection set: its arguments (as typed values) and its own selection. */
interface Selected {
  name: string;
  args: { name: string; type: string; value: unknown }[];
  children?: Selected[];
}

const MAX_SELECTION_DEPTH = 2;

function argsArbitrary(args: readonly GraphQLArgument[], field: string, broken: boolean): fc.Arbitrary<Selected['args']> {
  if (args.length === 0) return fc.constant([]);
  const validArgs = fc.tuple(
    ...args.map((a) => {
      const v = validInput(a.type, a.name, field);
      return isNonNullType(a.type) ? v : fc.option(v, { nil: undefined });
    }),
  );
  const toArgs = (values: unknown[]) =>
    values.map((value, i) => ({ name: args[i]!.name, type: String(args[i]!.type), value })).filter((a) => a.value !== undefined);
  if (!broken) return validArgs.map(toArgs);
  return fc.oneof(
    ...args.map((a, index) =>
      fc
        .tuple(validArgs, fc.oneof(almostInput(a.type, a.name, field), invalidInput(a.type), fc.constant(undefined)))
        .map(([values, bad]) => {
          const copy = [...values];
          copy[index] = bad;
          return toArgs(copy);
        }),
    ),
  );
}

function selectionArbitrary(type: GraphQLObjectType, depth: number, broken: boolean): fc.Arbitrary<Selected[]> {
  const fields = Object.values(type.getFields()).filter((f) => depth < MAX_SELECTION_DEPTH || !isObjectType(getNamedType(f.type)));
  const choices = fields.map((f) => fc.option(fieldArbitrary(f, depth, broken && depth > 0), { nil: undefined, freq: 2 }));
  return fc.tuple(...choices).map((picked) => {
    const chosen = picked.filter((s): s is Selected => s !== undefined);
    return chosen.length > 0 ? chosen : [{ name: '__typename', args: [] }];
  });
}

function fieldArbitrary(field: GraphQLField<unknown, unknown>, depth: number, broken: boolean): fc.Arbitrary<Selected> {
  const named = getNamedType(field.type);
  const args = argsArbitrary(field.args, field.name, broken);
  if (!isObjectType(named)) return args.map((a) => ({ name: field.name, args: a }));
  return fc.tuple(args, selectionArbitrary(named, depth + 1, broken)).map(([a, children]) => ({ name: field.name, args: a, children }));
}

/** The document text and its variables; every argument becomes a variable `$v1`, `$v2`, … */
function printOperation(kind: 'query' | 'mutation', root: Selected): { query: string; variables: Record<string, unknown> } {
  const definitions: string[] = [];
  const variables: Record<string, unknown> = {};
  const print = (s: Selected): string => {
    const args = s.args.map((a) => {
      const name = `v${definitions.length + 1}`;
      definitions.push(`$${name}: ${a.type}`);
      variables[name] = a.value;
      return `${a.name}: $${name}`;
    });
    const head = args.length ? `${s.name}(${args.join(', ')})` : s.name;
    return s.children ? `${head} { ${s.children.map(print).join(' ')} }` : head;
  };
  const body = print(root);
  return { query: `${kind} Fuzz${definitions.length ? `(${definitions.join(', ')})` : ''} { ${body} }`, variables };
}

/** A GraphQL string literal for inline hostile values (lone surrogates and NUL escaped as \u…). */
const graphQLString = (s: string) => JSON.stringify(s);

/** Documents that break GraphQL itself around a root field. */
function brokenDocuments(
  kind: 'query' | 'mutation',
  field: GraphQLField<unknown, unknown>,
): fc.Arbitrary<{ query: string; variables?: unknown; operationName?: unknown }> {
  const first = field.args[0];
  const selection = isObjectType(getNamedType(field.type)) ? ' { __typename }' : '';
  const docs: fc.Arbitrary<{ query: string; variables?: unknown; operationName?: unknown }>[] = [
    // a variable declared with the wrong type, or not declared
    fc.constant({ query: `${kind} ($x: Int) { ${field.name}${first ? `(${first.name}: $x)` : ''}${selection} }`, variables: { x: 1 } }),
    fc.constant({ query: `${kind} { ${field.name}${first ? `(${first.name}: $undeclared)` : ''}${selection} }` }),
    // hostile inline literals
    fc.tuple(nastyString, boundaryNumber).map(([s, n]) => ({
      query: `${kind} { ${field.name}${first ? `(${first.name}: ${graphQLString(s)})` : ''}${selection} a: __typename b: __typename(x: ${typeof n === 'number' ? n : n.text}) }`,
    })),
    fc.constant({ query: `${kind} { ${field.name}(unknownArgument: 1)${selection} }` }),
    fc.constant({ query: `${kind} { ${field.name} }` }), // no selection on an object
    fc.constant({ query: `${kind} { ${field.name}${selection}`.slice(0, -2) }), // truncated
    fc.constant({ query: `${kind} { ${Array.from({ length: 120 }, (_, i) => `a${i}: ${field.name}${selection}`).join(' ')} }` }),
    fc.constant({ query: `${kind} A { __typename } ${kind} B { __typename }`, operationName: 'C' }),
    fc
      .tuple(hostileValue, hostileValue)
      .map(([variables, operationName]) => ({ query: `${kind} { __typename }`, variables, operationName })),
  ];
  return fc.oneof(...docs);
}

export function graphQLTargets(schema: GraphQLSchema): FuzzTarget[] {
  const targets: FuzzTarget[] = [];
  for (const [kind, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      const name = `${root.name}.${field.name}`;
      const operation = (broken: boolean) => fieldArbitrary(field, 0, broken).map((selected) => printOperation(kind, selected));
      const body = fc.oneof(
        { arbitrary: operation(false), weight: 4 },
        { arbitrary: operation(true), weight: 5 },
        { arbitrary: brokenDocuments(kind, field), weight: 1 },
      );
      const asPost = fc.tuple(body, authArbitrary).map(([b, auth]): FuzzRequest => ({
        target: name,
        method: 'POST',
        path: ['graphql'],
        query: [],
        auth,
        headers: [['accept', 'application/json']],
        body: { encoding: 'json', value: b },
      }));
      // GET: what a browser link could do; a mutation must be refused
      const asGet = fc.tuple(operation(false), authArbitrary).map(([b, auth]): FuzzRequest => ({
        target: name,
        method: 'GET',
        path: ['graphql'],
        query: [
          ['query', b.query],
          ['variables', new JsonParam(b.variables)],
        ],
        auth,
        headers: [['accept', 'application/json']],
      }));
      const request = fc
        .tuple(fc.oneof({ arbitrary: asPost, weight: 9 }, { arbitrary: asGet, weight: 1 }), rarely(transportChange))
        .map(([req, change]) => (change ? change(req) : req));
      targets.push({ name, surface: 'graphql', writes: kind === 'mutation', request });
    }
  }
  return targets;
}
