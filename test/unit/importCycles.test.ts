// The folders of src/ import each other in one direction only (docs/architecture.md, "How the code is laid
// out"): a newcomer can read them bottom-up, and no folder needs another that needs it back. One level down,
// the domain's contexts (src/domain/<context>/) do the same, in the order CONTEXTS_MAY_IMPORT states. Every import counts, `import type`
// too (a type is a dependency a reader has to follow). The files at the top of src/ are not a folder: the
// composition root (app, server, runtime, health, deps) may import any folder and no folder imports it (each
// folder declares the deps it uses, src/deps.ts's AppDeps joins them), so it closes no cycle the test cannot
// see; the few leaf files beside it (config, logger, clock, ...) import no folder, so any folder may use them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}

/** The folder of src/ a file belongs to; undefined for the files at the top of src/. A domain file's is its context: `domain/calls`. */
function folderOf(file: string): string | undefined {
  const parts = relative(SRC, file).split('/');
  if (parts[0] === 'domain' && parts.length > 2) return `domain/${parts[1]}`;
  return parts.length > 1 ? parts[0] : undefined;
}

/** What each context of the domain may import (besides the folders below the domain): calls may use schedule, never the reverse. */
const CONTEXTS_MAY_IMPORT: Record<string, string[]> = {
  shared: [],
  events: ['shared'],
  organizations: ['shared', 'events'],
  credentials: ['shared', 'events'],
  catalog: ['shared', 'events', 'organizations'],
  schedule: ['shared', 'events', 'organizations'],
  governance: ['shared', 'events', 'organizations'],
  calls: ['shared', 'events', 'organizations', 'schedule', 'catalog', 'governance'],
};

/** The files at the top of src/ that compose the app: they may import any folder, and no folder imports them. */
const COMPOSITION_ROOT = ['app.ts', 'deps.ts', 'health.ts', 'runtime.ts', 'server.ts'];
/** The files at the top of src/ that import no folder: any folder may import them. */
const LEAVES = ['clock.ts', 'config.ts', 'logger.ts', 'optionalModules.ts', 'projectRoot.ts'];
/** The command-line tools open the runtime as the server does: entry points, like server.ts, not a layer of the app. */
const ENTRY_POINT_FOLDERS = ['cli'];

/** The files (absolute paths) a source file imports by a relative path, `import type` and `import()` too. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => resolve(dirname(file), match[1]!));
}

/** A top-of-src file's name for an import's target (`deps.js` → `deps.ts`); undefined for a file in a folder or outside src/. */
function topFileOf(target: string): string | undefined {
  const path = relative(SRC, target);
  return path.includes('/') ? undefined : path.replace(/\.js$/, '.ts');
}

/** folder → folder it imports → the importing files (for the message). */
export function folderImports(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const target of relativeImports(file)) {
      const to = folderOf(target);
      if (!to || to === from || to === 'generated') continue;
      const targets = graph.get(from) ?? graph.set(from, new Map()).get(from)!;
      (targets.get(to) ?? targets.set(to, []).get(to)!).push(relative(SRC, file));
    }
  }
  return graph;
}

/** Strongly connected components of more than one folder (Tarjan): each is a cycle. */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

describe('folders of src/', () => {
  it('import each other without a cycle', () => {
    const graph = folderImports();
    const described = cycles(graph).map((component) => {
      const edges = component.flatMap((a) =>
        component.filter((b) => graph.get(a)?.has(b)).map((b) => `  ${a} → ${b} (${graph.get(a)!.get(b)!.slice(0, 3).join(', ')})`),
      );
      return `${component.join(' ↔ ')}\n${edges.join('\n')}`;
    });
    expect(described, `folder cycles:\n${described.join('\n')}`).toEqual([]);
  });

  it('the domain is made of contexts, each importing only the contexts below it', () => {
    const loose = readdirSync(join(SRC, 'domain')).filter((name) => !statSync(join(SRC, 'domain', name)).isDirectory());
    expect(loose, 'every domain file belongs to a context folder').toEqual([]);
    const contexts = readdirSync(join(SRC, 'domain'));
    expect(contexts.sort()).toEqual(Object.keys(CONTEXTS_MAY_IMPORT).sort());
    const graph = folderImports();
    const wrong: string[] = [];
    for (const context of contexts) {
      for (const [to, files] of graph.get(`domain/${context}`) ?? []) {
        if (!to.startsWith('domain/')) continue;
        if (!CONTEXTS_MAY_IMPORT[context]!.includes(to.slice('domain/'.length)))
          wrong.push(`domain/${context} → ${to} (${files.slice(0, 3).join(', ')})`);
      }
    }
    expect(wrong, `imports against the contexts' order:\n${wrong.join('\n')}`).toEqual([]);
  });

  it('no folder imports the composition root; the leaves beside it import no folder', () => {
    const top = readdirSync(SRC).filter((name) => !statSync(join(SRC, name)).isDirectory());
    expect(top.sort(), 'each file at the top of src/ is either the composition root or a leaf').toEqual(
      [...COMPOSITION_ROOT, ...LEAVES].sort(),
    );
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = folderOf(file);
      const name = relative(SRC, file);
      for (const target of relativeImports(file)) {
        const to = topFileOf(target);
        if (from && !ENTRY_POINT_FOLDERS.includes(from) && to && COMPOSITION_ROOT.includes(to)) wrong.push(`${name} → ${to}`);
        if (!from && LEAVES.includes(name) && !to) wrong.push(`${name} → ${relative(SRC, target)}`);
      }
    }
    expect(wrong, `imports of the composition root from a folder, or of a folder from a leaf:\n${wrong.join('\n')}`).toEqual([]);
  });

  it('the check sees imports (a folder graph that is not empty)', () => {
    // guards the test above against a pattern that matches nothing
    const graph = folderImports();
    expect(graph.get('rest')?.has('domain/schedule')).toBe(true);
    expect(graph.get('domain/calls')?.has('domain/schedule')).toBe(true);
    expect(graph.get('domain/schedule')?.has('rest')).toBeFalsy();
  });
});
