// GET /healthz: which dependency answers. The database is required (without it nothing can be
// answered: 503, so a load balancer takes the instance out); Redis is not (without it rate limits are
// counted per instance, ratelimit/store.ts: 200 "degraded", so the instance keeps serving).
import type { AppDeps } from './deps.js';
import { errorFields } from './logger.js';

export type DependencyState = 'ok' | 'unavailable';

export interface Health {
  /** ok: every dependency answers; degraded: only Redis is missing; unavailable: the database is missing. */
  status: 'ok' | 'degraded' | 'unavailable';
  database: DependencyState;
  /** `not configured` without REDIS_URL (counters in memory by design). */
  redis: DependencyState | 'not configured';
}

/** A statement answered this recently proves the database is up. */
const RECENT_ANSWER_MS = 2_000;
const PING_TIMEOUT_MS = 1_000;

export async function checkHealth(
  deps: Pick<AppDeps, 'database' | 'rateLimit' | 'logger'>,
): Promise<{ httpStatus: 200 | 503; health: Health }> {
  const [database, redis] = await Promise.all([
    // a database that answered the service's own statements within the last seconds is up, however busy;
    // otherwise it is asked directly, outside the queue of waiting work (db/gate.ts)
    deps.database.gate.answeredWithin(RECENT_ANSWER_MS)
      ? ('ok' as const)
      : deps.database.ping(PING_TIMEOUT_MS).then(
          (): DependencyState => 'ok',
          (err: unknown): DependencyState => {
            deps.logger.error('health check: database unavailable', errorFields(err));
            return 'unavailable';
          },
        ),
    deps.rateLimit.store.inner.kind === 'memory'
      ? ('not configured' as const)
      : deps.rateLimit.store.inner.ping().then(
          (): DependencyState => 'ok',
          (): DependencyState => 'unavailable', // already logged (once per 30 s) by the fail-over store
        ),
  ]);
  const status = database === 'unavailable' ? 'unavailable' : redis === 'unavailable' ? 'degraded' : 'ok';
  return { httpStatus: database === 'ok' ? 200 : 503, health: { status, database, redis } };
}
