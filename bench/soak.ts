// `npm run soak` (issue 39; not part of CI): the service as `npm start` runs it under a steady mixed load for a
// chosen time, on the embedded default or on PostgreSQL, to show what hours of it would do:
//   - availability and organization reads on both surfaces, closure writes with idempotency keys (one in four
//     sent twice: a replay), office-hours writes, live subscriptions opened and dropped, webhooks to a local
//     receiver (bench/receiver.mjs), call requests placed and worked by the reference runtime (agent/simulator.ts);
//   - every SOAK_SAMPLE_SECONDS: the service's RSS (from /proc) and heap in use (its /metrics; each minute's least,
//     the heap after a collection, is what the slope is drawn through), the database's size on
//     disk (the PGlite folder, or pg_database_size), the pending jobs (ocs_jobs_pending);
//   - per minute: p99 per request kind, errors (a 5xx, a refusal that is not a 429/503 with Retry-After, a
//     transport error), streams without a first event within 1 s and within 10 s;
//   - at the end: heap and RSS slopes (a least-squares line over the load after its first SOAK_WARMUP_MINUTES),
//     disk per minute, the heap SOAK_COOLDOWN_MINUTES after the load against its value before, the pending jobs
//     left, the webhooks delivered against those expected.
// Settings: SOAK_MINUTES (10), SOAK_RATE (100 requests a second, subscriptions and calls included),
// SOAK_POSTGRES_URL (an admin URL: the run uses a fresh database ocs_soak beside it; without it, a fresh PGlite
// folder), SOAK_WARMUP_MINUTES (2), SOAK_COOLDOWN_MINUTES (5), SOAK_SAMPLE_SECONDS (5). It prints a table per
// minute and a summary, and writes the summary as JSON to SOAK_OUT (bench/soak-result.json; ignored by git).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freshDemoDatabase, root, runScript, startScript, startService } from './lib.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 100);
const WARMUP_MINUTES = Number(process.env.SOAK_WARMUP_MINUTES ?? 2);
const COOLDOWN_MINUTES = Number(process.env.SOAK_COOLDOWN_MINUTES ?? 5);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5);
const POSTGRES_ADMIN = process.env.SOAK_POSTGRES_URL;
const OUT = process.env.SOAK_OUT ?? join(root, 'bench/soak-result.json');

/** What the demo data set gives the load (seed --json, or demo-credentials.json of a first start). */
interface Demo {
  organizations: Record<'account' | 'clinic' | 'clinic2', { id: string; apiKey: string }>;
  oauthClients: { clinic: { clientId: string; clientSecret: string } };
  bots: { clinic: string[] };
  phoneNumbers: { clinic: string[] };
}

/**
 * The kinds of request in the mix, with their share of SOAK_RATE (per cent): a dashboard's day, mostly reads,
 * writes a few a second (issue 39's run: about 0.9 idempotent replays and 1.5 calls a second).
 */
const MIX = {
  'rest availability': 36,
  'rest organization': 20,
  'graphql availability': 18,
  'graphql organization': 16.5,
  'closure write': 4,
  'office-hours write': 1,
  'call request': 1.5,
  subscription: 3,
} as const;
type Kind = keyof typeof MIX;
/** The kinds' column headings (p99 in ms per minute). */
const SHORT: Record<Kind, string> = {
  'rest availability': 'r.avail',
  'rest organization': 'r.org',
  'graphql availability': 'g.avail',
  'graphql organization': 'g.org',
  'closure write': 'closure',
  'office-hours write': 'hours',
  'call request': 'call',
  subscription: 'stream',
};
const KINDS = Object.keys(MIX) as Kind[];

/** One minute of the load. */
interface Minute {
  latencies: Map<Kind, number[]>;
  errors: number;
  errorSamples: string[];
  streams: number;
  noFirstIn1s: number;
  noFirstIn10s: number;
}

interface Sample {
  atMinute: number;
  rssMiB: number;
  heapMiB: number;
  diskMiB: number;
  pendingJobs: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const fmt = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : String(Math.round(x))) : '–');

function p99(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
}

/** Least-squares slope of y over x (per unit of x). */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}

const TABLE_SIZES = `SELECT relname AS name, pg_total_relation_size(relid)::float8 / 1048576 AS mib
  FROM pg_stat_user_tables WHERE schemaname = 'public'`;

