// Maps domain errors to GraphQL errors with `extensions.code` (CONTRACT §5); anything else is masked.
// Every error also carries `extensions.requestId`, the X-Request-Id of the answer (useRequestIdInErrors).
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { asUnavailable } from '../db/gate.js';
import { DomainError, IdempotencyKeyInUse, InvalidInput, RateLimited, Unavailable } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { currentRequestId, internalErrorMessage } from '../requestContext.js';

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
  return extensions;
}

/** `extensions` with the id of the request being answered (requestContext.ts). */
export function withRequestId(extensions: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const requestId = currentRequestId();
  return requestId ? { ...extensions, requestId } : { ...extensions };
}

const stamp = (error: GraphQLError) =>
  new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: withRequestId(error.extensions),
  });

type ExecutionResultLike = { errors?: readonly unknown[] } & Record<string, unknown>;

/** A result (or a batch of them) with `extensions.requestId` on every error. */
export function stampRequestIds<R extends ExecutionResultLike | ExecutionResultLike[]>(result: R): R {
  const results = (Array.isArray(result) ? result : [result]) as ExecutionResultLike[];
  if (!results.some((r) => r.errors?.length)) return result;
  const stamped = results.map((r) => (r.errors?.length ? { ...r, errors: r.errors.map((e) => stamp(e as GraphQLError)) } : r));
  return (Array.isArray(result) ? stamped : stamped[0]!) as R;
}

/**
 * Adds `extensions.requestId` to every error of a result, whatever made it (parsing, validation,
 * armor's limits, a resolver), so that a client can quote the request of any error.
 */
export function useRequestIdInErrors(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Symbol.asyncIterator in result) return; // a stream: its events are not errors of the request
      const stamped = stampRequestIds(result as never);
      if (stamped !== result) setResult(stamped);
    },
  };
}

export function maskGraphQLError(logger: Logger) {
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
      const http = graphQLError.extensions?.http as { status?: number; headers?: Record<string, string>; spec?: boolean } | undefined;
      const status = http?.status && http.status >= 400 && http.status < 500 ? http.status : 400;
      // GraphQL over HTTP: a well-formed request whose document does not parse, validate or take its variables
      // is a 400 for a client that accepts `application/graphql-response+json`, but a 200 (a GraphQL response
      // with errors) for one that accepts only the legacy `application/json`. Yoga marks the parse and
      // validation failures `http.spec`; a variable coercion failure (the wrapped one) gets the same marker.
      // A malformed request (a `query` that is not a string, …) stays a 400 for every client.
      const spec = http?.spec === true || asGraphQLError(graphQLError.originalError) !== undefined;
      return new GraphQLError(graphQLError.message, {
        nodes: graphQLError.nodes,
        source: graphQLError.source,
        positions: graphQLError.positions,
        path: graphQLError.path,
        extensions: { ...graphQLError.extensions, code, http: { ...http, status, ...(spec ? { spec } : {}) } },
      });
    }
    logger.error('unhandled GraphQL error', errorFields((graphQLError?.originalError ?? error) as unknown));
    // never expected: the message names the request id, which is in the log line with the cause
    return new GraphQLError(internalErrorMessage(), {
      nodes: graphQLError?.nodes,
      path: graphQLError?.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  };
}
