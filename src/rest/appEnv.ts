// Per-request variables shared by the middleware (request log) and the handlers.
export interface AppEnv {
  Variables: {
    /** The matched route pattern, e.g. "GET /v1/organizations/:orgId/closures". */
    route: string;
    /** The credential owner's organization, once authenticated. */
    orgId: string;
    /** The request id (requestContext.ts), also in X-Request-Id and every log line. */
    requestId: string;
    /** The GraphQL operation, as a bounded metrics label (metrics/graphqlOperationName.ts). */
    graphqlOperation: string;
  };
}
