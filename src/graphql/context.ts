// The GraphQL context: the app's dependencies and the caller, authenticated on first use so that
// introspection and GraphiQL work without a credential while every data field requires one.
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';

export interface GraphQLContext {
  deps: AppDeps;
  request: Request;
  /** The authenticated caller; throws Unauthenticated when the request has no valid credential. */
  actor(): Promise<Actor>;
  /** Authenticates the request's credential again, now (a live subscription checks it while it lasts). */
  reauthenticate(): Promise<Actor>;
}
