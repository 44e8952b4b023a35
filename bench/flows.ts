// The flows part of `npm run bench` (issues 20 and 21), on PostgreSQL (database ocs_bench_flows), with
// webhook deliveries going to bench/receiver.mjs (its own process, 127.0.0.1; WEBHOOK_ALLOW_PRIVATE_TARGETS):
//   - writes (closure updates at full speed) with three webhook endpoints subscribed to them vs none,
//     alternating rounds: throughput, and the CPU time per write of the service and of PostgreSQL from the
//     round's start until its last delivery arrived (read in CPU time because this machine is shared, and
//     throughput moves with the neighbours' load more than with ours). Their difference, divided by three, is
//     the CPU of one delivery, against the least work of one (bench/baseline.ts deliver: sign, POST to the
//     same receiver, insert a row) in rounds of its own alternating with them, as many deliveries as the
//     round before made, as many at once as the service's bounds allow (target ≤ 2×; issue 33);
//   - commit-to-delivery latency at 100 writes/s to one endpoint: the receiver's arrival time minus the
//     event's occurredAt (stamped in the writing transaction), the same machine's clock (target p99 < 1 s);
//   - call requests placed (POST /v1/call-requests) on one instance and on two at once;
//   - claims (POST /v1/dispatch/claim) by runtimes on two instances at once over a full queue: latency,
//     calls handed out per second, and no call handed out twice (counted from the answers); a 10,000-number
//     bulk suppression (issue 34, < 1 s), timed before the claims so that they run against a listed 30,000;
//   - availability reads at a steady rate on one instance, alone vs while the runtimes claim on both (claims
//     must not block them: a read waiting on a claim would show in p99).
//   - a calling-policy change over 100,000 queued requests: the time until all are re-evaluated, and availability's
//     p99 on the same instance meanwhile against its value alone (issue 34).
// BENCH_ONLY=flows runs this part alone; BENCH_FLOWS=webhooks (or calls) runs only that half of it, policy only the
// policy change.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { type BenchPart, freshDemoDatabase, median, startScript, startService, type Running } from './lib.js';

/** What the run hands this part (bench/lib.ts BenchPart). */
export type FlowsContext = BenchPart;

interface Demo {
  organizations: Record<'clinic' | 'clinic2', { id: string; apiKey: string }>;
  bots: { clinic: string[] };
  phoneNumbers: { clinic: string[] };
}

/** Closures updated in turn by the write load (each update changes its description: one event each). */
const CLOSURES = 200;
/** Call requests queued for the claim runs (more than the runs can take). */
const QUEUED_CALLS = 60_000;
const CLAIM_MAX = 10;
/** Runtimes claiming on each instance (each asks again as soon as it has its answer). */
const RUNTIMES_PER_INSTANCE = 2;
const LATENCY_RATE = 100;
const READ_RATE = 200;
const LATENCY_SECONDS = 10;
/** Connections of the write load (each write is a transaction: more only queue for the pool). */
const WRITE_CONNECTIONS = 10;
/** How long a round waits for its deliveries at most. */
const DRAIN_MS = 30_000;
/** The application_name of the least work's connections (bench/baseline.ts deliver): its backends are told apart by it. */
const LEAST_DELIVERY_APPLICATION = 'ocs-bench-least-delivery';
/**
 * Deliveries in flight at once to the three endpoints: the bounds the service under the bench reads
 * (src/config.ts WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, _PER_ORGANIZATION, WEBHOOK_DELIVERY_SLOTS; the same
 * defaults), so that the least work runs at the concurrency the service may.
 */
const DELIVERY_CONCURRENCY = Math.min(
  3 * Number(process.env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT || 4),
  Number(process.env.WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION || 16),
  Number(process.env.WEBHOOK_DELIVERY_SLOTS || 64),
);

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = (key: string) => ({ ...auth(key), 'content-type': 'application/json' });
const fmt = (x: number) => (x < 10 ? x.toFixed(1) : String(Math.round(x)));

interface Run {
  /** 2xx answers per second. */
  rps: number;
  ok: number;
  p50: number;
  p99: number;
  bad: number;
}

interface Target {
  port: number;
  method?: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** The body of the n-th request (or one body for all). */
  body?: string | ((n: number) => string);
  path2?: (n: number) => string;
  onBody?: (body: string) => void;
}

/** autocannon on one target: at full speed, or at `rate` requests per second overall. */
let runStarted = 0;

