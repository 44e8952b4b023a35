// `npm run bench`: the service as `npm start` runs it (compiled), loaded over loopback by autocannon from
// this process, side by side with the least work that answers the same question (bench/baseline.ts) in
// the same run. Rounds alternate between the service and its baseline so that machine noise hits both;
// medians are reported, with their ratios. Prints the tables and writes bench/RESULTS.md.
//   BENCH_SECONDS (5) per round, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_OVERLOAD_CONNECTIONS (400),
//   BENCH_OVERLOAD_ROUNDS (3: 10-s runs at 400 connections per route, alternating with runs at 50),
//   BENCH_POSTGRES_URL (postgresql://postgres@127.0.0.1:5432/postgres: an ocs_bench database is made there;
//   the PostgreSQL part is skipped when it does not answer), BENCH_LARGE_LOCATIONS (20,000: the large-account
//   part, bench/largeAccount.ts, on PostgreSQL), BENCH_ONLY=large-account (that part alone), BENCH_ONLY=flows
//   (webhooks, calls and the calling-policy change, bench/flows.ts, on PostgreSQL, alone; with BENCH_FLOWS=webhooks,
//   calls or policy, that one only, calls with the policy change), BENCH_ONLY=governance (transcript reads and turn
//   writes, bench/governance.ts, then a retention purge under load, bench/retentionPurge.ts, on PostgreSQL, alone;
//   BENCH_GOVERNANCE=speed or purge, that one only), BENCH_ONLY=embedded or BENCH_ONLY=postgres (that
//   part alone); a part run alone prints its targets and leaves bench/RESULTS.md as it is. BENCH_DATABASE (ocs_bench)
//   names the PostgreSQL part's database, BENCH_LARGE_DATABASE (ocs_bench_large) the large-account part's and
//   BENCH_FLOWS_DATABASE (ocs_bench_flows) the flows part's: runs side by side must not drop each other's.
//   BENCH_SERVICE_FLAGS: more Node flags for the service processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { flowsPart } from './flows.js';
import { governancePart } from './governance.js';
import { largeAccountPart } from './largeAccount.js';
import { retentionPurgePart } from './retentionPurge.js';
import {
  load,
  type LoadResult,
  median,
  peakRssMiB,
  type Request,
  root,
  runScript,
  type Running,
  sequentialMedianMs,
  startScript,
  startService,
} from './lib.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const overloadConnections = Number(process.env.BENCH_OVERLOAD_CONNECTIONS ?? 400);
const overloadRounds = Number(process.env.BENCH_OVERLOAD_ROUNDS ?? 3);
const postgresAdmin = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const benchDatabase = process.env.BENCH_DATABASE ?? 'ocs_bench';

const log = (line: string) => process.stderr.write(`${line}\n`);
const report: string[] = [];
const targets: { name: string; value: string; target: string; met: boolean }[] = [];
const target = (name: string, value: string, goal: string, met: boolean) => targets.push({ name, value, target: goal, met });

interface Demo {
  organizations: Record<'account' | 'clinic' | 'clinic2' | 'other', { id: string; apiKey: string }>;
  phoneNumbers: { clinic: string[] };
}

interface Scenario {
  name: string;
  on: () => Running;
  request: Request;
}

/** Runs scenarios in alternating rounds; answers the median result of each. */
async function compare(scenarios: Scenario[], conns = connections): Promise<Map<string, LoadResult & { p99s: number[] }>> {
  const runs = new Map<string, LoadResult[]>();
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios) {
      const r = await load(s.on().port, s.request, conns, seconds);
      if (r.non2xx + r.errors > 0) log(`  ! ${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      (runs.get(s.name) ?? runs.set(s.name, []).get(s.name)!).push(r);
      log(`round ${round + 1}/${rounds} ${s.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
    }
  }
  const out = new Map<string, LoadResult & { p99s: number[] }>();
  for (const [name, rs] of runs) {
    out.set(name, {
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      p99s: rs.map((r) => r.p99),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      timeouts: rs.reduce((a, r) => a + r.timeouts, 0),
      badRefusals: rs.reduce((a, r) => a + r.badRefusals, 0),
      refused: rs.reduce((a, r) => a + r.refused, 0),
    });
  }
  return out;
}

