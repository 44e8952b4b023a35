// Two projects: every test on the embedded database (PGlite), and the API tests again on PostgreSQL
// when TEST_DATABASE_URL is set. One database per test file, reset between cases (test/support).
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
const postgres = process.env.TEST_DATABASE_URL;
const PROCESS_TIMEZONE_TEST = 'test/unit/availability.tz.test.ts';
/** Tests that measure one tenant's latency while another loads the server: they run last, alone (below). */
const ALONE = ['test/e2e/fairness.test.ts'];

export default defineConfig({
  // one copy of graphql, as in production: Vite would resolve a bare 'graphql' in test and src files to
  // its .mjs build while Pothos and yoga load the CommonJS one, and instanceof checks across the two fail
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    root,
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // the files of a worker share its module cache: without it each file imported and transformed the whole app
    // again (Prisma's client, the Pothos schema, yoga, the OpenAPI registry), about 10 s of a file's time on two
    // cores, and the suite took 17 minutes instead of 9. Nothing is shared through modules: each file builds its
    // own app, database and clock from test/support (testApp.ts), and no test mocks a module (the one test that
    // needs a fresh process has a project of its own, below).
    isolate: false,
    // one worker per core: Vitest's default leaves one core idle (cores − 1), and on a two-core machine that is half
    // of it. Each file's app, database and clock are its own, so files on two cores only share the machine's time.
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'pglite', include: ['test/**/*.test.ts'], exclude: [PROCESS_TIMEZONE_TEST, ...ALONE], env: { TEST_DB: 'pglite' } },
      },
      // a process of its own: it sets TZ before luxon and the domain are first loaded, which a shared module cache
      // would not guarantee
      { extends: true, test: { name: 'process-timezone', include: [PROCESS_TIMEZONE_TEST], isolate: true, env: { TEST_DB: 'pglite' } } },
      ...(postgres
        ? [{ extends: true as const, test: { name: 'postgres', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'postgres' } } }]
        : []),
      // after every other project has finished (a later group), one file at a time: what they measure is the service's
      // fairness, not the other test files sharing the machine's two cores
      {
        extends: true,
        test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 }, maxWorkers: 1, env: { TEST_DB: 'pglite' } },
      },
    ],
  },
});
