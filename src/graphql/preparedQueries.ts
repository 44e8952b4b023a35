// Queries compiled to JavaScript (graphql-jit) once per document AND operation, and kept ready to run by
// `usePreparedQueries`, the envelop plugin: a query that yoga has parsed and validated runs through its
// compiled form (bench/RESULTS.md has the gain), inside envelop, so every other plugin (masking, budgets,
// labels, request ids) applies to it as to any operation. It replaces @envelop/graphql-jit, which keys its
// compilations by document only: a document with two queries (GraphiQL's tabs, a client's operations file)
// ran the first one it compiled whichever `operationName` asked for the second.
//
// Mutations and subscriptions are not prepared: they are not the hot path, and graphql-jit coerces complex
// input objects and runs subscriptions its own way. Introspection is not prepared either (rateLimits.ts
// meters it before it runs). GRAPHQL_JIT=false prepares nothing (graphql-js runs all).
import { type DocumentNode, type ExecutionResult, getOperationAST, type GraphQLSchema, OperationTypeNode } from 'graphql';
import { compileQuery, type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { rootSelection } from './rateLimits.js';
import type { GraphQLContext } from './context.js';
import { executionArgs, type OperationStep } from './operationSteps.js';

/** One operation of one document, compiled: envelop's execute function running its compiled form. */
export interface PreparedQuery {
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

  /** Whether a document's text and operation name are prepared (without touching its recency). */
  has(query: string, operationName: string | null | undefined): boolean {
    return this.entries.has(keyOf(query, operationName));
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
    if (rootSelection(document, operationName).introspection) return undefined;
    const compiled = compileQuery(this.schema, document, operationName ?? undefined);
    if (!isCompiledQuery(compiled)) return undefined;
    const prepared: PreparedQuery = {
      execute: makeExecute((args) => run(compiled, args.rootValue, args.contextValue as GraphQLContext, executionArgs(args).variables)),
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
async function run(
  compiled: CompiledQuery,
  root: unknown,
  context: GraphQLContext,
  variables: Record<string, unknown> | null | undefined,
): Promise<ExecutionResult> {
  const result = (await compiled.query(root, context, variables)) as ExecutionResult & { stringify?: (r: unknown) => string };
  result.stringify = compiled.stringify;
  return result;
}

/** The step: validated queries run through the store's compiled form (see the top of this file). */
export function preparedQueriesStep(store: PreparedQueries): OperationStep {
  const plugin: Plugin<{ params?: { query?: unknown } }> = {
    onExecute({ args, setExecuteFn }) {
      // the document's text as the client sent it: the store's key (yoga keeps the request's parameters)
      const query = args.contextValue.params?.query;
      if (typeof query !== 'string') return;
      const { document, operationName } = executionArgs(args);
      if (getOperationAST(document, operationName)?.operation !== OperationTypeNode.QUERY) return;
      const prepared = store.prepare(query, document, operationName);
      if (prepared) setExecuteFn(prepared.execute);
    },
  };
  return { name: 'prepared queries', plugins: [plugin] };
}