async function run(target: Target, connections: number, seconds: number, rate?: number): Promise<Run> {
  let n = 0;
  runStarted = Date.now();
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections,
    duration: seconds,
    timeout: 10,
    ...(rate ? { overallRate: rate } : {}),
    requests: [
      {
        method: target.method ?? 'GET',
        path: target.path,
        headers: target.headers,
        ...(typeof target.body === 'string' ? { body: target.body } : {}),
        ...(typeof target.body === 'function' || target.path2
          ? {
              setupRequest: (req: Record<string, unknown>) => {
                const i = n++;
                return {
                  ...req,
                  ...(typeof target.body === 'function' ? { body: target.body(i) } : {}),
                  ...(target.path2 ? { path: target.path2(i) } : {}),
                };
              },
            }
          : {}),
        ...(target.onBody ? { onResponse: (status: number, body: string) => status === 200 && target.onBody!(body) } : {}),
      },
    ],
  } as autocannon.Options);
  return {
    rps: result['2xx'] / seconds,
    ok: result['2xx'],
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

// BENCH_FLOWS_DATABASE names the database (default ocs_bench_flows): runs side by side on one server must not drop each other's
const DATABASE = process.env.BENCH_FLOWS_DATABASE ?? 'ocs_bench_flows';

/** A closure the write load updates, with its own times (a write keeps them: moving them all to one day is refused). */
interface BenchClosure {
  id: string;
  startAt: string;
  endAt: string;
}

async function prepare(ctx: FlowsContext): Promise<{ url: string; demo: Demo; closures: BenchClosure[] }> {
  const { dbUrl, demo } = await freshDemoDatabase<Demo>(ctx.postgresAdmin, DATABASE);
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  // closures far in the future: updating them changes no availability (one event per write, no more)
  const closures = (
    await db.query<BenchClosure>(
      `INSERT INTO "Closure" ("id", "orgId", "description", "startAt", "endAt", "createdAt", "updatedAt")
       SELECT gen_random_uuid(), $1::uuid, 'Closure ' || g, TIMESTAMP '2090-01-01 03:00' + (g || ' days')::interval,
              TIMESTAMP '2090-01-01 04:00' + (g || ' days')::interval, now(), now()
       FROM generate_series(1, $2::int) g
       RETURNING "id"::text AS "id", to_char("startAt", 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "startAt",
                 to_char("endAt", 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "endAt"`,
      [demo.organizations.clinic2.id, CLOSURES],
    )
  ).rows;
  // a full queue of the clinic's calls, due now, for the claim runs
  await db.query(
    `INSERT INTO "CallRequest" ("id", "orgId", "botId", "phoneNumberId", "to", "status", "createdAt", "dueAt", "expiresAt")
     SELECT gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, '+15005550006', 'queued', now() - interval '1 hour' + (g || ' milliseconds')::interval,
            now() - interval '1 hour' + (g || ' milliseconds')::interval, now() + interval '1 day'
     FROM generate_series(1, $4::int) g`,
    [demo.organizations.clinic.id, demo.bots.clinic[0], demo.phoneNumbers.clinic[0], QUEUED_CALLS],
  );
  // the clinic's calling policy: calls at any hour, and a cap on calls at once above what the runs claim; the
  // default (10 at once) would stop the claims after ten, since the runs' leases never end
  await db.query(
    `INSERT INTO "CallingPolicy" ("orgId", "windows", "blockedDates", "maxConcurrentCalls", "requireConsentFor", "updatedAt")
     VALUES ($1::uuid, $2::jsonb, '{}', 100000, '{}', now())`,
    [
      demo.organizations.clinic.id,
      JSON.stringify(
        ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
          dayOfWeek,
          start: '00:00',
          end: '24:00',
        })),
      ),
    ],
  );
  await db.query('ANALYZE');
  await db.end();
  return { url: dbUrl, demo, closures };
}

