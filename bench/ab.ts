// A quick side-by-side of REST office hours and GraphQL organization{officeHours} on one embedded service
// (not part of `npm run bench`): AB_ROUNDS (5) rounds of AB_SECONDS (5), alternating, medians and ratio.
// Used while working on the GraphQL path; BENCH_SERVICE_FLAGS profiles the service, AB_ONLY=graphql loads
// GraphQL alone (a profile of it alone), AB_ONLY=rest REST alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, median, startService } from './lib.js';

const rounds = Number(process.env.AB_ROUNDS ?? 5);
const seconds = Number(process.env.AB_SECONDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'ocs-ab-'));
const service = await startService({ DATABASE_URL: `pglite:${join(dir, 'pglite')}` });
try {
  const demo = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
  const clinic = demo.organizations.clinic as { id: string; apiKey: string };
  const auth = { authorization: `Bearer ${clinic.apiKey}` };
  const base = `http://127.0.0.1:${service.port}`;
  for (const day of ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']) {
    const res = await fetch(`${base}/v1/organizations/${clinic.id}/office-hours`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        dayOfWeek: day,
        isClosed: false,
        open: '08:00',
        close: '18:00',
        breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'At lunch' }],
      }),
    });
    if (!res.ok) throw new Error(await res.text());
  }
  const body = JSON.stringify({
    query:
      'query($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek isClosed open close breaks { start end reason greeting } } } }',
    variables: { id: clinic.id },
  });
  const gql = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  process.stderr.write(`${gql.status} ${(await gql.text()).slice(0, 300)}\n`);
  const rest: number[] = [];
  const graphql: number[] = [];
  const restCpu: number[] = [];
  const graphqlCpu: number[] = [];
  // CPU seconds of the service so far (utime + stime, clock ticks of 10 ms)
  const cpu = () => {
    const fields = readFileSync(`/proc/${service.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const measured = async (request: Parameters<typeof load>[1], cpus: number[]) => {
    const before = cpu();
    const r = await load(service.port, request, 50, seconds);
    cpus.push(((cpu() - before) * 1e6) / (r.rps * seconds));
    return r.rps;
  };
  await load(service.port, { path: '/graphql', method: 'POST', body, headers: { ...auth, 'content-type': 'application/json' } }, 50, 2);
  for (let i = 0; i < rounds; i++) {
    if (process.env.AB_ONLY !== 'graphql')
      rest.push(await measured({ path: `/v1/organizations/${clinic.id}/office-hours`, headers: auth }, restCpu));
    if (process.env.AB_ONLY !== 'rest')
      graphql.push(
        await measured({ path: '/graphql', method: 'POST', body, headers: { ...auth, 'content-type': 'application/json' } }, graphqlCpu),
      );
    const part = (name: string, rps: number[], cpu: number[], at: number) =>
      rps.length > at ? `${name} ${rps[at]!.toFixed(0)}/s ${cpu[at]!.toFixed(0)} µs CPU` : '';
    const both = rest.length > i && graphql.length > i ? ` (${(graphql[i]! / rest[i]!).toFixed(2)}×)` : '';
    process.stderr.write(
      `round ${i + 1}: ${[part('REST', rest, restCpu, i), part('GraphQL', graphql, graphqlCpu, i)].filter(Boolean).join('; ')}${both}\n`,
    );
  }
  const medianOf = (name: string, rps: number[], cpu: number[]) =>
    rps.length ? `${name} ${median(rps).toFixed(0)}/s ${median(cpu).toFixed(0)} µs CPU per request` : '';
  const ratio = rest.length && graphql.length ? `; ratio ${(median(graphql) / median(rest)).toFixed(2)}×` : '';
  process.stderr.write(
    `median ${[medianOf('REST', rest, restCpu), medianOf('GraphQL', graphql, graphqlCpu)].filter(Boolean).join('; ')}${ratio}\n`,
  );
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
