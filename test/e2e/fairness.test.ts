// Fairness between tenants (docs/decisions.md §10 "Fairness"): one organization at its worst legal pattern
// does not degrade another. The clinic gets the worst schedule the rules allow (the most breaks every day, with
// the longest texts, and the most timed closures within one timeline's range), then sends its whole per-minute
// budget of 31-day timelines at once, over REST and GraphQL; meanwhile another organization reads its
// availability and writes an insurance's notes, one request after the other, each write's event delivered to a
// webhook receiver of its own (in this process; its delivery time is the receiver's arrival minus the event's
// occurredAt, on the one clock of this machine). Against what it sees with the server
// quiet (the larger of the quiet runs just before and just after the burst, so that a machine whose speed drifts
// during the test is not read as unfairness), each of its requests keeps
// - its p99 within 2× plus a pause of the machine's own (a collection of garbage, a turn of the OS scheduler on two
//   cores the client shares with the service): as long whoever caused it, and what a p99 of a one-millisecond
//   request on such a machine is made of. The pause is the slowest of its quiet samples, at least PAUSE_MS, so
//   that a slower machine is measured by its own pauses; and
// - its median within 2× plus, at each of its two turns of the event loop (the turn its bytes arrive in, and the
//   turn the request queue starts it in, src/http/requestScheduler.ts), one piece of the other organization's work
//   that was already running, plus 1 ms. A request's handling is not preempted: in a fair share the other
//   organization's requests (its hundreds of refusals, each parsed, authenticated and answered) take turns with
//   this one, and a turn waits for the piece in progress. A piece costs about what a cheap request does, so it is
//   measured as this organization's own quiet read median on this machine. A service that let the burst's work run
//   at once (no per-organization slot) made it sixteen times as slow.
// It runs alone, after the other test files (test/vitest.config.ts). A real process (npm start's), real sockets; the
// burst comes from a process of its own at the lowest CPU priority (test/support/burstWorker.mjs), so that reading
// its answers takes neither the measuring client's turns on the CPU nor the service's.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MAX_BREAKS_PER_DAY } from '../../src/domain/schedule/officeHours.js';
import { startServer, type RunningServer } from '../support/processes.js';

vi.setConfig({ testTimeout: 180_000 });

