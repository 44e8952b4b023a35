// What the app is built from. Tests build their own (an in-memory database, a fake clock), so nothing
// here is a global.
//
// Each folder declares the deps it uses (http/deps.ts, ratelimit/deps.ts, auth/deps.ts, graphql/deps.ts,
// rest/deps.ts, metrics/deps.ts; the domain's DomainDeps and its contexts' own), and no folder imports this
// file: AppDeps joins them, so the composition root (runtime.ts, app.ts, server.ts) makes one object and hands
// it to every folder as it is. Where two folders name the same field by different types, AppDeps names the
// one that holds both.
import type { AuthDeps } from './auth/deps.js';
import type { ChangeFeed } from './changes/feed.js';
import type { Database } from './db/client.js';
import type { DomainDeps } from './domain/shared/deps.js';
import type { HostLookup } from './domain/events/webhooks/targets.js';
import type { GraphQLDeps } from './graphql/deps.js';
import type { HttpDeps } from './http/deps.js';
import type { JobQueue } from './jobs/queue.js';
import type { MetricsDeps } from './metrics/deps.js';
import type { RateLimitDeps } from './ratelimit/deps.js';
import type { ReadModel } from './readmodel/readModel.js';
import type { RestDeps } from './rest/deps.js';

export interface AppDeps extends DomainDeps, HttpDeps, RateLimitDeps, AuthDeps, GraphQLDeps, RestDeps, MetricsDeps {
  /** The whole read model (the domain sees only the reads it names, domain/shared/readModel.ts). */
  readModel: ReadModel;
  /** The change feed: publishes writes, and carries other instances' changes to the read model and to subscriptions. */
  changes: ChangeFeed;
  /** The database behind `db`: its gate, statement observers and a ping outside the gate (health, metrics). */
  database: Pick<Database, 'kind' | 'gate' | 'observers' | 'ping'>;
  /** Durable work (jobs/queue.ts): started by the server, stopped on shutdown; tests make their own. */
  jobs?: JobQueue;
  /** How webhook target names are resolved, when saved and at delivery (domain/events/webhooks/targets.ts); DNS unless a test sets its own. */
  resolveHost?: HostLookup;
}
