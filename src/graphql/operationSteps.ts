// The steps every GraphQL operation goes through, each defined once as the yoga/envelop plugins that run
// it (yoga.ts lists them in order). Every request, whichever way it was read (overHttp.ts), runs through
// yoga's plugin system: there is no other way to execute an operation.
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface OperationStep {
  name: string;
  /** Run for every request yoga reads (in the order of the steps). */
  // plugins of several context types (each its own): a list of them has no one context type to name, and
  // yoga's own options take them alike
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  plugins: Plugin<any, any>[];
}

/**
 * graphql-js's execution arguments as a plugin's hooks receive them: envelop types their fields loosely
 * (any), so they are read here once, with the types graphql-js gives them.
 */
export function executionArgs(args: { document: unknown; operationName?: unknown; variableValues?: unknown }): {
  document: DocumentNode;
  operationName: string | null | undefined;
  variables: Record<string, unknown> | null | undefined;
} {
  return {
    document: args.document as DocumentNode,
    operationName: args.operationName as string | null | undefined,
    variables: args.variableValues as Record<string, unknown> | null | undefined,
  };
}
