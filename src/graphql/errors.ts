// Maps domain errors to GraphQL errors with `extensions.code` (docs/decisions.md §5); anything else is masked.
// Every error also carries `extensions.requestId`, the X-Request-Id of the answer (useRequestIdInErrors).
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { asUnavailable } from '../domain/shared/databaseErrors.js';
import { DomainError, IdempotencyKeyInUse, InvalidInput, RateLimited, Unavailable } from '../domain/shared/errors.js';
import { mapAsyncIterator } from '@graphql-tools/utils';
import type { GraphQLDeps } from './deps.js';
import { errorFields } from '../logger.js';
import { internalErrorMessage } from '../http/requestContext.js';
import type { OperationStep } from './operationSteps.js';

function domainErrorOf(error: unknown): DomainError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof DomainError) return current;
    const unavailable = asUnavailable(current);
    if (unavailable) return unavailable;
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** By name, not instanceof: a second copy of graphql (ESM next to CJS) must not change the answer. */
function asGraphQLError(error: unknown): GraphQLError | undefined {
  return error instanceof Error && error.name === 'GraphQLError' ? (error as GraphQLError) : undefined;
}

/** `extensions` of a domain error: its code, the details a client acts on, the HTTP status it sets. */
export function domainErrorExtensions(domain: DomainError): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: domain.code };
  if (domain instanceof InvalidInput) extensions.issues = domain.issues;
  if (domain instanceof RateLimited || domain instanceof Unavailable) extensions.retryAfter = domain.retryAfter;
  if (domain instanceof Unavailable) extensions.http = { status: 503, headers: { 'Retry-After': String(domain.retryAfter) } };
  if (domain.code === 'UNAUTHENTICATED') extensions.http = { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
  if (domain instanceof IdempotencyKeyInUse) extensions.http = { status: 409, headers: { 'Retry-After': String(domain.retryAfter) } };
  if (domain.code === 'IDEMPOTENCY_KEY_REUSED') extensions.http = { status: 422 };
  if (domain.code === 'CONFLICT') extensions.http = { status: 409 };
  return extensions;
}

/** `extensions` with the id of the request being answered (http/requestContext.ts). */
export function withRequestId(
  extensions: Readonly<Record<string, unknown>> | undefined,
  requestId: string | undefined,
): Record<string, unknown> {
  return requestId ? { ...extensions, requestId } : { ...extensions };
}

/**
 * The causes of masked errors (maskGraphQLError), until the error is stamped with its request: yoga masks
 * without the request at hand, so the cause is logged, under the request's id, when the id is added.
 */
const maskedCauses = new WeakMap<GraphQLError, unknown>();

/** The stamped copy of an error; a masked one names the request id and has its cause logged. */
function stamp(error: GraphQLError, deps: Pick<GraphQLDeps, 'logger' | 'requestId'>): GraphQLError {
  const masked = maskedCauses.has(error);
  if (masked) {
    deps.logger.error('unhandled GraphQL error', errorFields(maskedCauses.get(error)));
    maskedCauses.delete(error);
  }
  return new GraphQLError(masked ? internalErrorMessage(deps.requestId) : error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: withRequestId(error.extensions, deps.requestId),
  });
}

type ExecutionResultLike = { errors?: readonly unknown[] } & Record<string, unknown>;

/** A result (or a batch of them) with `extensions.requestId` on every error of the request `deps` answer. */
export function stampRequestIds<R extends ExecutionResultLike | ExecutionResultLike[]>(
  result: R,
  deps: Pick<GraphQLDeps, 'logger' | 'requestId'>,
): R {
  const results: ExecutionResultLike[] = Array.isArray(result) ? result : [result];
  if (!results.some((r) => r.errors?.length)) return result;
  const stamped = results.map((r) => (r.errors?.length ? { ...r, errors: r.errors.map((e) => stamp(e as GraphQLError, deps)) } : r));
  return (Array.isArray(result) ? stamped : stamped[0]!) as R;
}

