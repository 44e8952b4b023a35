// Per-request variables shared by the middleware (request log) and the handlers.
import type { IncomingMessage } from 'node:http';
import type { AppDeps } from '../deps.js';

export interface AppEnv {
  /** Behind the Node server (http/server.ts), the node:http request; absent when the app is called directly (tests). */
  Bindings: { incoming?: IncomingMessage };
  Variables: {
    /** The matched route pattern, e.g. "GET /v1/organizations/:orgId/closures". */
    route: string;
    /** The credential owner's organization, once authenticated. */
    orgId: string;
    /** The request id (requestContext.ts), also in X-Request-Id and every log line. */
    requestId: string;
    /** The app's deps as this request sees them: its logger writes the request id (requestContext.ts). */
    deps: AppDeps;
    /** The GraphQL operation, as a bounded metrics label (graphql/operationLabel.ts). */
    graphqlOperation: string;
  };
}
