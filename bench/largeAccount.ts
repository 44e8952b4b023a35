// The large-account part of `npm run bench` (issue 23): an account organization with BENCH_LARGE_LOCATIONS
// (20,000) locations, created directly in the database (weekday office hours and one conversation each),
// on PostgreSQL. Measured:
//   - the same availability answer (one location, warm) with the location's key and with the account's
//     key, alternating rounds (target: account ≥ 0.9× location), and the account's first seconds after start;
//   - availability rotating over every location with the account's key (no error, peak RSS < 300 MiB);
//   - the cold read (issue 33): the same rotation going on where it stopped, so that every location read was
//     read last a whole rotation ago and the read model (READ_MODEL_MAX_ENTRIES of each part, fewer than the
//     locations) no longer holds it, against the least work (bench/baseline.ts prisma: one Prisma read by
//     primary key rotating over the same locations), alternating rounds (target ≥ 0.5×); the schedules' hits
//     and misses in the read model meanwhile (its /metrics) are reported, to show how cold it was;
//   - the organization read of the account (its size, which must not grow with the locations), pages of
//     its children, and includeChildren conversation pages, each with its latency (target p99 < 200 ms).
// BENCH_LARGE_LOCATIONS=200 makes a quick smoke run (its cold read is then warm: the hits say so);
// BENCH_LARGE_DATABASE (ocs_bench_large) names the database: runs side by side must not drop each other's.
import pg from 'pg';
import {
  type BenchPart,
  freshDemoDatabase,
  load,
  type LoadResult,
  median,
  peakRssMiB,
  type Request,
  type Running,
  startScript,
  startService,
} from './lib.js';

/** What the run hands this part (bench/lib.ts BenchPart). */
export type LargeAccountContext = BenchPart;

interface Demo {
  organizations: Record<'account' | 'clinic', { id: string; apiKey: string }>;
}

const locations = Number(process.env.BENCH_LARGE_LOCATIONS ?? 20_000);
const DATABASE = process.env.BENCH_LARGE_DATABASE ?? 'ocs_bench_large';

async function prepare(ctx: LargeAccountContext): Promise<{ url: string; demo: Demo }> {
  const { dbUrl, demo } = await freshDemoDatabase<Demo>(ctx.postgresAdmin, DATABASE);
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const account = demo.organizations.account.id;
  await db.query(
    `INSERT INTO "Organization" ("id", "name", "timezone", "parentId", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), 'Location ' || g, 'America/New_York', $1::uuid, now() - (g || ' seconds')::interval, now()
     FROM generate_series(1, $2::int) g`,
    [account, locations],
  );
  await db.query(
    `INSERT INTO "OfficeHours" ("id", "orgId", "dayOfWeek", "isClosed", "open", "close", "updatedAt")
     SELECT gen_random_uuid(), o."id", d::"DayOfWeek", false, '08:00', '17:00', now()
     FROM "Organization" o CROSS JOIN unnest(ARRAY['MONDAY','TUESDAY','WEDNESDAY','THURSDAY','FRIDAY']) d
     WHERE o."parentId" = $1::uuid AND o."name" LIKE 'Location %'`,
    [account],
  );
  await db.query(
    `INSERT INTO "Conversation" ("id", "orgId", "medium", "startTime", "tags", "topic")
     SELECT gen_random_uuid(), o."id", 'PHONE', now() - (row_number() OVER (ORDER BY o."id") || ' minutes')::interval, ARRAY[]::text[], 'bench'
     FROM "Organization" o WHERE o."parentId" = $1::uuid`,
    [account],
  );
  await db.query('ANALYZE');
  await db.end();
  return { url: dbUrl, demo };
}

/** A page of a list answer: all `sequential` reads of one to choose the next. */
interface Page {
  data: { pagination: { nextCursor: string | null } };
}

/** Latencies of `paths` fetched one after the other (each after the previous answered). */
async function sequential(
  base: string,
  key: string,
  next: (previous: Page | null) => string | null,
): Promise<{ ms: number[]; bytes: number[]; errors: number }> {
  const ms: number[] = [];
  const bytes: number[] = [];
  let errors = 0;
  let path = next(null);
  while (path) {
    const started = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    ms.push(performance.now() - started);
    bytes.push(Buffer.byteLength(text));
    if (res.status !== 200) {
      errors++;
      break;
    }
    path = next(JSON.parse(text) as Page);
  }
  return { ms, bytes, errors };
}

