// The embedded database has no autovacuum (PGlite runs PostgreSQL in single-user mode): the process
// vacuums the tables whose dead rows pass autovacuum's own threshold, on the app's clock
// and checkpoints (src/db/embeddedMaintenance.ts). Run on both databases: the rule is PostgreSQL's and holds on either.
import { afterEach, describe, expect, it } from 'vitest';
import { MAINTENANCE_INTERVAL_MS, startEmbeddedMaintenance, tablesToVacuum } from '../../src/db/embeddedMaintenance.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

/** Statistics are flushed at the end of a transaction at most about once a second unless forced. */
async function deadRows(table: string): Promise<{ dead: number; vacuumed: boolean }> {
  await t.deps.db.$executeRawUnsafe('SELECT pg_stat_force_next_flush()');
  const rows = await t.deps.db.$queryRawUnsafe<{ dead: number; vacuumed: boolean }[]>(
    `SELECT n_dead_tup::int AS dead, (last_vacuum IS NOT NULL) AS vacuumed FROM pg_stat_user_tables WHERE relname = $1`,
    table,
  );
  return rows[0]!;
}

async function churn(table: string, rows: number): Promise<void> {
  await t.deps.db.$executeRawUnsafe(
    `CREATE TABLE IF NOT EXISTS "${table}" (id int PRIMARY KEY, note text) WITH (autovacuum_enabled = false)`,
  ); // PostgreSQL's own autovacuum stays away
  await t.deps.db.$executeRawUnsafe(`INSERT INTO "${table}" SELECT g, 'x' FROM generate_series(1, ${rows}) g`);
  await t.deps.db.$executeRawUnsafe(`DELETE FROM "${table}"`);
}

afterEach(async () => {
  await t.deps.db.$executeRawUnsafe('DROP TABLE IF EXISTS "VacuumProbe", "VacuumQuiet"');
});

describe('vacuum on the embedded database', () => {
  it('vacuums, on the clock, a table whose dead rows pass 50 + 20 % of its live ones (not a quiet one), then checkpoints', async () => {
    await churn('VacuumProbe', 500);
    await churn('VacuumQuiet', 10); // 10 dead rows: under the threshold
    expect((await deadRows('VacuumProbe')).dead).toBe(500);
    const due = await tablesToVacuum(t.deps.db);
    expect(due).toContain('VacuumProbe');
    expect(due).not.toContain('VacuumQuiet');

    const errors: unknown[] = [];
    const stop = startEmbeddedMaintenance({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, (err) => errors.push(err));
    try {
      expect(await deadRows('VacuumProbe')).toEqual({ dead: 500, vacuumed: false }); // nothing before its time
      // the write-ahead log so far: the round's checkpoint moves the redo point past it (the log before can go)
      const { lsn } = (await t.deps.db.$queryRawUnsafe<{ lsn: string }[]>('SELECT pg_current_wal_lsn()::text AS lsn'))[0]!;
      const checkpointed = async () =>
        (
          await t.deps.db.$queryRawUnsafe<{ past: boolean }[]>('SELECT (redo_lsn >= $1::pg_lsn) AS past FROM pg_control_checkpoint()', lsn)
        )[0]!.past;
      expect(await checkpointed()).toBe(false);
      t.clock.advance(MAINTENANCE_INTERVAL_MS);
      await expect.poll(async () => (await deadRows('VacuumProbe')).vacuumed).toBe(true);
      await expect.poll(checkpointed).toBe(true);
      expect((await deadRows('VacuumProbe')).dead).toBe(0);
      expect(await deadRows('VacuumQuiet')).toEqual({ dead: 10, vacuumed: false });
      expect(t.clock.pendingWakeUps).toBe(1); // the next round is set
    } finally {
      await stop();
    }
    expect(t.clock.pendingWakeUps).toBe(0);
    expect(errors).toEqual([]);
  });
});
