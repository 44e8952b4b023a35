// graphql-yoga over the Pothos schema: the same bearer credentials as /v1, lazily authenticated.
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { AppDeps } from '../deps.js';
import { useRateLimitOutcome } from './rateLimits.js';
import { createGraphQLContext, type GraphQLContext, type GraphQLRequestContext } from './context.js';
import { PreparedQueries, usePreparedQueries } from './preparedQueries.js';
import { maskGraphQLError, useRequestIdInErrors } from './errors.js';
import { abuseLimitPlugins } from './abuseLimits.js';
import { graphiqlOptions } from './graphiql.js';
import { schema } from './schema/index.js';
import { type OperationLabelContext, useOperationLabel } from './operationLabel.js';

export interface GraphQLServerContext extends OperationLabelContext, GraphQLRequestContext {}

export interface GraphQLHandler {
  yoga: YogaServerInstance<GraphQLServerContext, GraphQLContext>;
}

export function createGraphQLHandler(deps: AppDeps): GraphQLHandler {
  const prepared = deps.config.graphqlJit ? new PreparedQueries(schema) : undefined;
  const maskError = maskGraphQLError();
  const yoga = createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // yoga's default answers every Origin with Access-Control-Allow-Origin; CORS is the app's (http/cors.ts)
    cors: false,
    graphiql: graphiqlOptions(deps.demoApiKey, deps.demoVariables),
    // the editor bundle is 9 MB: loaded on the first browser visit, not with every app
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    logging: false,
    parserAndValidationCache: true,
    plugins: [
      ...abuseLimitPlugins({ production: deps.config.production }),
      useRateLimitOutcome(),
      useRequestIdInErrors(),
      useOperationLabel(),
      // queries compiled to JavaScript once per document and operation (preparedQueries.ts)
      ...(prepared ? [usePreparedQueries(prepared)] : []),
    ],
    maskedErrors: { maskError },
    // `deps` of the server context are the request's (http/requestContext.ts): their logger writes its id
    context: (initial) => createGraphQLContext(initial, initial.request),
  });
  return { yoga };
}
