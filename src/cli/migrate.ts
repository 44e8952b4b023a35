// `npm run db:migrate` applies pending migrations to DATABASE_URL;
// `npm run db:migration -- <name>` writes prisma/migrations/<timestamp>_<name>/migration.sql from the schema's diff;
// `template` (run by the build) makes the migrated database a new embedded folder starts from.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { applyMigrations, migrationsDir, pendingSchemaDiff } from '../db/migrations.js';
import { writeTemplate } from '../db/pgliteTemplate.js';
import { runCli } from './runCli.js';

async function main(): Promise<void> {
  const [command, name] = process.argv.slice(2);
  if (command === 'apply') {
    const config = loadConfig();
    const db = await openDatabase(config.databaseUrl);
    try {
      const applied = await applyMigrations(db.adapterFactory);
      console.error(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations.');
    } finally {
      await db.close();
    }
    return;
  }
  if (command === 'new') {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('Usage: npm run db:migration -- <name>   (lower-case letters, digits, _)');
    const sql = await pendingSchemaDiff();
    if (!sql.trim()) {
      console.error('schema.prisma and the migrations agree: nothing to write.');
      return;
    }
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const dir = join(migrationsDir, `${stamp}_${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'migration.sql'), sql);
    console.error(`Wrote ${dir}/migration.sql`);
    return;
  }
  if (command === 'template') {
    // run by the build (src/cli/build.mjs): the migrated database a new embedded folder starts from
    console.error((await writeTemplate()) ? 'Made dist/pglite-template.tar.' : 'dist/pglite-template.tar is current.');
    return;
  }
  if (command === 'check') {
    // exit code 2 when schema.prisma and the migrations disagree (used by the drift test)
    const schemaFlag = process.argv.indexOf('--schema');
    const sql = await pendingSchemaDiff(schemaFlag > 0 ? process.argv[schemaFlag + 1] : undefined);
    if (sql.trim()) {
      console.error('schema.prisma differs from prisma/migrations; run npm run db:migration -- <name>:\n' + sql);
      process.exit(2);
    }
    console.error('schema.prisma and the migrations agree.');
    return;
  }
  throw new Error('Usage: migrate.ts apply | new <name> | check | template');
}

runCli(main);
