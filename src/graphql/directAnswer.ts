// A plain GraphQL POST (a JSON body with query, variables, operationName, extensions; an Accept that
// asks for JSON) answered without yoga's fetch layer:
//
//   runPrepared               a query yoga has parsed and validated before runs its compiled form at once,
//                             without yoga's per-request pipeline (preparedQueries.ts says what it does
//                             instead, by the same functions);
//   yoga.getResultForParams   otherwise: onParams hooks (parameter checks, the metrics label), then parse,
//                             validate, context and execute with every envelop plugin (armor's limits, the
//                             parse/validate cache, masked errors, rate-limit statuses), then the
//                             onExecutionResult hooks — exactly what yoga.fetch runs for these parameters;
//   processRegularResult      either way, yoga's own choice of status and headers from the result's errors
//                             (the GraphQL-over-HTTP rules for application/json and graphql-response+json),
//                             and its serialisation.
//
// What is left out is yoga turning a fetch Request into parameters (reading the body again through a
// stream) and the result into a fetch Response that the Node adapter then reads back: measured here,
// more than half of a small operation's cost. Everything else — GET, batches, SSE, multipart, other
// content or accept types, unknown parameters — goes through yoga.fetch, which answers it as before.
import { isAsyncIterable } from '@graphql-tools/utils';
import type { ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { createGraphQLContext } from './context.js';
import { stampRequestIds } from './errors.js';
import { runPrepared } from './preparedQueries.js';
import type { GraphQLHandler, GraphQLServerContext } from './yoga.js';

export interface DirectAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/** The media type yoga would answer with for this Accept header, when it is one yoga answers plainly. */
export function plainMediaType(accept: string | null): 'application/json' | 'application/graphql-response+json' | undefined {
  if (accept === null || accept.trim() === '') return 'application/json';
  const first = accept.split(',')[0]!.trim();
  for (const part of accept.split(',')) {
    const type = part.trim();
    if (!['application/json', 'application/graphql-response+json', '*/*', 'application/*'].includes(type)) return undefined; // q-values, streams…: yoga decides
  }
  return first === 'application/graphql-response+json' ? 'application/graphql-response+json' : 'application/json';
}

/** The parameters of a JSON body, when they are well-formed ones yoga would accept as they are. */
function plainParams(text: string): { query: string; variables?: Record<string, unknown>; operationName?: string; extensions?: Record<string, unknown> } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = body as Record<string, unknown>;
  for (const key of Object.keys(params)) if (!PARAM_NAMES.has(key)) return undefined;
  const isObject = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  if (typeof params.query !== 'string' || !isObject(params.variables) || !isObject(params.extensions)) return undefined;
  if (params.operationName !== undefined && params.operationName !== null && typeof params.operationName !== 'string') return undefined;
  return params as ReturnType<typeof plainParams>;
}

/** Captures what processRegularResult would build a Response from. */
class CapturedResponse {
  constructor(
    readonly body: string | null,
    readonly init: { status?: number; headers?: Record<string, string> },
  ) {}
}

/**
 * The answer of a plain JSON POST, or undefined when the request is not one (the caller then hands
 * it to yoga.fetch). `request` is what the context reads (credentials, the abort signal).
 */
export async function answerDirectly(
  { yoga, prepared, maskError }: GraphQLHandler,
  request: Request,
  bodyText: string,
  serverContext: GraphQLServerContext,
): Promise<DirectAnswer | undefined> {
  const contentType = (request.headers.get('content-type') ?? '').toLowerCase();
  if (!contentType.startsWith('application/json')) return undefined;
  const mediaType = plainMediaType(request.headers.get('accept'));
  if (!mediaType) return undefined;
  const params = plainParams(bodyText);
  if (!params) return undefined;
  // a query yoga has parsed and validated before runs at once, compiled (preparedQueries.ts)
  const ready = prepared?.get(params.query, params.operationName);
  let result: ExecutionResult | undefined;
  if (ready) {
    serverContext.setOperation?.(ready.label);
    result = await runPrepared(ready, createGraphQLContext(serverContext, request), params.variables, maskError);
  } else {
    // a subscription (or anything that may be one) is yoga's to answer: a stream, or a 406 for JSON
    if (/\bsubscription\b/.test(params.query)) return undefined;
    const answer = await yoga.getResultForParams({ params, request }, { ...serverContext } as never);
    if (isAsyncIterable(answer)) {
      await (answer as AsyncIterableIterator<unknown>).return?.(); // not reached: a stream was excluded above
      return undefined;
    }
    result = answer as ExecutionResult | undefined;
  }
  if (!result) return undefined;
  const captured = processRegularResult(stampRequestIds(result as never, serverContext.deps), { Response: CapturedResponse } as never, mediaType) as unknown as CapturedResponse;
  return { status: captured.init.status ?? 200, headers: { ...captured.init.headers }, body: captured.body ?? '' };
}
