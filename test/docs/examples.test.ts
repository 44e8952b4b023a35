// The documentation is tested like code (issue 22 item 5). Every shell example of README.md and docs/*.md
// is marked ```sh runnable and is run here with bash against a service started exactly as the docs say
// (`npm start` on a fresh embedded database, demo data, in a scratch folder that links to this checkout);
// where a ```text block follows an example, what the example prints must match it. The conventions
// (the shell variables, the placeholders of shown output, how ports are moved) are described for readers in
// docs/getting-started.md "How the examples are tested". Also: the README stays short, and every relative
// link of the docs names a file (and a heading) that exists.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOC_FILES = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

vi.setConfig({ testTimeout: 150_000, hookTimeout: 120_000 });

// --- reading the Markdown --------------------------------------------------------------------------------

interface Fence {
  lang: string;
  attrs: string[];
  code: string;
  line: number; // 1-based line of the opening fence
  endLine: number;
}

interface Example {
  file: string;
  line: number;
  attrs: string[];
  code: string;
  expected?: string;
}

export function fences(text: string): Fence[] {
  const lines = text.split('\n');
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    found.push({ lang: open[1]!, attrs: open[2]!.split(/\s+/).filter(Boolean), code: body.join('\n'), line: start + 1, endLine: i + 1 });
  }
  return found;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

/** Examples that need servers besides the service (`needs=postgres,redis`) run when the test has them, as in CI. */
const AVAILABLE = new Set([...(process.env.TEST_DATABASE_URL ? ['postgres'] : []), ...(process.env.TEST_REDIS_URL ? ['redis'] : [])]);
const needsMet = (e: Example) =>
  (
    e.attrs
      .find((a) => a.startsWith('needs='))
      ?.slice('needs='.length)
      .split(',') ?? []
  ).every((n) => AVAILABLE.has(n));
const skipped: string[] = [];

function examples(file: string): Example[] {
  const text = readFileSync(join(root, file), 'utf8');
  const lines = text.split('\n');
  const all = fences(text);
  const out: Example[] = [];
  all.forEach((fence, index) => {
    if (!SHELL_LANGS.has(fence.lang) || !fence.attrs.includes('runnable')) return;
    const next = all[index + 1];
    // a ```text block right after (blank lines between at most) is the output the example prints
    const between = next ? lines.slice(fence.endLine, next.line - 1) : [];
    const expected = next && next.lang === 'text' && between.every((l) => l.trim() === '') ? next.code : undefined;
    out.push({ file, line: fence.line, attrs: fence.attrs, code: fence.code, expected });
  });
  return out;
}

// --- comparing output ------------------------------------------------------------------------------------

/** The placeholders a doc may write in shown output (docs/getting-started.md lists them for readers). */
const PLACEHOLDERS: Record<string, string> = {
  '…': '[\\s\\S]*?',
  '<id>': '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '<time>': '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,3})?)?Z',
  '<etag>': 'W/"[A-Za-z0-9_-]+"',
  '<cursor>': '[A-Za-z0-9_.-]+',
  '<key>': 'svc-sk-v2-[A-Za-z0-9]+',
  '<secret>': '[A-Za-z0-9_+/=.-]+',
  '<n>': '\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?',
};

function normalize(text: string): string {
  return text
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();
}

