// `npm run bench`: loads the service over loopback with autocannon and, in the same run, a bare
// node:http baseline doing the same database read (CONTRACT §8). Rounds alternate between the two so
// that machine noise hits both; medians are reported. Prints one table and writes bench/RESULTS.md.
//   BENCH_SECONDS (default 5) per round, BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 10),
//   BENCH_DATABASE_URL (default pglite:memory; a postgresql:// URL benchmarks PostgreSQL).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'pglite:memory';

interface Started {
  child: ChildProcess;
  port: number;
  lines: string[];
}

function start(args: string[], env: Record<string, string>, ready: (line: string) => number | null): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffer = '';
    const onData = (d: Buffer) => {
      buffer += d.toString();
      let i;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        lines.push(line);
        const port = ready(line);
        if (port) resolve({ child, port, lines });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}\n${lines.join('\n')}`)));
  });
}

/** Peak resident set size of a process so far (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

interface Scenario {
  name: string;
  target: 'service' | 'baseline';
  request: (ctx: Ctx) => { path: string; method?: 'GET' | 'POST'; body?: string; headers: Record<string, string> };
}
interface Ctx {
  apiKey: string;
  orgId: string;
}

async function load(port: number, req: ReturnType<Scenario['request']>) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${req.path}`,
    method: req.method ?? 'GET',
    body: req.body,
    headers: req.headers,
    connections,
    duration: seconds,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const service = await start(['src/server.ts'], { PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000000' }, (line) => {
    // with LOG_LEVEL=warn the listening line is not logged; the demo banner names the address
    const m = /GraphiQL: http:\/\/[^:]+:(\d+)\/graphql/.exec(line);
    return m ? Number(m[1]) : null;
  });
  // the demo key is printed on stderr when the embedded database is created
  const apiKeyLine = service.lines.join('\n');
  let serviceCtx: Ctx;
  const key = /Demo API key \(account organization\): (\S+)/.exec(apiKeyLine)?.[1];
  if (key) {
    const res = await fetch(`http://127.0.0.1:${service.port}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { organization { id } } }' }),
    });
    const body = (await res.json()) as { data: { viewer: { organization: { id: string } } } };
    serviceCtx = { apiKey: key, orgId: body.data.viewer.organization.id };
  } else {
    throw new Error('The benchmark needs an embedded database with fresh demo data (BENCH_DATABASE_URL=pglite:memory)');
  }
  const baseline = await start(['bench/baseline.ts'], {}, (line) => (line.startsWith('{"msg":"listening"') ? (JSON.parse(line) as { port: number }).port : null));
  const baselineInfo = JSON.parse(baseline.lines.find((l) => l.startsWith('{"msg":"listening"'))!) as { apiKey: string; orgId: string };
  const baselineCtx: Ctx = { apiKey: baselineInfo.apiKey, orgId: baselineInfo.orgId };

  const auth = (c: Ctx) => ({ authorization: `Bearer ${c.apiKey}` });
  const scenarios: Scenario[] = [
    { name: 'baseline node:http — same read', target: 'baseline', request: (c) => ({ path: `/v1/organizations/${c.orgId}`, headers: auth(c) }) },
    { name: 'REST GET /v1/organizations/:orgId', target: 'service', request: (c) => ({ path: `/v1/organizations/${c.orgId}`, headers: auth(c) }) },
    {
      name: 'GraphQL { viewer { organization } }',
      target: 'service',
      request: (c) => ({
        path: '/graphql',
        method: 'POST',
        body: JSON.stringify({ query: '{ viewer { organization { id name timezone } } }' }),
        headers: { ...auth(c), 'content-type': 'application/json' },
      }),
    },
    {
      name: 'REST GET …/availability?medium=PHONE',
      target: 'service',
      request: (c) => ({ path: `/v1/organizations/${c.orgId}/availability?medium=PHONE&at=2026-03-09T13:30:00Z`, headers: auth(c) }),
    },
  ];

  // the clinic organization (a child of the account) is what the REST scenarios read
  const clinicRes = await fetch(`http://127.0.0.1:${service.port}/graphql`, {
    method: 'POST',
    headers: { ...auth(serviceCtx), 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { organization { children { id } } } }' }),
  });
  const clinicId = ((await clinicRes.json()) as { data: { viewer: { organization: { children: { id: string }[] } } } }).data.viewer.organization.children[0]!.id;
  serviceCtx = { ...serviceCtx, orgId: clinicId };

  const results = new Map<string, { rps: number[]; p50: number[]; p99: number[]; non2xx: number; errors: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios) {
      const ctx = s.target === 'service' ? serviceCtx : baselineCtx;
      const port = s.target === 'service' ? service.port : baseline.port;
      const r = await load(port, s.request(ctx));
      const acc = results.get(s.name) ?? { rps: [], p50: [], p99: [], non2xx: 0, errors: 0 };
      acc.rps.push(r.rps);
      acc.p50.push(r.p50);
      acc.p99.push(r.p99);
      acc.non2xx += r.non2xx;
      acc.errors += r.errors;
      results.set(s.name, acc);
      process.stderr.write(`round ${round + 1}/${rounds} ${s.name}: ${Math.round(r.rps)} req/s\n`);
    }
  }
  const rss = { service: peakRssMiB(service.child.pid!), baseline: peakRssMiB(baseline.child.pid!) };
  service.child.kill('SIGTERM');
  baseline.child.kill('SIGTERM');

  const baseRps = median(results.get(scenarios[0]!.name)!.rps);
  const rows = scenarios.map((s) => {
    const r = results.get(s.name)!;
    const rps = median(r.rps);
    return `| ${s.name} | ${Math.round(rps)} | ${(rps / baseRps).toFixed(2)} | ${median(r.p50)} | ${median(r.p99)} | ${s.target === 'service' ? rss.service : rss.baseline} | ${r.non2xx + r.errors} |`;
  });
  const table = [
    '| scenario | req/s (median) | × baseline | p50 ms | p99 ms | peak RSS MiB | non-2xx + errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  const header = `# Benchmark results\n\n${new Date().toISOString()} · ${cpus().length} cores · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version} · database ${databaseUrl} · ${connections} connections · ${rounds} rounds × ${seconds} s, alternating; medians.\n\nThe baseline is a bare node:http server doing the same database read (API key by hash, then the organization) on its own in-memory PGlite. The service runs with LOG_LEVEL=warn and a rate limit high enough not to interfere.\n\n`;
  writeFileSync(new URL('./RESULTS.md', import.meta.url), header + table + '\n');
  process.stdout.write(table + '\n');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
