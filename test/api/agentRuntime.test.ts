// The reference runtime's work (agent/runtime.ts) run in this process against the app on the fake clock: a campaign
// worked to its end by a seeded outcome mix (issue 35 §5). Every call takes the next draw; a busy, no_answer or
// voicemail comes back when its retry interval is over and ends failed when its attempts are spent; an opt-out lists
// the number; a callback's follow-up comes due a day later and is worked too; the batch completes. The clock is moved,
// never waited for (the runtime's own wait, on a 429, would fail the test). test/e2e/agent.test.ts runs the process.
import { describe, expect, it } from 'vitest';
import { parseMix } from '../../agent/outcomes.js';
import { claimAndPlay, type ClientOptions, drawsOf, type Io, ServiceClient, type WorkedCall } from '../../agent/runtime.js';
import type { Schemas } from '../support/apiTypes.js';
import { useTestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

// a Monday at 15:00 UTC (10:00 in New York)
const NOW = '2026-03-02T15:00:00Z';
const MINUTE = 60_000;
const DAY = 86_400_000;
const number = (i: number) => `+1415${String(2_000_000 + i)}`;

describe('the reference runtime on the fake clock', () => {
  it('works a campaign to its end by a seeded mix: retries, opt-outs and callbacks on the way', async () => {
    t.clock.set(NOW);
    const io: Io = {
      fetch: (url, init) => Promise.resolve(t.app.fetch(new Request(url, init))),
      now: () => t.clock.now().getTime(),
      sleep: () => Promise.reject(new Error('the runtime waited (a 429?): the test moves the clock, never waits')),
    };
    const client = demoClient();
    const options: ClientOptions = { ...client, max: 4, leaseSeconds: 120 };
    const service = new ServiceClient(options, io);
    const MIX = 'busy=2,no_answer=2,voicemail=1,booked=3,callback=2,opt_out=1,declined=1';
    const draw = drawsOf(parseMix(MIX), 35);
    const expected = drawsOf(parseMix(MIX), 35); // the same draws, read by the test

    // the demo's own queued request is not the campaign's
    expect((await t.rest('POST', `/v1/call-requests/${t.demo.callRequests.clinic.queued}/cancel`, { json: {} })).status).toBe(200);
    const everyDay = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
    const policy = await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/calling-policy`, {
      json: { windows: everyDay.map((dayOfWeek) => ({ dayOfWeek, start: '08:00', end: '20:00' })), maxConcurrentCalls: 20 },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const created = await t.rest('POST', '/v1/call-batches', {
      json: {
        botId: t.demo.bots.clinic[0],
        phoneNumberId: t.demo.phoneNumbers.clinic[0],
        notAfter: new Date(Date.parse(NOW) + 3 * DAY).toISOString(),
        retry: { maxAttempts: 2, intervalsMinutes: [30] },
        recipients: Array.from({ length: 12 }, (_, i) => ({ to: number(i) })),
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const batchId: string = created.body.data.callBatchId;

    /** Works until nothing is due, as `--once` does. */
    const workDue = async (): Promise<WorkedCall[]> => {
      const lines: WorkedCall[] = [];
      while ((await claimAndPlay(service, options, draw, (line) => lines.push(line))) > 0);
      return lines;
    };
    const all: WorkedCall[] = [];
    let rounds = 0;
    for (;;) {
      const lines = await workDue();
      all.push(...lines);
      // the n-th call worked took the n-th draw
      for (const line of lines) expect(line.code ?? line.disposition).toBe(expected());
      const batch = (await t.rest('GET', `/v1/call-batches/${batchId}`)).body.data;
      if (batch.completedAt !== null) break;
      // to the next due call of the batch: a retry's interval, or a callback a day later (no real wait)
      const queued = (await t.rest('GET', `/v1/call-batches/${batchId}/call-requests?status=queued&limit=100`)).body.data
        .callRequests as Schemas['CallRequest'][];
      expect(queued.length, JSON.stringify(batch.counts)).toBeGreaterThan(0);
      t.clock.set(new Date(Math.min(...queued.map((r) => Date.parse(r.dueAt)))));
      expect(++rounds).toBeLessThan(10);
    }

    const requests = (await t.rest('GET', `/v1/call-batches/${batchId}/call-requests?limit=100`)).body.data
      .callRequests as Schemas['CallRequest'][];
    const byId = new Map(requests.map((r) => [r.callRequestId, r]));
    expect(requests.every((r) => r.status === 'completed' || r.status === 'failed')).toBe(true);
    expect(new Set(all.map((l) => l.callRequestId))).toEqual(new Set(byId.keys()));
    const outcomes = all.map((l) => l.code ?? l.disposition);
    for (const outcome of ['busy', 'no_answer', 'voicemail', 'booked', 'callback_requested', 'opt_out'])
      expect(outcomes).toContain(outcome);

    for (const line of all) {
      const call = byId.get(line.callRequestId)!;
      if (line.code && line.status === 'queued') {
        // tried again 30 minutes after the outcome; then worked again (its later line)
        const attempt = call.attempts.find(
          (a) => a.outcome === line.code && Date.parse(line.dueAt!) - Date.parse(a.endedAt!) === 30 * MINUTE,
        );
        expect(attempt, JSON.stringify(call.attempts)).toBeDefined();
        expect(all.filter((l) => l.callRequestId === call.callRequestId).length).toBe(2);
      } else if (line.code) {
        // a failure with no attempt left ends the request
        expect({ status: call.status, code: call.error?.code }).toEqual({ status: 'failed', code: line.code });
        expect(line.status).toBe('failed');
      } else {
        expect({ status: call.status, disposition: call.disposition }).toEqual({ status: 'completed', disposition: line.disposition });
      }
      if (line.disposition === 'opt_out') {
        const listed = await t.rest('GET', `/v1/suppressions?number=${encodeURIComponent(call.to)}`);
        expect(listed.body.data.suppressions).toMatchObject([{ source: 'opt_out', callRequestId: call.callRequestId }]);
      }
      if (line.disposition === 'callback_requested') {
        // the follow-up joined the batch and was called a day later (or halfway to notAfter), in its calling window
        const followUp = byId.get(line.followUpId!)!;
        expect(followUp).toMatchObject({ followUpOf: call.callRequestId, to: call.to, batchId });
        expect(call.followUpId).toBe(followUp.callRequestId);
        expect(all.some((l) => l.callRequestId === followUp.callRequestId)).toBe(true);
        expect(Date.parse(followUp.attempts[0]!.claimedAt!) - Date.parse(call.finishedAt!)).toBeGreaterThanOrEqual(DAY - MINUTE);
      }
      if (line.disposition === 'booked') expect(call.data).toMatchObject({ slot: { minutes: 30 } });
    }
    // every attempt started within the calling window (08:00–20:00 in New York, UTC−5 before 8 March)
    for (const r of requests)
      for (const a of r.attempts) {
        const hour = new Date(Date.parse(a.claimedAt!) - 5 * 3_600_000).getUTCHours();
        expect(hour >= 8 && hour < 20, `${r.callRequestId} claimed at ${a.claimedAt}`).toBe(true);
      }
  });
});

function demoClient(): Pick<ClientOptions, 'url' | 'clientId' | 'clientSecret' | 'audience'> {
  const c = t.demo.oauthClients.clinic;
  return { url: 'http://127.0.0.1:4000', clientId: c.clientId, clientSecret: c.clientSecret, audience: t.deps.config.oauthAudience };
}
