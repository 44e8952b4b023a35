// PGlite is single-process: two processes writing one data folder corrupt it. The folder's owner
// holds `<dir>/../<name>.lock` (created with O_EXCL, containing its pid); a second process finds it,
// sees the owner alive and stops with an error naming it. A lock left by a dead process is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export class DatabaseLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number,
  ) {
    super(`The embedded database folder ${dir} is in use by process ${ownerPid}; stop it first or set DATABASE_URL to another folder.`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface FolderLock {
  path: string;
  release(): void;
}

export function lockPath(dir: string): string {
  const abs = resolve(dir);
  return join(dirname(abs), `.${basename(abs)}.lock`);
}

export function acquireFolderLock(dir: string): FolderLock {
  const abs = resolve(dir);
  mkdirSync(dirname(abs), { recursive: true });
  const path = lockPath(abs);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return { path, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseLockedError(abs, owner);
      }
      if (owner === process.pid) throw new DatabaseLockedError(abs, owner);
      rmSync(path, { force: true }); // stale: its owner died without releasing
    }
  }
  throw new Error(`Could not acquire the lock ${path}`);
}