interface ReceiverStats {
  count: number;
  distinct: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

const receiverStats = async (receiver: Running): Promise<ReceiverStats> =>
  (await fetch(`http://127.0.0.1:${receiver.port}/stats`)).json() as Promise<ReceiverStats>;
const resetReceiver = async (receiver: Running) =>
  void (await (await fetch(`http://127.0.0.1:${receiver.port}/reset`, { method: 'POST' })).arrayBuffer());

/** Waits until the receiver holds `expected` distinct deliveries (at most 60 s); answers the wait in ms. */
async function drain(receiver: Running, expected: number): Promise<{ ms: number; stats: ReceiverStats }> {
  const started = performance.now();
  for (;;) {
    const stats = await receiverStats(receiver);
    if (stats.distinct >= expected || performance.now() - started > DRAIN_MS) return { ms: performance.now() - started, stats };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** CPU seconds used so far by a process (utime + stime), 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ)
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of the service process and of the PostgreSQL backends serving its database, from now to
 * `done()`: the machine is shared, so the cost of a write (its deliveries included) is read in CPU time,
 * which other processes' load does not change as much as it changes throughput. The backends are those of
 * the application named `application` when it is given, else all but the least work's.
 */
async function cpuMeter(
  db: pg.Client,
  database: string,
  servicePid: number,
  application?: string,
): Promise<{ done(): Promise<{ service: number; database: number }> }> {
  const backends = async () =>
    (
      await db.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
           AND (application_name = $2) IS ${application ? 'TRUE' : 'NOT TRUE'}`,
        [database, application ?? LEAST_DELIVERY_APPLICATION],
      )
    ).rows.map((r) => r.pid);
  const startPids = await backends();
  const start = new Map(startPids.map((pid) => [pid, cpuSeconds(pid)]));
  const service = cpuSeconds(servicePid);
  return {
    async done() {
      let database = 0;
      // a backend gone meanwhile reads 0: it counts nothing rather than minus what it had used before
      for (const pid of new Set([...startPids, ...(await backends())])) database += Math.max(0, cpuSeconds(pid) - (start.get(pid) ?? 0));
      return { service: cpuSeconds(servicePid) - service, database };
    },
  };
}

/** The parsed JSON answer of a request that must succeed; `T` is the shape the caller reads. */
async function call<T = unknown>(port: number, method: string, path: string, key: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: json(key),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function webhooks(
  ctx: FlowsContext,
  service: Running,
  receiver: Running,
  leastDelivery: Running,
  demo: Demo,
  closures: BenchClosure[],
  databaseUrl: string,
): Promise<void> {
  const org = demo.organizations.clinic2;
  const write: Target = {
    port: service.port,
    method: 'POST',
    path: `/v1/organizations/${org.id}/closures/${closures[0]!.id}`,
    headers: json(org.apiKey),
    path2: (n) => `/v1/organizations/${org.id}/closures/${closures[n % closures.length]!.id}`,
    // a description never written before: a write that changes nothing appends no event; the closure's own
    // times (the n-th request's path and body name the same closure)
    body: (n) => {
      const { startAt, endAt } = closures[n % closures.length]!;
      return JSON.stringify({ description: `Bench write ${n} of ${runStarted}`, startAt, endAt });
    },
  };
  const subscribe = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await call<{ data: { id: string } }>(service.port, 'POST', '/v1/webhook-endpoints', org.apiKey, {
        url: `http://127.0.0.1:${receiver.port}/hooks/${i}`,
        description: `bench ${i}`,
        eventTypes: ['closure.*'],
      });
      ids.push(created.data.id);
    }
    return ids;
  };
  const unsubscribe = async (ids: string[]) => {
    for (const id of ids) await call(service.port, 'DELETE', `/v1/webhook-endpoints/${id}`, org.apiKey);
  };

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const database = new URL(databaseUrl).pathname.slice(1);
  await run(write, WRITE_CONNECTIONS, 2); // warm-up
  type Round = Run & { cpuMs: number; dbCpuMs: number; delivered: number; drainMs: number; statements: number };
  // SQL statements the service sent so far (its /metrics): what a write costs in round trips, deliveries included
  const statementsSent = async () => {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    return Number(/^ocs_db_statement_duration_seconds_count(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const runs = { none: [] as Round[], three: [] as Round[] };
  let eventsBefore = 0;
  const events = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS "n" FROM "Event" WHERE "type" = 'closure.updated'`)).rows[0]!.n - eventsBefore;
  const round = async (endpoints: number): Promise<Round> => {
    const ids = await subscribe(endpoints);
    eventsBefore += await events();
    await resetReceiver(receiver);
    const statementsBefore = await statementsSent();
    const meter = await cpuMeter(db, database, service.child.pid!);
    const r = await run(write, WRITE_CONNECTIONS, ctx.seconds);
    if ((await events()) !== r.ok) ctx.log(`  ! ${r.ok} writes answered 2xx, ${await events()} closure events appended`);
    // the round's cost includes its deliveries: wait for them (with none subscribed there are none)
    const drained = endpoints > 0 ? await drain(receiver, endpoints * r.ok) : { ms: 0, stats: { distinct: 0 } };
    const cpu = await meter.done();
    const statements = (await statementsSent()) - statementsBefore;
    if (drained.stats.distinct < endpoints * r.ok) {
      // where the missing deliveries stand (the log only: deleting the endpoints deletes them)
      const states = await db.query(
        `SELECT "status", "attempts", "statusCode", left("response", 100) AS "response", count(*)::int AS "count" FROM "WebhookDelivery" GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC LIMIT 5`,
      );
      const due = await db.query(
        `SELECT count(*)::int AS "due", count("lockedUntil")::int AS "locked" FROM "WebhookDelivery" WHERE "status" = 'pending' AND "nextAttemptAt" <= now()`,
      );
      ctx.log(
        `  ! deliveries missing after ${DRAIN_MS / 1000} s: ${JSON.stringify(states.rows)}; due deliveries ${JSON.stringify(due.rows[0])}`,
      );
    }
    await unsubscribe(ids);
    return {
      ...r,
      cpuMs: (cpu.service * 1000) / r.ok,
      dbCpuMs: (cpu.database * 1000) / r.ok,
      delivered: drained.stats.distinct,
      drainMs: drained.ms,
      statements: statements / r.ok,
    };
  };
  // the least work of `count` deliveries (bench/baseline.ts deliver) of the service's own event body: its
  // process's CPU and its backends', per delivery
  type LeastRound = { count: number; delivered: number; perSecond: number; cpuMs: number; dbCpuMs: number };
  const leastRound = async (count: number, event: Record<string, unknown>): Promise<LeastRound> => {
    await resetReceiver(receiver);
    const meter = await cpuMeter(db, database, leastDelivery.child.pid!, LEAST_DELIVERY_APPLICATION);
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${leastDelivery.port}/deliver`, {
      method: 'POST',
      body: JSON.stringify({ count, concurrency: DELIVERY_CONCURRENCY, target: `http://127.0.0.1:${receiver.port}`, endpoints: 3, event }),
    });
    if (!res.ok) throw new Error(`the least work of deliveries answered ${res.status}`);
    await res.arrayBuffer();
    const seconds = (performance.now() - started) / 1000;
    const cpu = await meter.done();
    const stats = await receiverStats(receiver);
    return {
      count,
      delivered: stats.distinct,
      perSecond: count / seconds,
      cpuMs: (cpu.service * 1000) / count,
      dbCpuMs: (cpu.database * 1000) / count,
    };
  };
  const leastRuns: LeastRound[] = [];
  let event: Record<string, unknown> | undefined;
  for (let i = 0; i < ctx.rounds; i++) {
    for (const [name, endpoints] of [
      ['none', 0],
      ['three', 3],
    ] as const) {
      const r = await round(endpoints);
      runs[name].push(r);
      ctx.log(
        `flows round ${i + 1}/${ctx.rounds} writes, ${endpoints} endpoints: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, CPU per write ${r.cpuMs.toFixed(2)} ms service + ${r.dbCpuMs.toFixed(2)} ms PostgreSQL, ${r.statements.toFixed(2)} statements` +
          (endpoints ? `; ${r.delivered}/${endpoints * r.ok} delivered, the last ${Math.round(r.drainMs)} ms after the round` : ''),
      );
      if (endpoints === 0) continue;
      if (!event) {
        const sample = await fetch(`http://127.0.0.1:${receiver.port}/sample`);
        if (!sample.ok) throw new Error('no delivery arrived to take the least work its event from');
        event = (await sample.json()) as Record<string, unknown>;
        await leastRound(Math.min(1_000, endpoints * r.ok), event); // warm-up
      }
      const least = await leastRound(endpoints * r.ok, event);
      leastRuns.push(least);
      ctx.log(
        `flows round ${i + 1}/${ctx.rounds} the least work of ${least.count} deliveries: ${Math.round(least.perSecond)}/s, CPU per delivery ${least.cpuMs.toFixed(2)} ms process + ${least.dbCpuMs.toFixed(2)} ms PostgreSQL; ${least.delivered} delivered`,
      );
    }
  }
  const med = (rs: Round[]) => ({
    rps: median(rs.map((r) => r.rps)),
    p99: median(rs.map((r) => r.p99)),
    bad: rs.reduce((a, r) => a + r.bad, 0),
    cpuMs: median(rs.map((r) => r.cpuMs)),
    dbCpuMs: median(rs.map((r) => r.dbCpuMs)),
    totalCpuMs: median(rs.map((r) => r.cpuMs + r.dbCpuMs)),
  });
  const none = med(runs.none);
  const three = med(runs.three);
  const cpuOverhead = three.totalCpuMs / none.totalCpuMs - 1;
  const undelivered = runs.three.reduce((a, r) => a + Math.max(0, 3 * r.ok - r.delivered), 0);
  // one delivery: what three endpoints add to a write, divided by three; against the least work of one
  const delivery = {
    cpuMs: (three.cpuMs - none.cpuMs) / 3,
    dbCpuMs: (three.dbCpuMs - none.dbCpuMs) / 3,
    totalCpuMs: (three.totalCpuMs - none.totalCpuMs) / 3,
  };
  const leastDeliveryCost = {
    perSecond: median(leastRuns.map((r) => r.perSecond)),
    cpuMs: median(leastRuns.map((r) => r.cpuMs)),
    dbCpuMs: median(leastRuns.map((r) => r.dbCpuMs)),
    totalCpuMs: median(leastRuns.map((r) => r.cpuMs + r.dbCpuMs)),
  };
  const deliveryRatio = delivery.totalCpuMs / leastDeliveryCost.totalCpuMs;
  const leastUndelivered = leastRuns.reduce((a, r) => a + Math.max(0, r.count - r.delivered), 0);

  // commit-to-delivery latency at a steady 100 writes/s to one endpoint
  const [one] = await subscribe(1);
  await resetReceiver(receiver);
  const steady = await run(write, WRITE_CONNECTIONS, LATENCY_SECONDS, LATENCY_RATE);
  const latency = await drain(receiver, steady.ok);
  await unsubscribe([one!]);
  ctx.log(
    `flows: ${Math.round(steady.rps)} writes/s for ${LATENCY_SECONDS} s to one endpoint: delivery p50 ${latency.stats.p50} ms, p99 ${latency.stats.p99} ms`,
  );

  await db.end();

  const cpu = (r: { cpuMs: number; dbCpuMs: number }) => `${r.cpuMs.toFixed(2)} + ${r.dbCpuMs.toFixed(2)}`;
  ctx.report.push(
    '### Webhooks (PostgreSQL, closure updates, deliveries to a local receiver answering 204)',
    '',
    `${WRITE_CONNECTIONS} connections at full speed, ${ctx.rounds} rounds of each, alternating; CPU per write counts the service and the PostgreSQL backends of its database from the round's start until its last delivery arrived.`,
    '',
    '| scenario | writes/s (median) | ratio | p99 ms | CPU ms per write, service + PostgreSQL (median) | ratio | non-2xx + errors | deliveries |',
    '|---|---:|---|---:|---|---|---:|---|',
    `| no endpoint | ${Math.round(none.rps)} | 1.00 | ${none.p99} | ${cpu(none)} | 1.00 | ${none.bad} | none |`,
    `| 3 endpoints subscribed (closure.*) | ${Math.round(three.rps)} | ${(three.rps / none.rps).toFixed(2)}× | ${three.p99} | ${cpu(three)} | ${(three.totalCpuMs / none.totalCpuMs).toFixed(2)}× | ${three.bad} | ${runs.three.map((d) => `${d.delivered}/${3 * d.ok}, the last ${fmt(d.drainMs / 1000)} s after the round`).join('; ')} |`,
    `| ${LATENCY_RATE} writes/s for ${LATENCY_SECONDS} s, 1 endpoint | ${Math.round(steady.rps)} | | ${steady.p99} | | | ${steady.bad} | ${latency.stats.distinct}/${steady.ok}; occurredAt to arrival p50 ${latency.stats.p50} ms, p99 ${latency.stats.p99} ms, max ${latency.stats.max} ms |`,
    `| one delivery: (3 endpoints − none) ÷ 3 | | | | ${cpu(delivery)} per delivery | ${deliveryRatio.toFixed(2)}× the least work | | |`,
    `| the least work of one delivery: a Node process signing (HMAC-SHA256), POSTing over kept-alive connections and inserting one row, ${DELIVERY_CONCURRENCY} at once, as many as the round before | ${Math.round(leastDeliveryCost.perSecond)} deliveries/s | | | ${cpu(leastDeliveryCost)} per delivery, process + PostgreSQL | 1.00 | | ${leastRuns.map((r) => `${r.delivered}/${r.count}`).join('; ')} |`,
    '',
    `The cost of a write with 3 endpoints vs none: +${(cpuOverhead * 100).toFixed(1)} %, no longer a target (it was ≤ +10 %): it was below the least work of a signed POST plus a row ` +
      `(three of those alone are ${(((3 * leastDeliveryCost.totalCpuMs) / none.totalCpuMs) * 100).toFixed(0)} % of a write with none, this run); one delivery is measured against that least work instead.`,
    '',
  );
  ctx.target(
    'Webhooks: CPU of one delivery vs the least work (service + PostgreSQL; a signed POST and a row)',
    `${deliveryRatio.toFixed(2)}× (${delivery.totalCpuMs.toFixed(2)} ms against ${leastDeliveryCost.totalCpuMs.toFixed(2)} ms; ${undelivered} deliveries missing` +
      (leastUndelivered ? `, the least work's ${leastUndelivered}` : '') +
      ')',
    '≤ 2×, every delivery made',
    deliveryRatio <= 2 && undelivered === 0,
  );
  const p99 = latency.stats.p99 ?? Infinity;
  ctx.target(
    `Webhooks: commit-to-delivery at ${LATENCY_RATE} writes/s`,
    `p50 ${latency.stats.p50} ms, p99 ${latency.stats.p99} ms (${latency.stats.distinct}/${steady.ok} delivered)`,
    'p99 < 1000 ms, every delivery made',
    p99 < 1000 && latency.stats.distinct >= steady.ok,
  );
}

