// One PrismaClient type for the three databases DATABASE_URL can name: PGlite in a folder, PGlite
// in memory, or a PostgreSQL server through @prisma/adapter-pg.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { acquireFolderLock, type FolderLock } from './pgliteLock.js';

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  /** The adapter factory the migration engine drives. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
  /** True for PGlite (a folder or memory): demo data may be created on first start. */
  embedded: boolean;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** A data directory to load a PGlite from (a tarball made by `dumpDataDir`), used by tests. */
  loadDataDir?: Blob;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith('pglite:')) {
    const target = url.slice('pglite:'.length);
    const inMemory = target === 'memory';
    let lock: FolderLock | undefined;
    if (!inMemory) lock = acquireFolderLock(target);
    let pglite: PGlite;
    try {
      pglite = await PGlite.create({ ...(inMemory ? {} : { dataDir: target }), ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}) });
    } catch (err) {
      lock?.release();
      throw err;
    }
    const adapterFactory = new PrismaPGlite(pglite);
    const prisma = new PrismaClient({ adapter: adapterFactory });
    return {
      prisma,
      adapterFactory,
      kind: 'pglite',
      embedded: true,
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  }
  const adapterFactory = new PrismaPg({ connectionString: url, max: 10 });
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    prisma,
    adapterFactory,
    kind: 'postgres',
    embedded: false,
    async close() {
      await prisma.$disconnect();
    },
  };
}
