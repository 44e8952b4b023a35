// Migrates once per run: an in-memory PGlite whose data folder each test file loads (fast), and,
// when TEST_DATABASE_URL is set, a PostgreSQL template database each test file is copied from.
import { mkdtempSync, rmSync } from 'node:fs';
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

export default async function setup(project: TestProject) {
  // the e2e tests start the service as `npm start` does (compiled): compile once, before any of them runs
  execFileSync(process.execPath, ['src/cli/build.mjs'], { cwd: project.config.root, stdio: 'inherit' });
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
  execFileSync(
    process.execPath,
    ['--import', 'tsx', 'test/support/buildTemplate.ts', path, ...(templateUrl ? [templateUrl.toString()] : [])],
    {
      cwd: project.config.root,
      stdio: 'inherit',
    },
  );
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