/** Bulk suppressions timed (issue 34: a 10,000-number bulk add in < 1 s); each adds 10,000 new numbers. */
const BULK_RUNS = 3;
const BULK_SIZE = 10_000;

/**
 * Times POST /v1/suppressions/bulk of 10,000 new numbers, BULK_RUNS times. Run before the claims, so that
 * the claims below are measured with a list of BULK_RUNS × 10,000 numbers to check each request against.
 */
async function bulkSuppressions(service: Running, apiKey: string): Promise<{ ms: number[]; bad: number }> {
  const ms: number[] = [];
  let bad = 0;
  for (let run = 0; run < BULK_RUNS; run++) {
    // +1 415 2xx xxxx: valid numbers, none of them the test numbers the calls below are placed to
    const numbers = Array.from({ length: BULK_SIZE }, (_, i) => `+1415${2_000_000 + run * BULK_SIZE + i}`);
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${service.port}/v1/suppressions/bulk`, {
      method: 'POST',
      headers: json(apiKey),
      body: JSON.stringify({ numbers, reason: 'bench' }),
    });
    const body = await res.text();
    ms.push(performance.now() - started);
    if (res.status !== 200 || !body.includes(`"added":${BULK_SIZE}`)) bad++;
  }
  return { ms, bad };
}

async function calls(ctx: FlowsContext, first: Running, second: Running, demo: Demo, baseline: Running): Promise<void> {
  const clinic = demo.organizations.clinic;
  const bulk = await bulkSuppressions(first, clinic.apiKey);
  const bulkMs = median(bulk.ms);
  ctx.log(`flows bulk suppressions: ${bulk.ms.map((m) => Math.round(m)).join(', ')} ms per 10,000 numbers`);
  const place = (service: Running): Target => ({
    port: service.port,
    method: 'POST',
    path: '/v1/call-requests',
    headers: json(clinic.apiKey),
    body: JSON.stringify({ botId: demo.bots.clinic[0], phoneNumberId: demo.phoneNumbers.clinic[0], to: '+15005550006' }),
  });
  // every call handed out, counted from the answers: none may be handed out twice
  const handed = new Set<string>();
  let claimed = 0;
  let empty = 0;
  const claim = (service: Running): Target => ({
    port: service.port,
    method: 'POST',
    path: '/v1/dispatch/claim',
    headers: json(clinic.apiKey),
    body: JSON.stringify({ max: CLAIM_MAX, leaseSeconds: 3600 }),
    onBody: (body) => {
      const ids = [...body.matchAll(/"callRequestId":"([0-9a-f-]{36})"/g)].map((m) => m[1]!);
      if (ids.length === 0) empty++;
      claimed += ids.length;
      for (const id of ids) handed.add(id);
    },
  });
  const availability: Target = {
    port: first.port,
    path: `/v1/organizations/${clinic.id}/availability?medium=PHONE&phoneNumberId=${demo.phoneNumbers.clinic[0]}`,
    headers: auth(clinic.apiKey),
  };

  await run(place(first), ctx.connections, 2); // warm-up
  await run(availability, 10, 2);
  // the least work a placed call needs (bench/baseline.ts callCreate), beside the service's create
  const placeLeast: Target = { ...place(first), port: baseline.port };
  await run(placeLeast, ctx.connections, 2); // warm-up
  const placing = { one: [] as Run[], two: [] as Run[], least: [] as Run[] };
  const claiming: { a: Run; b: Run; calls: number }[] = [];
  const reads = { alone: [] as Run[], claims: [] as Run[] };
  const sum = (a: Run, b: Run): Run => ({
    rps: a.rps + b.rps,
    ok: a.ok + b.ok,
    p50: Math.max(a.p50, b.p50),
    p99: Math.max(a.p99, b.p99),
    bad: a.bad + b.bad,
  });
  for (let round = 0; round < ctx.rounds; round++) {
    const one = await run(place(first), ctx.connections, ctx.seconds);
    placing.one.push(one);
    const [a, b] = await Promise.all([
      run(place(first), ctx.connections / 2, ctx.seconds),
      run(place(second), ctx.connections / 2, ctx.seconds),
    ]);
    placing.two.push(sum(a, b));
    const least = await run(placeLeast, ctx.connections, ctx.seconds);
    placing.least.push(least);
    ctx.log(
      `flows round ${round + 1}/${ctx.rounds} placing calls: one instance ${Math.round(one.rps)} req/s, two ${Math.round(a.rps + b.rps)} req/s, least work ${Math.round(least.rps)} req/s`,
    );

    const before = claimed;
    const [ca, cb] = await Promise.all([
      run(claim(first), RUNTIMES_PER_INSTANCE, ctx.seconds),
      run(claim(second), RUNTIMES_PER_INSTANCE, ctx.seconds),
    ]);
    claiming.push({ a: ca, b: cb, calls: claimed - before });
    ctx.log(
      `flows round ${round + 1}/${ctx.rounds} claims on two instances: ${Math.round((claimed - before) / ctx.seconds)} calls/s, p99 ${ca.p99} / ${cb.p99} ms`,
    );

    const alone = await run(availability, 10, ctx.seconds, READ_RATE);
    reads.alone.push(alone);
    const [withClaims] = await Promise.all([
      run(availability, 10, ctx.seconds, READ_RATE),
      run(claim(first), RUNTIMES_PER_INSTANCE, ctx.seconds),
      run(claim(second), RUNTIMES_PER_INSTANCE, ctx.seconds),
    ]);
    reads.claims.push(withClaims);
    ctx.log(
      `flows round ${round + 1}/${ctx.rounds} availability: alone ${Math.round(alone.rps)} req/s p99 ${alone.p99} ms, while claiming ${Math.round(withClaims.rps)} req/s p99 ${withClaims.p99} ms`,
    );
  }
  const med = (rs: Run[]) => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    bad: rs.reduce((a, r) => a + r.bad, 0),
  });
  const placeOne = med(placing.one);
  const placeTwo = med(placing.two);
  const placeLeastMed = med(placing.least);
  // the ratio of each round's pair (run one after the other), then their median
  const placeRatio = median(placing.one.map((r, i) => r.rps / placing.least[i]!.rps));
  const claimP99 = median(claiming.map((c) => Math.max(c.a.p99, c.b.p99)));
  const claimP50 = median(claiming.map((c) => Math.max(c.a.p50, c.b.p50)));
  const claimRps = median(claiming.map((c) => c.a.rps + c.b.rps));
  const callsPerSecond = median(claiming.map((c) => c.calls / ctx.seconds));
  const claimBad = claiming.reduce((a, c) => a + c.a.bad + c.b.bad, 0);
  const twice = claimed - handed.size;
  const alone = med(reads.alone);
  const whileClaiming = med(reads.claims);

  ctx.report.push(
    `### Calls (PostgreSQL, two instances on one database, ${QUEUED_CALLS} calls queued for the runtimes)`,
    '',
    '| scenario | req/s (median) | ratio | p50 ms | p99 ms | non-2xx + errors |',
    '|---|---:|---|---:|---:|---:|',
    `| POST /v1/call-requests, one instance, ${ctx.connections} connections | ${Math.round(placeOne.rps)} | 1.00 | ${placeOne.p50} | ${placeOne.p99} | ${placeOne.bad} |`,
    `| the least work: node:http and pg, one statement inserting the request and its event row, ${ctx.connections} connections | ${Math.round(placeLeastMed.rps)} | ${(placeLeastMed.rps / placeOne.rps).toFixed(2)}× | ${placeLeastMed.p50} | ${placeLeastMed.p99} | ${placeLeastMed.bad} |`,
    `| POST /v1/call-requests, two instances, ${ctx.connections / 2} connections each | ${Math.round(placeTwo.rps)} | ${(placeTwo.rps / placeOne.rps).toFixed(2)}× | ${placeTwo.p50} | ${placeTwo.p99} | ${placeTwo.bad} |`,
    `| POST /v1/dispatch/claim {max: ${CLAIM_MAX}}, ${RUNTIMES_PER_INSTANCE} runtimes on each of two instances (${Math.round(callsPerSecond)} calls handed out/s, ${twice} twice, ${empty} empty answers) | ${Math.round(claimRps)} | | ${claimP50} | ${claimP99} | ${claimBad} |`,
    `| POST /v1/suppressions/bulk, ${BULK_SIZE} new numbers, one at a time (median of ${BULK_RUNS}; the claims above check each request against the ${BULK_RUNS * BULK_SIZE} listed) | | | ${Math.round(bulkMs)} | ${Math.round(Math.max(...bulk.ms))} | ${bulk.bad} |`,
    `| GET …/availability at ${READ_RATE} req/s, alone | ${Math.round(alone.rps)} | 1.00 | ${alone.p50} | ${alone.p99} | ${alone.bad} |`,
    `| GET …/availability at ${READ_RATE} req/s while the runtimes claim on both instances | ${Math.round(whileClaiming.rps)} | ${(whileClaiming.rps / alone.rps).toFixed(2)}× | ${whileClaiming.p50} | ${whileClaiming.p99} | ${whileClaiming.bad} |`,
    '',
  );
  ctx.target(
    'Calls: POST /v1/call-requests, one instance, against the least work',
    `${Math.round(placeOne.rps)} req/s against ${Math.round(placeLeastMed.rps)} (${placeRatio.toFixed(2)}×), p99 ${placeOne.p99} ms`,
    '≥ 0.4×, no error',
    placeRatio >= 0.4 && placeOne.bad === 0,
  );
  ctx.target(
    'Calls: claims by runtimes on two instances',
    `p99 ${claimP99} ms, ${Math.round(callsPerSecond)} calls/s, ${twice} handed out twice`,
    'none twice, no error (latency reported)',
    twice === 0 && claimBad === 0,
  );
  ctx.target(
    'Calls: a 10,000-number bulk suppression',
    `median ${Math.round(bulkMs)} ms, slowest ${Math.round(Math.max(...bulk.ms))} ms, ${bulk.bad} errors`,
    '< 1000 ms, no error',
    bulkMs < 1000 && bulk.bad === 0,
  );
  ctx.target(
    'Calls: availability reads while claims run on both instances',
    `p99 ${whileClaiming.p99} ms (alone ${alone.p99} ms) at ${READ_RATE} req/s, ${whileClaiming.bad} errors`,
    'no error, p99 < 100 ms',
    whileClaiming.bad === 0 && whileClaiming.p99 < 100,
  );
}

