// The GraphQL operation a request ran, as a metrics label. The operation name is chosen by the client,
// so it is only used when the service knows it: the PascalCase name of one of its root fields
// (`query Organization`, `mutation CreateClosure`, `subscription …`), an operation of the GraphiQL
// examples, or GraphiQL's `IntrospectionQuery`. Any other name is `other`, an operation without a
// name is `anonymous`: a client cannot create series by inventing names.
import { getOperationAST, Kind, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GRAPHIQL_EXAMPLES } from './graphiql.js';
import { executionArgs, type OperationStep } from './operationSteps.js';
import { schema } from './schema/index.js';

export const OTHER_OPERATION = 'other';
export const ANONYMOUS_OPERATION = 'anonymous';

/** GraphQL's Name grammar, and a length no known name reaches: checked before any lookup. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function knownOperationNames(schema: GraphQLSchema): Set<string> {
  const names = new Set<string>(['IntrospectionQuery']);
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.keys(type?.getFields() ?? {})) names.add(field.charAt(0).toUpperCase() + field.slice(1));
  }
  for (const definition of parse(GRAPHIQL_EXAMPLES).definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) names.add(definition.name.value);
  }
  return names;
}

const KNOWN = knownOperationNames(schema);

/** The label of an operation name: the name when the service knows it, else `other` (`anonymous` without one). */
export function operationLabel(name: unknown): string {
  if (name === undefined || name === null || name === '') return ANONYMOUS_OPERATION;
  // a request's operationName may be any JSON (yoga refuses it later): never stringified here
  return typeof name === 'string' && NAME.test(name) && KNOWN.has(name) ? name : OTHER_OPERATION;
}

/** What the app passes to yoga so that the request's metrics know the operation (app.ts). */
export interface OperationLabelContext {
  setOperation?: (label: string) => void;
}

function report(context: OperationLabelContext, document: DocumentNode, operationName: string | null | undefined): void {
  const operation = getOperationAST(document, operationName ?? undefined);
  context.setOperation?.(operationLabel(operation?.name?.value ?? operationName));
}

/**
 * Labels the request with its operation: from the `operationName` parameter as soon as the request is
 * read (an operation that fails to parse or validate is still labelled), then from the operation the
 * document really runs (a named operation sent without `operationName`).
 */
export function operationLabelStep(): OperationStep {
  const plugin: Plugin<OperationLabelContext, OperationLabelContext> = {
    onParams({ params, context }) {
      context.setOperation?.(operationLabel(params.operationName));
    },
    onExecute({ args }) {
      const { document, operationName } = executionArgs(args);
      report(args.contextValue, document, operationName);
    },
    onSubscribe({ args }) {
      const { document, operationName } = executionArgs(args);
      report(args.contextValue, document, operationName);
    },
  };
  return { name: 'operation label', plugins: [plugin] };
}
