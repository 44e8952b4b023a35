// Text the database cannot store — a NUL, or an unpaired UTF-16 surrogate, which a JSON string can carry
// as "\ud800" — is a 400 naming the field on every input of both surfaces, and changes nothing. The cases
// are generated: for every operation of the route table, every path and query parameter and every string
// its request body's schema declares (at any depth, list items and record keys included); for every
// GraphQL field with text arguments (String, ID or JSON, root or nested, and the subscription), every
// such argument and input field. Each case is one valid request (test/support/validInputs.ts) with one
// field spoiled; the request unspoiled is sent last and must succeed, which shows that the field was its
// only problem. Before the rule was applied where text enters, a NUL in a webhook endpoint's url or
// description, an API key's or OAuth client's name, or the events' subjectId filter was a 500
// (PostgreSQL error 22021), and an unpaired surrogate in many fields was stored as U+FFFD.
import {
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { Kind, type GraphQLArgument, type GraphQLField, type GraphQLInputType } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { UNSTORABLE_NAME_MESSAGE, UNSTORABLE_TEXT_MESSAGE } from '../../src/domain/shared/storableText.js';
import { schema } from '../../src/graphql/schema/index.js';
import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import type { GraphQLErrorItem, Schemas } from '../support/apiTypes.js';
import type { JsonSchema } from '../support/fuzz/jsonSchema.js';
import { firstAnswer, subscribe } from '../support/sse.js';
import { changedTables, tableChecksumReader, type ChecksumReader, type TableChecksums } from '../support/tableChecksums.js';
import { useTestApp } from '../support/testApp.js';
import { Fixtures, GRAPHQL_REQUESTS, NOW, REST_REQUESTS, type GraphQLRequest, type RestRequest } from '../support/validInputs.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const UNLIMITED = '1000000000';
const t = useTestApp({
  // endpoints deliver to a receiver on 127.0.0.1
  env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
});
const receiver = useWebhookReceiver();

/** How a field is spoiled: after its value (or in place of a value that is not text). */
const SPOILERS = [
  { name: 'a NUL', spoil: (text: string) => `${text}\u0000` },
  { name: 'an unpaired surrogate', spoil: (text: string) => `${text}\uD800` },
] as const;
/** A URL carries UTF-8, which has no unpaired surrogates: parameters are spoiled with a NUL only. */
const URL_SPOILERS = [SPOILERS[0]];
const spoiledKey = 'ref\u0000';

type Path = (string | number)[];

let fixtures: Fixtures;
let checksums: ChecksumReader;

beforeEach(async () => {
  t.clock.set(NOW);
  fixtures = new Fixtures(t, () => receiver.url);
  checksums ??= await tableChecksumReader(t.db.prisma);
});

/** Fails with every case that went wrong, not only the first. */
class Verdicts {
  readonly problems: string[] = [];
  cases = 0;
  private baseline?: { marker: string; tables: TableChecksums };
  async start(): Promise<void> {
    this.baseline = { marker: await checksums.writeMarker(), tables: await checksums.read() };
  }
  /** Nothing was written since start(): read again only when a transaction id was handed out. */
  async unchanged(label: string): Promise<void> {
    const marker = await checksums.writeMarker();
    if (marker === this.baseline!.marker) return;
    const changed = changedTables(this.baseline!.tables, await checksums.read());
    if (changed.length > 0) this.problems.push(`${label}: changed ${changed.join(', ')}`);
    this.baseline = { marker, tables: await checksums.read() };
  }
  check(label: string, ok: boolean, detail: () => string): void {
    this.cases++;
    if (!ok) this.problems.push(`${label}: ${detail()}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// through JSON, not structuredClone, which keeps an object shared by two fields shared in the copy
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** `value` with `path` set to `to` (containers along the path must exist). */
function withValue(value: unknown, path: Path, to: unknown): unknown {
  if (path.length === 0) return to;
  const copy = clone(value) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const part of path.slice(0, -1)) at = at[part] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = to;
  return copy;
}

function valueAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const part of path) at = (at as Record<string | number, unknown> | undefined)?.[part];
  return at;
}

/** Every path to a string in a JSON value. */
function stringPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...path, i]));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]));
  return [];
}

const named = (path: Path) => path.join('.');

// ---------------------------------------------------------------------------------------------------
// REST: the route table and the OpenAPI document made from it

const document = buildOpenApiDocument(allRoutes) as unknown as {
  paths: Record<string, Record<string, { parameters?: JsonSchema[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, JsonSchema> };
};
const deref = (s: JsonSchema, kind: 'schemas' | 'parameters' = 'schemas'): JsonSchema => {
  let out = s;
  while (out && typeof out.$ref === 'string') out = document.components[kind][out.$ref.split('/').pop()!]!;
  return out;
};

/** A string, or a record (its keys are text too), the schema declares: `*` for a record's values, 0 for list items. */
interface Leaf {
  path: (string | number)[];
  kind: 'text' | 'record';
}

function declaredLeaves(schema: JsonSchema, path: Leaf['path'] = [], refs: string[] = []): Leaf[] {
  if (typeof schema.$ref === 'string') {
    if (refs.includes(schema.$ref)) return []; // a recursive schema: its first level is enough to declare
    return declaredLeaves(deref(schema), path, [...refs, schema.$ref]);
  }
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(alternatives)) return alternatives.flatMap((a: JsonSchema) => declaredLeaves(a, path, refs));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const leaves: Leaf[] = [];
  if (types.includes('string')) leaves.push({ path, kind: 'text' });
  if (types.includes('array') && schema.items) leaves.push(...declaredLeaves(schema.items, [...path, 0], refs));
  if (types.includes('object') || schema.properties) {
    for (const [key, property] of Object.entries(schema.properties ?? {})) leaves.push(...declaredLeaves(property, [...path, key], refs));
    if (isObject(schema.additionalProperties))
      leaves.push({ path, kind: 'record' }, ...declaredLeaves(schema.additionalProperties, [...path, '*'], refs));
  }
  return leaves;
}

/** The concrete paths of a declared leaf in a value (`*` → each key, 0 → the first item); none when its container is missing. */
function concrete(value: unknown, path: Leaf['path']): Path[] | undefined {
  let found: Path[] = [[]];
  for (const [i, part] of path.entries()) {
    const last = i === path.length - 1;
    const next: Path[] = [];
    for (const p of found) {
      const at = valueAt(value, p);
      if (part === '*') {
        if (isObject(at)) next.push(...Object.keys(at).map((k) => [...p, k]));
      } else if (typeof part === 'number') {
        if (Array.isArray(at) && at.length > 0) next.push([...p, 0]);
      } else if (isObject(at) && (last || at[part] !== undefined)) next.push([...p, part]);
    }
    if (next.length === 0) return undefined;
    found = next;
  }
  return found;
}

interface RestCase {
  label: string;
  request: RestRequest;
  path: string;
  message: string;
}

function restCases(method: string, path: string, valid: RestRequest, verdicts: Verdicts): RestCase[] {
  const operation = document.paths[path]![method.toLowerCase()]!;
  const parameters = (operation.parameters ?? [])
    .map((p) => deref(p, 'parameters') as JsonSchema & { name: string; in: string })
    .filter((p) => p.in === 'path' || p.in === 'query');
  const cases: RestCase[] = [];
  for (const parameter of parameters) {
    const where = parameter.in === 'path' ? 'params' : 'query';
    const sent = valid[where]?.[parameter.name];
    if (parameter.in === 'path' && sent === undefined)
      verdicts.problems.push(`the valid request gives no path parameter ${parameter.name}`);
    for (const s of URL_SPOILERS) {
      cases.push({
        label: `${s.name} in the ${parameter.in} parameter ${parameter.name}`,
        request: { ...valid, [where]: { ...valid[where], [parameter.name]: s.spoil(sent ?? 'text') } },
        path: parameter.name,
        message: UNSTORABLE_TEXT_MESSAGE,
      });
    }
  }
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  if (!bodySchema) return cases;
  const leaves = declaredLeaves(bodySchema);
  const texts = new Map(stringPaths(valid.body).map((p) => [named(p), p]));
  for (const leaf of leaves) {
    const paths = concrete(valid.body, leaf.path);
    if (!paths) {
      verdicts.problems.push(
        `the valid request's body has no ${named(leaf.path.slice(0, -1)) || 'body'} to hold ${named(leaf.path)} (fill in every field the schema declares)`,
      );
      continue;
    }
    for (const p of paths) {
      if (leaf.kind === 'text') texts.set(named(p), p);
      else {
        const record = valueAt(valid.body, p) as Record<string, unknown>;
        const first = Object.values(record)[0] ?? 'text';
        cases.push({
          label: `a NUL in a key of ${named(p)}`,
          request: { ...valid, body: withValue(valid.body, p, { ...record, [spoiledKey]: first }) },
          path: named([...p, JSON.stringify(spoiledKey).slice(1, -1)]),
          message: UNSTORABLE_NAME_MESSAGE,
        });
      }
    }
  }
  for (const p of texts.values()) {
    const current = valueAt(valid.body, p);
    for (const s of SPOILERS) {
      cases.push({
        label: `${s.name} in ${named(p)}`,
        request: { ...valid, body: withValue(valid.body, p, s.spoil(typeof current === 'string' ? current : 'text')) },
        path: named(p),
        message: UNSTORABLE_TEXT_MESSAGE,
      });
    }
  }
  return cases;
}

