// Run as a child process by globalSetup (the WASM schema engine misbehaves inside vitest's module
// loader): migrates an in-memory PGlite and writes its data folder to argv[2]; with argv[3], also
// migrates that PostgreSQL database.
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations } from '../../src/db/migrations.js';

const [out, postgresUrl] = process.argv.slice(2);
const pglite = await PGlite.create();
await applyMigrations(new PrismaPGlite(pglite));
const dump = await pglite.dumpDataDir('none');
writeFileSync(out!, Buffer.from(await dump.arrayBuffer()));
await pglite.close();
if (postgresUrl) await applyMigrations(new PrismaPg({ connectionString: postgresUrl }));
process.exit(0); // the schema engine leaves a timer behind; nothing else is pending
