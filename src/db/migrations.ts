// Migrations through Prisma's own WASM schema engine (the native engine cannot be downloaded here;
// see ../shared/recipes/prisma-offline.md). `applyMigrations` records what it applied in
// `_prisma_migrations` exactly as `prisma migrate deploy` does, and takes the engine's advisory lock
// on PostgreSQL so that several instances starting at once apply each migration once.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as engineBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import { loadPGlite } from '../optionalModules.js';
import { projectRoot } from '../projectRoot.js';
import { appliedMigrations } from './sql.js';

const root = projectRoot();
export const schemaPath = join(root, 'prisma', 'schema.prisma');
export const migrationsDir = join(root, 'prisma', 'migrations');

const filters = { externalTables: [], externalEnums: [] };

// the engine reports a Rust panic's message through this global before it throws
let lastPanic = '';
(globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
  set_message(message: string) {
    lastPanic = message;
  },
};
export function lastEnginePanic(): string {
  return lastPanic;
}

let wasmReady: Promise<void> | undefined;
function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const require = createRequire(import.meta.url);
    // the package's `exports` do not list the .wasm file: resolve its folder through an exported entry
    const wasmPath = join(dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')), 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
      './schema_engine_bg.js': engineBindings as unknown as WebAssembly.ModuleImports,
    });
    engineBindings.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  })();
  return wasmReady;
}

async function createEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  path = schemaPath,
): Promise<engineBindings.SchemaEngine> {
  await loadWasm();
  const schema = await readFile(path, 'utf8');
  return engineBindings.SchemaEngine.new(
    { datamodels: [['schema.prisma', schema]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
}

export async function loadMigrationsList() {
  const names = existsSync(migrationsDir)
    ? (await readdir(migrationsDir, { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok' as const, value: await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

/**
 * True when every migration in prisma/migrations is recorded as applied, unchanged (same checksum) and
 * not rolled back: then a start need not load the schema engine at all (its WebAssembly costs a
 * second and tens of megabytes). Anything else — a new migration, a changed file, no table yet —
 * answers false, and the engine decides (under its advisory lock).
 */
export async function migrationsUpToDate(db: Parameters<typeof appliedMigrations>[0]): Promise<boolean> {
  let applied: { migration_name: string; checksum: string }[];
  try {
    applied = await appliedMigrations(db);
  } catch {
    return false; // no migrations table: a new database
  }
  const recorded = new Map(applied.map((r) => [r.migration_name, r.checksum]));
  const local = await loadMigrationsList();
  return local.migrationDirectories.every(
    (dir) => recorded.get(dir.path) === createHash('sha256').update(dir.migrationFile.content.value).digest('hex'),
  );
}

/** Applies pending migrations; answers the names of those applied. */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await createEngine(adapterFactory);
  try {
    const out = await engine.applyMigrations({ migrationsList: await loadMigrationsList(), filters });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * The SQL that takes the migrations to the schema in schema.prisma, computed on throw-away in-memory
 * PGlite databases (no server needed). Empty string when they agree.
 */
export async function pendingSchemaDiff(path = schemaPath): Promise<string> {
  const { PGlite, PrismaPGlite } = await loadPGlite();
  const pglite = await PGlite.create();
  try {
    const engine = await createEngine(new PrismaPGlite(pglite), path);
    try {
      const schema = await readFile(path, 'utf8');
      const result = await engine.diff({
        from: { tag: 'migrations', ...(await loadMigrationsList()) },
        to: { tag: 'schemaDatamodel', files: [{ path, content: schema }] },
        script: true,
        exitCode: true,
        shadowDatabaseUrl: null,
        filters,
      } as engineBindings.DiffParams);
      return result.exitCode === 0 ? '' : (result.stdout ?? '');
    } finally {
      engine.free();
    }
  } finally {
    await pglite.close();
  }
}
