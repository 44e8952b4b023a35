// A migrated, empty embedded database, made once when the service is built (`npm install`, or a start
// after the migrations changed) and copied into a new PGlite folder on its first start. Creating the
// cluster (initdb) and applying the migrations cost a first start about 5.4 s of WebAssembly (measured:
// 4.7 s + 0.7 s); loading the copy a fraction of that. The copy is used only while it was made from
// the migrations there are now (a fingerprint of their names and contents); otherwise a first start
// creates and migrates the folder itself, as before.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPGlite } from '../optionalModules.js';
import { projectRoot } from '../projectRoot.js';
import { applyMigrations, loadMigrationsList } from './migrations.js';

const templateFile = () => join(projectRoot(), 'dist', 'pglite-template.tar');
const fingerprintFile = () => join(projectRoot(), 'dist', 'pglite-template.migrations');

async function migrationsFingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const dir of (await loadMigrationsList()).migrationDirectories) {
    hash.update(dir.path).update('\0').update(dir.migrationFile.content.value).update('\0');
  }
  return hash.digest('hex');
}

/** An in-memory PGlite with every migration applied, as a data-folder tarball (`dumpDataDir`). */
export async function migratedDataDir(): Promise<Buffer> {
  const { PGlite, PrismaPGlite } = await loadPGlite();
  const pglite = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(pglite));
    return Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
}

/** The template, when it was made from the current migrations. */
export async function readTemplate(): Promise<Blob | undefined> {
  try {
    if (readFileSync(fingerprintFile(), 'utf8') !== (await migrationsFingerprint())) return undefined;
    return new Blob([readFileSync(templateFile())]);
  } catch {
    return undefined; // not built (yet): a first start migrates the folder itself
  }
}

/** Makes the template unless it is current; answers whether it made one. */
export async function writeTemplate(): Promise<boolean> {
  const fingerprint = await migrationsFingerprint();
  try {
    // current only when the tarball is there too (a deleted template is made again, not reported current)
    if (readFileSync(fingerprintFile(), 'utf8') === fingerprint && existsSync(templateFile())) return false;
  } catch {
    // not made yet
  }
  writeFileSync(templateFile(), await migratedDataDir());
  writeFileSync(fingerprintFile(), fingerprint); // last: a half-written template is never taken for current
  return true;
}
