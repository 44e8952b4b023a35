// Patients' words under governance, on PostgreSQL (issue 36 "Speed"): BENCH_ONLY=governance alone, or within the
// whole run. Side by side in alternating rounds:
//   - a transcript read (GET /v1/conversations/{id}, 20 turns, its access-log entry written first) against the
//     same read without the entry (bench/baseline.ts transcriptRead: the rows read and opened, nothing else);
//   - a turn written with redaction (the organization's policy: e-mail addresses and phone numbers, originals
//     kept) and sealing (POST /v1/conversations/{id}/messages) against a turn written as said, in clear, with its
//     event, in one statement (bench/baseline.ts turnWrite), over 50 conversations in turn.
// bench/retentionPurge.ts follows it (BENCH_GOVERNANCE=speed or purge: one of the two).
// BENCH_GOVERNANCE_DATABASE (ocs_bench_governance) names its database.
import { randomBytes } from 'node:crypto';
import {
  type BenchPart,
  freshDemoDatabase,
  load,
  type LoadResult,
  median,
  type Request,
  restCaller,
  startScript,
  startService,
} from './lib.js';

interface Demo {
  organizations: Record<'clinic', { id: string; apiKey: string }>;
  bots: { clinic: string[] };
}

const TURNS = 20;
const WRITE_CONVERSATIONS = 50;
/** What a caller says: a card number, an e-mail address and a phone number, each redacted under the policy. */
const SAID = 'Sure, my card is 4111 1111 1111 1111, mail me at jane.doe@example.com or call me on (415) 555-2671 after five.';

export async function governancePart(part: BenchPart): Promise<void> {
  const { log, report, target, rounds, seconds, connections } = part;
  const database = process.env.BENCH_GOVERNANCE_DATABASE ?? 'ocs_bench_governance';
  log(`Governance: preparing ${database}…`);
  const { dbUrl, demo } = await freshDemoDatabase<Demo>(part.postgresAdmin, database);
  const clinic = demo.organizations.clinic;
  const masterKeys = `bench:${randomBytes(32).toString('base64')}`;
  const service = await startService({ DATABASE_URL: dbUrl, TRANSCRIPT_MASTER_KEYS: masterKeys });
  const readBaseline = await startScript('bench/baseline.ts', ['transcriptRead'], {
    BENCH_POSTGRES_URL: dbUrl,
    TRANSCRIPT_MASTER_KEYS: masterKeys,
  });
  const writeBaseline = await startScript('bench/baseline.ts', ['turnWrite'], { BENCH_POSTGRES_URL: dbUrl });
  try {
    const { headers, call } = restCaller(service.port, clinic.apiKey);
    await call('PUT', `/v1/organizations/${clinic.id}/redaction`, { emails: true, phones: true, keepOriginals: true });
    const conversation = async () =>
      (await call('POST', '/v1/conversations', { botId: demo.bots.clinic[0], medium: 'PHONE', fromNumber: '+14155550100' }))
        .conversationId as string;
    const read = await conversation();
    for (let i = 0; i < TURNS; i++)
      await call('POST', `/v1/conversations/${read}/messages`, { role: i % 2 ? 'agent' : 'caller', text: SAID });
    const writes: string[] = [];
    for (let i = 0; i < WRITE_CONVERSATIONS; i++) writes.push(await conversation());

    const body = JSON.stringify({ role: 'caller', text: SAID });
    const scenarios: { name: string; port: number; request: Request }[] = [
      {
        name: 'GET /v1/conversations/{id} (20 turns, access-log entry)',
        port: service.port,
        request: { path: `/v1/conversations/${read}`, headers },
      },
      { name: 'node:http + pg: the same rows read and opened (baseline)', port: readBaseline.port, request: { path: `/${read}` } },
      {
        name: 'POST …/messages (redacted, original kept, sealed)',
        port: service.port,
        request: { path: '/', method: 'POST', body, headers, variants: writes.map((id) => `/v1/conversations/${id}/messages`) },
      },
      {
        name: 'node:http + pg: the turn in clear with its event (baseline)',
        port: writeBaseline.port,
        request: {
          path: '/',
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
          variants: writes.map((id) => `/${id}`),
        },
      },
    ];
    const runs = new Map<string, LoadResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const s of scenarios) {
        const r = await load(s.port, s.request, connections, seconds);
        if (r.non2xx + r.errors > 0) log(`  ! ${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        (runs.get(s.name) ?? runs.set(s.name, []).get(s.name)!).push(r);
        log(`round ${round + 1}/${rounds} ${s.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
      }
    }
    const med = (name: string) => {
      const rs = runs.get(name)!;
      return {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        bad: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
      };
    };
    const [readOurs, readBase, writeOurs, writeBase] = scenarios.map((s) => med(s.name)) as [
      ReturnType<typeof med>,
      ReturnType<typeof med>,
      ReturnType<typeof med>,
      ReturnType<typeof med>,
    ];
    const readRatio = readOurs.rps / readBase.rps;
    const writeRatio = writeOurs.rps / writeBase.rps;
    report.push(
      `### Governance (PostgreSQL): transcripts read with their access-log entry, turns written redacted and sealed`,
      '',
      '| scenario | req/s (median) | ratio | p50 ms | p99 ms | non-2xx + errors |',
      '|---|---:|---|---:|---:|---:|',
      `| ${scenarios[0]!.name} | ${Math.round(readOurs.rps)} | ${readRatio.toFixed(2)}× | ${readOurs.p50} | ${readOurs.p99} | ${readOurs.bad} |`,
      `| ${scenarios[1]!.name} | ${Math.round(readBase.rps)} | 1 | ${readBase.p50} | ${readBase.p99} | ${readBase.bad} |`,
      `| ${scenarios[2]!.name} | ${Math.round(writeOurs.rps)} | ${writeRatio.toFixed(2)}× | ${writeOurs.p50} | ${writeOurs.p99} | ${writeOurs.bad} |`,
      `| ${scenarios[3]!.name} | ${Math.round(writeBase.rps)} | 1 | ${writeBase.p50} | ${writeBase.p99} | ${writeBase.bad} |`,
      '',
    );
    target(
      'Governance: transcript read with its access-log entry vs the read without',
      `${readRatio.toFixed(2)}×`,
      '≥ 0.5×',
      readRatio >= 0.5 && readOurs.bad === 0,
    );
    target(
      'Governance: turn written redacted and sealed vs written in clear',
      `${writeRatio.toFixed(2)}×`,
      '≥ 0.7×',
      writeRatio >= 0.7 && writeOurs.bad === 0,
    );
  } finally {
    await Promise.all([service.stop(), readBaseline.stop(), writeBaseline.stop()]);
  }
}
