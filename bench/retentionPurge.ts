// A retention purge under load, on PostgreSQL (issue 36 §3: purging 1,000,000 messages must not raise availability's
// or a write's p99 above 2× its quiet value). BENCH_ONLY=governance runs it after the governance part.
//
// The clinic holds BENCH_PURGE_MESSAGES (1,000,000) turns in conversations started 400 days ago, and keeps
// transcripts 30 days. Availability reads and turn writes run together at a steady rate (a clinic's traffic, not a
// saturating load: a saturated server's p99 is its queue, whatever else runs), first quiet for BENCH_PURGE_QUIET_SECONDS
// (20), then from the moment the organization's purge is queued until its retention.purged event is recorded. The
// purge is the service's own durable work (a job row, found by the queue's poll), nothing in the load knows of it.
// BENCH_PURGE_DATABASE (ocs_bench_purge) names its database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type BenchPart, freshDemoDatabase, load, type LoadResult, restCaller, startService } from './lib.js';

interface Demo {
  organizations: Record<'clinic', { id: string; apiKey: string }>;
  bots: { clinic: string[] };
  phoneNumbers: { clinic: string[] };
}

const CONVERSATION_TURNS = 100;
const AVAILABILITY_RATE = 100;
const WRITE_RATE = 40;
const CONNECTIONS = 10;

