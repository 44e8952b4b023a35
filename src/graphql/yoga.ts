// graphql-yoga over the Pothos schema: the same bearer credentials as /v1, lazily authenticated.
import { useGraphQlJit } from '@envelop/graphql-jit';
import { getOperationAST } from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';
import { createRequestBatch } from '../domain/batch.js';
import { authenticate, bearerToken } from '../auth/authenticate.js';
import { Unauthenticated } from '../domain/errors.js';
import { authenticateBearer } from '../ratelimit/authentication.js';
import { useRateLimitStatus } from '../ratelimit/graphql.js';
import type { GraphQLContext } from './context.js';
import { maskGraphQLError, useRequestIdInErrors } from './errors.js';
import { abuseLimitPlugins } from './abuseLimits.js';
import { graphiqlOptions } from './graphiql.js';
import { schema } from './schema/index.js';
import { type OperationLabelContext, useOperationLabel } from '../metrics/graphqlOperationName.js';

export interface GraphQLServerContext extends OperationLabelContext {
  deps: AppDeps;
  /** Lets the request log name the caller's organization. */
  setOrgId?: (orgId: string) => void;
  /** The client address failed authentications are budgeted by (ratelimit/clientAddress.ts). */
  clientAddress?: string;
  /** The caller, when authenticated before yoga (a keyed mutation, idempotentOperations.ts); not again. */
  actor?: Promise<Actor>;
}

export function createGraphQLHandler(deps: AppDeps) {
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // yoga's default answers every Origin with Access-Control-Allow-Origin; CORS is the app's (cors.ts)
    cors: false,
    graphiql: graphiqlOptions(deps.demoApiKey),
    // the editor bundle is 9 MB: loaded on the first browser visit, not with every app
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    logging: false,
    parserAndValidationCache: true,
    plugins: [
      ...abuseLimitPlugins({ production: deps.config.production }),
      useRateLimitStatus(),
      useRequestIdInErrors(),
      useOperationLabel(),
      // queries compiled to JavaScript once and cached with the parsed document: ~40 % more queries per
      // second, measured (bench/RESULTS.md). Mutations and subscriptions stay with graphql-js: they are not
      // the hot path, and graphql-jit coerces complex input objects and runs subscriptions its own way.
      // GRAPHQL_JIT=false interprets queries too.
      ...(deps.config.graphqlJit ? [useGraphQlJit({}, { enableIf: (args) => getOperationAST(args.document, args.operationName)?.operation === 'query' })] : []),
    ],
    maskedErrors: { maskError: maskGraphQLError() },
    // `deps` of the server context are the request's (requestContext.ts): their logger writes its id
    context: ({ request, deps: requestDeps, setOrgId, clientAddress, actor: authenticated }) => {
      let pending: Promise<Actor> | undefined;
      return {
        // one batch per operation: nested per-organization lists load together (domain/batch.ts)
        deps: { ...requestDeps, batch: createRequestBatch(requestDeps.db) },
        request,
        actor: () =>
          (pending ??= (async () => {
            const actor = await (authenticated ?? authenticateBearer(requestDeps, request.headers.get('authorization'), clientAddress ?? 'local'));
            setOrgId?.(actor.orgId);
            return actor;
          })()),
        reauthenticate: async () => {
          const token = bearerToken(request.headers.get('authorization'));
          if (!token) throw new Unauthenticated('Missing credentials: send Authorization: Bearer <API key or access token>');
          return authenticate(requestDeps, requestDeps.tokens, token);
        },
      };
    },
  });
}