/** Queued requests a calling-policy change re-evaluates in the policy-change run. */
const POLICY_QUEUED = 100_000;

/**
 * A calling-policy change over POLICY_QUEUED queued requests of the second clinic (issue 34: < 10 s), timed
 * from the PUT until no re-evaluation job is left and every request has its new instant, with availability
 * read at READ_RATE on the same instance meanwhile and, before it, alone (target: p99 ≤ 2× alone).
 */
async function policyChange(ctx: FlowsContext, service: Running, demo: Demo, url: string): Promise<void> {
  const clinic2 = demo.organizations.clinic2;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const times: number[] = [];
    const ratios: number[] = [];
    const rows: string[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      // due now, expiring in 20 days: a Monday 03:00-04:00 window moves every one of them
      await db.query(`DELETE FROM "CallRequest" WHERE "orgId" = $1::uuid`, [clinic2.id]);
      await db.query(
        `INSERT INTO "CallRequest" ("id", "orgId", "botId", "phoneNumberId", "to", "status", "createdAt", "dueAt", "expiresAt", "calleeTimezone")
         SELECT gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, '+15005550006', 'queued', now(), now(), now() + interval '20 days',
                (ARRAY['America/New_York', 'America/Havana', 'Australia/Lord_Howe', 'America/Santiago'])[1 + g % 4]
         FROM generate_series(1, $4::int) g`,
        [clinic2.id, demo.bots.clinic[0], demo.phoneNumbers.clinic[0], POLICY_QUEUED],
      );
      await db.query('ANALYZE "CallRequest"');
      const availability: Target = {
        port: service.port,
        path: `/v1/organizations/${clinic2.id}/availability?medium=PHONE`,
        headers: auth(clinic2.apiKey),
      };
      const alone = await run(availability, 10, ctx.seconds, READ_RATE);
      const started = performance.now();
      const reading = run(availability, 10, ctx.seconds, READ_RATE);
      const day = round % 2 === 0 ? 'MONDAY' : 'TUESDAY';
      const put = await call<{ success: boolean }>(service.port, 'PUT', `/v1/organizations/${clinic2.id}/calling-policy`, clinic2.apiKey, {
        windows: [{ dayOfWeek: day, start: '03:00', end: '04:00' }],
        maxConcurrentCalls: 10,
      });
      if (!put.success) throw new Error(`the policy change was refused: ${JSON.stringify(put)}`);
      let ms = Number.NaN;
      for (let polls = 0; polls < 1_200; polls++) {
        const { rows: left } = await db.query<{ jobs: string; unmoved: string }>(
          `SELECT (SELECT count(*) FROM "Job" WHERE "kind" = 'calling_policy.reevaluate')::text AS "jobs",
                  (SELECT count(*) FROM "CallRequest" WHERE "orgId" = $1::uuid AND "status" = 'queued' AND "dueAt" < now() + interval '1 hour')::text AS "unmoved"`,
          [clinic2.id],
        );
        if (left[0]!.jobs === '0' && left[0]!.unmoved === '0') {
          ms = performance.now() - started;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const during = await reading;
      times.push(ms);
      ratios.push(during.p99 / Math.max(alone.p99, 1));
      ctx.log(
        `flows round ${round + 1}/${ctx.rounds} policy change over ${POLICY_QUEUED} queued: ${Math.round(ms)} ms; availability p99 ${during.p99} ms (alone ${alone.p99} ms)`,
      );
      rows.push(
        `| round ${round + 1} | ${Math.round(ms)} | ${alone.p50} / ${alone.p99} | ${during.p50} / ${during.p99} | ${alone.bad + during.bad} |`,
      );
    }
    const ms = median(times);
    const ratio = median(ratios);
    ctx.report.push(
      `### A calling-policy change over ${POLICY_QUEUED} queued requests (PostgreSQL, one instance; availability at ${READ_RATE} req/s on it)`,
      '',
      '| round | re-evaluated in ms | availability alone p50 / p99 ms | availability meanwhile p50 / p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
    );
    ctx.target(
      'Calls: a calling-policy change over 100,000 queued requests',
      `median ${Math.round(ms)} ms; availability p99 ${ratio.toFixed(2)}× its value alone (median of the rounds)`,
      '< 10,000 ms, p99 ≤ 2×',
      ms < 10_000 && ratio <= 2,
    );
  } finally {
    await db.end();
  }
}

export async function flowsPart(ctx: FlowsContext): Promise<void> {
  ctx.log(`Flows: preparing ${DATABASE} (demo data, ${CLOSURES} closures, ${QUEUED_CALLS} queued calls)…`);
  const { url, demo, closures } = await prepare(ctx);
  const env = { DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  const receiver = await startScript('bench/receiver.mjs', []);
  const first = await startService(env);
  const running: Running[] = [receiver, first];
  try {
    const only = process.env.BENCH_FLOWS;
    if (only !== 'calls' && only !== 'policy') {
      const leastDelivery = await startScript('bench/baseline.ts', ['deliver'], {
        BENCH_POSTGRES_URL: url,
        BENCH_APPLICATION_NAME: LEAST_DELIVERY_APPLICATION,
      });
      running.push(leastDelivery);
      await webhooks(ctx, first, receiver, leastDelivery, demo, closures, url);
    }
    if (only === 'webhooks') return;
    const second = await startService(env);
    running.push(second);
    const least = await startScript('bench/baseline.ts', ['callCreate'], {
      BENCH_POSTGRES_URL: url,
      BENCH_ORG_ID: demo.organizations.clinic.id,
    });
    running.push(least);
    if (only !== 'policy') await calls(ctx, first, second, demo, least);
    await policyChange(ctx, first, demo, url);
  } finally {
    await Promise.all(running.map((r) => r.stop()));
  }
}
