// Maps domain errors to GraphQL errors with `extensions.code` (CONTRACT §5); anything else is masked.
import { GraphQLError } from 'graphql';
import { DomainError, InvalidInput, RateLimited } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';

function domainErrorOf(error: unknown): DomainError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof DomainError) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

export function maskGraphQLError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const domain = domainErrorOf(error);
    const graphQLError = error instanceof GraphQLError ? error : undefined;
    if (domain) {
      const extensions: Record<string, unknown> = { code: domain.code };
      if (domain instanceof InvalidInput) extensions.issues = domain.issues;
      if (domain instanceof RateLimited) extensions.retryAfter = domain.retryAfter;
      if (domain.code === 'UNAUTHENTICATED') extensions.http = { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
      return new GraphQLError(domain.message, {
        nodes: graphQLError?.nodes,
        source: graphQLError?.source,
        positions: graphQLError?.positions,
        path: graphQLError?.path,
        extensions,
      });
    }
    // errors raised by GraphQL itself (syntax, validation, variables) are the client's and keep their text
    if (graphQLError && !graphQLError.originalError) return graphQLError;
    logger.error('unhandled GraphQL error', errorFields((graphQLError?.originalError ?? error) as unknown));
    return new GraphQLError(message, {
      nodes: graphQLError?.nodes,
      path: graphQLError?.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  };
}
