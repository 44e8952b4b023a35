// Where a GraphQL answer shows a secret (domain/shared/shownOnce.ts), found from the operation and the schema
// rather than from the answer: a field of a type of SECRET_FIELDS is its secret under whatever alias,
// fragment or inline fragment selects it, and `secretShownOnce` beside it (a patient's words and `textWithheld`
// alike, PATIENT_WORDS_FIELDS). An idempotent replay
// (idempotentOperations.ts) stores and answers the result with each of those secrets null and each
// `secretShownOnce` true, so the secret is never stored in clear nor shown twice.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { replayWithheldOf } from '../domain/shared/shownOnce.js';

/** The response keys under which an answer shows a secret or its `secretShownOnce`, as a tree of keys. */
export interface SecretPaths {
  secret?: true;
  shownOnce?: true;
  fields?: Map<string, SecretPaths>;
}

/** The secret paths of `operation`'s answer; undefined when it shows no secret (most operations). */
export function secretPathsOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): SecretPaths | undefined {
  const root =
    operation.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : operation.operation === OperationTypeNode.QUERY
        ? schema.getQueryType()
        : undefined;
  if (!root) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const paths: SecretPaths = {};
  collect(schema, fragments, root, operation.selectionSet, paths, new Set());
  return prune(paths) ? paths : undefined;
}

function collect(
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
  type: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  into: SecretPaths,
  spreading: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const name = selection.name.value;
      const field = type.getFields()[name];
      if (!field) continue; // __typename, or a field validation refuses (no answer then)
      // a secret, or a patient's words (domain/shared/shownOnce.ts PATIENT_WORDS_FIELDS), withheld alike
      const withheld = replayWithheldOf(type.name);
      const node = child(into, selection.alias?.value ?? name);
      if (withheld?.field === name) node.secret = true;
      if (withheld?.marker === name) node.shownOnce = true;
      if (selection.selectionSet) collect(schema, fragments, getNamedType(field.type), selection.selectionSet, node, spreading);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
      if (on) collect(schema, fragments, on, selection.selectionSet, into, spreading);
    } else {
      const fragment = fragments.get(selection.name.value);
      // a fragment that spreads itself is refused by validation; here it must only not loop
      if (!fragment || spreading.has(fragment.name.value)) continue;
      const on = schema.getType(fragment.typeCondition.name.value);
      if (!on) continue;
      spreading.add(fragment.name.value);
      collect(schema, fragments, on, fragment.selectionSet, into, spreading);
      spreading.delete(fragment.name.value);
    }
  }
}

function child(node: SecretPaths, key: string): SecretPaths {
  node.fields ??= new Map();
  let next = node.fields.get(key);
  if (!next) node.fields.set(key, (next = {}));
  return next;
}

/** Drops the branches that lead to no secret; true when something is left. */
function prune(node: SecretPaths): boolean {
  if (node.fields) {
    for (const [key, next] of node.fields) if (!prune(next)) node.fields.delete(key);
    if (node.fields.size === 0) delete node.fields;
  }
  return node.secret === true || node.shownOnce === true || node.fields !== undefined;
}

/**
 * Withholds the secrets of `paths` in a result's `data`, in place: each secret null, each
 * `secretShownOnce` true. The same response key under another type condition (a union's member without a
 * secret) is nulled too: withholding more than the secret is safe, less is not.
 */
export function withholdSecrets(value: unknown, paths: SecretPaths): void {
  if (Array.isArray(value)) {
    for (const item of value) withholdSecrets(item, paths);
    return;
  }
  if (!value || typeof value !== 'object' || !paths.fields) return;
  const object = value as Record<string, unknown>;
  for (const [key, node] of paths.fields) {
    if (!(key in object)) continue;
    if (node.secret) object[key] = null;
    else if (node.shownOnce) object[key] = true;
    else withholdSecrets(object[key], node);
  }
}
