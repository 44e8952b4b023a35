// graphql-yoga over the Pothos schema: the same bearer credentials as /v1, lazily authenticated.
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLDeps } from './deps.js';
import { rateLimitStep } from './rateLimits.js';
import { createGraphQLContext, type GraphQLContext, type GraphQLRequestContext } from './context.js';
import { PreparedQueries, preparedQueriesStep } from './preparedQueries.js';
import { maskGraphQLError, requestIdStep } from './errors.js';
import { abuseLimitPlugins } from './abuseLimits.js';
import { graphiqlOptions } from './graphiql.js';
import { endUnansweredStreams } from './liveStreams.js';
import { schema } from './schema/index.js';
import { slicedAnswers } from './slicedAnswers.js';
import { type OperationLabelContext, operationLabelStep } from './operationLabel.js';
import type { OperationStep } from './operationSteps.js';
import { variableCheckStep } from './variableCheck.js';

export interface GraphQLServerContext extends OperationLabelContext, GraphQLRequestContext {
  /** A GET from a browser on this machine, to it (http/loopback.ts): the only one GraphiQL may show the demo's key and ids. */
  fromThisMachine?: boolean;
}

export interface GraphQLHandler {
  yoga: YogaServerInstance<GraphQLServerContext, GraphQLContext>;
}

export function createGraphQLHandler(deps: GraphQLDeps): GraphQLHandler {
  const prepared = deps.config.graphqlJit ? new PreparedQueries(schema) : undefined;
  const maskError = maskGraphQLError();
  // in the order their hooks run in yoga: the plugins in this order, then yoga's masking (its own option, below)
  const steps: OperationStep[] = [
    { name: 'abuse limits', plugins: abuseLimitPlugins({ production: deps.config.production }) },
    rateLimitStep(),
    requestIdStep(),
    operationLabelStep(),
    // queries compiled to JavaScript once per document and operation (preparedQueries.ts)
    ...(prepared ? [preparedQueriesStep(prepared)] : []),
    // the last before the executor: an operation refused for its variables was counted, labelled and stamped like any other
    variableCheckStep(schema, maskError),
    { name: 'answers written in slices', plugins: [slicedAnswers()] },
    { name: 'unanswered streams end', plugins: [endUnansweredStreams()] },
  ];
  const yoga = createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // yoga's default answers every Origin with Access-Control-Allow-Origin; CORS is the app's (http/cors.ts)
    cors: false,
    // made when GraphiQL opens: this week's range is the week it is opened in. The demo's key (set only with
    // GRAPHIQL_DEMO_KEY) and ids go only to a browser on this machine; any other gets placeholders
    graphiql: (_request, context) =>
      context?.fromThisMachine ? graphiqlOptions(deps.demoApiKey, deps.demoVariables?.()) : graphiqlOptions(undefined, undefined),
    // the editor bundle is 9 MB: loaded on the first browser visit, not with every app
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    logging: false,
    parserAndValidationCache: true,
    plugins: steps.flatMap((step) => step.plugins),
    maskedErrors: { maskError },
    // `deps` of the server context are the request's (http/requestContext.ts): their logger writes its id
    context: (initial) =>
      createGraphQLContext(initial, { authorization: initial.request.headers.get('authorization'), signal: () => initial.request.signal }),
  });
  return { yoga };
}
