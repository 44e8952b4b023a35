// What the transport (transport.ts) keeps on each Fastify request for the handlers and the request log.
import type { HttpDeps } from './deps.js';

/**
 * The deps each request carries: the transport's own, and what each surface reads there, which the surface
 * merges into this interface (rest/deps.ts, graphql/deps.ts), so the transport names no folder above it.
 * The app's deps (src/deps.ts) hold them all: useTransport takes them as these.
 */
export interface RequestDeps extends HttpDeps {}

declare module 'fastify' {
  interface FastifyRequest {
    /** The app's deps as this request sees them: its logger writes the request id (requestContext.ts). */
    deps: RequestDeps;
    /** The request id (requestContext.ts), also in X-Request-Id and every log line. */
    requestId: string;
    /** The route as the request log and the metrics name it, e.g. "GET /v1/organizations/:orgId/closures". */
    label: string | undefined;
    /** The credential owner's organization, once authenticated. */
    orgId: string | undefined;
    /** The GraphQL operation, as a bounded metrics label (graphql/operationLabel.ts). */
    graphqlOperation: string | undefined;
    /** When the transport first saw the request (performance.now()). */
    startedAt: number;
  }
}

export {};
