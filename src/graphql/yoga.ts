// graphql-yoga over the Pothos schema: the same bearer credentials as /v1, lazily authenticated.
import { createYoga } from 'graphql-yoga';
import { authenticate, bearerToken } from '../auth/authenticate.js';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';
import { Unauthenticated } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';
import { maskGraphQLError } from './errors.js';
import { schema } from './schema/index.js';

export interface GraphQLServerContext {
  deps: AppDeps;
  /** Lets the request log name the caller's organization. */
  setOrgId?: (orgId: string) => void;
}

export function createGraphQLHandler(deps: AppDeps) {
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: maskGraphQLError(deps.logger) },
    context: ({ request, setOrgId }) => {
      let pending: Promise<Actor> | undefined;
      return {
        deps,
        request,
        actor: () =>
          (pending ??= (async () => {
            const token = bearerToken(request.headers.get('authorization'));
            if (!token) throw new Unauthenticated('Missing credentials: send Authorization: Bearer <API key or access token>');
            const actor = await authenticate(deps.db, deps.tokens, token, deps.clock());
            setOrgId?.(actor.orgId);
            return actor;
          })()),
      };
    },
  });
}
