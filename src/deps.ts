// What the app is built from. Tests build their own (an in-memory database, a fake clock), so nothing
// here is a global.
import type { ChangeFeed } from './changes/feed.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { DomainDeps } from './domain/shared/deps.js';
import type { TokenSettings } from './auth/tokens.js';
import type { LiveStreams } from './graphql/liveStreams.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './logger.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { ReadModel } from './readmodel/readModel.js';
import type { RequestQueueState } from './http/requestScheduler.js';
import type { HostLookup } from './domain/events/webhooks/targets.js';

export interface AppDeps extends DomainDeps {
  /** The whole read model (the domain sees only the reads it names, domain/shared/readModel.ts). */
  readModel: ReadModel;
  config: Config;
  /** The database behind `db`: its gate, statement observers and a ping outside the gate (health, metrics). */
  database: Pick<Database, 'kind' | 'gate' | 'observers' | 'ping'>;
  tokens: TokenSettings;
  logger: Logger;
  /** The id of the request these deps answer (requestContext.ts's depsForRequest); unset outside a request. */
  requestId?: string;
  /** The HTTP server's queue of requests waiting to start (http/requestScheduler.ts), for /metrics; unset without a server. */
  requestQueue?: RequestQueueState;
  /**
   * The Downtown clinic's demo API key, set only with GRAPHIQL_DEMO_KEY on the embedded demo database (never on
   * postgresql://): GraphiQL's headers hold it for a browser on this machine alone (graphql/yoga.ts).
   */
  demoApiKey?: string;
  /**
   * GraphiQL's Variables on the embedded demo database, for a browser on this machine: the Downtown clinic's id
   * and this week's range, made when GraphiQL opens (the time zone's first use costs a start more than everything after listen does).
   */
  demoVariables?: () => Record<string, string>;
  /** Rate-limit budgets (spec §8), in memory or in Redis (ratelimit/limiter.ts). */
  rateLimit: RateLimiter;
  /** The change feed: publishes writes, and carries other instances' changes to the read model and to subscriptions. */
  changes: ChangeFeed;
  /** Live subscription streams open on this instance (bounded per credential, closed on shutdown). */
  liveStreams: LiveStreams;
  /** Durable work (jobs/queue.ts): started by the server, stopped on shutdown; tests make their own. */
  jobs?: JobQueue;
  /** How webhook target names are resolved, when saved and at delivery (domain/events/webhooks/targets.ts); DNS unless a test sets its own. */
  resolveHost?: HostLookup;
}
