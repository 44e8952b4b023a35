// The steps every GraphQL operation goes through, each defined once (yoga.ts lists them). A step has the
// yoga/envelop plugins that run it for every request yoga handles, and says what it does on the prepared
// path (overHttp.ts): a plain POST of a query operation that this same pipeline already parsed, validated
// and compiled once (preparedQueries.ts), run again without yoga's orchestration. On that path each step
// runs the same function its plugin runs, at the point of the hook it is named after; a step that has
// nothing left to do there says why. A step cannot be added without answering for the prepared path
// (`prepared` is required), and the parity suite (test/api/graphqlPaths.parity.test.ts) runs every case
// through every path.
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import type { OperationLabelContext } from './operationLabel.js';
import { type PreparedQuery, run } from './preparedQueries.js';

/** A prepared operation being run: what its steps read. */
export interface PreparedOperation {
  document: DocumentNode;
  operationName: string | null | undefined;
  /** What the app passed to yoga for the request (operation label, the request's deps). */
  serverContext: OperationLabelContext;
  /** The operation's context, as the resolvers see it. */
  context: GraphQLContext;
  /** The variables as the request sent them. */
  variables: Record<string, unknown> | null | undefined;
}

export interface PreparedStep {
  /** Where the plugin's `onExecute` runs (before the operation executes); a result stops it there (envelop's setResultAndStopExecution). */
  onExecute?: (operation: PreparedOperation) => ExecutionResult | undefined | void;
  /** Where the plugin's `onExecuteDone` runs, in the order of the steps. */
  onExecuteDone?: (operation: PreparedOperation, result: ExecutionResult) => ExecutionResult;
  /** Where the plugin's (yoga's) `onExecutionResult` runs: after every `onExecuteDone`. */
  onExecutionResult?: (operation: PreparedOperation, result: ExecutionResult) => ExecutionResult;
}

export interface OperationStep {
  name: string;
  /** Run for every request yoga reads (in the order of the steps). */
  // plugins of several context types (each its own): a list of them has no one context type to name, and
  // yoga's own options take them alike
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  plugins: Plugin<any, any>[];
  /** On the prepared path: the step's hooks, or why it has nothing left to do for a prepared query. */
  prepared: PreparedStep | { notNeeded: string };
}

/**
 * Runs a prepared query as yoga would, hook by hook: every step's `onExecute`, the compiled query, every
 * `onExecuteDone`, then every `onExecutionResult` (each phase in the order of the steps).
 */
export async function executePrepared(
  steps: readonly OperationStep[],
  query: PreparedQuery,
  operation: PreparedOperation,
  variables: Record<string, unknown> | null | undefined,
): Promise<ExecutionResult> {
  let stopped: ExecutionResult | undefined;
  for (const step of steps) {
    if ('notNeeded' in step.prepared) continue;
    stopped = step.prepared.onExecute?.(operation) ?? undefined;
    if (stopped) break;
  }
  let result = stopped ?? (await run(query.compiled, undefined, operation.context, variables));
  for (const phase of ['onExecuteDone', 'onExecutionResult'] as const) {
    for (const step of steps) {
      const hook = 'notNeeded' in step.prepared ? undefined : step.prepared[phase];
      if (hook) result = hook(operation, result);
    }
  }
  return result;
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