/** The read model's schedule hits and misses so far (the service's /metrics). */
async function scheduleReads(service: Running): Promise<{ hits: number; misses: number }> {
  const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}\\{part="schedules"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { hits: value('ocs_read_model_hits_total'), misses: value('ocs_read_model_misses_total') };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? NaN;
const fmt = (x: number) => (x < 10 ? x.toFixed(1) : String(Math.round(x)));

export async function largeAccountPart(ctx: LargeAccountContext): Promise<void> {
  ctx.log(`Large account: preparing ${DATABASE} (${locations} locations with office hours and a conversation each)…`);
  const { url, demo } = await prepare(ctx);
  const account = demo.organizations.account;
  const clinic = demo.organizations.clinic;
  const service = await startService({ DATABASE_URL: url });
  const prisma = await startScript('bench/baseline.ts', ['prisma'], { BENCH_POSTGRES_URL: url });
  try {
    const base = `http://127.0.0.1:${service.port}`;
    const availability: Request = { path: `/v1/organizations/${clinic.id}/availability?medium=PHONE` };
    const withKey = (key: string): Request => ({ ...availability, headers: { authorization: `Bearer ${key}` } });

    // the account's first seconds after start (nothing warm yet)
    const first = await load(service.port, withKey(account.apiKey), ctx.connections, ctx.seconds);
    ctx.log(`large account: first ${ctx.seconds} s after start, account key: ${Math.round(first.rps)} req/s`);

    const runs = { location: [] as LoadResult[], account: [] as LoadResult[] };
    for (let round = 0; round < ctx.rounds; round++) {
      for (const [name, key] of [
        ['location', clinic.apiKey],
        ['account', account.apiKey],
      ] as const) {
        const r = await load(service.port, withKey(key), ctx.connections, ctx.seconds);
        runs[name].push(r);
        ctx.log(`large account round ${round + 1}/${ctx.rounds} ${name} key: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
      }
    }
    const med = (rs: LoadResult[]) => ({
      rps: median(rs.map((r) => r.rps)),
      p99: median(rs.map((r) => r.p99)),
      bad: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
    });
    const byLocation = med(runs.location);
    const byAccount = med(runs.account);
    const ratio = byAccount.rps / byLocation.rps;

    // rotation over every location with the account's key
    const pg2 = new pg.Client({ connectionString: url });
    await pg2.connect();
    const ids = (
      await pg2.query<{ id: string }>(`SELECT "id"::text AS "id" FROM "Organization" WHERE "parentId" = $1::uuid`, [account.id])
    ).rows.map((r) => r.id);
    await pg2.end();
    const rotating: Request = {
      path: `/v1/organizations/${ids[0]}/availability?medium=PHONE`,
      headers: { authorization: `Bearer ${account.apiKey}` },
      variants: ids.map((id) => `/v1/organizations/${id}/availability?medium=PHONE`),
      rotation: { turn: 0 },
    };
    const rotation = await load(service.port, rotating, ctx.connections, Math.max(ctx.seconds * 2, 5));
    const rss = peakRssMiB(service.child.pid!);

    // the cold read: the rotation goes on where it stopped (a location comes back only after all the others,
    // by then evicted when the read model holds fewer), alternating with the least work rotating over the same ids
    const leastRotating: Request = {
      path: `/v1/organizations/${ids[0]}`,
      variants: ids.map((id) => `/v1/organizations/${id}`),
      rotation: { turn: 0 },
    };
    await load(prisma.port, leastRotating, ctx.connections, 2); // warm-up
    const cold = { service: [] as LoadResult[], least: [] as LoadResult[], hits: 0, misses: 0 };
    for (let round = 0; round < ctx.rounds; round++) {
      const before = await scheduleReads(service);
      const r = await load(service.port, rotating, ctx.connections, ctx.seconds);
      const after = await scheduleReads(service);
      cold.hits += after.hits - before.hits;
      cold.misses += after.misses - before.misses;
      cold.service.push(r);
      const least = await load(prisma.port, leastRotating, ctx.connections, ctx.seconds);
      cold.least.push(least);
      ctx.log(
        `large account round ${round + 1}/${ctx.rounds} cold read: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms (schedules ${after.hits - before.hits} hits, ${after.misses - before.misses} misses); least work ${Math.round(least.rps)} req/s, p99 ${least.p99} ms`,
      );
    }
    const coldService = med(cold.service);
    const coldLeast = med(cold.least);
    const coldRatio = coldService.rps / coldLeast.rps;

    // the organization read, children pages and includeChildren conversation pages, one after the other
    const orgMs: number[] = [];
    let orgBytes = 0;
    for (let i = 0; i < 20; i++) {
      const r = await sequential(base, account.apiKey, (prev) => (prev === null ? `/v1/organizations/${account.id}` : null));
      orgMs.push(...r.ms);
      orgBytes = r.bytes[0] ?? 0;
    }
    const gqlStarted = performance.now();
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { organization { childCount children { id } } } }' }),
    });
    const gqlBytes = Buffer.byteLength(await gql.text());
    const gqlMs = performance.now() - gqlStarted;
    const children = await sequential(base, account.apiKey, (prev) => {
      if (prev === null) return `/v1/organizations/${account.id}/children?limit=200`;
      const cursor = prev.data.pagination.nextCursor;
      return cursor ? `/v1/organizations/${account.id}/children?limit=200&cursor=${encodeURIComponent(cursor)}` : null;
    });
    let pages = 0;
    const conversations = await sequential(base, account.apiKey, (prev) => {
      if (prev === null) return '/v1/conversations?includeChildren=true&limit=20';
      const cursor = prev.data.pagination.nextCursor;
      return cursor && ++pages < 200 ? `/v1/conversations?includeChildren=true&limit=20&cursor=${encodeURIComponent(cursor)}` : null;
    });

    ctx.report.push(
      `### Large account (PostgreSQL, ${locations} locations under one account)`,
      '',
      '| what | req/s (median) | p99 ms | non-2xx + errors |',
      '|---|---:|---:|---:|',
      `| availability of one location, location's key | ${Math.round(byLocation.rps)} | ${byLocation.p99} | ${byLocation.bad} |`,
      `| the same, account's key | ${Math.round(byAccount.rps)} (${ratio.toFixed(2)}×) | ${byAccount.p99} | ${byAccount.bad} |`,
      `| the same, account's key, first ${ctx.seconds} s after start | ${Math.round(first.rps)} | ${first.p99} | ${first.non2xx + first.errors} |`,
      `| availability rotating over all ${ids.length} locations, account's key (peak RSS ${rss} MiB) | ${Math.round(rotation.rps)} | ${rotation.p99} | ${rotation.non2xx + rotation.errors} |`,
      `| the cold read: the same rotation going on, ${ctx.rounds} rounds (schedules in the read model: ${cold.hits} hits, ${cold.misses} misses) | ${Math.round(coldService.rps)} (${coldRatio.toFixed(2)}×) | ${coldService.p99} | ${coldService.bad} |`,
      `| the least work: node:http + Prisma findUnique by primary key rotating over the same ${ids.length} ids, alternating | ${Math.round(coldLeast.rps)} | ${coldLeast.p99} | ${coldLeast.bad} |`,
      '',
      '| read, one after the other | answers | p50 ms | p99 ms | size | errors |',
      '|---|---:|---:|---:|---|---:|',
      `| GET /v1/organizations/{account} | ${orgMs.length} | ${fmt(median(orgMs))} | ${fmt(p99(orgMs))} | ${orgBytes} B | 0 |`,
      `| GraphQL viewer { organization { childCount children { id } } } | 1 | ${fmt(gqlMs)} | ${fmt(gqlMs)} | ${gqlBytes} B | ${gql.status === 200 ? 0 : 1} |`,
      `| GET …/children?limit=200, every page | ${children.ms.length} | ${fmt(median(children.ms))} | ${fmt(p99(children.ms))} | ≤ ${Math.max(...children.bytes)} B | ${children.errors} |`,
      `| GET /v1/conversations?includeChildren=true&limit=20, cursor pages | ${conversations.ms.length} | ${fmt(median(conversations.ms))} | ${fmt(p99(conversations.ms))} | ≤ ${Math.max(...conversations.bytes)} B | ${conversations.errors} |`,
      '',
    );
    ctx.target(
      `Large account: account key vs location key, same availability (${locations} locations)`,
      `${ratio.toFixed(2)}×`,
      '≥ 0.9×',
      ratio >= 0.9,
    );
    ctx.target(
      `Large account: rotation over all ${locations} locations`,
      `${rotation.non2xx + rotation.errors} errors, peak RSS ${rss} MiB`,
      'no error, < 300 MiB',
      rotation.non2xx + rotation.errors === 0 && rss < 300,
    );
    ctx.target(
      `Large account: cold read (availability of a location not in the read model) vs node:http + Prisma PK, rotating over ${ids.length}`,
      `${coldRatio.toFixed(2)}× (${Math.round(coldService.rps)} against ${Math.round(coldLeast.rps)} req/s; schedules ${cold.hits} hits, ${cold.misses} misses)`,
      '≥ 0.5×, no error',
      coldRatio >= 0.5 && coldService.bad === 0,
    );
    const convP99 = p99(conversations.ms);
    ctx.target(
      'Large account: includeChildren conversation pages',
      `p99 ${fmt(convP99)} ms, ${conversations.errors} errors`,
      '< 200 ms, no error',
      convP99 < 200 && conversations.errors === 0,
    );
    ctx.target('Large account: organization read size', `${orgBytes} B`, '< 10 KB (does not grow with locations)', orgBytes < 10_000);
  } finally {
    await Promise.all([service.stop(), prisma.stop()]);
  }
}