const scratch = mkdtempSync(join(tmpdir(), 'ocs-fairness-'));
let server: RunningServer | undefined;
const receivers: ReturnType<typeof createServer>[] = [];
afterAll(async () => {
  for (const receiver of receivers) receiver.close();
  // a server still busy with the burst (it failed) is not waited for
  if (server) await Promise.race([server.stop('SIGKILL'), new Promise((r) => setTimeout(r, 5_000))]);
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Per organization and route pattern; raised from 60 so that the other organization can take SAMPLES three times
 * within a minute (and the clinic's burst, its whole budget, is as large: what passes its slot's line is a 429).
 */
const BUDGET = 1200;
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
/** Timed closures the clinic gets within the timeline's range (the most allowed within 31 days of one another). */
const CLOSURES = 100;
/**
 * Samples of each of the other organization's requests, quiet (before and after) and under the burst: its p99 is
 * then its third slowest, not one stray request (with 100, the p99 of one run was 1.2× to 3.2× of another's).
 */
const SAMPLES = 300;
/** The least that a p99 may grow by besides 2×: the machine's own pause (above). */
const PAUSE_MS = 10;
/** The other organization's pieces a request may wait for: one at each of its turns (above). */
const TURNS = 2;

const TIMELINE =
  'query($id: ID!, $from: DateTime!, $to: DateTime!) { organization(id: $id) { availabilityTimeline(from: $from, to: $to, medium: PHONE) { intervals { start end state greeting closure { id description } break { start end reason } } } } }';

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
/** For the setup: several requests at once. */
const setupAgent = new Agent({ keepAlive: true, maxSockets: 10 });
function call(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  via = agent,
): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request(new URL(path, baseUrl), { method, headers, agent: via, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} took more than 20 s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]!;
}

/**
 * A request's median and p99 under the burst against the larger of the two quiet runs', the machine's pause (the
 * slowest quiet sample, at least PAUSE_MS), and how many samples.
 */
function compare(before: number[], during: number[], after: number[]) {
  const at = (p: number) => ({
    quiet: Math.max(percentile(before, p), percentile(after, p)),
    burst: percentile(during, p),
  });
  return { median: at(50), p99: at(99), pause: Math.max(PAUSE_MS, ...before, ...after), samples: during.length };
}

describe('one organization at its worst legal pattern', () => {
  it("keeps another organization's median and p99 on availability and on a write, and the p99 of its webhook deliveries, within 2× of their quiet values (the p99 plus the machine's pause)", async () => {
    const dir = join(scratch, 'pglite');
    // the receiver of the other organization's webhooks: on 127.0.0.1, so private targets are allowed here
    const arrivals: { at: number; occurredAt: number }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const at = Date.now();
        const occurred = /"occurredAt":"([^"]+)"/.exec(body);
        if (occurred) arrivals.push({ at, occurredAt: Date.parse(occurred[1]!) });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receivers.push(receiver);
    server = await startServer({
      DATABASE_URL: `pglite:${dir}`,
      RATE_LIMIT_PER_MINUTE: String(BUDGET),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    const { baseUrl } = server;
    const demo = JSON.parse(readFileSync(join(scratch, 'demo-credentials.json'), 'utf8'));
    const noisy = { id: demo.organizations.clinic.id as string, key: demo.organizations.clinic.apiKey as string };
    const quiet = { id: demo.organizations.other.id as string, key: demo.organizations.other.apiKey as string };

    // the worst week: every day open all day with the most breaks allowed (one-minute breaks where a day can hold no more),
    // their texts as long as one request body allows
    const breaksPerDay = Math.min(MAX_BREAKS_PER_DAY, 719);
    const step = Math.floor(1438 / (2 * breaksPerDay));
    const textLength = Math.min(500, Math.floor(900_000 / (DAYS.length * breaksPerDay * 2)) - 60);
    const breaks = Array.from({ length: breaksPerDay }, (_, i) => ({
      start: hhmm(1 + 2 * i * step),
      end: hhmm(1 + 2 * i * step + step),
      reason: `Pause ${i} `.padEnd(textLength, 'r'),
      greeting: `Back soon ${i} `.padEnd(textLength, 'g'),
    }));
    const week = await call(baseUrl, 'PUT', `/v1/organizations/${noisy.id}/office-hours`, noisy.key, {
      officeHours: DAYS.map((dayOfWeek) => ({ dayOfWeek, isClosed: false, open: '00:00', close: '23:59', breaks })),
    });
    expect(week.status, week.text.slice(0, 300)).toBe(200);
    // the demo's own closures go first: the range gets exactly the most the bound allows
    const existing = JSON.parse((await call(baseUrl, 'GET', `/v1/organizations/${noisy.id}/closures`, noisy.key)).text).data.closures as {
      id: string;
    }[];
    for (const closure of existing)
      expect((await call(baseUrl, 'DELETE', `/v1/organizations/${noisy.id}/closures/${closure.id}`, noisy.key)).status).toBe(200);
    const fromMs = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
    const toMs = fromMs + 31 * 86_400_000;
    const closures = await Promise.all(
      Array.from({ length: CLOSURES }, (_, i) => {
        const startMs = fromMs + Math.floor(((toMs - fromMs) * i) / CLOSURES / 60_000) * 60_000 + 3_600_000;
        const closure = {
          description: `Closure ${i} `.padEnd(255, 'd'),
          startAt: new Date(startMs).toISOString().replace('.000Z', 'Z'),
          endAt: new Date(startMs + 20 * 60_000).toISOString().replace('.000Z', 'Z'),
          chatGreeting: 'c'.repeat(500),
          phoneGreeting: 'p'.repeat(500),
        };
        return call(baseUrl, 'POST', `/v1/organizations/${noisy.id}/closures`, noisy.key, closure, setupAgent);
      }),
    );
    for (const closure of closures) expect(closure.status, closure.text.slice(0, 300)).toBe(200);
    setupAgent.destroy();

    // the other organization: an availability read and a write (an insurance's notes), one after the other; each
    // write's event goes to its webhook endpoint
    const endpoint = await call(baseUrl, 'POST', '/v1/webhook-endpoints', quiet.key, {
      url: `http://127.0.0.1:${(receivers[0]!.address() as AddressInfo).port}/hooks`,
      eventTypes: ['insurance.updated'],
    });
    expect(endpoint.status, endpoint.text.slice(0, 300)).toBe(200);
    let flip = 0;
    const insurance = demo.insurances.other[0] as string;
    const read = () => call(baseUrl, 'GET', `/v1/organizations/${quiet.id}/availability?medium=PHONE`, quiet.key);
    const write = () =>
      call(baseUrl, 'PATCH', `/v1/organizations/${quiet.id}/insurances/${insurance}`, quiet.key, { notes: `Checked ${flip++}` });
    /** The delivery times of the events that occurred from `sinceMs` on, once each has arrived. */
    const deliveries = async (sinceMs: number, expected: number) => {
      const deadline = Date.now() + 20_000;
      const since = () => arrivals.filter((a) => a.occurredAt >= sinceMs);
      while (since().length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(since().length, 'every write was delivered').toBeGreaterThanOrEqual(expected);
      return since().map((a) => a.at - a.occurredAt);
    };
    const measure = async (samples: number, until: () => boolean = () => false) => {
      const reads: number[] = [];
      const writes: number[] = [];
      const startedAt = Date.now() - 1; // occurredAt is to the millisecond
      const wasDelivered = arrivals.length;
      while (reads.length < samples && !until()) {
        const r = await read();
        expect(r.status, r.text.slice(0, 300)).toBe(200);
        reads.push(r.ms);
        const w = await write();
        expect(w.status, w.text.slice(0, 300)).toBe(200);
        writes.push(w.ms);
      }
      const delivered = await deliveries(startedAt, writes.length);
      expect(arrivals.length - wasDelivered).toBe(writes.length); // each once
      return { reads, writes, delivered };
    };
    // both organizations' first requests (a schedule loaded, a document compiled) are one-offs, not the pattern
    const warmFrom = new Date(fromMs).toISOString();
    const warmTo = new Date(fromMs + 86_400_000).toISOString();
    expect(
      (
        await call(
          baseUrl,
          'GET',
          `/v1/organizations/${noisy.id}/availability/timeline?from=${warmFrom}&to=${warmTo}&medium=PHONE`,
          noisy.key,
        )
      ).status,
    ).toBe(200);
    const warmGraphql = await call(baseUrl, 'POST', '/graphql', noisy.key, {
      query: TIMELINE,
      variables: { id: noisy.id, from: warmFrom, to: warmTo },
    });
    expect(warmGraphql.text).toContain('"intervals"');
    await measure(10);
    const before = await measure(SAMPLES);

    // the burst: its whole budget of 31-day timelines at once, half over REST, half over GraphQL
    const requests = Array.from({ length: BUDGET }, (_, i) => {
      const from = new Date(fromMs + i * 1_000).toISOString();
      const to = new Date(toMs + i * 1_000).toISOString();
      const headers = { authorization: `Bearer ${noisy.key}`, 'content-type': 'application/json' };
      return i % 2 === 0
        ? { method: 'GET', path: `/v1/organizations/${noisy.id}/availability/timeline?from=${from}&to=${to}&medium=PHONE`, headers }
        : {
            method: 'POST',
            path: '/graphql',
            headers,
            body: JSON.stringify({ query: TIMELINE, variables: { id: noisy.id, from, to } }),
          };
    });
    const worker = fork(new URL('../support/burstWorker.mjs', import.meta.url), { stdio: 'ignore', serialization: 'advanced' });
    try {
      setPriority(worker.pid!, constants.priority.PRIORITY_LOW);
      await new Promise((resolve) => worker.once('message', resolve)); // ready
      let burst: { status: number; retryAfter: string | null }[] | undefined;
      const done = new Promise<void>((resolve) => worker.once('message', (answers) => resolve(void (burst = answers as typeof burst))));
      worker.send({ baseUrl, requests });
      const deadline = Date.now() + 25_000;
      const during = await measure(SAMPLES, () => burst !== undefined || Date.now() > deadline);
      await Promise.race([done, new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);

      const after = await measure(SAMPLES);
      const report = {
        read: compare(before.reads, during.reads, after.reads),
        write: compare(before.writes, during.writes, after.writes),
        delivery: compare(before.delivered, during.delivered, after.delivered),
        burst: burst
          ? [...new Set(burst.map((a) => a.status))].map((status) => `${status}×${burst!.filter((a) => a.status === status).length}`)
          : 'unfinished',
      };
      console.log('fairness', JSON.stringify(report));
      // the burst was served (what passed its organization's bounds was refused with 429 + Retry-After, nothing failed)
      expect(burst, 'the burst did not finish within 25 s').toBeDefined();
      expect(burst!.filter((a) => a.status === 200).length).toBeGreaterThan(0);
      expect(burst!.filter((a) => a.status !== 200 && !(a.status === 429 && a.retryAfter !== null))).toEqual([]);
      expect(during.reads.length).toBeGreaterThanOrEqual(10);
      for (const seen of [report.read, report.write, report.delivery]) {
        expect(seen.p99.burst, JSON.stringify(report)).toBeLessThanOrEqual(2 * seen.p99.quiet + seen.pause);
      }
      for (const seen of [report.read, report.write]) {
        expect(seen.median.burst, JSON.stringify(report)).toBeLessThanOrEqual(2 * seen.median.quiet + TURNS * report.read.median.quiet + 1);
      }
    } finally {
      worker.kill('SIGKILL');
    }
  });
});
