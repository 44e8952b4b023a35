// Queries compiled to JavaScript (graphql-jit) once per document AND operation, and kept ready to run.
//
// Two users share one store:
//   - `usePreparedQueries`, the envelop plugin: a query that yoga has parsed and validated runs through its
//     compiled form (~40 % more queries per second than graphql-js, bench/RESULTS.md). It replaces
//     @envelop/graphql-jit, which keys its compilations by document only: a document with two queries
//     (GraphiQL's tabs, a client's operations file) ran the first one it compiled whichever
//     `operationName` asked for the second.
//   - `runPrepared` (directAnswer.ts): a plain JSON POST of a query that is already here — so yoga parsed
//     and validated it before, with the same schema and the same rules, whose outcome depends on nothing
//     else — runs it directly, skipping yoga's per-request pipeline (parameter hooks, the parse and
//     validation cache lookups, context extension, execution hooks), about a third of a small query's
//     cost. What that pipeline does to a query's result is done here by the same functions: errors
//     masked by `maskError`, the 429 of a fully rate-limited operation (`withRateLimitOutcome`, with the cost extension), the
//     metrics label (`operationLabel`). Request ids are stamped by the caller on both paths.
//
// Mutations and subscriptions are not prepared: they are not the hot path, and graphql-jit coerces complex
// input objects and runs subscriptions its own way. GRAPHQL_JIT=false prepares nothing (graphql-js runs all).
import { type DocumentNode, type ExecutionResult, getOperationAST, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { operationLabel } from './operationLabel.js';
import { rootSelection, withRateLimitOutcome } from './rateLimits.js';
import type { GraphQLContext } from './context.js';

/** One operation of one document, compiled. */
export interface PreparedQuery {
  compiled: CompiledQuery;
  /** The metrics label of the operation it runs (graphql/operationLabel.ts). */
  label: string;
  /** Response keys of its root fields: an operation whose every one was rate-limited answers 429. */
  rootKeys: Set<string>;
  /** The same, as envelop's execute function (the plugin's path). */
  execute: ReturnType<typeof makeExecute>;
}

/** Documents (as sent) × operation name → compiled query. Bounded: memory does not grow with clients' documents. */
export class PreparedQueries {
  private readonly entries: LRUCache<string, PreparedQuery>;

  constructor(
    private readonly schema: GraphQLSchema,
    readonly maxEntries = 500,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The prepared query for a document's text and operation name, if one was prepared. */
  get(query: string, operationName: string | null | undefined): PreparedQuery | undefined {
    return this.entries.get(keyOf(query, operationName));
  }

  /**
   * The prepared query of a validated query operation, compiled now if needed; undefined when graphql-jit
   * cannot compile it (graphql-js then runs it).
   */
  prepare(query: string, document: DocumentNode, operationName: string | null | undefined): PreparedQuery | undefined {
    const key = keyOf(query, operationName);
    const known = this.entries.get(key);
    if (known) return known;
    // introspection is yoga's to run: it draws on the caller's address before it executes (rateLimits.ts)
    const root = rootSelection(document, operationName);
    if (root.introspection) return undefined;
    const compiled = compileQuery(this.schema, document, operationName ?? undefined);
    if (!isCompiledQuery(compiled)) return undefined;
    const operation = getOperationAST(document, operationName ?? undefined);
    const prepared: PreparedQuery = {
      compiled,
      label: operationLabel(operation?.name?.value ?? operationName),
      rootKeys: root.keys,
      execute: makeExecute((args) => run(compiled, args.rootValue, args.contextValue as GraphQLContext, args.variableValues)),
    };
    this.entries.set(key, prepared);
    return prepared;
  }
}

function keyOf(query: string, operationName: string | null | undefined): string {
  // a NUL cannot end an operation name (GraphQL names are [A-Za-z0-9_])
  return operationName ? `${operationName}\u0000${query}` : query;
}

/** Runs a compiled query; its result carries graphql-jit's serializer for its shape, which yoga uses. */
async function run(compiled: CompiledQuery, root: unknown, context: GraphQLContext, variables: Record<string, unknown> | null | undefined): Promise<ExecutionResult> {
  const result = (await compiled.query(root, context, variables)) as ExecutionResult & { stringify?: (r: unknown) => string };
  result.stringify = compiled.stringify;
  return result;
}

/**
 * Runs a prepared query outside yoga (directAnswer.ts), and does to its result what yoga's pipeline would:
 * errors masked, the status of a fully rate-limited operation.
 */
export async function runPrepared(
  prepared: PreparedQuery,
  context: GraphQLContext,
  variables: Record<string, unknown> | null | undefined,
  maskError: (error: unknown, message: string) => Error,
): Promise<ExecutionResult> {
  const result = await run(prepared.compiled, undefined, context, variables);
  // maskGraphQLError answers GraphQLErrors (typed Error by yoga's option)
  const masked: ExecutionResult = result.errors?.length ? { ...result, errors: result.errors.map((error) => maskError(error, 'Unexpected error.') as GraphQLError) } : result;
  return withRateLimitOutcome(masked, prepared.rootKeys, context.budgets);
}

/** The envelop plugin: validated queries run through the store's compiled form (see the top of this file). */
export function usePreparedQueries(store: PreparedQueries): Plugin<{ params?: { query?: unknown } }> {
  return {
    onExecute({ args, setExecuteFn }) {
      // the document's text as the client sent it: the store's key (yoga keeps the request's parameters)
      const query = args.contextValue.params?.query;
      if (typeof query !== 'string') return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const prepared = store.prepare(query, args.document, args.operationName);
      if (prepared) setExecuteFn(prepared.execute);
    },
  };
}
