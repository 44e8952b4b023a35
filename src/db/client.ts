// One PrismaClient type for the three databases DATABASE_URL can name: PGlite in a folder, PGlite
// in memory, or a PostgreSQL server through @prisma/adapter-pg. Prisma talks to the database through
// an instrumented adapter (instrumentedAdapter.ts): every statement is gated, timed and observed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../generated/prisma/client.js';
import { DatabaseGate } from './gate.js';
import { type DatabaseObserver, instrumentAdapterFactory } from './instrumentedAdapter.js';
import { acquireFolderLock, type FolderLock } from './pgliteLock.js';
import { readTemplate } from './pgliteTemplate.js';
import { PING } from './sql.js';
import { loadPGlite, loadPostgresDriver } from '../optionalModules.js';

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  /** The adapter factory the migration engine drives (not gated: migrations run before serving). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
  /** True for PGlite (a folder or memory): demo data may be created on first start. */
  embedded: boolean;
  /** The bound on work waiting for the database. */
  gate: DatabaseGate;
  /** Told about every statement (metrics, tests); add and remove freely. */
  observers: Set<DatabaseObserver>;
  /**
   * Asks the database for `SELECT 1` outside the gate (health checks must not queue behind the work
   * they report on); rejects when it does not answer within `timeoutMs`.
   */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** How much database work may run and wait, and for how long (config.ts: DB_*). */
export interface DatabaseLimits {
  /** Connections to a PostgreSQL server (PGlite runs one statement at a time). */
  poolSize: number;
  maxWaiting: number;
  queueTimeoutMs: number;
  statementTimeoutMs: number;
}

export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = { poolSize: 10, maxWaiting: 100, queueTimeoutMs: 5_000, statementTimeoutMs: 10_000 };

export interface OpenOptions {
  /** A data directory to load a PGlite from (a tarball made by `dumpDataDir`), used by tests. */
  loadDataDir?: Blob;
  limits?: DatabaseLimits;
}

function instrumented(raw: SqlMigrationAwareDriverAdapterFactory, maxConcurrent: number, limits: DatabaseLimits) {
  const gate = new DatabaseGate({ maxConcurrent, maxWaiting: limits.maxWaiting, queueTimeoutMs: limits.queueTimeoutMs, breakerMs: 1_000 });
  const observers = new Set<DatabaseObserver>();
  const prisma = new PrismaClient({
    adapter: instrumentAdapterFactory(raw, { gate, statementTimeoutMs: limits.statementTimeoutMs, observers }),
  });
  return { gate, observers, prisma };
}

function withDeadline(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {}); // settles after the deadline: nobody waits for it any more
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * PGlite's own parameters plus a smaller buffer cache: initdb's default (128 MB of shared_buffers)
 * sits in the process's WebAssembly memory; 16 MB holds this service's working set (measured: the
 * process's resident memory drops by about 115 MB, queries are as fast).
 */
const SHARED_BUFFERS = ['-c', 'shared_buffers=16MB'];

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  const limits = options.limits ?? DEFAULT_DATABASE_LIMITS;
  if (url.startsWith('pglite:')) {
    const target = url.slice('pglite:'.length);
    const inMemory = target === 'memory';
    let lock: FolderLock | undefined;
    if (!inMemory) lock = acquireFolderLock(target);
    let pglite: PGlite;
    let adapterFactory: SqlMigrationAwareDriverAdapterFactory;
    try {
      // loaded here, not with the app: a PostgreSQL deployment never loads PGlite (optionalModules.ts); inside
      // the try, so that a failed load releases the folder's lock like a failed open does
      const { PGlite, PrismaPGlite } = await loadPGlite();
      // a new folder starts as a copy of the migrated template made at build time (pgliteTemplate.ts)
      const loadDataDir = options.loadDataDir ?? (inMemory || existsSync(join(target, 'PG_VERSION')) ? undefined : await readTemplate());
      pglite = await PGlite.create({
        ...(inMemory ? {} : { dataDir: target }),
        ...(loadDataDir ? { loadDataDir } : {}),
        // max_wal_size stays PostgreSQL's 1 GB: a standalone backend cannot checkpoint on its own when the log passes it,
        // and PGlite then waits forever inside the commit (measured with 64 MB). The maintenance round's checkpoint every
        // minute (db/embeddedMaintenance.ts) keeps the log far below it.
        startParams: [...PGlite.defaultStartParams, ...SHARED_BUFFERS],
      });
      adapterFactory = new PrismaPGlite(pglite);
    } catch (err) {
      lock?.release();
      throw err;
    }
    // PGlite runs one statement at a time: one slot, so that our queue is the only queue
    const { gate, observers, prisma } = instrumented(adapterFactory, 1, limits);
    return {
      prisma,
      adapterFactory,
      kind: 'pglite',
      embedded: true,
      gate,
      observers,
      // PGlite runs one statement at a time: the ping waits for the one running, not for our queue
      ping: (timeoutMs) =>
        withDeadline(
          pglite.query(PING).then(() => undefined),
          timeoutMs,
        ),
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  }
  // loaded here, not with the app: an embedded deployment never loads pg (optionalModules.ts)
  const { pg, PrismaPg } = await loadPostgresDriver();
  const adapterFactory = new PrismaPg({
    connectionString: url,
    max: limits.poolSize,
    // fail fast when the server is unreachable instead of waiting for the OS's TCP timeout
    connectionTimeoutMillis: 2_000,
    // the server cancels a statement that runs too long, a little after the gate stopped waiting for it
    statement_timeout: limits.statementTimeoutMs + 500,
    idleTimeoutMillis: 30_000,
  });
  const { gate, observers, prisma } = instrumented(adapterFactory, limits.poolSize, limits);
  // one connection of its own for health checks, so that a busy pool does not make the database look down
  const pingPool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 1_000, idleTimeoutMillis: 10_000 });
  pingPool.on('error', () => {}); // an idle connection that breaks is simply replaced
  return {
    prisma,
    adapterFactory,
    kind: 'postgres',
    embedded: false,
    gate,
    observers,
    ping: (timeoutMs) =>
      withDeadline(
        pingPool.query(PING).then(() => undefined),
        timeoutMs,
      ),
    async close() {
      await prisma.$disconnect();
      await pingPool.end();
    },
  };
}
