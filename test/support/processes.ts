// Runs the service's own commands as real processes (the e2e tests): `node --import tsx <script>`.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLimits } from '../../src/cli/startLimits.mjs';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script of the project to completion. */
export function runScript(script: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: projectRoot,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningServer {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The Node.js flags `npm start` runs the service with (src/cli/startLimits.mjs), for the tests and the benchmark. */
export function startFlags(): string[] {
  return startLimits().nodeFlags;
}

/** The environment `npm start` sets (MALLOC_ARENA_MAX, and the mark that start.mjs need not start again). */
export function startEnv(): Record<string, string> {
  return startLimits().env;
}

/**
 * Starts the service as `npm start` does (the compiled dist/server.js, through src/cli/start.mjs) on a
 * free port of 127.0.0.1 and waits for its `listening` log line. `dist/` is built once by globalSetup.
 */
export function startServer(env: Record<string, string>, timeoutMs = 90_000): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...startFlags(), 'src/cli/start.mjs'], {
      cwd: projectRoot,
      env: { ...process.env, ...startEnv(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`server did not start\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      // looked for until found: the output grows with every request's log line, and matching all of it again
      // at each chunk is work for the test's process exactly while it measures the service
      if (settled) return;
      const match = /"msg":"listening","address":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(stdout);
      if (match) {
        settled = true;
        clearTimeout(timer);
        const port = Number(match[1]);
        resolve({
          child,
          port,
          baseUrl: `http://127.0.0.1:${port}`,
          output: () => ({ stdout, stderr }),
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before listening\n${stdout}\n${stderr}`));
      }
    });
  });
}
