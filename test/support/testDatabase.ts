// One database per test file: PGlite loaded from the migrated template, or a PostgreSQL database
// copied from the template database. `reset` empties every table between cases.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { type DatabaseLimits, openDatabase, type Database } from '../../src/db/client.js';

export type Backend = 'pglite' | 'postgres';

export function currentBackend(): Backend {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

export interface TestDatabase extends Database {
  backend: Backend;
  url: string;
  reset(): Promise<void>;
}

const KEEP = new Set(['_prisma_migrations', 'SigningKey']);

export async function openTestDatabase(backend: Backend = currentBackend(), limits?: DatabaseLimits): Promise<TestDatabase> {
  let database: Database;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  if (backend === 'postgres') {
    const base = process.env.TEST_DATABASE_URL!;
    const template = inject('postgresTemplate');
    if (!template) throw new Error('TEST_DATABASE_URL is set but no template database was prepared');
    const name = `ocs_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    url = u.toString();
    database = await openDatabase(url, { limits });
    drop = async () => {
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    };
  } else {
    url = 'pglite:memory';
    const tar = readFileSync(inject('pgliteTemplatePath'));
    database = await openDatabase(url, { loadDataDir: new Blob([tar]), limits });
  }
  const tables = (
    await database.prisma.$queryRawUnsafe<{ tablename: string }[]>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)
  )
    .map((r) => r.tablename)
    .filter((t) => !KEEP.has(t));
  return {
    ...database,
    backend,
    url,
    async reset() {
      await database.prisma.$executeRawUnsafe(`TRUNCATE ${tables.map((t) => `"${t}"`).join(', ')} CASCADE`);
    },
    async close() {
      await database.close();
      await drop?.();
    },
  };
}
