// Compiles src/**/*.ts to dist/**/*.js (one file each, same layout, so that paths computed from
// import.meta.url stay right) with esbuild: what `npm start` runs, so that a start spends no time
// compiling TypeScript. Type checking is `npm run typecheck`; tests and development run the sources
// with tsx. Plain JavaScript, so that it runs before anything is compiled.
//   node src/cli/build.mjs [--force]   builds when a source is newer than the last build, or always
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const srcDir = join(projectRoot, 'src');
export const distDir = join(projectRoot, 'dist');
/** Written last: the list of compiled sources. Its absence means the last build did not finish. */
const stampFile = join(distDir, '.build-stamp');

function sources(dir = srcDir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(relative(srcDir, path));
  }
  return out.sort();
}

/** True when dist/ is missing, a source changed after the last build, or a source was added or removed. */
export function isStale(files = sources()) {
  let built;
  try {
    built = statSync(stampFile).mtimeMs;
  } catch {
    return true;
  }
  if (files.some((file) => statSync(join(srcDir, file)).mtimeMs > built)) return true;
  return readFileSync(stampFile, 'utf8') !== files.join('\n');
}

/** Builds dist/ when it is stale (or always with `force`); answers whether it built. */
export async function build({ force = false } = {}) {
  const files = sources();
  if (!force && !isStale(files)) return false;
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  rmSync(distDir, { recursive: true, force: true });
  await esbuild({
    entryPoints: files.map((file) => join(srcDir, file)),
    outdir: distDir,
    outbase: srcDir,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  mkdirSync(distDir, { recursive: true });
  writeFileSync(stampFile, files.join('\n'));
  process.stderr.write(`Compiled ${files.length} TypeScript files to dist/ in ${Math.round(performance.now() - started)} ms\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build({ force: process.argv.includes('--force') });
}
