// What the metrics read of the app's deps (src/deps.ts's AppDeps holds every folder's): the parts of the
// service they report on, and the budget of failed authentications a wrong METRICS_TOKEN draws on.
import type { ChangeFeed } from '../changes/feed.js';
import type { Database } from '../db/client.js';
import type { RequestQueueState } from '../http/requestScheduler.js';
import type { JobQueue } from '../jobs/queue.js';
import type { RateLimitDeps } from '../ratelimit/deps.js';
import type { ReadModel } from '../readmodel/readModel.js';

export interface MetricsDeps extends RateLimitDeps {
  /** The database's gate and statement observers (databaseMetrics.ts). */
  database: Pick<Database, 'gate' | 'observers'>;
  /** The read model, whose hits and misses are reported. */
  readModel: ReadModel;
  /** The change feed, whose channel to the other instances is reported. */
  changes: ChangeFeed;
  /** The HTTP server's queue of requests waiting to start (http/requestScheduler.ts); unset without a server. */
  requestQueue?: RequestQueueState;
  /** Durable work (jobs/queue.ts): its depth and outcomes; unset until the runtime or a test attaches a queue. */
  jobs?: JobQueue;
}
