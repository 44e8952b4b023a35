// The project's folder (where package.json and prisma/ are), found from where this code runs: the same
// answer from src/ (tsx, tests) and from the bundle in dist/ (npm start), whichever file the code is in.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

export function projectRoot(): string {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'prisma', 'schema.prisma'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no prisma/schema.prisma above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (found = dir);
}