/** Each table's size on disk with its indexes and TOAST (MiB), read from the database itself. */
async function tableSizes(pgClient: pg.Client | undefined, dataDir: string): Promise<Map<string, number>> {
  let rows: { name: string; mib: number }[];
  if (pgClient) rows = (await pgClient.query<{ name: string; mib: number }>(TABLE_SIZES)).rows;
  else {
    // the folder, while no service holds it
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir });
    rows = (await db.query<{ name: string; mib: number }>(TABLE_SIZES)).rows;
    await db.close();
  }
  return new Map(rows.map((r) => [r.name, Number(r.mib)]));
}

/** Each minute's sample with the least heap (the heap after a collection). */
function perMinuteLow(samples: Sample[]): Sample[] {
  const low = new Map<number, Sample>();
  for (const s of samples) {
    const m = Math.floor(s.atMinute);
    if (!low.has(m) || s.heapMiB < low.get(m)!.heapMiB) low.set(m, s);
  }
  return [...low.values()];
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function metric(text: string, name: string): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
    found = true;
  }
  return found ? total : NaN;
}

async function main(): Promise<void> {
  await runScript(['src/cli/build.mjs']); // what npm start runs, current
  const dir = mkdtempSync(join(tmpdir(), 'ocs-soak-'));
  const dataDir = join(dir, 'pglite');
  let demo: Demo;
  let databaseUrl: string;
  if (POSTGRES_ADMIN) {
    const fresh = await freshDemoDatabase<Demo>(POSTGRES_ADMIN, 'ocs_soak');
    demo = fresh.demo;
    databaseUrl = fresh.dbUrl;
  } else {
    databaseUrl = `pglite:${dataDir}`;
    const first = await startService({ DATABASE_URL: databaseUrl });
    await first.stop();
    demo = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8')) as Demo;
  }
  const tablesBefore = POSTGRES_ADMIN ? undefined : await tableSizes(undefined, dataDir);
  const receiver = await startScript('bench/receiver.mjs', []);
  const service = await startService({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' });
  const pgClient = POSTGRES_ADMIN ? new pg.Client({ connectionString: databaseUrl }) : undefined;
  await pgClient?.connect();
  const tablesAtStart = tablesBefore ?? (await tableSizes(pgClient, dataDir));
  const base = `http://127.0.0.1:${service.port}`;
  const clinic = demo.organizations.clinic;
  const headers = { authorization: `Bearer ${clinic.apiKey}`, 'content-type': 'application/json' };
  let runtime: ReturnType<typeof spawn> | undefined;
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return (JSON.parse(text) as { data: Record<string, unknown> }).data;
    };
    // the webhook: every closure and office-hours change of the clinic, to the receiver
    await call('POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:${receiver.port}/hooks/soak`,
      description: 'soak',
      eventTypes: ['closure.*', 'office_hours.*'],
    });
    const closures: string[] = [];
    for (let i = 0; i < 20; i++) {
      const made = await call('POST', `/v1/organizations/${clinic.id}/closures`, {
        description: `Soak ${i}`,
        annualDate: { month: 1 + (i % 12), day: 1 + i },
        chatGreeting: null,
        phoneGreeting: null,
      });
      closures.push(String(made.id));
    }
    runtime = spawn(process.execPath, ['--import', 'tsx', 'agent/simulator.ts', '--simulate', '--url', base, '--poll-ms', '500'], {
      cwd: root,
      env: {
        ...process.env,
        AGENT_CLIENT_ID: demo.oauthClients.clinic.clientId,
        AGENT_CLIENT_SECRET: demo.oauthClients.clinic.clientSecret,
        AGENT_AUDIENCE: `${base}/v1`, // the service's default audience on its address
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let callsWorked = 0;
    runtime.stdout?.on('data', (d) => (callsWorked += String(d).split('\n').filter(Boolean).length));
    let runtimeErr = '';
    runtime.stderr?.on('data', (d) => (runtimeErr = (runtimeErr + String(d)).slice(-2000)));

    const samples: Sample[] = [];
    let started = performance.now();
    const minuteOf = () => (performance.now() - started) / 60_000;
    const sample = async (atMinute: number): Promise<Sample> => {
      const metricsText = await (await fetch(`${base}/metrics`)).text();
      const diskBytes = pgClient
        ? Number((await pgClient.query<{ size: string }>('SELECT pg_database_size(current_database())::text AS size')).rows[0]!.size)
        : folderBytes(dataDir);
      return {
        atMinute,
        rssMiB: rssMiB(service.child.pid!),
        heapMiB: metric(metricsText, 'nodejs_heap_size_used_bytes') / 2 ** 20,
        diskMiB: diskBytes / 2 ** 20,
        pendingJobs: metric(metricsText, 'ocs_jobs_pending'),
      };
    };
    /**
     * The heap in use swings with every collection; what stays is its low point, right after one. So an idle
     * figure is the least of samples every 2 s for `seconds`, and the slopes are drawn through each minute's least.
     */
    const idleSample = async (seconds: number): Promise<Sample> => {
      const taken: Sample[] = [];
      for (let i = 0; i < seconds / 2; i++) {
        taken.push(await sample(minuteOf()));
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      return taken.reduce((low, s) => (s.heapMiB < low.heapMiB ? s : low));
    };
    const before = await idleSample(30);
    started = performance.now(); // the load's minutes count from here
    log(`before the load: RSS ${fmt(before.rssMiB)} MiB, heap ${fmt(before.heapMiB)} MiB, disk ${fmt(before.diskMiB)} MiB`);

    const minutes: Minute[] = [];
    const minute = (i: number): Minute =>
      (minutes[i] ??= { latencies: new Map(), errors: 0, errorSamples: [], streams: 0, noFirstIn1s: 0, noFirstIn10s: 0 });
    const record = (kind: Kind, startedAt: number, ok: boolean, detail?: string) => {
      const m = minute(Math.floor((startedAt - started) / 60_000));
      if (!ok) {
        m.errors++;
        if (detail && m.errorSamples.length < 3) m.errorSamples.push(`${kind}: ${detail}`);
        return;
      }
      let list = m.latencies.get(kind);
      if (!list) m.latencies.set(kind, (list = []));
      list.push(performance.now() - startedAt);
    };
    /** A refusal the load may meet (a budget, a full queue) is not an error; anything else not 2xx is. */
    const acceptable = (res: Response) => res.ok || ((res.status === 429 || res.status === 503) && res.headers.has('retry-after'));

    let n = 0;
    const timed = async (kind: Kind, init: { path: string; method?: string; body?: unknown; headers?: Record<string, string> }) => {
      const at = performance.now();
      try {
        const res = await fetch(`${base}${init.path}`, {
          method: init.method ?? 'GET',
          headers: { ...headers, ...init.headers },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        const text = await res.text();
        const graphqlErrors = init.path === '/graphql' && res.ok && text.includes('"errors"');
        record(kind, at, acceptable(res) && !graphqlErrors, `${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        record(kind, at, false, String(err));
      }
    };
    const subscribe = async () => {
      const at = performance.now();
      const m = minute(Math.floor((at - started) / 60_000));
      m.streams++;
      const controller = new AbortController();
      const giveUp = setTimeout(() => controller.abort(), 10_000);
      let first = NaN;
      try {
        const res = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { ...headers, accept: 'text/event-stream' },
          body: JSON.stringify({
            query: 'subscription ($o: ID!) { availabilityChanged(orgId: $o, medium: PHONE) { state nextChangeAt } }',
            variables: { o: clinic.id },
          }),
          signal: controller.signal,
        });
        if (!res.ok || !res.body) {
          record('subscription', at, acceptable(res), `${res.status}`);
          return;
        }
        const reader = res.body.getReader();
        let text = '';
        while (!text.includes('event: next')) {
          const { done, value } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString('utf8');
        }
        if (text.includes('event: next')) {
          first = performance.now() - at;
          record('subscription', at, true);
        }
        // hold the stream a little, as a dashboard would between views, then drop it
        await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 2000));
        controller.abort();
      } catch (err) {
        if (!controller.signal.aborted) record('subscription', at, false, String(err));
      } finally {
        clearTimeout(giveUp);
        controller.abort();
        if (!(first <= 1000)) m.noFirstIn1s++;
        if (!(first <= 10_000)) m.noFirstIn10s++;
      }
    };
    const send = (kind: Kind) => {
      const i = n++;
      switch (kind) {
        case 'rest availability':
          return timed(kind, {
            path: `/v1/organizations/${clinic.id}/availability?medium=PHONE&phoneNumberId=${demo.phoneNumbers.clinic[0]}`,
          });
        case 'rest organization':
          return timed(kind, { path: `/v1/organizations/${clinic.id}` });
        case 'graphql availability':
          return timed(kind, {
            path: '/graphql',
            method: 'POST',
            body: {
              query: 'query ($o: ID!) { organization(id: $o) { availability(medium: CHAT) { state nextChangeAt } } }',
              variables: { o: clinic.id },
            },
          });
        case 'graphql organization':
          return timed(kind, {
            path: '/graphql',
            method: 'POST',
            body: { query: 'query ($o: ID!) { organization(id: $o) { id name timezone } }', variables: { o: clinic.id } },
          });
        case 'closure write': {
          // one write in four is sent again with its key: the replay answers what the first did
          const key = `soak-${Math.floor(i / 2)}-${i % 8 < 2 ? 'r' : i}`;
          return timed(kind, {
            path: `/v1/organizations/${clinic.id}/closures/${closures[i % closures.length]}`,
            method: 'POST',
            body: { description: `Soak ${i}`, annualDate: { month: 1 + (i % 12), day: 1 + (i % 28) } },
            headers: { 'idempotency-key': key },
          });
        }
        case 'office-hours write':
          return timed(kind, {
            path: `/v1/organizations/${clinic.id}/office-hours`,
            method: 'POST',
            body: { dayOfWeek: 'SATURDAY', isClosed: false, open: i % 2 ? '09:00' : '10:00', close: '13:00', breaks: [] },
          });
        case 'call request':
          return timed(kind, {
            path: '/v1/call-requests',
            method: 'POST',
            body: { botId: demo.bots.clinic[0], phoneNumberId: demo.phoneNumbers.clinic[0], to: '+15005550006' },
          });
        case 'subscription':
          return subscribe();
      }
    };

    // the mix, spread evenly: each tick sends what its share owes
    const totalWeight = KINDS.reduce((a, k) => a + MIX[k], 0);
    const owed = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
    const inFlight = new Set<Promise<unknown>>();
    const endAt = started + MINUTES * 60_000;
    let lastTick = performance.now();
    let nextSample = started + SAMPLE_SECONDS * 1000;
    let printed = 0;
    while (performance.now() < endAt) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const now = performance.now();
      const dt = (now - lastTick) / 1000;
      lastTick = now;
      for (const kind of KINDS) {
        let due = owed.get(kind)! + (RATE * MIX[kind] * dt) / totalWeight;
        for (; due >= 1; due--) {
          const p = send(kind).finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        owed.set(kind, due);
      }
      if (now >= nextSample) {
        nextSample += SAMPLE_SECONDS * 1000;
        void sample(minuteOf()).then((s) => samples.push(s));
      }
      const done = Math.floor((now - started) / 60_000);
      for (; printed < done; printed++) printMinute(printed, minutes[printed], samples);
    }
    await Promise.allSettled([...inFlight]);
    const loadEnd = minuteOf();
    const atEnd = await sample(loadEnd);
    printMinute(printed, minutes[printed], samples);
    log(`load done; cooling down ${COOLDOWN_MINUTES} min…`);
    runtime.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, COOLDOWN_MINUTES * 60_000 - 30_000)));
    const after = await idleSample(30);

    const steady = samples.filter((s) => s.atMinute >= WARMUP_MINUTES && s.atMinute <= loadEnd);
    const stats = (await (await fetch(`http://127.0.0.1:${receiver.port}/stats`)).json()) as { count: number; distinct: number };
    const all = minutes.filter(Boolean);
    const summary = {
      database: POSTGRES_ADMIN ? 'postgresql' : 'embedded',
      minutes: MINUTES,
      rate: RATE,
      requests: all.reduce((a, m) => a + [...m.latencies.values()].reduce((b, l) => b + l.length, 0) + m.errors, 0),
      errors: all.reduce((a, m) => a + m.errors, 0),
      streams: all.reduce((a, m) => a + m.streams, 0),
      streamsWithoutFirstEventIn1s: all.reduce((a, m) => a + m.noFirstIn1s, 0),
      streamsWithoutFirstEventIn10s: all.reduce((a, m) => a + m.noFirstIn10s, 0),
      heapSlopeMiBPerMin: slope(perMinuteLow(steady).map((s) => [s.atMinute, s.heapMiB])),
      rssSlopeMiBPerMin: slope(steady.map((s) => [s.atMinute, s.rssMiB])),
      diskMiBPerMin: slope(steady.map((s) => [s.atMinute, s.diskMiB])),
      heapMiB: { before: before.heapMiB, end: atEnd.heapMiB, after: after.heapMiB },
      rssMiB: { before: before.rssMiB, end: atEnd.rssMiB, after: after.rssMiB },
      diskMiB: { before: before.diskMiB, end: atEnd.diskMiB, after: after.diskMiB },
      pendingJobs: { before: before.pendingJobs, end: atEnd.pendingJobs, after: after.pendingJobs },
      webhooks: stats,
      callsWorked,
      // where the embedded folder's bytes are: the tables (base) or the write-ahead log (pg_wal)
      folderMiB: pgClient
        ? undefined
        : Object.fromEntries(['base', 'pg_wal'].map((part) => [part, folderBytes(join(dataDir, part)) / 2 ** 20])),
      jobsByKind: pgClient
        ? Object.fromEntries(
            (
              await pgClient.query<{ kind: string; n: number }>(
                'SELECT kind, count(*)::int AS n FROM "Job" WHERE "failedAt" IS NULL GROUP BY kind',
              )
            ).rows.map((r) => [r.kind, r.n]),
          )
        : undefined,
      p99ByKind: Object.fromEntries(KINDS.map((k) => [k, p99(all.flatMap((m) => m.latencies.get(k) ?? []))])),
      errorSamples: all.flatMap((m) => m.errorSamples).slice(0, 10),
    };
    writeFileSync(OUT, JSON.stringify({ summary, samples }, null, 2));
    log('');
    log(JSON.stringify(summary, null, 2));
    const heapBack = (after.heapMiB - before.heapMiB) / before.heapMiB;
    log('');
    log(
      `heap slope ${summary.heapSlopeMiBPerMin.toFixed(3)} MiB/min (goal < 0.1); heap after the cool-down ${fmt(after.heapMiB)} MiB vs ${fmt(before.heapMiB)} before (${(heapBack * 100).toFixed(1)} %, goal within 10 %)`,
    );
    log(
      `disk ${summary.diskMiBPerMin.toFixed(2)} MiB/min; pending jobs ${after.pendingJobs} after (${before.pendingJobs} before); streams without a first event in 1 s: ${summary.streamsWithoutFirstEventIn1s} of ${summary.streams}; errors ${summary.errors}`,
    );
    log(`runtime stderr (tail): ${runtimeErr}`);
    await service.stop();
    // what the load left on disk, per table (with its indexes), and per 1,000 requests of it
    const tablesAtEnd = await tableSizes(pgClient, dataDir);
    const requests = Math.max(1, summary.requests);
    const growth = [...tablesAtEnd]
      .map(([name, mib]) => ({ name, mib, grew: mib - (tablesAtStart.get(name) ?? 0) }))
      .sort((a, b) => b.grew - a.grew)
      .slice(0, 12);
    log('');
    log('table                        MiB now   grew  KiB per 1,000 requests');
    for (const t of growth)
      log(
        `${t.name.padEnd(28)} ${fmt(t.mib).padStart(7)} ${fmt(t.grew).padStart(6)}  ${fmt((t.grew * 1024 * 1000) / requests).padStart(8)}`,
      );
  } finally {
    runtime?.kill('SIGKILL');
    await pgClient?.end();
    await Promise.all([service.stop(), receiver.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

function printMinute(i: number, m: Minute | undefined, samples: Sample[]): void {
  if (i === 0) log(`min  ${KINDS.map((k) => SHORT[k].padStart(7)).join(' ')}  errors  no1st/streams   rss  heap  disk  jobs`);
  const s = samples.filter((x) => x.atMinute <= i + 1).at(-1);
  const cells = KINDS.map((k) => fmt(p99(m?.latencies.get(k) ?? [])).padStart(7));
  log(
    `${String(i + 1).padStart(3)}  ${cells.join(' ')}  ${String(m?.errors ?? 0).padStart(6)}  ${`${m?.noFirstIn1s ?? 0}/${m?.streams ?? 0}`.padStart(13)}  ${fmt(s?.rssMiB ?? NaN).padStart(4)}  ${fmt(s?.heapMiB ?? NaN).padStart(4)}  ${fmt(s?.diskMiB ?? NaN).padStart(4)}  ${String(s?.pendingJobs ?? '').padStart(4)}`,
  );
  if (m?.errorSamples.length) for (const e of m.errorSamples) log(`     ${e}`);
}

main().catch((err: unknown) => {
  log(String(err instanceof Error ? (err.stack ?? err.message) : err));
  process.exitCode = 1;
});
