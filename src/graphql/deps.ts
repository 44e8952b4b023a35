// What the GraphQL surface uses of the app's deps (src/deps.ts's AppDeps holds every folder's): the
// domain's (its resolvers call every context, the schedule's too, and the webhooks' host lookup and job
// queue), authentication's, the budgets, the transport's request fields, the live streams, and GraphiQL's
// demo values.
import type { AuthDeps } from '../auth/deps.js';
import type { WebhookDeps } from '../domain/events/webhookEndpoints.js';
import type { ScheduleDeps } from '../domain/schedule/deps.js';
import type { HttpDeps } from '../http/deps.js';
import type { ReadModel } from '../readmodel/readModel.js';
import type { LiveStreams } from './liveStreams.js';
import type { LiveEventSource } from '../changes/change.js';

export interface GraphQLDeps extends ScheduleDeps, Pick<WebhookDeps, 'resolveHost' | 'jobs'>, AuthDeps, HttpDeps {
  /** The whole read model: authentication's reads and the domain's. */
  readModel: ReadModel;
  /** Live subscription streams open on this instance (bounded per credential, closed on shutdown). */
  liveStreams: LiveStreams;
  /** The log's events as they commit, on any instance, for subscriptions that deliver each (changes/liveEvents.ts). */
  liveEvents: LiveEventSource;
  /**
   * The Downtown clinic's demo API key, set only with GRAPHIQL_DEMO_KEY on the embedded demo database (never on
   * postgresql://): GraphiQL's headers hold it for a browser on this machine alone (yoga.ts).
   */
  demoApiKey?: string;
  /**
   * GraphiQL's Variables on the embedded demo database, for a browser on this machine: the Downtown clinic's id
   * and this week's range, made when GraphiQL opens (the time zone's first use costs a start more than everything after listen does).
   */
  demoVariables?: () => Record<string, string>;
}

// the request's deps (http/appEnv.ts) are the app's, which hold these: overHttp.ts hands them to the operation
declare module '../http/appEnv.js' {
  interface RequestDeps extends GraphQLDeps {}
}