export async function retentionPurgePart(part: BenchPart): Promise<void> {
  const { log, report, target } = part;
  const messages = Number(process.env.BENCH_PURGE_MESSAGES ?? 1_000_000);
  const quietSeconds = Number(process.env.BENCH_PURGE_QUIET_SECONDS ?? 20);
  const database = process.env.BENCH_PURGE_DATABASE ?? 'ocs_bench_purge';
  log(`Retention purge: preparing ${database} with ${messages.toLocaleString('en')} old turns…`);
  const { dbUrl, demo } = await freshDemoDatabase<Demo>(part.postgresAdmin, database);
  const clinic = demo.organizations.clinic;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const service = await startService({ DATABASE_URL: dbUrl, TRANSCRIPT_MASTER_KEYS: `bench:${randomBytes(32).toString('base64')}` });
  try {
    const { headers, call } = restCaller(service.port, clinic.apiKey);
    // transcripts go after 30 days; conversations, their records, stay (the purge deletes turns only)
    await call('PUT', `/v1/organizations/${clinic.id}/retention`, { transcriptsDays: 30, conversationsDays: 3650 });
    // the service's first sweep (queued at start) has purged what there was: the old turns arrive after it
    for (;;) {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Job" WHERE "kind" LIKE 'retention.%' AND "runAt" <= now()`);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const conversations = Math.ceil(messages / CONVERSATION_TURNS);
    const seeded = Date.now();
    // what a year of calls leaves: closed conversations of 100 turns each, the turns' text as stored (sealed text is
    // opaque to the purge: it deletes rows by date)
    await db.query(
      `INSERT INTO "Conversation" ("id", "orgId", "botId", "tags", "medium", "startTime", "endTime", "status")
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, '{}', 'PHONE', now() - interval '400 days' + g * interval '1 minute',
              now() - interval '400 days' + g * interval '1 minute' + interval '5 minutes', 'CLOSED'
       FROM generate_series(1, $3::int) g`,
      [clinic.id, demo.bots.clinic[0], conversations],
    );
    await db.query(
      `INSERT INTO "ConversationMessage" ("id", "conversationId", "seq", "role", "text", "at")
       SELECT gen_random_uuid(), c."id", s, CASE WHEN s % 2 = 0 THEN 'agent' ELSE 'caller' END,
              repeat('x', 160), c."startTime" + s * interval '2 seconds'
       FROM "Conversation" c CROSS JOIN generate_series(1, $2::int) s
       WHERE c."orgId" = $1::uuid AND c."startTime" < now() - interval '300 days'`,
      [clinic.id, CONVERSATION_TURNS],
    );
    await db.query('VACUUM ANALYZE "Conversation", "ConversationMessage"');
    log(`  seeded in ${Math.round((Date.now() - seeded) / 1000)} s`);

    const writes: string[] = [];
    for (let i = 0; i < 20; i++)
      writes.push(
        (await call('POST', '/v1/conversations', { botId: demo.bots.clinic[0], medium: 'PHONE', fromNumber: '+14155550100' }))
          .conversationId as string,
      );
    const availability = {
      path: `/v1/organizations/${clinic.id}/availability?medium=PHONE&phoneNumberId=${demo.phoneNumbers.clinic[0]}`,
      headers,
    };
    const write = {
      path: '/',
      method: 'POST' as const,
      body: JSON.stringify({ role: 'caller', text: 'Could I move my appointment to Thursday morning?' }),
      headers,
      variants: writes.map((id) => `/v1/conversations/${id}/messages`),
      rotation: { turn: 0 },
    };
    const both = (seconds: number, until?: Promise<unknown>) =>
      Promise.all([
        load(service.port, availability, CONNECTIONS, seconds, { rate: AVAILABILITY_RATE, until }),
        load(service.port, write, CONNECTIONS, seconds, { rate: WRITE_RATE, until }),
      ]);
    await both(10); // warm
    const quiet = await both(quietSeconds);
    log(`  quiet: availability p99 ${quiet[0].p99} ms, write p99 ${quiet[1].p99} ms`);

    const left = async () =>
      Number(
        (
          await db.query(
            `SELECT count(*) FROM "ConversationMessage" m JOIN "Conversation" c ON c."id" = m."conversationId"
             WHERE c."orgId" = $1::uuid AND m."at" < now() - interval '30 days'`,
            [clinic.id],
          )
        ).rows[0].count,
      );
    const before = await left();
    const queued = Date.now();
    await db.query(
      `INSERT INTO "Job" ("id", "kind", "payload", "runAt", "createdAt") VALUES (gen_random_uuid(), 'retention.purge', $1, now(), now())`,
      [JSON.stringify({ orgId: clinic.id })],
    );
    const purged = (async () => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const { rows } = await db.query(`SELECT 1 FROM "Event" WHERE "type" = 'retention.purged' AND "orgId" = $1::uuid`, [clinic.id]);
        if (rows.length > 0) return Date.now();
      }
    })();
    const during = await both(1800, purged);
    const purgeSeconds = ((await purged) - queued) / 1000;
    const after = await left();
    log(
      `  purge: ${before - after} turns in ${purgeSeconds.toFixed(1)} s; availability p99 ${during[0].p99} ms, write p99 ${during[1].p99} ms`,
    );

    const row = (name: string, q: LoadResult, d: LoadResult) =>
      `| ${name} | ${q.p50} | ${q.p99} | ${d.p50} | ${d.p99} | ${(d.p99 / q.p99).toFixed(2)}× | ${q.non2xx + q.errors + d.non2xx + d.errors} |`;
    report.push(
      `### Retention purge (PostgreSQL): ${(before - after).toLocaleString('en')} turns purged in ${purgeSeconds.toFixed(1)} s under a steady load`,
      '',
      `Availability at ${AVAILABILITY_RATE}/s and turn writes at ${WRITE_RATE}/s together, ${quietSeconds} s quiet, then for the purge's length.`,
      '',
      '| request | quiet p50 ms | quiet p99 ms | purging p50 ms | purging p99 ms | p99 ratio | non-2xx + errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      row('GET …/availability', quiet[0], during[0]),
      row('POST …/messages', quiet[1], during[1]),
      '',
    );
    const bad = [...quiet, ...during].reduce((a, r) => a + r.non2xx + r.errors, 0);
    for (const [name, i] of [
      ['availability', 0],
      ['a turn write', 1],
    ] as const) {
      const ratio = during[i].p99 / quiet[i].p99;
      target(
        `Retention: ${name}'s p99 while ${(before - after).toLocaleString('en')} turns are purged vs quiet`,
        `${ratio.toFixed(2)}×`,
        '≤ 2×',
        ratio <= 2 && bad === 0 && after === 0,
      );
    }
  } finally {
    await Promise.all([service.stop(), db.end()]);
  }
}
