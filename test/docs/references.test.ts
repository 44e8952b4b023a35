// What the code and the docs point at exists (issue 33 item 7): a repository path named in a comment
// under src/ or in README.md and docs/*.md (src/…, test/…, docs/…, bench/…, and a src-relative path
// such as domain/events/log.ts), and a section cited with § — of docs/decisions.md ("decisions.md §3")
// or of the specification ("spec §8"). A file that moves or a section that is renumbered fails here,
// naming the line that still points at the old place. No database, no server: it runs with the unit tests.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The numbered sections of the specification (`# 1. What the service does` … `# 9. Versioning`). The
 * specification is not part of this repository (docs/decisions.md says so), so its section numbers are
 * written here; SPEC_PATH, when set to a copy of it, checks them against it.
 */
const SPEC_SECTIONS = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

/** The folders of src/: a path in a comment may start at one of them (src-relative). */
const SRC_FOLDERS = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory());

/** Paths .gitignore names (made by tests or builds, absent from a fresh checkout). */
const IGNORED = readFileSync(join(root, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}

const DOCS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines to read, with their numbers: a source file's comments (from `//`, or inside a block comment); a doc's text outside code fences. */
function linesOf(file: string): { line: number; text: string }[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const out: { line: number; text: string }[] = [];
  if (file.endsWith('.md')) {
    let fenced = false;
    lines.forEach((text, i) => {
      if (/^```/.test(text)) fenced = !fenced;
      else if (!fenced) out.push({ line: i + 1, text });
    });
    return out;
  }
  let inBlock = false;
  lines.forEach((text, i) => {
    const trimmed = text.trim();
    if (inBlock || trimmed.startsWith('/*')) {
      out.push({ line: i + 1, text });
      inBlock = !trimmed.includes('*/');
      return;
    }
    const comment = text.indexOf('//');
    // a comment after code; `://` is a URL inside a string, not a comment
    if (comment >= 0 && text[comment - 1] !== ':') out.push({ line: i + 1, text: text.slice(comment) });
  });
  return out;
}

/** Every path-like word of a line that names a file or folder of this repository. */
export function repositoryPaths(text: string): string[] {
  const found: string[] = [];
  for (const [, path] of text.matchAll(/(?<![\w./@-])((?:[A-Za-z][\w-]*\/)+[\w.-]*[\w/])/g)) {
    const top = path!.split('/')[0]!;
    if (['src', 'test', 'docs', 'bench'].includes(top)) found.push(path!);
    // src-relative: only a file (with its extension), since a word like "read/write" is not a path
    else if (SRC_FOLDERS.includes(top) && /\.(ts|mts|mjs)$/.test(path!)) found.push(`src/${path}`);
  }
  return found;
}

/** The § citations of a line, each with what it cites: the nearest "decisions.md" or "spec" before it on the line; RFCs and uncited ones are skipped. */
export function sectionCitations(text: string): { of: 'decisions' | 'spec'; section: string }[] {
  const found: { of: 'decisions' | 'spec'; section: string }[] = [];
  for (const match of text.matchAll(/§\s?(\d+(?:\.\d+)*)/g)) {
    const before = text.slice(0, match.index);
    const anchors = [
      { of: 'decisions' as const, at: lastIndex(before, /decisions\.md/g) },
      { of: 'spec' as const, at: lastIndex(before, /\bspec(?:ification)?\b/gi) },
      { of: 'rfc' as const, at: lastIndex(before, /\bRFC ?\d+/g) },
    ].filter((a) => a.at >= 0);
    if (anchors.length === 0) continue;
    const nearest = anchors.reduce((a, b) => (b.at > a.at ? b : a));
    if (nearest.of !== 'rfc') found.push({ of: nearest.of, section: match[1]! });
  }
  return found;
}

/** Where the last match of `pattern` (global) in `text` starts; -1 without one. */
function lastIndex(text: string, pattern: RegExp): number {
  let at = -1;
  for (const match of text.matchAll(pattern)) at = match.index;
  return at;
}

const decisionSections = new Set([...readFileSync(join(root, 'docs/decisions.md'), 'utf8').matchAll(/^## (\d+)\./gm)].map(([, n]) => n!));

describe('references in comments and docs', () => {
  it('name files and folders that exist', () => {
    const missing: string[] = [];
    for (const file of [...sourceFiles('src'), ...DOCS]) {
      for (const { line, text } of linesOf(file)) {
        for (const path of repositoryPaths(text)) {
          if (IGNORED.some((ignored) => path.startsWith(ignored.replace(/^\//, '')))) continue;
          if (!existsSync(join(root, path))) missing.push(`${file}:${line}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('cite sections of docs/decisions.md and of the specification that exist', () => {
    const missing: string[] = [];
    for (const file of [...sourceFiles('src'), ...DOCS]) {
      for (const { line, text } of linesOf(file)) {
        for (const { of, section } of sectionCitations(text)) {
          const exists = of === 'decisions' ? decisionSections.has(section) : SPEC_SECTIONS.includes(section);
          if (!exists) missing.push(`${file}:${line}: ${of} §${section}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.runIf(process.env.SPEC_PATH)('knows the sections of the specification', () => {
    const spec = readFileSync(process.env.SPEC_PATH!, 'utf8');
    expect([...spec.matchAll(/^# (\d+)\./gm)].map(([, n]) => n)).toEqual(SPEC_SECTIONS);
  });

  it('reads paths and citations as a reader would', () => {
    expect(repositoryPaths('see domain/events/log.ts and src/jobs/, not read/write')).toEqual(['src/domain/events/log.ts', 'src/jobs/']);
    expect(sectionCitations('spec §8, docs/decisions.md §3 and §5; RFC 6749 §5.2')).toEqual([
      { of: 'spec', section: '8' },
      { of: 'decisions', section: '3' },
      { of: 'decisions', section: '5' },
    ]);
  });
});
