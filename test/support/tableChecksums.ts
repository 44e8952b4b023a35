// A cheap fingerprint of the whole database, table by table: the row count and an md5 over the rows'
// text forms (order-independent). Two snapshots that differ name the tables a request changed, which
// is how the fuzzer and the tenant matrix prove that a refused write left everything as it was.
import type { Db } from '../../src/db/client.js';

export type TableChecksums = Map<string, string>;

/** Bookkeeping of the migration engine, not data a request could change. */
const IGNORED = new Set(['_prisma_migrations']);

export interface ChecksumReader {
  read(): Promise<TableChecksums>;
  /**
   * The next transaction id the database will assign. Nothing can change a row without a transaction id,
   * and a read never takes one, so while this stays the same the checksums need not be read again.
   * (Only a hint: it also moves for writes to other databases of a PostgreSQL server, and for writes
   * rolled back; then the checksums are read and compared.)
   */
  writeMarker(): Promise<string>;
}

/** Lists the public tables once, then reads every table's fingerprint in one statement per call. */
export async function tableChecksumReader(db: Db): Promise<ChecksumReader> {
  const tables = (
    await db.$queryRawUnsafe<{ tablename: string }[]>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
  )
    .map((r) => r.tablename)
    .filter((name) => !IGNORED.has(name));
  // the row count and the sum of 60 bits of each row's md5: independent of the physical order, and
  // twice as fast as sorting the rows (it runs once per fuzzed write)
  const sql = tables
    .map(
      (name) =>
        `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint), 0)::text AS digest FROM "${name}" t`,
    )
    .join(' UNION ALL ');
  return {
    async writeMarker() {
      const rows = await db.$queryRawUnsafe<{ marker: string }[]>(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS marker`);
      return rows[0]!.marker;
    },
    async read() {
      const rows = await db.$queryRawUnsafe<{ name: string; digest: string }[]>(sql);
      return new Map(rows.map((r) => [r.name, r.digest]));
    },
  };
}

/** The tables whose fingerprint differs between two snapshots (empty when nothing changed). */
export function changedTables(before: TableChecksums, after: TableChecksums): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}