function table(title: string, rows: [string, LoadResult, string][]): void {
  report.push(
    `### ${title}`,
    '',
    '| scenario | req/s (median) | ratio | p50 ms | p99 ms | non-2xx + errors |',
    '|---|---:|---|---:|---:|---:|',
    ...rows.map(([name, r, ratio]) => `| ${name} | ${Math.round(r.rps)} | ${ratio} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} |`),
    '',
  );
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** The rows of `overload` under their heading. */
function overloadTable(database: string, rows: string[]): void {
  report.push(
    `### ${database}: ${overloadConnections} connections for 10 s, ${overloadRounds} rounds`,
    '',
    `| route | 2xx/s (median) | vs 50 connections (median of the rounds; each against the mean of the 50-connection runs before and after it) | p99 ms (median) | timeouts | 503 + Retry-After | other refusals | /healthz p50 / p99 / max ms, worst round (requests, all rounds) |`,
    '|---|---:|---|---:|---:|---:|---:|---|',
    ...rows,
    '',
  );
}

/**
 * 400 connections on a route for 10 s while a separate process asks /healthz: goodput, refusals, health latency.
 * Each 400-connection run is compared with the 50-connection goodput measured right before and right after
 * it (their mean): this machine's speed drifts over minutes, and a figure from another part of the run
 * compares two different machines. One 10-s run swings by ±10 % here (2 cores shared with the load
 * generator), so there are `overloadRounds` of them, 50 and 400 alternating, and the median ratio is
 * reported, as every other scenario reports a median; timeouts and refusals are summed over the rounds, and
 * `/healthz` is reported from its worst round.
 */
/**
 * The same overload runs against the constant-JSON baseline (bench/baseline.ts): what the machine, Node and
 * the load generator lose at 400 connections with no work of ours at all. Measured once per run, in the
 * first part that asks, and shown beside every goodput ratio (its row in each overload table).
 */
let baselineOverload: Promise<{ ratio: number; row: string }> | undefined;
function overloadBaseline(constant: Running): Promise<{ ratio: number; row: string }> {
  baselineOverload ??= overloadRuns(constant, 'node:http, constant JSON (baseline)', { path: '/' }).then(({ ratio, row }) => ({
    ratio,
    row,
  }));
  return baselineOverload;
}

async function overload(service: Running, database: string, route: string, request: Request, baseline: { ratio: number }): Promise<string> {
  const name = `${database}: ${route}`;
  const { ratio, runs, row } = await overloadRuns(service, name, request, route);
  const sum = (f: (r: LoadResult) => number) => runs.reduce((a, x) => a + f(x.r), 0);
  const timeouts = sum((r) => r.timeouts);
  const badRefusals = sum((r) => r.badRefusals);
  const worst = runs.reduce((a, x) => (x.health.p99 > a.p99 ? x.health : a), runs[0]!.health);
  target(
    `${name}: ${overloadConnections} connections, goodput vs 50`,
    `${ratio.toFixed(2)}× (baseline ${baseline.ratio.toFixed(2)}×)`,
    '≥ 0.80×',
    ratio >= 0.8,
  );
  target(`${name}: ${overloadConnections} connections, timeouts`, String(timeouts), '0', timeouts === 0);
  target(`${name}: ${overloadConnections} connections, refusals other than 503 + Retry-After`, String(badRefusals), '0', badRefusals === 0);
  target(`${name}: /healthz p99 meanwhile (worst round)`, `${worst.p99} ms`, '< 100 ms', worst.p99 < 100);
  return row;
}

async function overloadRuns(service: Running, name: string, request: Request, route = name) {
  // the same load generator work on every run (each answer's status and headers looked at), and the
  // /healthz probe started and its first answer in before the 400 connections start, so that neither
  // lands on the overloaded runs alone and biases the ratio
  let previous = await load(service.port, request, connections, seconds, { checkRefusals: true });
  const runs: { r: LoadResult; ratio: number; at50: number; health: ProbeResult }[] = [];
  for (let round = 0; round < overloadRounds; round++) {
    const probe = await startProbe(service.port, 10);
    const r = await load(service.port, request, overloadConnections, 10, { checkRefusals: true });
    const health = await probe.result;
    const next = await load(service.port, request, connections, seconds, { checkRefusals: true });
    const at50 = (previous.rps + next.rps) / 2;
    runs.push({ r, ratio: r.rps / at50, at50, health });
    log(
      `overload round ${round + 1}/${overloadRounds} ${name}: ${Math.round(r.rps)} 2xx/s = ${(r.rps / at50).toFixed(2)}× of ${Math.round(at50)}, /healthz p99 ${health.p99} ms`,
    );
    previous = next;
  }
  const ratio = median(runs.map((x) => x.ratio));
  const sum = (f: (r: LoadResult) => number) => runs.reduce((a, x) => a + f(x.r), 0);
  const timeouts = sum((r) => r.timeouts);
  const badRefusals = sum((r) => r.badRefusals);
  const worst = runs.reduce((a, x) => (x.health.p99 > a.p99 ? x.health : a), runs[0]!.health);
  const row = `| ${route} | ${Math.round(median(runs.map((x) => x.r.rps)))} | ${ratio.toFixed(2)}× of ${Math.round(median(runs.map((x) => x.at50)))} (rounds ${runs.map((x) => (Number.isFinite(x.ratio) ? x.ratio.toFixed(2) : `${Math.round(x.r.rps)} against none`)).join(', ')}) | ${median(runs.map((x) => x.r.p99))} | ${timeouts} | ${sum((r) => r.refused)} | ${badRefusals} | ${worst.p50} / ${worst.p99} / ${worst.max} (${runs.reduce((a, x) => a + x.health.count, 0)}) |`;
  return { ratio, runs, row };
}

interface ProbeResult {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/** The /healthz probe (bench/probe.mjs), once it is ready: it then asks for `secs` seconds. */
function startProbe(port: number, secs: number): Promise<{ result: Promise<ProbeResult> }> {
  const child = spawn(process.execPath, ['bench/probe.mjs', `http://127.0.0.1:${port}/healthz`, String(secs)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolveReady, rejectReady) => {
    const result = new Promise<ProbeResult>((resolve, reject) => {
      child.once('exit', (code) => {
        const last = out.trim().split('\n').pop() ?? '';
        if (code === 0) resolve(JSON.parse(last) as ProbeResult);
        else reject(new Error(`bench/probe.mjs exited with ${code}: ${out}`));
        rejectReady(new Error(`bench/probe.mjs exited before it was ready: ${out}`));
      });
    });
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"ready":true')) resolveReady({ result });
    });
  });
}

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresAdmin, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A fresh ocs_bench (BENCH_DATABASE) database: migrated, the demo data set, 200,000 conversations and 10,000 closures. */
async function preparePostgres(): Promise<{ url: string; demo: Demo }> {
  const admin = new pg.Client({ connectionString: postgresAdmin });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${benchDatabase}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${benchDatabase}"`);
  await admin.end();
  const url = new URL(postgresAdmin);
  url.pathname = `/${benchDatabase}`;
  const dbUrl = url.toString();
  await runScript(['dist/cli/migrate.js', 'apply'], { DATABASE_URL: dbUrl });
  const demo = JSON.parse(await runScript(['dist/cli/seed.js', '--json'], { DATABASE_URL: dbUrl })) as Demo;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  // 200,000 conversations of the clinic, one a minute back from now (deep pages)
  await db.query(
    `INSERT INTO "Conversation" ("id", "orgId", "medium", "startTime", "tags", "topic")
     SELECT gen_random_uuid(), $1::uuid, 'PHONE', now() - (g || ' minutes')::interval, ARRAY[]::text[], 'bench'
     FROM generate_series(1, 200000) g`,
    [demo.organizations.clinic.id],
  );
  // 10,000 one-hour closures of the other tenant, one every 2 days from 2020 to 2074 (availability cost)
  await db.query(
    `INSERT INTO "Closure" ("id", "orgId", "description", "startAt", "endAt", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, 'Closure ' || g, TIMESTAMP '2020-01-01 03:00' + (g * 2 || ' days')::interval,
            TIMESTAMP '2020-01-01 04:00' + (g * 2 || ' days')::interval, now(), now()
     FROM generate_series(1, 10000) g`,
    [demo.organizations.other.id],
  );
  await db.query('ANALYZE');
  await db.end();
  return { url: dbUrl, demo };
}

