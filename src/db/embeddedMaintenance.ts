// Maintenance of the embedded database. PGlite runs PostgreSQL in single-user mode, where two of the
// server's background processes never run, and the folder grows under any steady load without them:
// - autovacuum: the rows that updates and deletes leave behind (jobs done, idempotency keys and events past
//   their time, a closure rewritten) are never marked reusable. The process does autovacuum's work itself,
//   with autovacuum's own rule (a table whose dead rows exceed 50 + 20 % of its live ones), one table per
//   statement so that the single connection is never held for long;
// - the checkpointer: a standalone backend checkpoints only when asked (or at shutdown), so the write-ahead
//   log is never recycled and pg_wal gains a 16 MB segment every few minutes. The process checkpoints after
//   each round, and the segments before it are removed or recycled (min_wal_size bounds what is kept;
//   db/client.ts says why max_wal_size stays 1 GB).
// A round every MAINTENANCE_INTERVAL_MS. On PostgreSQL the server does both and nothing here runs.
import type { Db } from './client.js';

/** How often a round runs. */
export const MAINTENANCE_INTERVAL_MS = 60_000;
/** autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor, PostgreSQL's defaults. */
const THRESHOLD = 50;
const SCALE_FACTOR = 0.2;

/** The tables of the public schema whose dead rows call for a vacuum now, most dead first. */
export async function tablesToVacuum(db: Db): Promise<string[]> {
  const rows = await db.$queryRaw<{ relname: string }[]>`
    SELECT relname FROM pg_stat_user_tables
    WHERE schemaname = 'public' AND n_dead_tup > ${THRESHOLD}::int + ${SCALE_FACTOR}::float8 * n_live_tup
    ORDER BY n_dead_tup DESC`;
  return rows.map((r) => r.relname);
}

/** Vacuums every table that calls for it, one statement each; answers the tables vacuumed. */
export async function vacuumDeadRows(db: Db): Promise<string[]> {
  const tables = await tablesToVacuum(db);
  for (const table of tables) await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table.replaceAll('"', '""')}"`);
  return tables;
}

/** One round: vacuums what calls for it, then checkpoints (the write-ahead log before it can go). */
export async function maintainEmbedded(db: Db): Promise<void> {
  await vacuumDeadRows(db);
  await db.$executeRawUnsafe('CHECKPOINT');
}

/**
 * Runs `maintainEmbedded` every `intervalMs` on the app's clock until stopped. A failure is logged and the
 * next round tries again: housekeeping never stops the service.
 */
export function startEmbeddedMaintenance(
  deps: { db: Db; clock: () => Date; wakeAt: (atMs: number, fn: () => void) => () => void },
  onError: (err: unknown) => void,
  intervalMs = MAINTENANCE_INTERVAL_MS,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let cancel = () => {};
  const round = () => {
    running = maintainEmbedded(deps.db).then(
      () => undefined,
      (err: unknown) => onError(err),
    );
    void running.then(next);
  };
  const next = () => {
    if (!stopped) cancel = deps.wakeAt(deps.clock().getTime() + intervalMs, round);
  };
  next();
  return async () => {
    stopped = true;
    cancel();
    await running;
  };
}
