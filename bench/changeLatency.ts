// How long a change made on one instance takes to be heard on another, over each notice transport: two
// runtimes per transport in this process, on one PostgreSQL (BENCH_DATABASE_URL) and Redis (BENCH_REDIS_URL).
// Per write: commit → notice received on B, notice → change applied on B (the event log read the notice
// wakes: the cost of the log being the one mechanism), and commit → applied. Rounds alternate the transports.
//   BENCH_DATABASE_URL=postgresql://…/db BENCH_REDIS_URL=redis://… npx tsx bench/changeLatency.ts
import { randomBytes } from 'node:crypto';
import { createOrganization } from '../src/auth/provisioning.js';
import { loadConfig } from '../src/config.js';
import { recordEvent } from '../src/domain/events/log.js';
import { openRuntime, type Runtime } from '../src/runtime.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL!;
const REDIS_URL = process.env.BENCH_REDIS_URL;
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const PER_ROUND = Number(process.env.PER_ROUND ?? 20);

interface Pair {
  name: string;
  a: Runtime;
  b: Runtime;
  samples: { notice: number[]; applied: number[]; total: number[]; beforeNotice: number };
}

async function pair(name: string, redisUrl: string | undefined): Promise<Pair> {
  const channel = `feed_lat_${randomBytes(4).toString('hex')}`;
  const env = {
    DATABASE_URL,
    LOG_LEVEL: 'silent',
    CHANGES_CHANNEL: channel,
    ...(redisUrl ? { REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: `${channel}:` } : {}),
  };
  const a = await openRuntime(loadConfig(env));
  const b = await openRuntime(loadConfig(env));
  return { name, a, b, samples: { notice: [], applied: [], total: [], beforeNotice: 0 } };
}

async function once(p: Pair, orgId: string): Promise<void> {
  let noticeAt = 0;
  let appliedAt = 0;
  const heard = new Promise<void>((resolve) => {
    const off = p.b.changes.subscribe({
      onChange: (change, local) => {
        if (local || change.orgId !== orgId) return;
        appliedAt = performance.now();
        off();
        resolve();
      },
    });
  });
  const offNotice = p.b.changes.onNotice(() => (noticeAt ||= performance.now()));
  await p.a.deps.db.$transaction((tx) =>
    recordEvent(tx, p.a.deps, null, { type: 'closure.created', orgId, subject: { type: 'closure', id: 'x' }, data: {} }),
  );
  const committedAt = performance.now();
  p.a.changes.publish({ kind: 'closures', orgId });
  await heard;
  await new Promise((resolve) => setTimeout(resolve, 20)); // the notice, if the poll was first
  offNotice();
  p.samples.total.push(appliedAt - committedAt);
  if (noticeAt && noticeAt <= appliedAt) {
    p.samples.notice.push(noticeAt - committedAt);
    p.samples.applied.push(appliedAt - noticeAt);
  } else p.samples.beforeNotice++; // the log's poll read it before the notice arrived
}

const q = (xs: number[], f: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor(f * s.length))]!.toFixed(2) : '-';
};

async function main() {
  const pairs = [await pair('PostgreSQL NOTIFY', undefined)];
  if (REDIS_URL) pairs.push(await pair('Redis pub/sub', REDIS_URL));
  const org = await createOrganization(pairs[0]!.a.deps, { name: 'Latency', timezone: 'UTC' });
  for (let round = 0; round < ROUNDS; round++) for (const p of pairs) for (let i = 0; i < PER_ROUND; i++) await once(p, org.id);
  for (const p of pairs) {
    const { notice, applied, total, beforeNotice } = p.samples;
    console.log(
      `${p.name}: n=${total.length} | commit→notice median ${q(notice, 0.5)} ms p95 ${q(notice, 0.95)} | notice→applied median ${q(applied, 0.5)} ms p95 ${q(applied, 0.95)} | commit→applied median ${q(total, 0.5)} ms p95 ${q(total, 0.95)} | read by the poll before the notice: ${beforeNotice}`,
    );
  }
  for (const p of pairs) await Promise.all([p.a.close(), p.b.close()]);
}

await main();