/**
 * Adds `extensions.requestId` to every error of a result, whatever made it (parsing, validation,
 * armor's limits, a resolver), so that a client can quote the request of any error; the events of a
 * stream (a subscription) too.
 */
export function requestIdStep(): OperationStep {
  const plugin: Plugin<Record<string, unknown>, { deps: GraphQLDeps }> = {
    // every executed operation
    onExecutionResult(payload) {
      if (payload.result)
        stampResult(payload.result, (payload.context as unknown as { deps: GraphQLDeps }).deps, (r) => payload.setResult(r as never));
    },
    // and what yoga answers without executing (a body it cannot read, a method it refuses); stamping is idempotent
    onResultProcess(payload) {
      stampResult(payload.result, payload.serverContext.deps, (r) => payload.setResult(r as never));
    },
  };
  return { name: 'request ids in errors', plugins: [plugin] };
}

export function maskGraphQLError() {
  return (error: unknown, _message: string): Error => {
    const domain = domainErrorOf(error);
    const graphQLError = asGraphQLError(error);
    if (domain) {
      const extensions = domainErrorExtensions(domain);
      return new GraphQLError(domain.message, {
        nodes: graphQLError?.nodes,
        source: graphQLError?.source,
        positions: graphQLError?.positions,
        path: graphQLError?.path,
        extensions,
      });
    }
    // errors raised by GraphQL itself (syntax, validation, a variable of the wrong type, which graphql-js
    // wraps in a second GraphQLError) are the client's: they keep their text and are BAD_USER_INPUT
    if (graphQLError && (!graphQLError.originalError || asGraphQLError(graphQLError.originalError))) {
      const code = (graphQLError.extensions?.code as string | undefined) ?? 'BAD_USER_INPUT';
      // a more precise 4xx that yoga chose is kept (405 + Allow: POST for a mutation sent with GET)
      const http = graphQLError.extensions?.http;
      const status = http?.status && http.status >= 400 && http.status < 500 ? http.status : 400;
      // GraphQL over HTTP: a well-formed request whose document does not parse, validate or take its variables
      // is a 400 for a client that accepts `application/graphql-response+json`, but a 200 (a GraphQL response
      // with errors) for one that accepts only the legacy `application/json`. Yoga marks the parse and
      // validation failures `http.spec`; a variable coercion failure gets the same marker: graphql-js wraps
      // it in a second GraphQLError, graphql-jit (compiled queries) raises it with no field path and no
      // HTTP status of its own. A malformed request (a `query` that is not a string, …), which yoga gives
      // a status, stays a 400 for every client.
      const spec =
        http?.spec === true ||
        asGraphQLError(graphQLError.originalError) !== undefined ||
        (!graphQLError.originalError && !graphQLError.path && !http);
      return new GraphQLError(graphQLError.message, {
        nodes: graphQLError.nodes,
        source: graphQLError.source,
        positions: graphQLError.positions,
        path: graphQLError.path,
        extensions: { ...graphQLError.extensions, code, http: { ...http, status, ...(spec ? { spec } : {}) } },
      });
    }
    // never expected: once stamped with its request (above), the message names the request id, which is
    // in the log line with the cause
    const masked = new GraphQLError(internalErrorMessage(undefined), {
      nodes: graphQLError?.nodes,
      path: graphQLError?.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    maskedCauses.set(masked, graphQLError?.originalError ?? error);
    return masked;
  };
}

/** Stamps the request id on a result's errors, or on every event of a stream (a subscription). */
function stampResult(result: object, deps: GraphQLDeps, setResult: (result: unknown) => void): void {
  if (Symbol.asyncIterator in result) {
    const events = result as AsyncIterable<ExecutionResultLike>;
    setResult(mapAsyncIterator(events[Symbol.asyncIterator](), (event) => stampRequestIds(event, deps)));
    return;
  }
  const stamped = stampRequestIds(result as never, deps);
  if (stamped !== result) setResult(stamped);
}
