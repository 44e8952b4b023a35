// `npm run test:unit`: the tests that need neither a database nor a server (test/unit, and the docs'
// references), without the global setup of test/vitest.config.ts (no dist/ build, no database template).
// `npm test` runs them too, with everything else.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
const PROCESS_TIMEZONE_TEST = 'test/unit/availability.tz.test.ts';

export default defineConfig({
  // one copy of graphql, as in test/vitest.config.ts
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    root,
    pool: 'forks',
    // the files share a worker's module cache, as in test/vitest.config.ts (nothing is shared through modules)
    isolate: false,
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/docs/references.test.ts'], exclude: [PROCESS_TIMEZONE_TEST] },
      },
      // a process of its own: it sets TZ before luxon and the domain are first loaded
      { extends: true, test: { name: 'process-timezone', include: [PROCESS_TIMEZONE_TEST], isolate: true } },
    ],
  },
});
