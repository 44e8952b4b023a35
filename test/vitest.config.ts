// Two projects: every test on the embedded database (PGlite), and the API tests again on PostgreSQL
// when TEST_DATABASE_URL is set. One database per test file, reset between cases (test/support).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
const postgres = process.env.TEST_DATABASE_URL;

export default defineConfig({
  // one copy of graphql, as in production: Vite would resolve a bare 'graphql' in test and src files to
  // its .mjs build while Pothos and yoga load the CommonJS one, and instanceof checks across the two fail
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    root,
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'pglite', include: ['test/**/*.test.ts'], env: { TEST_DB: 'pglite' } } },
      ...(postgres
        ? [{ extends: true as const, test: { name: 'postgres', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'postgres' } } }]
        : []),
    ],
  },
});
