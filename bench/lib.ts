// What the benchmark is built from: processes (the service as `npm start` runs it, the baselines, the
// health probe), load (autocannon in this process: the service always runs in its own), and statistics.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEnv, startFlags } from '../test/support/processes.js';

/** What bench/run.ts hands a part run in its own module (the flows, the large account): settings, a log and the report. */
export interface BenchPart {
  postgresAdmin: string;
  seconds: number;
  rounds: number;
  connections: number;
  log(line: string): void;
  report: string[];
  target(name: string, value: string, goal: string, met: boolean): void;
}

export const root = new URL('..', import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Running {
  child: ChildProcess;
  port: number;
  /** Milliseconds from spawning the process to its first 200 on /healthz (the service) or its listening line. */
  startMs: number;
  output(): string;
  stop(): Promise<void>;
}

function collect(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return () => output;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
}

/** The service exactly as `npm start` runs it (the compiled build), timed to its first 200 on /healthz. */
export async function startService(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_SERVICE_FLAGS: more Node flags for the service (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof to profile it)
  const extra = (process.env.BENCH_SERVICE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...startFlags(), ...extra, 'src/cli/start.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      ...startEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (performance.now() - started > 120_000) throw new Error(`the service did not answer within 120 s:\n${output()}`);
  }
  return { child, port, startMs: performance.now() - started, output, stop: stopper(child) };
}

/** A script of bench/ (run with tsx) that prints {"msg":"listening","port":…}. */
export function startScript(script: string, args: string[], env: Record<string, string> = {}): Promise<Running> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /\{"msg":"listening","port":(\d+)\}/.exec(output());
      if (m) resolve({ child, port: Number(m[1]), startMs: performance.now() - started, output, stop: stopper(child) });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output()}`)));
  });
}

/** Runs a script to its end and answers its stdout. */
export function runScript(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited with ${code}:\n${err}`))));
  });
}

/**
 * A fresh PostgreSQL database `name` beside the admin connection's, migrated and holding the demo data set
 * (`seed --json`'s answer, typed by the caller).
 */
export async function freshDemoDatabase<Demo>(postgresAdmin: string, name: string): Promise<{ dbUrl: string; demo: Demo }> {
  const admin = new pg.Client({ connectionString: postgresAdmin });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresAdmin);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  await runScript(['dist/cli/migrate.js', 'apply'], { DATABASE_URL: dbUrl });
  const demo = JSON.parse(await runScript(['dist/cli/seed.js', '--json'], { DATABASE_URL: dbUrl })) as Demo;
  return { dbUrl, demo };
}

/** Peak resident set size of a process so far (VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export interface Request {
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** Requests that vary (each is used in turn); `path` is then only the first. */
  variants?: string[];
  /**
   * Where the turn over `variants` stands, kept across loads: each load goes on where the previous one
   * stopped (without it, each starts again at the first).
   */
  rotation?: { turn: number };
}

export interface LoadResult {
  /** Answers with a 2xx status per second (goodput). */
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers that were neither 2xx nor a 503 carrying Retry-After. */
  badRefusals: number;
  /** 503s (with Retry-After). */
  refused: number;
}

/** How a load runs besides its request, connections and length. */
export interface LoadOptions {
  /** Every answer that is not a 2xx is looked at (costs the load generator a little). */
  checkRefusals?: boolean;
  /** Requests per second over all connections (default: as fast as the server answers). */
  rate?: number;
  /** The load stops when this settles, or after its seconds, whichever is first. */
  until?: Promise<unknown>;
}

/** Loads the server at `port` for at most `seconds`. */
export async function load(
  port: number,
  req: Request,
  connections: number,
  seconds: number,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const { checkRefusals = false, rate, until } = options;
  let badRefusals = 0;
  let refused = 0;
  const rotation = req.rotation ?? { turn: 0 };
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    timeout: 10,
    requests: [
      {
        method: req.method ?? 'GET',
        path: req.path,
        ...(req.body ? { body: req.body } : {}),
        headers: req.headers ?? {},
        ...(req.variants
          ? { setupRequest: (r: { path: string }) => ({ ...r, path: req.variants![rotation.turn++ % req.variants!.length]! }) }
          : {}),
        ...(checkRefusals
          ? {
              onResponse: (status: number, _body: string, _context: unknown, headers?: Record<string, string>) => {
                if (status >= 200 && status < 300) return;
                const retryAfter = Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'retry-after');
                if (status === 503 && retryAfter) refused++;
                else badRefusals++;
              },
            }
          : {}),
      },
    ],
  } as autocannon.Options) as unknown as Promise<autocannon.Result> & { stop(): void };
  void until?.finally(() => run.stop());
  const result = await run;
  return {
    rps: result['2xx'] / Math.min(seconds, result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    badRefusals,
    refused,
  };
}

/** A /v1 caller of the service at `port` with an API key: answers the envelope's data, throws on a refusal. */
export function restCaller(port: number, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  };
  return { headers, call };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Milliseconds of `n` sequential requests, median. */
export async function sequentialMedianMs(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}
