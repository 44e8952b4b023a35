// The GraphQL context: the app's dependencies and the caller, authenticated on first use so that
// introspection and GraphiQL work without a credential while every data field requires one.
import type { GraphQLDeps } from './deps.js';
import type { Actor } from '../domain/shared/access.js';
import { createRequestBatch } from '../domain/shared/batch.js';
import { authenticate, bearerToken } from '../auth/authenticate.js';
import { Unauthenticated } from '../domain/shared/errors.js';
import { authenticateBearer } from '../auth/authentication.js';

export interface GraphQLContext {
  deps: GraphQLDeps;
  /**
   * Aborted when the client goes away: a stream (a subscription) ends then. Only a request that may
   * become a stream has one (graphql/overHttp.ts): a plain POST is answered in one piece.
   */
  signal(): AbortSignal | undefined;
  /** The authenticated caller; throws Unauthenticated when the request has no valid credential. */
  actor(): Promise<Actor>;
  /** Authenticates the request's credential again, now (a live subscription checks it while it lasts). */
  reauthenticate(): Promise<Actor>;
  /** The client address (http/clientAddress.ts): what introspection is budgeted by (rateLimits.ts). */
  clientAddress: string;
}

/** What the app knows of a GraphQL request before the operation runs (app.ts builds it). */
export interface GraphQLRequestContext {
  /** The request's deps (http/requestContext.ts): their logger writes its id. */
  deps: GraphQLDeps;
  /** Lets the request log name the caller's organization. */
  setOrgId?: (orgId: string) => void;
  /** The client address failed authentications are budgeted by (http/clientAddress.ts). */
  clientAddress?: string;
  /** The caller, when authenticated before the operation (a keyed mutation, idempotentOperations.ts); not again. */
  actor?: Promise<Actor>;
}

/** What the context reads of the request: its credential, and (yoga's requests) whether the client went away. */
export interface GraphQLCredentials {
  /** The Authorization header as the request carries it. */
  authorization: string | null;
  signal?: () => AbortSignal;
}

/** The context of one operation (yoga.ts builds it for every request). */
export function createGraphQLContext(
  { deps, setOrgId, clientAddress, actor: authenticated }: GraphQLRequestContext,
  { authorization, signal }: GraphQLCredentials,
): GraphQLContext {
  let pending: Promise<Actor> | undefined;
  return {
    // one batch per operation: nested per-organization lists load together (domain/shared/batch.ts)
    deps: withBatch(deps),
    signal: () => signal?.(),
    clientAddress: clientAddress ?? 'local',
    actor: () =>
      (pending ??= (async () => {
        const actor = await (authenticated ?? authenticateBearer(deps, authorization, clientAddress ?? 'local'));
        setOrgId?.(actor.orgId);
        return actor;
      })()),
    reauthenticate: async () => {
      const token = bearerToken(authorization);
      if (!token) throw new Unauthenticated('Missing credentials: send Authorization: Bearer <API key or access token>');
      return authenticate(deps, deps.tokens, token);
    },
  };
}

/**
 * The deps with a batch of their own. A request's own deps (http/requestContext.ts) take it themselves: a
 * request runs one operation (yoga runs no batches of operations), and deriving another object from them
 * would make a per-request object a prototype, which V8 sets up at a cost above the rest of the context.
 * Other deps (the app's) keep their prototype role and a derived object carries the batch.
 */
function withBatch(deps: GraphQLDeps): GraphQLDeps {
  if (Object.hasOwn(deps, 'requestId') && !Object.hasOwn(deps, 'batch')) {
    deps.batch = createRequestBatch(deps.db);
    return deps;
  }
  // the deps stay the prototype (a spread would drop what they inherit)
  return Object.assign(Object.create(deps) as GraphQLDeps, { batch: createRequestBatch(deps.db) });
}
