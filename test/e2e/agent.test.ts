// The reference runtime (agent/simulator.ts) as a real process against a started service: it claims
// the calls with the demo OAuth client and plays the documented outcome of each test number, writing a
// short transcript for the one that answers, and an opt-out that lists the number; with --mix and --seed it
// works a campaign to the outcomes the seed draws (issue 35 §5), and a bad --mix stops it before any claim.
// On the real clock: the agent is a process of its own (no fake clock reaches it), and --once never waits.
import type { WorkedCall } from '../../agent/runtime.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outcomePicker, parseMix, seededRandom } from '../../agent/outcomes.js';
import { type RunningServer, runScript, startServer } from '../support/processes.js';
import type { Schemas } from '../support/apiTypes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-agent-'));

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

// on the real clock: the default calling policy (08:00-21:00 in New York) would hold the calls back at night
const ALL_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
  dayOfWeek,
  start: '00:00',
  end: '24:00',
}));

describe('npm run agent -- --simulate', () => {
  let server: RunningServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- demo-credentials.json as written by the service
  let demo: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read what they assert
  const api = async (method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${demo.organizations.clinic.apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const agent = (...args: string[]) => {
    const client = demo.oauthClients.clinic;
    return runScript(
      'agent/simulator.ts',
      [
        '--simulate',
        '--once',
        '--url',
        server.baseUrl,
        '--client-id',
        client.clientId,
        '--client-secret',
        client.clientSecret,
        '--audience',
        demo.oauthAudience,
        ...args,
      ],
      {},
    );
  };

  beforeAll(async () => {
    // a campaign's worth of turns within a minute: the runtime would wait out the per-route budget's 429s
    server = await startServer({ DATABASE_URL: `pglite:${join(scratch, 'pglite')}`, RATE_LIMIT_PER_MINUTE: '1000' });
    demo = JSON.parse(readFileSync(join(scratch, 'demo-credentials.json'), 'utf8'));
    // set once, here: a policy change moves every queued request's dueAt to its first allowed instant from then (a
    // job after the change), which a case's own requests should not meet half-way
    const policy = await api('PUT', `/v1/organizations/${demo.organizations.clinic.id}/calling-policy`, {
      windows: ALL_DAY,
      maxConcurrentCalls: 20,
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('works every due call to its documented outcome and writes the transcript of the answered one', async () => {
    const expected: Record<string, { status: string; code: string | null }> = {
      '+15005550006': { status: 'completed', code: null },
      '+15005550009': { status: 'completed', code: null },
      '+15005550007': { status: 'failed', code: 'busy' },
      '+15005550008': { status: 'failed', code: 'no_answer' },
      '+15005550010': { status: 'failed', code: 'voicemail' },
      '+15005550001': { status: 'failed', code: 'target_unavailable' },
      '+14155552671': { status: 'failed', code: 'rejected' },
    };
    const ids: Record<string, string> = {};
    for (const to of Object.keys(expected)) {
      const res = await api('POST', '/v1/call-requests', { botId: demo.bots.clinic[0], phoneNumberId: demo.phoneNumbers.clinic[0], to });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids[to] = res.body.data.callRequestId;
    }

    const run = await agent();
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (const id of Object.values(ids)) expect(lines.some((l) => l.callRequestId === id)).toBe(true);

    const list = await api('GET', '/v1/call-requests?limit=100');
    const byId = new Map<string, Schemas['CallRequest']>(
      list.body.data.callRequests.map((c: Schemas['CallRequest']) => [c.callRequestId, c]),
    );
    for (const [to, outcome] of Object.entries(expected)) {
      const call = byId.get(ids[to]!)!;
      expect({ to, status: call.status, code: call.error?.code ?? null }).toEqual({ to, ...outcome });
    }
    const answered = byId.get(ids['+15005550006']!)!;
    const conversation = await api('GET', `/v1/conversations/${answered.conversationId}`);
    expect(conversation.body.data.conversation).toMatchObject({
      status: 'CLOSED',
      duration: 16,
      medium: 'PHONE',
      toNumber: '+15005550006',
      summary: 'Confirmed the appointment on Tuesday at ten.',
    });
    expect(conversation.body.data.transcript.messages.map((m: Schemas['ConversationMessage']) => m.role)).toEqual([
      'agent',
      'caller',
      'agent',
      'caller',
    ]);
    // the patient who said stop: on the clinic's suppression list, named by the call, and never called again
    expect(lines.find((l) => l.callRequestId === ids['+15005550009'])).toMatchObject({ disposition: 'opt_out' });
    const listed = await api('GET', `/v1/suppressions?number=${encodeURIComponent('+15005550009')}`);
    expect(listed.body.data.suppressions).toMatchObject([{ source: 'opt_out', callRequestId: ids['+15005550009'] }]);
    const again = await api('POST', '/v1/call-requests', {
      botId: demo.bots.clinic[0],
      phoneNumberId: demo.phoneNumbers.clinic[0],
      to: '+15005550009',
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('suppressed');
  });
  it('with --mix and --seed works a campaign to the outcomes the seed draws; a bad --mix claims nothing', async () => {
    const MIX = 'busy=2,no_answer=2,voicemail=1,booked=3,callback=2,opt_out=1,information_given=1,declined=1,transferred=1,other=1';
    // nothing else due: the demo's own queued request (an earlier case's run may have worked it already)
    await api('POST', `/v1/call-requests/${demo.callRequests.clinic.queued}/cancel`, {});
    const notAfter = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const shared = { botId: demo.bots.clinic[0], phoneNumberId: demo.phoneNumbers.clinic[0], notAfter };
    // numbers outside the test table (those play their own outcome, mix or not)
    const number = (i: number) => `+150055500${String(20 + i).padStart(2, '0')}`;
    const batch = await api('POST', '/v1/call-batches', {
      ...shared,
      retry: { maxAttempts: 3, intervalsMinutes: [10] },
      recipients: Array.from({ length: 12 }, (_, i) => ({ to: number(i) })),
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const batchId: string = batch.body.data.callBatchId;
    const batchIds = new Set<string>(batch.body.data.callRequests.map((r: { callRequestId: string }) => r.callRequestId));
    expect(batchIds.size).toBe(12);

    // a bad mix: named, and the runtime stops before it claims anything
    const bad = await agent('--mix', 'busy=2,bussy=1');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('agent: --mix: unknown outcome "bussy" in "bussy=1"');
    expect(bad.stdout).toBe('');
    const zero = await runScript('agent/simulator.ts', ['--simulate', '--once', '--url', server.baseUrl], {
      AGENT_OUTCOME_MIX: 'busy=0,booked=0',
      AGENT_CLIENT_ID: demo.oauthClients.clinic.clientId,
      AGENT_CLIENT_SECRET: demo.oauthClients.clinic.clientSecret,
      AGENT_AUDIENCE: demo.oauthAudience,
    });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('agent: AGENT_OUTCOME_MIX: every weight is 0');
    const untouched = await api('GET', `/v1/call-batches/${batchId}/call-requests?limit=100`);
    expect(untouched.body.data.callRequests.map((c: Schemas['CallRequest']) => [c.status, c.claims])).toEqual(
      Array.from({ length: 12 }, () => ['queued', 0]),
    );

    /** Runs the agent with the mix and a seed: the n-th call it works gets the seed's n-th draw. */
    const campaign = async (seed: number, calls: number) => {
      const run = await agent('--mix', MIX, '--seed', String(seed));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`agent: numbers outside the test table answer by the mix busy=2,no_answer=2,`);
      expect(run.stderr).toContain(`(--seed ${seed})`);
      const lines: WorkedCall[] = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const drawn = Array.from({ length: calls }, outcomePicker(parseMix(MIX), seededRandom(seed)));
      expect(lines.map((l) => l.code ?? l.disposition)).toEqual(drawn);
      return lines;
    };
    /** What the service holds for each call worked agrees with the line the agent printed. */
    const check = async (line: WorkedCall, retried: boolean) => {
      const call = (await api('GET', `/v1/call-requests/${line.callRequestId}`)).body.data as Schemas['CallRequest'];
      if (line.code) {
        expect(call.attempts).toMatchObject([{ n: 1, outcome: line.code }]);
        if (retried) {
          // the retry policy queues it again, ten minutes after the outcome (the clinic calls at any hour)
          expect({ line: line.status, status: call.status, dueAt: line.dueAt }).toEqual({
            line: 'queued',
            status: 'queued',
            dueAt: call.dueAt,
          });
          expect(Date.parse(call.dueAt) - Date.parse(call.attempts[0]!.endedAt!)).toBe(10 * 60_000);
        } else {
          expect({ line: line.status, status: call.status, code: call.error?.code }).toEqual({
            line: 'failed',
            status: 'failed',
            code: line.code,
          });
        }
        return;
      }
      expect({ status: call.status, disposition: call.disposition }).toEqual({ status: 'completed', disposition: line.disposition });
      expect(call.conversationId).toBe(line.conversationId);
      if (line.disposition === 'booked') expect(call.data).toMatchObject({ slot: { start: expect.any(String), minutes: 30 } });
      if (line.disposition === 'opt_out') {
        const listed = await api('GET', `/v1/suppressions?number=${encodeURIComponent(call.to)}`);
        expect(listed.body.data.suppressions).toMatchObject([{ source: 'opt_out', callRequestId: call.callRequestId }]);
      }
      if (line.disposition === 'callback_requested') {
        // a day later (before the request's notAfter): the follow-up request, linked both ways
        expect(call.followUpId).toBe(line.followUpId);
        const followUp = (await api('GET', `/v1/call-requests/${line.followUpId}`)).body.data as Schemas['CallRequest'];
        expect(followUp).toMatchObject({ followUpOf: call.callRequestId, to: call.to, status: 'queued' });
        const later = Date.parse(followUp.dueAt) - Date.parse(call.finishedAt!);
        expect(later).toBeGreaterThan(86_400_000 - 120_000);
        expect(later).toBeLessThanOrEqual(86_400_000 + 60_000);
      }
    };

    // the batch, retried on busy, no_answer and voicemail
    const worked = await campaign(35, 12);
    expect(new Set(worked.map((l) => l.callRequestId))).toEqual(batchIds);
    // the seed was picked so that this campaign meets every kind of outcome the issue names
    for (const outcome of ['busy', 'no_answer', 'voicemail', 'booked', 'callback_requested', 'opt_out'])
      expect(worked.map((l) => l.code ?? l.disposition)).toContain(outcome);
    for (const line of worked) await check(line, true);
    // the batch as a program watching the campaign reads it: per disposition, and not complete (retries and callbacks to come)
    const progress = (await api('GET', `/v1/call-batches/${batchId}`)).body.data;
    const byDisposition: Record<string, number> = {};
    for (const l of worked) if (l.disposition) byDisposition[l.disposition] = (byDisposition[l.disposition] ?? 0) + 1;
    expect(progress.counts.byDisposition).toMatchObject(byDisposition);
    expect(progress.completedAt).toBeNull();

    // single calls without a retry policy: a failure ends them (and the retries above are not due yet)
    const singles: string[] = [];
    for (let i = 12; i < 16; i++) {
      const res = await api('POST', '/v1/call-requests', { ...shared, to: number(i) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      singles.push(res.body.data.callRequestId);
    }
    const alone = await campaign(2026, 4);
    expect(alone.map((l) => l.callRequestId).sort()).toEqual([...singles].sort());
    expect(alone.map((l) => l.code ?? l.disposition)).toContain('voicemail');
    for (const line of alone) await check(line, false);
  });
});