async function postgresPart(): Promise<number[]> {
  log(`PostgreSQL: preparing ${benchDatabase} (demo data, 200,000 conversations, 10,000 closures)…`);
  const { url, demo } = await preparePostgres();
  const clinic = demo.organizations.clinic;
  const service = await startService({ DATABASE_URL: url });
  const startRss = peakRssMiB(service.child.pid!);
  const restartMs = [service.startMs];
  const constant = await startScript('bench/baseline.ts', ['constant']);
  const prisma = await startScript('bench/baseline.ts', ['prisma'], { BENCH_POSTGRES_URL: url });
  const peers: Running[] = [];
  try {
    const orgPath = `/v1/organizations/${clinic.id}`;
    const availabilityPath = `${orgPath}/availability?medium=PHONE&phoneNumberId=${demo.phoneNumbers.clinic[0]}`;
    const officeHoursQuery = JSON.stringify({
      query:
        'query($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek isClosed open close breaks { start end reason greeting } } } }',
      variables: { id: clinic.id },
    });
    const other = demo.organizations.other;
    const clinic2 = demo.organizations.clinic2;
    // the same office hours for the clinic (to read), and for the organizations with 10,000 closures and
    // with none, so that the closures are the only difference between those two
    for (const org of [clinic, clinic2, other]) {
      for (const day of ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']) {
        const res = await fetch(`http://127.0.0.1:${service.port}/v1/organizations/${org.id}/office-hours`, {
          method: 'POST',
          headers: { ...auth(org.apiKey), 'content-type': 'application/json' },
          body: JSON.stringify({
            dayOfWeek: day,
            isClosed: false,
            open: '08:00',
            close: '18:00',
            breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'At lunch' }],
          }),
        });
        if (!res.ok) throw new Error(`setting office hours: ${res.status} ${await res.text()}`);
      }
    }
    // the fastest peers answer the service's own bodies from memory (bench/peers.ts)
    const peerDir = mkdtempSync(join(tmpdir(), 'ocs-bench-peers-'));
    const peerBodies = join(peerDir, 'bodies.json');
    const bodyOf = async (path: string, init?: RequestInit) => {
      const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
        ...init,
        headers: { ...auth(clinic.apiKey), ...(init?.headers as Record<string, string>) },
      });
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      return res.text();
    };
    writeFileSync(
      peerBodies,
      JSON.stringify({
        [`${orgPath}/office-hours`]: await bodyOf(`${orgPath}/office-hours`),
        [availabilityPath]: await bodyOf(availabilityPath),
        'graphql:organization': await bodyOf('/graphql', {
          method: 'POST',
          body: officeHoursQuery,
          headers: { 'content-type': 'application/json' },
        }),
      }),
    );
    const fastify = await startScript('bench/peers.ts', ['fastify'], { BENCH_PEER_BODIES: peerBodies });
    const mercurius = await startScript('bench/peers.ts', ['mercurius'], { BENCH_PEER_BODIES: peerBodies });
    peers.push(fastify, mercurius);
    rmSync(peerDir, { recursive: true, force: true }); // read by both at start
    const hours = Array.from({ length: 720 }, (_, i) => new Date(Date.now() + i * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const r = await compare([
      { name: 'node:http, constant JSON', on: () => constant, request: { path: '/' } },
      { name: 'node:http + Prisma findUnique (PK)', on: () => prisma, request: { path: orgPath } },
      { name: 'GET /v1/organizations/:orgId', on: () => service, request: { path: orgPath, headers: auth(clinic.apiKey) } },
      {
        name: 'GET …/availability?medium=PHONE&phoneNumberId',
        on: () => service,
        request: { path: availabilityPath, headers: auth(clinic.apiKey) },
      },
      { name: 'GET …/office-hours', on: () => service, request: { path: `${orgPath}/office-hours`, headers: auth(clinic.apiKey) } },
      {
        name: 'GraphQL organization(id){ id name officeHours{…} }',
        on: () => service,
        request: {
          path: '/graphql',
          method: 'POST',
          body: officeHoursQuery,
          headers: { ...auth(clinic.apiKey), 'content-type': 'application/json' },
        },
      },
      {
        name: 'availability, 0 closures, 720 different `at`',
        on: () => service,
        request: {
          path: '/',
          variants: hours.map((h) => `/v1/organizations/${clinic2.id}/availability?medium=PHONE&at=${h}`),
          headers: auth(clinic2.apiKey),
        },
      },
      {
        name: 'availability, 10,000 closures, 720 different `at`',
        on: () => service,
        request: {
          path: '/',
          variants: hours.map((h) => `/v1/organizations/${other.id}/availability?medium=PHONE&at=${h}`),
          headers: auth(other.apiKey),
        },
      },
      { name: 'Fastify, the same office-hours body', on: () => fastify, request: { path: `${orgPath}/office-hours` } },
      { name: 'Fastify, the same availability body', on: () => fastify, request: { path: availabilityPath } },
      {
        name: 'Fastify, the same GraphQL answer to the same POST',
        on: () => fastify,
        request: { path: '/graphql', method: 'POST', body: officeHoursQuery, headers: { 'content-type': 'application/json' } },
      },
      {
        name: 'Mercurius (graphql-jit), organization{officeHours}',
        on: () => mercurius,
        request: { path: '/graphql', method: 'POST', body: officeHoursQuery, headers: { 'content-type': 'application/json' } },
      },
      {
        name: 'availability, 10,000 closures, now (warm)',
        on: () => service,
        request: { path: `/v1/organizations/${other.id}/availability?medium=PHONE`, headers: auth(other.apiKey) },
      },
      {
        name: 'availability, 0 closures, now (warm)',
        on: () => service,
        request: { path: `/v1/organizations/${clinic2.id}/availability?medium=PHONE`, headers: auth(clinic2.apiKey) },
      },
    ]);
    const get = (name: string) => r.get(name)!;
    const constantRps = get('node:http, constant JSON').rps;
    const prismaRps = get('node:http + Prisma findUnique (PK)').rps;
    const restOfficeHours = get('GET …/office-hours').rps;
    table('PostgreSQL', [
      ['node:http, constant JSON (baseline)', get('node:http, constant JSON'), '1.00'],
      [
        'node:http + Prisma findUnique by PK (baseline)',
        get('node:http + Prisma findUnique (PK)'),
        `${(prismaRps / constantRps).toFixed(2)}× constant`,
      ],
      [
        'GET /v1/organizations/:orgId',
        get('GET /v1/organizations/:orgId'),
        `${(get('GET /v1/organizations/:orgId').rps / prismaRps).toFixed(2)}× Prisma PK`,
      ],
      [
        'GET …/availability?medium=PHONE&phoneNumberId',
        get('GET …/availability?medium=PHONE&phoneNumberId'),
        `${(get('GET …/availability?medium=PHONE&phoneNumberId').rps / constantRps).toFixed(2)}× constant`,
      ],
      ['GET …/office-hours', get('GET …/office-hours'), `${(restOfficeHours / constantRps).toFixed(2)}× constant`],
      [
        'GraphQL organization(id){ id name officeHours{…} }',
        get('GraphQL organization(id){ id name officeHours{…} }'),
        `${(get('GraphQL organization(id){ id name officeHours{…} }').rps / restOfficeHours).toFixed(2)}× REST office-hours`,
      ],
      [
        'Fastify, the same office-hours body (peer)',
        get('Fastify, the same office-hours body'),
        `REST office-hours = ${(restOfficeHours / get('Fastify, the same office-hours body').rps).toFixed(2)}× this`,
      ],
      [
        'Fastify, the same availability body (peer)',
        get('Fastify, the same availability body'),
        `REST availability = ${(get('GET …/availability?medium=PHONE&phoneNumberId').rps / get('Fastify, the same availability body').rps).toFixed(2)}× this`,
      ],
      [
        'Fastify, the same GraphQL answer to the same POST (peer)',
        get('Fastify, the same GraphQL answer to the same POST'),
        `${(get('Fastify, the same GraphQL answer to the same POST').rps / get('Fastify, the same office-hours body').rps).toFixed(2)}× Fastify's office-hours GET`,
      ],
      [
        'Mercurius + graphql-jit, organization{officeHours} (peer)',
        get('Mercurius (graphql-jit), organization{officeHours}'),
        `our GraphQL = ${(get('GraphQL organization(id){ id name officeHours{…} }').rps / get('Mercurius (graphql-jit), organization{officeHours}').rps).toFixed(2)}× this`,
      ],
      ['availability, 0 closures, warm', get('availability, 0 closures, now (warm)'), '1.00'],
      [
        'availability, 10,000 closures, warm',
        get('availability, 10,000 closures, now (warm)'),
        `${(get('availability, 0 closures, now (warm)').rps / get('availability, 10,000 closures, now (warm)').rps).toFixed(2)}× the time of 0`,
      ],
      ['availability, 0 closures, 720 different `at`', get('availability, 0 closures, 720 different `at`'), '1.00'],
      [
        'availability, 10,000 closures, 720 different `at`',
        get('availability, 10,000 closures, 720 different `at`'),
        `${(get('availability, 0 closures, 720 different `at`').rps / get('availability, 10,000 closures, 720 different `at`').rps).toFixed(2)}× the time of 0`,
      ],
    ]);
    const orgRatio = get('GET /v1/organizations/:orgId').rps / prismaRps;
    const availabilityRatio = get('GET …/availability?medium=PHONE&phoneNumberId').rps / constantRps;
    const gqlRatio = get('GraphQL organization(id){ id name officeHours{…} }').rps / restOfficeHours;
    const closuresWarm = get('availability, 0 closures, now (warm)').rps / get('availability, 10,000 closures, now (warm)').rps;
    const closuresCold =
      get('availability, 0 closures, 720 different `at`').rps / get('availability, 10,000 closures, 720 different `at`').rps;
    target('PostgreSQL: GET /v1/organizations/{id} vs node:http + Prisma PK', `${orgRatio.toFixed(2)}×`, '≥ 0.80×', orgRatio >= 0.8);
    target(
      'PostgreSQL: availability (warm, PHONE, phoneNumberId) vs constant JSON',
      `${availabilityRatio.toFixed(2)}×`,
      '≥ 0.15×',
      availabilityRatio >= 0.15,
    );
    // what the transport alone makes of the two: a bare framework answering the same bytes to the same POST and GET
    const transportRatio = get('Fastify, the same GraphQL answer to the same POST').rps / get('Fastify, the same office-hours body').rps;
    // GraphQL vs REST office-hours is a row of the table, no longer a target (issue 33): a POST with a body and
    // a GET differ in their transport as much as in our work; our GraphQL is read against Mercurius instead
    report.push(
      `GraphQL organization{officeHours} vs REST office-hours: ${gqlRatio.toFixed(2)}×, no longer a target (it was ≥ 0.85×): ` +
        `bare Fastify itself gives ${transportRatio.toFixed(2)}× between that POST and that GET (this run), so the target measured the transport, not us.`,
      '',
    );
    const vsFastifyOfficeHours = restOfficeHours / get('Fastify, the same office-hours body').rps;
    const vsFastifyAvailability = get('GET …/availability?medium=PHONE&phoneNumberId').rps / get('Fastify, the same availability body').rps;
    const vsMercurius =
      get('GraphQL organization(id){ id name officeHours{…} }').rps / get('Mercurius (graphql-jit), organization{officeHours}').rps;
    target(
      'PostgreSQL: REST office-hours vs Fastify answering the same body',
      `${vsFastifyOfficeHours.toFixed(2)}×`,
      '≥ 0.60×',
      vsFastifyOfficeHours >= 0.6,
    );
    target(
      'PostgreSQL: REST availability vs Fastify answering the same body',
      `${vsFastifyAvailability.toFixed(2)}×`,
      '≥ 0.60×',
      vsFastifyAvailability >= 0.6,
    );
    target(
      'PostgreSQL: GraphQL organization{officeHours} vs Mercurius + graphql-jit',
      `${vsMercurius.toFixed(2)}×`,
      '≥ 0.80×',
      vsMercurius >= 0.8,
    );
    target('availability cost, 10,000 closures vs none (warm)', `${closuresWarm.toFixed(2)}×`, '≤ 1.5×', closuresWarm <= 1.5);
    target(
      'availability cost, 10,000 closures vs none (720 instants, computed)',
      `${closuresCold.toFixed(2)}×`,
      '≤ 1.5×',
      closuresCold <= 1.5,
    );

    // the peak so far after each phase: which load makes the service's peak RSS
    const peaks: string[] = [`after starting ${startRss} MiB`, `after the 50-connection scenarios ${peakRssMiB(service.child.pid!)} MiB`];
    const peakAfter = <T>(phase: string, value: T): T => {
      peaks.push(`after ${phase} ${peakRssMiB(service.child.pid!)} MiB`);
      return value;
    };

    // overload
    const baseline = await overloadBaseline(constant);
    const rows = [
      baseline.row,
      peakAfter(
        'organization reads at 400',
        await overload(service, 'PostgreSQL', 'GET /v1/organizations/:orgId', { path: orgPath, headers: auth(clinic.apiKey) }, baseline),
      ),
      peakAfter(
        'availability at 400',
        await overload(service, 'PostgreSQL', 'GET …/availability', { path: availabilityPath, headers: auth(clinic.apiKey) }, baseline),
      ),
      peakAfter(
        'conversations at 400',
        await overload(
          service,
          'PostgreSQL',
          'GET /v1/conversations (database every time)',
          { path: '/v1/conversations?limit=20', headers: auth(clinic.apiKey) },
          baseline,
        ),
      ),
    ];
    overloadTable('PostgreSQL', rows);

    // deep pages of 200,000 conversations, once the overload above has drained (statements it abandoned
    // may still be running in PostgreSQL for a moment)
    for (let i = 0; i < 600; i++) {
      const res = await fetch(`http://127.0.0.1:${service.port}/v1/conversations?limit=20`, { headers: auth(clinic.apiKey) });
      await res.arrayBuffer();
      if (res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const first = await sequentialMedianMs(`http://127.0.0.1:${service.port}/v1/conversations?limit=20`, auth(clinic.apiKey), 30);
    const deepOffset = await sequentialMedianMs(
      `http://127.0.0.1:${service.port}/v1/conversations?limit=20&offset=199960`,
      auth(clinic.apiKey),
      30,
    );
    const page = (await (
      await fetch(`http://127.0.0.1:${service.port}/v1/conversations?limit=20&offset=199940`, { headers: auth(clinic.apiKey) })
    ).json()) as {
      data: { pagination: { nextCursor: string } };
    };
    const deepCursor = await sequentialMedianMs(
      `http://127.0.0.1:${service.port}/v1/conversations?limit=20&cursor=${encodeURIComponent(page.data.pagination.nextCursor)}`,
      auth(clinic.apiKey),
      30,
    );
    report.push(
      '### PostgreSQL: pages of 200,000 conversations (sequential, median of 30)',
      '',
      '| page | ms | vs first |',
      '|---|---:|---:|',
      `| first (offset 0) | ${first.toFixed(1)} | 1.00 |`,
      `| offset 199,960 | ${deepOffset.toFixed(1)} | ${(deepOffset / first).toFixed(2)} |`,
      `| cursor at 199,960 | ${deepCursor.toFixed(1)} | ${(deepCursor / first).toFixed(2)} |`,
      '',
    );
    target('PostgreSQL: deep offset page of 200,000 vs the first', `${(deepOffset / first).toFixed(2)}×`, '≤ 3×', deepOffset / first <= 3);
    target('PostgreSQL: deep cursor page of 200,000 vs the first', `${(deepCursor / first).toFixed(2)}×`, '≤ 3×', deepCursor / first <= 3);

    const rss = peakRssMiB(service.child.pid!);
    target('PostgreSQL: peak RSS of the service', `${rss} MiB`, '< 200 MiB', rss < 200);
    peakAfter('the deep pages', undefined);
    report.push(
      `Peak RSS of the service on PostgreSQL: ${rss} MiB (baselines: constant ${peakRssMiB(constant.child.pid!)} MiB, Prisma ${peakRssMiB(prisma.child.pid!)} MiB).`,
      `The service's peak so far: ${peaks.join('; ')}.`,
      '',
    );
  } finally {
    await Promise.all([service.stop(), constant.stop(), prisma.stop(), ...peers.map((p) => p.stop())]);
  }
  for (let i = 0; i < 2; i++) {
    const again = await startService({ DATABASE_URL: url });
    restartMs.push(again.startMs);
    await again.stop();
  }
  return restartMs;
}

async function embeddedPart(): Promise<{ firstStartMs: number; restartMs: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'ocs-bench-'));
  const dataDir = join(dir, 'pglite');
  try {
    log('Embedded: first start on an empty folder…');
    const first = await startService({ DATABASE_URL: `pglite:${dataDir}` });
    await first.stop();
    const restartMs: number[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await startService({ DATABASE_URL: `pglite:${dataDir}` });
      restartMs.push(s.startMs);
      await s.stop();
    }
    const demo = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8')) as Demo;
    const service = await startService({ DATABASE_URL: `pglite:${dataDir}` });
    restartMs.push(service.startMs);
    const constant = await startScript('bench/baseline.ts', ['constant']);
    try {
      const clinic = demo.organizations.clinic;
      const availabilityPath = `/v1/organizations/${clinic.id}/availability?medium=PHONE&phoneNumberId=${demo.phoneNumbers.clinic[0]}`;
      const r = await compare([
        { name: 'node:http, constant JSON', on: () => constant, request: { path: '/' } },
        {
          name: 'GET …/availability?medium=PHONE&phoneNumberId',
          on: () => service,
          request: { path: availabilityPath, headers: auth(clinic.apiKey) },
        },
        {
          name: 'GET /v1/organizations/:orgId',
          on: () => service,
          request: { path: `/v1/organizations/${clinic.id}`, headers: auth(clinic.apiKey) },
        },
      ]);
      const constantRps = r.get('node:http, constant JSON')!.rps;
      const availability = r.get('GET …/availability?medium=PHONE&phoneNumberId')!;
      table('Embedded database (PGlite folder)', [
        ['node:http, constant JSON (baseline)', r.get('node:http, constant JSON')!, '1.00'],
        ['GET …/availability?medium=PHONE&phoneNumberId', availability, `${(availability.rps / constantRps).toFixed(2)}× constant`],
        [
          'GET /v1/organizations/:orgId',
          r.get('GET /v1/organizations/:orgId')!,
          `${(r.get('GET /v1/organizations/:orgId')!.rps / constantRps).toFixed(2)}× constant`,
        ],
      ]);
      target(
        'Embedded: availability (warm, PHONE, phoneNumberId) vs constant JSON',
        `${(availability.rps / constantRps).toFixed(2)}×`,
        '≥ 0.15×',
        availability.rps / constantRps >= 0.15,
      );
      const baseline = await overloadBaseline(constant);
      const rows = [
        baseline.row,
        await overload(
          service,
          'Embedded',
          'GET /v1/organizations/:orgId',
          { path: `/v1/organizations/${clinic.id}`, headers: auth(clinic.apiKey) },
          baseline,
        ),
        await overload(service, 'Embedded', 'GET …/availability', { path: availabilityPath, headers: auth(clinic.apiKey) }, baseline),
      ];
      overloadTable('Embedded', rows);
      const rss = peakRssMiB(service.child.pid!);
      target('Embedded: peak RSS of the service', `${rss} MiB`, '< 300 MiB', rss < 300);
      report.push(`Peak RSS of the service on the embedded folder: ${rss} MiB.`, '');
    } finally {
      await Promise.all([service.stop(), constant.stop()]);
    }
    return { firstStartMs: first.startMs, restartMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  await runScript(['src/cli/build.mjs']); // what npm start runs, current
  const started = new Date();
  const largeAccount = () => largeAccountPart({ postgresAdmin, seconds, rounds, connections, log, report, target });
  const flows = () => flowsPart({ postgresAdmin, seconds, rounds, connections, log, report, target });
  const governance = async () => {
    if (process.env.BENCH_GOVERNANCE !== 'purge')
      await governancePart({ postgresAdmin, seconds, rounds, connections, log, report, target });
    if (process.env.BENCH_GOVERNANCE !== 'speed')
      await retentionPurgePart({ postgresAdmin, seconds, rounds, connections, log, report, target });
  };
  const only = process.env.BENCH_ONLY;
  if (only === 'large-account' || only === 'flows' || only === 'postgres' || only === 'embedded' || only === 'governance') {
    if (only === 'embedded') {
      const embedded = await embeddedPart();
      const restart = median(embedded.restartMs);
      target('Embedded: start to first 200, existing folder (npm start)', `${Math.round(restart)} ms`, '< 1500 ms', restart < 1500);
    } else if (await postgresAnswers())
      await (only === 'flows' ? flows() : only === 'postgres' ? postgresPart() : only === 'governance' ? governance() : largeAccount());
    else report.push('PostgreSQL did not answer: nothing was measured.');
    process.stdout.write(
      [...targets.map((t) => `${t.name}: ${t.value} (${t.target}) ${t.met ? 'met' : 'NOT met'}`), '', ...report].join('\n') + '\n',
    );
    return;
  }
  const embedded = await embeddedPart();
  const postgresRestart = (await postgresAnswers()) ? await postgresPart() : null;
  if (!postgresRestart) report.push('PostgreSQL did not answer: its part was skipped.', '');
  else {
    await largeAccount();
    await flows();
    await governance();
  }

  const restart = median(embedded.restartMs);
  target('Embedded: start to first 200, existing folder (npm start)', `${Math.round(restart)} ms`, '< 1500 ms', restart < 1500);
  target(
    'Embedded: start to first 200, empty folder (first npm start)',
    `${Math.round(embedded.firstStartMs)} ms`,
    '< 5000 ms',
    embedded.firstStartMs < 5000,
  );
  if (postgresRestart) {
    const pgStart = median(postgresRestart);
    target('PostgreSQL: start to first 200, migrated database (npm start)', `${Math.round(pgStart)} ms`, '< 1500 ms', pgStart < 1500);
  }
  const header = [
    '# Benchmark results',
    '',
    `${started.toISOString()} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}) · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version} · ` +
      `${connections} connections · ${rounds} rounds × ${seconds} s, service and baselines alternating; medians. autocannon runs in the benchmark's process, the service (\`npm start\`, compiled, LOG_LEVEL=warn, rate limits out of the way) and the baselines in their own.`,
    '',
    '## Targets',
    '',
    '| target | measured | goal | met |',
    '|---|---:|---|---|',
    ...targets.map((t) => `| ${t.name} | ${t.value} | ${t.target} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '## Details',
    '',
  ];
  // the soak's figures (npm run soak, copied by hand between the markers) are kept: a soak is not part of this run
  const resultsPath = join(root, 'bench/RESULTS.md');
  const soak = /<!-- soak -->[\s\S]*<!-- \/soak -->/.exec(existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '')?.[0];
  const text = [...header, ...report, ...(soak ? ['', soak] : [])].join('\n') + '\n';
  writeFileSync(resultsPath, text);
  process.stdout.write(text);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
