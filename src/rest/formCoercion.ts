// Form bodies carry only strings. Before validation, each string is turned into the type the
// route's zod schema expects at that place (boolean, number, null, array), read from the schema's
// JSON Schema; anything else is left as it is for validation to judge.
//   ""  → null for a nullable field, [] for an array field;  "true"/"false" → booleans;  "12" → 12.
import { z } from 'zod';

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
};

const cache = new WeakMap<z.ZodType, JsonSchema>();

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let js = cache.get(schema);
  if (!js) {
    js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as JsonSchema;
    cache.set(schema, js);
  }
  return js;
}

function alternatives(node: JsonSchema | undefined): JsonSchema[] {
  if (!node) return [];
  const nested = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
  return nested.length ? nested.flatMap(alternatives) : [node];
}

function typesOf(nodes: JsonSchema[]): Set<string> {
  const types = new Set<string>();
  for (const n of nodes) {
    if (Array.isArray(n.type)) n.type.forEach((t) => types.add(t));
    else if (n.type) types.add(n.type);
    if (n.enum) for (const e of n.enum) types.add(e === null ? 'null' : typeof e);
    if ('const' in n) types.add(n.const === null ? 'null' : typeof n.const);
    if (!n.type && !n.enum && !('const' in n) && !n.properties && !n.items) types.add('any');
  }
  return types;
}

function coerce(value: unknown, node: JsonSchema | undefined): unknown {
  const nodes = alternatives(node);
  if (nodes.length === 0) return value;
  const types = typesOf(nodes);
  if (typeof value === 'string') {
    if (value === '' && types.has('null')) return null;
    if (value === '' && types.has('array') && !types.has('string')) return [];
    if (types.has('string') || types.has('any')) return value;
    if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    if ((types.has('integer') || types.has('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
    if (types.has('array')) {
      const items = nodes.find((n) => n.items)?.items;
      return [coerce(value, items)];
    }
    return value;
  }
  if (Array.isArray(value)) {
    const items = nodes.find((n) => n.items)?.items;
    return value.map((v) => coerce(v, items));
  }
  if (value && typeof value === 'object') {
    const objectNode = nodes.find((n) => n.properties);
    if (!objectNode?.properties) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = coerce(v, objectNode.properties[k]);
    return out;
  }
  return value;
}

export function coerceFormBody(schema: z.ZodType, value: unknown): unknown {
  return coerce(value, jsonSchemaOf(schema));
}