export function outputMatches(expected: string, actual: string): boolean {
  const tokens = normalize(expected).split(/(…|<id>|<time>|<etag>|<cursor>|<key>|<secret>|<n>)/);
  const pattern = tokens.map((t, i) => (i % 2 ? PLACEHOLDERS[t]! : t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${pattern}$`).test(normalize(actual));
}

// --- the service the examples run against ---------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'ocs-docs-'));
let service: ChildProcess | undefined;
let serviceLog = '';
/** The example ports 4000 (the service), 4001–4005 (the examples' own starts and servers) → free ports here. */
const portMap = new Map<string, number>();

async function freePort(from: number, taken: Set<number>): Promise<number> {
  for (let port = from; port < from + 200; port++) {
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((ok) => {
      const probe = createServer();
      probe.once('error', () => ok(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => ok(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port');
}

function movePorts(text: string): string {
  return text.replace(/\b400([0-9])\b/g, (all) => String(portMap.get(all) ?? all));
}

/** The environment of a reader's shell: nothing of the test runner's (no NODE_ENV=test, no TEST_DATABASE_URL). */
function readerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'USER', 'SHELL', 'TERM']) if (process.env[name]) env[name] = process.env[name];
  env.npm_config_update_notifier = 'false';
  env.npm_config_loglevel = 'error'; // this machine's npm warns about its own configuration on every run
  return env;
}

beforeAll(async () => {
  const taken = new Set<number>();
  for (const example of ['4000', '4001', '4002', '4003', '4004', '4005']) {
    const port = await freePort(4310 + taken.size, taken);
    taken.add(port);
    portMap.set(example, port);
  }
  // a scratch checkout: every top-level entry links to this one, but data/ is its own (a fresh embedded database)
  for (const entry of readdirSync(root)) {
    if (entry === 'data' || entry === '.git') continue;
    symlinkSync(join(root, entry), join(work, entry));
  }
  // started as docs/getting-started.md's local opt-in says (WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start): the webhook
  // examples' receiver listens on 127.0.0.1, which the default refuses
  const env = { ...readerEnv(), PORT: String(portMap.get('4000')), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  service = spawn('npm', ['start'], { cwd: work, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout!.on('data', (c: Buffer) => (serviceLog += c.toString()));
  service.stderr!.on('data', (c: Buffer) => (serviceLog += c.toString()));
  for (let i = 0; i < 1800 && !serviceLog.includes('"msg":"listening"'); i++) {
    if (service.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!serviceLog.includes('"msg":"listening"')) throw new Error(`npm start did not listen:\n${serviceLog}`);
  // the operating examples start services of their own (most of this test's time): they run beside the other
  // pages, whose examples touch nothing they read
  for (const file of RUN_ALONGSIDE) {
    const run = runFile(file);
    run.catch(() => {}); // reported by the file's own test
    early.set(file, run);
  }
});

afterAll(async () => {
  if (service?.pid && service.exitCode === null) {
    try {
      process.kill(-service.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  rmSync(work, { recursive: true, force: true });
});

// --- running a file's examples ---------------------------------------------------------------------------

const RUN_ALONGSIDE = ['docs/operating.md'];
const early = new Map<string, Promise<Ran[]>>();

interface Ran {
  example: Example;
  output: string;
  errors: string[];
}

const SETUP = (() => {
  const setup = examples('README.md').filter((e) => e.attrs.includes('setup'));
  if (setup.length !== 1) throw new Error('README.md must hold exactly one ```sh runnable setup block');
  return setup[0]!;
})();

/** Runs a file's examples in order in one bash (like a reader's shell: variables carry from one to the next). */
async function runFile(file: string): Promise<Ran[]> {
  const all = examples(file).filter((e) => !(file === SETUP.file && e.line === SETUP.line));
  for (const e of all.filter((e) => !needsMet(e))) skipped.push(`${e.file}:${e.line} (${e.attrs.join(' ')})`);
  const list = all.filter(needsMet);
  const script = [
    'exec 2>&1',
    // job control, as in a reader's interactive shell: `kill %1` stops a background `npm start` with its children
    'set -m',
    `trap 'echo "@@ERR@@ line $LINENO: $BASH_COMMAND"' ERR`,
    movePorts(SETUP.code),
    ...list.flatMap((e, i) => [`printf '\\n@@BLOCK@@ ${i}\\n'`, movePorts(e.code)]),
    `printf '\\n@@BLOCK@@ end\\n'`,
    // the examples' own background starts end with the file
    'for job in $(jobs -p); do kill -- -$job 2>/dev/null; done; wait 2>/dev/null; true',
  ].join('\n');
  const path = join(work, `.examples-${file.replace(/\W/g, '_')}.sh`);
  writeFileSync(path, script);
  const output = await new Promise<string>((done, fail) => {
    const bash = spawn('bash', [path], { cwd: work, env: readerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    bash.stdout.on('data', (c: Buffer) => (text += c.toString()));
    bash.stderr.on('data', (c: Buffer) => (text += c.toString()));
    const timer = setTimeout(() => {
      bash.kill('SIGKILL');
      fail(new Error(`${file}: the examples did not finish in 100 s; output so far:\n${text.slice(-4000)}`));
    }, 100_000);
    bash.on('close', () => {
      clearTimeout(timer);
      done(text);
    });
  });
  const parts = output.split(/\n@@BLOCK@@ (\d+|end)\n/);
  const ran: Ran[] = [];
  const setupErrors = [...parts[0]!.matchAll(/^@@ERR@@ .*$/gm)].map((m) => m[0]);
  if (setupErrors.length) throw new Error(`${file}: the setup block failed:\n${parts[0]}`);
  for (let i = 1; i < parts.length; i += 2) {
    if (parts[i] === 'end') break;
    const example = list[Number(parts[i])]!;
    const text = parts[i + 1] ?? '';
    const errors = [...text.matchAll(/^@@ERR@@ .*$/gm)].map((m) => m[0]);
    // job control's notices ("[1]+  Terminated …") come whenever bash reaps a job: not the example's output
    const output = text.replace(/^@@ERR@@ .*\n?/gm, '').replace(/^\[\d+\][+-]?\s+(Terminated|Done|Killed|Exit \d+)\s.*\n?/gm, '');
    ran.push({ example, output, errors });
  }
  if (ran.length !== list.length)
    throw new Error(`${file}: only ${ran.length} of ${list.length} examples ran; output:\n${output.slice(-4000)}`);
  return ran;
}

function failures(ran: Ran[]): string[] {
  const out: string[] = [];
  for (const { example, output, errors } of ran) {
    const where = `${example.file}:${example.line}`;
    if (errors.length) out.push(`${where}: a command failed\n  ${errors.join('\n  ')}\n--- output ---\n${output}`);
    else if (example.expected !== undefined && !outputMatches(movePorts(example.expected), output))
      out.push(`${where}: printed something other than the docs show\n--- shown ---\n${example.expected}\n--- printed ---\n${output}`);
  }
  return out;
}

describe('the documentation', () => {
  it('keeps the README at most 200 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });

  it('marks every shell example runnable, and the README has the one setup block', () => {
    // `norun` only for the commands this test cannot run inside itself: installing, `npm start` (the test starts
    // it exactly so), the test suite, and installing another Node.js for the second CI run
    const NORUN_ALLOWED = /^([A-Z_]+=\S+\s+)*(npm install( && npm start)?|npm start|npm test|npx vitest run|npm install --prefix)\b/;
    const unmarked = DOC_FILES.flatMap((file) =>
      fences(readFileSync(join(root, file), 'utf8'))
        .filter((f) => SHELL_LANGS.has(f.lang) && !f.attrs.includes('runnable'))
        .filter(
          (f) =>
            !f.attrs.includes('norun') || f.code.split('\n').some((l) => l.trim() && !l.startsWith('#') && !NORUN_ALLOWED.test(l.trim())),
        )
        .map((f) => `${file}:${f.line}`),
    );
    expect(unmarked).toEqual([]);
    expect(SETUP.code).toContain('KEY=');
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of [...DOC_FILES, 'SECURITY.md']) {
      const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path ? resolve(dirname(join(root, file)), path) : join(root, file);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no file ${relative(root, resolved)})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !headingSlugs(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('cites the decisions of docs/decisions.md, never a CONTRACT.md outside the repository', () => {
    const cites: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (entry.name !== 'generated' && entry.name !== 'node_modules') walk(path);
        } else if (/\.(ts|mts|mjs|js|md)$/.test(entry.name) && path !== 'docs/decisions.md' && path !== 'test/docs/examples.test.ts') {
          readFileSync(join(root, path), 'utf8')
            .split('\n')
            .forEach((line, i) => /CONTRACT/.test(line) && cites.push(`${path}:${i + 1}`));
        }
      }
    };
    for (const dir of ['src', 'test', 'docs', 'agent', 'bench']) walk(dir);
    for (const file of ['README.md', 'SECURITY.md']) if (/CONTRACT/.test(readFileSync(join(root, file), 'utf8'))) cites.push(file);
    // after a merge: sed -i -E 's/CONTRACT ?(§[0-9]+)/docs\/decisions.md \1/g' on the files named
    expect(cites).toEqual([]);
  });

  it('compares shown output with placeholders', () => {
    expect(
      outputMatches(
        '{"id":"<id>","at":"<time>","n":<n>}',
        '{"id":"0b8e6a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b","at":"2026-03-09T13:30:00.000Z","n":3}',
      ),
    ).toBe(true);
    expect(outputMatches('{"state":"OPEN",…}', '{"state":"CLOSED","x":1}')).toBe(false);
    expect(outputMatches('a\n…\nz', 'a\nb\nc\nz')).toBe(true);
  });

  for (const file of DOC_FILES) {
    it(`runs every example of ${file} as shown`, async () => {
      if (examples(file).length === 0 && file !== 'README.md') return;
      const problems = failures(await (early.get(file) ?? runFile(file)));
      if (skipped.some((s) => s.startsWith(`${file}:`)))
        console.log(`skipped without TEST_DATABASE_URL/TEST_REDIS_URL: ${skipped.filter((s) => s.startsWith(`${file}:`)).join(', ')}`);
      expect(problems.join('\n\n')).toBe('');
    });
  }
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n ? `${base}-${n}` : base);
  }
  return slugs;
}