function restUrl(path: string, request: RestRequest): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.params?.[name] ?? ''));
  const query = new URLSearchParams(request.query ?? {}).toString();
  return query ? `${filled}?${query}` : filled;
}

async function sendRest(method: string, path: string, request: RestRequest) {
  return t.rest(method, restUrl(path, request), {
    ...(request.body !== undefined ? { json: request.body } : {}),
    ...(request.token ? { token: request.token } : {}),
  });
}

const restOperations = allRoutes.map((route) => ({ method: route.method, path: openApiPath(route.path) }));

describe('text that cannot be stored, in any input of any /v1 operation, is a 400 naming the field', () => {
  it('has a valid request for every operation of the route table, and none for an operation that is gone', () => {
    const keys = restOperations.map((o) => `${o.method} ${o.path}`);
    expect(
      keys.filter((k) => !(k in REST_REQUESTS)),
      'operations without a valid request in test/support/validInputs.ts',
    ).toEqual([]);
    expect(Object.keys(REST_REQUESTS).filter((k) => !keys.includes(k))).toEqual([]);
  });

  it.each(restOperations)('$method $path', async ({ method, path }) => {
    const make = REST_REQUESTS[`${method} ${path}`];
    if (!make) return; // reported by the test above
    const valid = await make(fixtures);
    const verdicts = new Verdicts();
    const cases = restCases(method, path, valid, verdicts);
    await verdicts.start();
    for (const c of cases) {
      let answer: { status: number; body: Partial<Schemas['ErrorEnvelope']> | undefined };
      try {
        answer = await sendRest(method, path, c.request);
      } catch (err) {
        verdicts.check(c.label, false, () => String(err).slice(0, 500));
        continue;
      }
      const expected = { status: 400, code: 'validation_failed', errors: [{ path: c.path, message: c.message }] };
      const got = { status: answer.status, code: answer.body?.code, errors: answer.body?.errors };
      verdicts.check(
        c.label,
        JSON.stringify(got) === JSON.stringify(expected),
        () => `expected ${JSON.stringify(expected)}, got ${JSON.stringify(got).slice(0, 300)}`,
      );
      await verdicts.unchanged(c.label);
    }
    // the request unspoiled: every field of it was valid
    const control = await sendRest(method, path, valid);
    verdicts.check(
      'the valid request',
      (control.status >= 200 && control.status < 300) || (valid.control ?? []).includes(control.status),
      () => `${control.status} ${JSON.stringify(control.body).slice(0, 300)}`,
    );
    expect(verdicts.problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// GraphQL: every field with text arguments, found in the executable schema

/** A text leaf of an argument's type: String, ID, or JSON (a value that may hold text). */
const isTextScalar = (name: string) => name === 'String' || name === 'ID' || name === 'JSON';

function typeLeaves(type: GraphQLInputType, path: Leaf['path'] = [], seen: string[] = []): Leaf['path'][] {
  if (isNonNullType(type)) return typeLeaves(type.ofType, path, seen);
  if (isListType(type)) return typeLeaves(type.ofType, [...path, 0], seen);
  if (isScalarType(type)) return isTextScalar(type.name) ? [path] : [];
  if (isInputObjectType(type)) {
    if (seen.includes(type.name)) return []; // a recursive input: its first level is enough to declare
    return Object.values(type.getFields()).flatMap((f) => typeLeaves(f.type, [...path, f.name], [...seen, type.name]));
  }
  return [];
}

/** The paths of the text a value of `type` holds: String and ID values, and the strings in (or in place of) a JSON value. */
function textPaths(type: GraphQLInputType, value: unknown, path: Path = []): Path[] {
  if (value === null || value === undefined) return [];
  if (isNonNullType(type)) return textPaths(type.ofType, value, path);
  if (isListType(type)) return Array.isArray(value) ? value.flatMap((v, i) => textPaths(type.ofType, v, [...path, i])) : [];
  if (isScalarType(type)) {
    if (type.name !== 'JSON') return isTextScalar(type.name) ? [path] : [];
    const inside = stringPaths(value).map((p) => [...path, ...p]);
    return inside.length > 0 ? inside : [path];
  }
  if (isInputObjectType(type) && isObject(value)) {
    const fields = type.getFields();
    return Object.entries(value).flatMap(([k, v]) => (fields[k] ? textPaths(fields[k].type, v, [...path, k]) : []));
  }
  return [];
}

const textArguments = (field: GraphQLField<unknown, unknown>) => field.args.filter((a) => typeLeaves(a.type).length > 0);

const graphQLFields = Object.values(schema.getTypeMap())
  .filter(isObjectType)
  .filter((type) => !type.name.startsWith('__'))
  .flatMap((type) => Object.values(type.getFields()).map((field) => ({ coordinate: `${type.name}.${field.name}`, field })))
  .filter(({ field }) => textArguments(field).length > 0);

/** The variable each text argument of the field is bound to in the document. */
function boundArguments(request: GraphQLRequest, coordinate: string, verdicts: Verdicts): { arg: GraphQLArgument; variable: string }[] {
  const [typeName, fieldName] = coordinate.split('.') as [string, string];
  const doc = parse(request.query);
  const typeInfo = new TypeInfo(schema);
  const bound: { arg: GraphQLArgument; variable: string }[] = [];
  let found = false;
  visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (parent?.name !== typeName || node.name.value !== fieldName) return;
        found = true;
        const field = typeInfo.getFieldDef()!;
        for (const arg of textArguments(field)) {
          const given = node.arguments?.find((a) => a.name.value === arg.name);
          if (given?.value.kind === Kind.VARIABLE) bound.push({ arg, variable: given.value.name.value });
          else verdicts.problems.push(`the valid request must bind the argument ${arg.name} to a variable`);
        }
      },
    }),
  );
  if (!found) verdicts.problems.push(`the valid request does not select ${coordinate}`);
  return bound;
}

interface GraphQLCase {
  label: string;
  variables: Record<string, unknown>;
  path: string;
}

function graphQLCases(request: GraphQLRequest, coordinate: string, verdicts: Verdicts): GraphQLCase[] {
  const cases: GraphQLCase[] = [];
  for (const { arg, variable } of boundArguments(request, coordinate, verdicts)) {
    const value = request.variables[variable];
    const paths = new Map(textPaths(arg.type, value).map((p) => [named(p), p]));
    for (const leaf of typeLeaves(arg.type)) {
      const found = leaf.length === 0 ? [[]] : concrete(value, leaf);
      if (!found)
        verdicts.problems.push(
          `the valid request's $${variable} has no ${named(leaf.slice(0, -1))} to hold ${named(leaf)} (fill in every field the type declares)`,
        );
      else for (const p of found) paths.set(named(p), p);
    }
    for (const p of paths.values()) {
      const current = valueAt(value, p);
      for (const s of SPOILERS) {
        cases.push({
          label: `${s.name} in ${[arg.name, ...p].join('.')}`,
          variables: { ...request.variables, [variable]: withValue(value, p, s.spoil(typeof current === 'string' ? current : 'text')) },
          // the fields of an `input` are named as REST names its body's; any other argument by its own name
          path: named(arg.name === 'input' ? p : [arg.name, ...p]),
        });
      }
    }
  }
  return cases;
}

/**
 * The answer's errors (a subscription: its first event; a stream that sends nothing within `quietMs`, as
 * callRequestChanged until a transition, was accepted: a refusal is the first event).
 */
async function sendGraphQL(
  request: GraphQLRequest,
  variables: Record<string, unknown>,
  quietMs = 5_000,
): Promise<{ errors?: GraphQLErrorItem[]; data?: unknown }> {
  if (!request.subscription) return (await t.gql(request.query, variables, request.token ? { token: request.token } : {})).body;
  const stream = await subscribe(t.app, request.query, variables, request.token ?? t.demo.organizations.clinic.apiKey);
  try {
    return await firstAnswer(stream, quietMs);
  } finally {
    await stream.close();
  }
}

describe('text that cannot be stored, in any argument of any GraphQL field, is BAD_USER_INPUT naming it', () => {
  it('has a valid request for every field with text arguments, and none for a field that is gone', () => {
    const coordinates = graphQLFields.map((f) => f.coordinate);
    expect(
      coordinates.filter((c) => !(c in GRAPHQL_REQUESTS)),
      'fields without a valid request in test/support/validInputs.ts',
    ).toEqual([]);
    expect(Object.keys(GRAPHQL_REQUESTS).filter((c) => !coordinates.includes(c))).toEqual([]);
  });

  it.each(graphQLFields)('$coordinate', async ({ coordinate }) => {
    const make = GRAPHQL_REQUESTS[coordinate];
    if (!make) return; // reported by the test above
    const valid = await make(fixtures);
    const verdicts = new Verdicts();
    const cases = graphQLCases(valid, coordinate, verdicts);
    await verdicts.start();
    for (const c of cases) {
      const body = await sendGraphQL(valid, c.variables);
      const got = body.errors?.map((e) => ({ code: e.extensions?.code, issues: e.extensions?.issues }));
      const expected = [{ code: 'BAD_USER_INPUT', issues: [{ path: c.path, message: UNSTORABLE_TEXT_MESSAGE }] }];
      verdicts.check(
        c.label,
        JSON.stringify(got) === JSON.stringify(expected),
        () => `expected ${JSON.stringify(expected)}, got ${JSON.stringify(body).slice(0, 300)}`,
      );
      await verdicts.unchanged(c.label);
    }
    const control = await sendGraphQL(valid, valid.variables, 1_000);
    const codes = (control.errors ?? []).map((e) => e.extensions?.code);
    verdicts.check(
      'the valid request',
      codes.every((code) => (valid.control ?? []).includes(code)),
      () => JSON.stringify(control).slice(0, 300),
    );
    expect(verdicts.problems).toEqual([]);
  });

  it('is BAD_USER_INPUT for a NUL written in the document, too', async () => {
    const res = await t.gql('{ events(filter: { subjectId: "a\\u0000" }) { edges { cursor } } }');
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'filter.subjectId', message: UNSTORABLE_TEXT_MESSAGE }],
    });
  });
});
