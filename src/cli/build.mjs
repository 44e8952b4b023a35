// Builds what `npm start` runs: the service and the command-line tools it shares code with, bundled by
// esbuild with their dependencies into dist/ (one file per entry point, shared code in dist/chunks/).
// A start then loads a few files instead of some 1,500 modules: measured here, loading the app drops from
// about 1 s to 0.3 s. Type checking is `npm run typecheck`; tests and development run the sources with
// tsx. Plain JavaScript, so that it runs before anything is compiled.
//   node src/cli/build.mjs [--force]   builds when a source or the lockfile is newer than the last build
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const srcDir = join(projectRoot, 'src');
export const distDir = join(projectRoot, 'dist');
/** Written last: the list of sources built from. Its absence means the last build did not finish. */
const stampFile = join(distDir, '.build-stamp');

/** What dist/ holds: the server and the command-line tools run from the build (the benchmark's too). */
const ENTRY_POINTS = ['server.ts', 'cli/migrate.ts', 'cli/seed.ts', 'cli/admin.ts'];

/**
 * Left out of the bundle, loaded from node_modules as usual: packages that find files of their own next
 * to their modules (WebAssembly, the Swagger UI assets), and the 9 MB GraphiQL page loaded on first use.
 */
const EXTERNAL = ['@electric-sql/pglite', '@prisma/schema-engine-wasm', 'swagger-ui-dist', '@graphql-yoga/render-graphiql', 'pg-native'];

function sources(dir = srcDir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(relative(srcDir, path));
  }
  return out.sort();
}

/** True when dist/ is missing, a source or the lockfile changed after the last build, or a source was added or removed. */
export function isStale(files = sources()) {
  let built;
  try {
    built = statSync(stampFile).mtimeMs;
  } catch {
    return true;
  }
  if (files.some((file) => statSync(join(srcDir, file)).mtimeMs > built)) return true;
  if (statSync(join(projectRoot, 'package-lock.json')).mtimeMs > built) return true;
  return readFileSync(stampFile, 'utf8') !== files.join('\n');
}

const migrationsDir = join(projectRoot, 'prisma', 'migrations');
const templateFingerprint = join(distDir, 'pglite-template.migrations');

/** True when the embedded-database template (src/db/pgliteTemplate.ts) is missing or older than a migration. */
function templateIsStale() {
  if (!existsSync(templateFingerprint) || !existsSync(join(distDir, 'pglite-template.tar'))) return true;
  const made = statSync(templateFingerprint).mtimeMs;
  return readdirSync(migrationsDir, { recursive: true }).some((file) => statSync(join(migrationsDir, String(file))).mtimeMs > made);
}

/**
 * Makes the migrated database a new embedded folder starts from (about 5 s saved on a first start). Not
 * fatal: without it a first start creates and migrates the folder itself.
 */
function buildTemplate() {
  const started = performance.now();
  const run = spawnSync(process.execPath, [join(distDir, 'cli/migrate.js'), 'template'], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status === 0) process.stderr.write(`Built the embedded database template in ${Math.round(performance.now() - started)} ms\n`);
  else
    process.stderr.write(`Could not build the embedded database template (a first start will migrate its folder itself):\n${run.stderr}\n`);
}

/**
 * Escapes the non-ASCII characters esbuild leaves in the bundles (it escapes them in strings, not in
 * regular expressions: a bundled library has `/[‘“!%&^<=>`]/`). V8 keeps a script's source for as long as
 * it runs, as a one-byte string when every character is Latin-1 and as a two-byte one otherwise: one such
 * character doubled the server bundle's resident source. `\uXXXX` means the same character in a string,
 * template or regular expression; a source map's columns after it on that line shift by five.
 */
function asciiOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) asciiOnly(path);
    else if (entry.name.endsWith('.js')) {
      const text = readFileSync(path, 'utf8');
      if (/[\u0080-\uffff]/.test(text))
        writeFileSync(
          path,
          text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
        );
    }
  }
}

/** Builds dist/ when it is stale (or always with `force`), and its database template; answers whether it built. */
export async function build({ force = false } = {}) {
  const files = sources();
  if (!force && !isStale(files)) {
    if (templateIsStale()) buildTemplate();
    return false;
  }
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  // a clean dist/, but the database template stays: it depends on the migrations, not on the sources
  for (const entry of existsSync(distDir) ? readdirSync(distDir) : []) {
    if (!entry.startsWith('pglite-template.')) rmSync(join(distDir, entry), { recursive: true, force: true });
  }
  await esbuild({
    entryPoints: ENTRY_POINTS.map((file) => join(srcDir, file)),
    outdir: distDir,
    outbase: srcDir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // bundled CommonJS packages call require() for Node's own modules
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    sourcemap: 'linked',
    // less for V8 to parse at every start (bench/RESULTS.md has the start times); identifiers are kept, so stack traces still name the functions
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  mkdirSync(distDir, { recursive: true });
  asciiOnly(distDir);
  writeFileSync(stampFile, files.join('\n'));
  process.stderr.write(`Built dist/ (${ENTRY_POINTS.length} entry points bundled) in ${Math.round(performance.now() - started)} ms\n`);
  if (templateIsStale()) buildTemplate();
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build({ force: process.argv.includes('--force') });
}
