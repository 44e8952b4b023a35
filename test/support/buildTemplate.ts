// Run as a child process by globalSetup (the WASM schema engine misbehaves inside vitest's module
// loader): migrates an in-memory PGlite and writes its data folder to argv[2] (`-`: not needed, the
// build's template is current); with argv[3], also migrates that PostgreSQL database.
import { writeFileSync } from 'node:fs';
import { PrismaPg } from '@prisma/adapter-pg';
import { applyMigrations } from '../../src/db/migrations.js';
import { migratedDataDir } from '../../src/db/pgliteTemplate.js';

const [out, postgresUrl] = process.argv.slice(2);
if (out !== '-') writeFileSync(out!, await migratedDataDir());
if (postgresUrl) await applyMigrations(new PrismaPg({ connectionString: postgresUrl }));
process.exit(0); // the schema engine leaves a timer behind; nothing else is pending
