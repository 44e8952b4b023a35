// Prepares once per run what the test files share: dist/ (the e2e tests start the service compiled, as
// `npm start` does), an embedded database template (a migrated PGlite data folder each test file loads:
// fast), and, when TEST_DATABASE_URL is set, a PostgreSQL template database each test file is copied from.
//
// Neither dist/ nor the template is made again when nothing it is made from changed: dist/ is rebuilt only
// when a hash of its inputs (the sources under src/ and the lockfile) differs from the one recorded by the
// last build, and the PGlite template is the one the build keeps in dist/ (src/db/pgliteTemplate.ts), made
// again only when a migration changed. `npm run test:unit` (test/vitest.unit.config.ts) needs neither.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
    postgresTemplate: string | null;
  }
}

export const POSTGRES_TEMPLATE = `ocs_test_template_${process.pid}`;

/** The files under `dir` (relative to `root`), sorted. */
function filesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => statSync(join(root, path)).isFile())
    .sort();
}

/** A hash of what dist/ is built from: every file under src/ (generated code too) and the lockfile, names and contents. */
export function buildInputsHash(root: string): string {
  const hash = createHash('sha256');
  for (const path of [...filesUnder(root, 'src'), 'package-lock.json'])
    hash
      .update(path)
      .update('\0')
      .update(readFileSync(join(root, path)))
      .update('\0');
  return hash.digest('hex');
}

/** Builds dist/ unless the hash of its inputs is the one recorded after the last build (which a test run writes). */
function buildDist(root: string): void {
  const recorded = join(root, 'dist', '.test-inputs');
  const inputs = buildInputsHash(root);
  if (existsSync(join(root, 'dist', '.build-stamp')) && existsSync(recorded) && readFileSync(recorded, 'utf8') === inputs) return;
  // --force: a hash that differs is a change, even where file times say otherwise (a checkout, a stash)
  execFileSync(process.execPath, ['src/cli/build.mjs', '--force'], { cwd: root, stdio: 'inherit' });
  writeFileSync(recorded, inputs);
}

/** The build's template (dist/pglite-template.tar) when it is newer than every migration; undefined otherwise. */
function currentBuildTemplate(root: string): string | undefined {
  const template = join(root, 'dist', 'pglite-template.tar');
  const fingerprint = join(root, 'dist', 'pglite-template.migrations');
  if (!existsSync(template) || !existsSync(fingerprint)) return undefined;
  const made = statSync(fingerprint).mtimeMs;
  const migrations = filesUnder(root, 'prisma/migrations');
  return migrations.every((path) => statSync(join(root, path)).mtimeMs <= made) ? template : undefined;
}

export default async function setup(project: TestProject) {
  const root = project.config.root;
  buildDist(root);
  const dir = mkdtempSync(join(tmpdir(), 'ocs-test-'));
  const path = join(dir, 'template.tar');
  const url = process.env.TEST_DATABASE_URL;
  let admin: pg.Client | undefined;
  let templateUrl: URL | undefined;
  if (url) {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${POSTGRES_TEMPLATE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${POSTGRES_TEMPLATE}`);
    templateUrl = new URL(url);
    templateUrl.pathname = `/${POSTGRES_TEMPLATE}`;
  }
  // made again as the build makes it, when a migration changed since (then the next run finds it current)
  if (!currentBuildTemplate(root)) execFileSync(process.execPath, ['dist/cli/migrate.js', 'template'], { cwd: root, stdio: 'inherit' });
  // a copy: a build during the run (npm run build) may replace dist/'s
  const built = currentBuildTemplate(root);
  if (built) copyFileSync(built, path);
  if (!built || templateUrl) {
    execFileSync(
      process.execPath,
      ['--import', 'tsx', 'test/support/buildTemplate.ts', built ? '-' : path, ...(templateUrl ? [templateUrl.toString()] : [])],
      { cwd: root, stdio: 'inherit' },
    );
  }
  project.provide('pgliteTemplatePath', path);
  project.provide('postgresTemplate', url ? POSTGRES_TEMPLATE : null);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${POSTGRES_TEMPLATE} WITH (FORCE)`);
      await admin.end();
    }
  };
}
