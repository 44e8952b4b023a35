// Sends fuzzed requests through the app's fetch handler and checks each answer (oracle.ts), that no
// error was logged as unhandled, and that the database changed only where a write succeeded: the
// per-table checksums are read after every request, so each request is compared with the state the
// previous one left. `runFuzz` runs a fast-check property and, on failure, throws the shrunk request
// as a curl command, with the seed and path that replay it.
import fc from 'fast-check';
import { changedTables, type ChecksumReader, type TableChecksums } from '../tableChecksums.js';
import { answerProblems, type Answer } from './oracle.js';
import { curlCommand, encodeRequest, toFetchRequest, type FuzzRequest, type Resolver } from './request.js';
import type { FuzzTarget } from './target.js';

export interface FetchHandler {
  fetch(request: Request): Response | Promise<Response>;
}

export interface FuzzRunnerOptions {
  app: FetchHandler;
  resolver: Resolver;
  targets: readonly FuzzTarget[];
  checksums: ChecksumReader;
  /** Error log entries written while the app answered (unhandled errors), drained after each request. */
  drainLoggedErrors(): string[];
  /**
   * Called after each checked request; restores a fixture the request removed (a deleted closure) so that
   * later requests can still succeed. Returns true when it wrote to the database.
   */
  restoreFixtures?(req: FuzzRequest, status: number): Promise<boolean>;
}

export class FuzzProblem extends Error {}

/** Counts per target and status, for the summary and for the coverage assertions. */
export class FuzzStats {
  requests = 0;
  readonly byTarget = new Map<string, Map<number, number>>();
  record(target: string, status: number): void {
    this.requests++;
    const statuses = this.byTarget.get(target) ?? new Map<number, number>();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    this.byTarget.set(target, statuses);
  }
  count(target: string, predicate: (status: number) => boolean = () => true): number {
    let n = 0;
    for (const [status, c] of this.byTarget.get(target) ?? []) if (predicate(status)) n += c;
    return n;
  }
  summary(): string {
    const rows = [...this.byTarget.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([target, statuses]) =>
          `  ${target}: ${[...statuses.entries()]
            .sort(([a], [b]) => a - b)
            .map(([s, c]) => `${s}×${c}`)
            .join(' ')}`,
      );
    return rows.join('\n');
  }
}

/**
 * Only a successful write may change the database: a 2xx REST request with a write method (whatever
 * the target: a transport change may turn a GET into a DELETE), or a mutation with a result.
 */
function mayChangeDatabase(target: FuzzTarget, req: FuzzRequest, answer: Answer, body: unknown): boolean {
  if (answer.status >= 300) return false;
  if (target.surface === 'graphql') {
    const data = (body as { data?: Record<string, unknown> | null } | undefined)?.data;
    return target.writes && !!data && Object.values(data).some((v) => v !== null);
  }
  return target.surface === 'rest' && req.method !== 'GET';
}

export function createFuzzRunner(o: FuzzRunnerOptions) {
  const stats = new FuzzStats();
  let last: { marker: string; checksums: TableChecksums } | undefined;
  /** The checksums now: read again only when a transaction id was assigned since the last reading. */
  async function snapshot(): Promise<{ marker: string; checksums: TableChecksums }> {
    const marker = await o.checksums.writeMarker();
    if (last && last.marker === marker) return last;
    return { marker, checksums: await o.checksums.read() };
  }
  const targets = new Map(o.targets.map((t) => [t.name, t]));

  async function send(req: FuzzRequest): Promise<void> {
    const before = last ?? (await snapshot());
    const encoded = encodeRequest(req, o.resolver);
    const response = await o.app.fetch(toFetchRequest(encoded));
    const answer: Answer = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
    stats.record(req.target, answer.status);
    const after = await snapshot();
    last = after;
    const problems: string[] = [];
    const target = targets.get(req.target);
    if (!target) throw new Error(`unknown fuzz target ${req.target}`);
    problems.push(...answerProblems(target, new URL(encoded.url), answer));
    problems.push(...o.drainLoggedErrors().map((e) => `logged: ${e}`));
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    const changed = changedTables(before.checksums, after.checksums);
    if (changed.length > 0 && !mayChangeDatabase(target, req, answer, body))
      problems.push(`the database changed (${changed.join(', ')}) although the request was refused or read-only`);
    if (problems.length > 0) {
      throw new FuzzProblem(`${problems.join('; ')}\n  answer: ${answer.status} ${answer.text.slice(0, 500)}`);
    }
    if (await o.restoreFixtures?.(req, answer.status)) last = undefined;
  }

  return { stats, send, resolver: o.resolver };
}

export type FuzzRunner = ReturnType<typeof createFuzzRunner>;

export interface FuzzSettings {
  /** The test's name, for the replay command (`-t`). */
  test: string;
  seed: number;
  numRuns: number;
  /** fast-check's path of a failing case, to replay it alone (FUZZ_PATH). */
  path?: string;
}

/** Runs the property; on failure throws the shrunk request as a curl command with how to replay it. */
export async function runFuzz(runner: FuzzRunner, arbitrary: fc.Arbitrary<FuzzRequest>, settings: FuzzSettings): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arbitrary, (req) => runner.send(req)),
    {
      seed: settings.seed,
      numRuns: settings.numRuns,
      ...(settings.path ? { path: settings.path } : {}),
      endOnFailure: false,
      maxSkipsPerRun: 0,
    },
  );
  if (!details.failed) return;
  const req = details.counterexample?.[0];
  const lines = [
    `Fuzzing failed after ${details.numRuns} requests (${details.numShrinks} shrinks). To replay the shrunk case alone:`,
    `  FUZZ_SEED=${details.seed} FUZZ_RUNS=${settings.numRuns} FUZZ_PATH=${details.counterexamplePath} npx vitest run --config test/vitest.config.ts test/api/fuzz.test.ts -t '${settings.test}'`,
    `Problem: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
  ];
  if (req) {
    lines.push(
      `Target: ${req.target}`,
      `Request: ${fc.stringify(req).slice(0, 2000)}`,
      "As curl (BASE=http://127.0.0.1:4000, ids of this run's demo data):",
      curlCommand(encodeRequest(req, runner.resolver)),
    );
  }
  throw new Error(lines.join('\n'));
}
