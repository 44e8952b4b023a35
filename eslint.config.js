// Lint: typescript-eslint's type-checked rules over the code, the tests, the benchmarks and the agent.
// Formatting is Prettier's (.prettierrc.json), checked by `npm run lint` too; eslint does not format.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Globals the JavaScript files may read, named in one string. */
const readonly = (names) => Object.fromEntries(names.split(/\s+/).map((name) => [name, 'readonly']));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'src/generated/', 'test/generated/', 'clients/*/generated/', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // an interface that only extends another adds it to an interface of that name declared elsewhere (a folder's
      // deps merged into http/appEnv.ts's RequestDeps), which a type alias cannot do
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // The few JavaScript files (the start script and its limits, the build, the browser portal, bench and test workers) are
    // outside tsconfig.json's program, so the rules that need type information cannot run on them; the rest still do.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: readonly(
        'process console Buffer URL URLSearchParams TextEncoder TextDecoder AbortController fetch Request Response Headers ' +
          'setTimeout clearTimeout setInterval clearInterval setImmediate queueMicrotask performance structuredClone',
      ),
    },
  },
  {
    // The portal's script runs in the browser.
    files: ['src/portal/assets/**/*.js'],
    languageOptions: {
      globals: readonly('window document localStorage sessionStorage navigator location history HTMLElement Event EventSource FormData'),
    },
  },
  {
    // Tests, benchmarks and the agent read JSON answers whose shape is the thing under test: the assertions check
    // it, so reading an untyped answer is not flagged there (an explicit `any` still is).
    files: ['test/**', 'bench/**', 'agent/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
