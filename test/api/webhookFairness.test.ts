// Fair webhook delivery across organizations (domain/events/webhooks/delivery.ts DeliverySlots, the deliveries lane's
// claim, jobs/queue.ts): one organization whose receivers never answer, at its worst (eight endpoints, 56
// test deliveries and writes fanning out to all of them), holds at most its share of an instance's
// delivery slots, and another organization's webhooks — first attempts of its writes and its test
// deliveries — still arrive within 2 s of the commit. The job queue runs as the server runs it (started,
// poked by every commit, 32 slots); the receivers are real, on 127.0.0.1: one never answers, one answers
// at once. Bounded: each delivery is waited for at most 3 s; the hanging receiver is closed at the end.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_PER_MINUTE: '100000' } });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** p-th percentile (nearest rank). */
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1]!;

describe('one organization’s hanging receivers', () => {
  it('do not delay another organization’s webhooks: its commit-to-delivery p99 stays under 2 s, and they hold at most their share', async () => {
    t.clock.set(new Date());
    const hostile = t.demo.organizations.clinic;
    const quiet = t.demo.organizations.other;

    // never answers (until the test ends)
    let hanging = 0;
    let mostHanging = 0;
    const never = await listen((req) => {
      req.resume();
      hanging++;
      mostHanging = Math.max(mostHanging, hanging);
      req.socket.on('close', () => hanging--);
    });
    // answers at once; notes when each message arrived
    const arrived = new Map<string, number>();
    const answering = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.set(String(req.headers['webhook-id']), performance.now());
        res.writeHead(204).end();
      });
    });

    const hostileEndpoints: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.rest('POST', '/v1/webhook-endpoints', {
        token: hostile.apiKey,
        json: { url: `${never.url}/hang/${i}`, eventTypes: ['*'] },
      });
      expect(res.status).toBe(200);
      hostileEndpoints.push(res.body.data.id);
    }
    const quietEndpoint = await t.rest('POST', '/v1/webhook-endpoints', {
      token: quiet.apiKey,
      json: { url: `${answering.url}/hooks`, eventTypes: ['closure.*', 'webhook.test'] },
    });
    expect(quietEndpoint.status).toBe(200);

    // the queue as the server runs it: started, poked by every commit that publishes a change and by a test send
    const queue = handleWebhookDeliveries(
      new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { batchSize: 32, minLookGapMs: 20 }),
      t.deps,
    );
    const unsubscribe = t.deps.changes.subscribe({ onChange: () => queue.poke() });
    t.deps.jobs = queue;
    queue.start();
    cleanups.push(async () => {
      unsubscribe();
      t.deps.jobs = undefined;
      // refused from now on (not held again): the attempts in flight and waiting end at once
      never.server.close();
      never.server.closeAllConnections();
      await queue.stop();
    });

    // the hostile organization at its worst: 56 test deliveries and writes to all eight hanging endpoints
    for (let n = 0; n < 56; n++) {
      const res = await t.rest('POST', `/v1/webhook-endpoints/${hostileEndpoints[n % 8]}/test`, { token: hostile.apiKey });
      expect(res.status).toBe(200);
    }
    for (let n = 0; n < 4; n++) {
      const res = await t.rest('POST', `/v1/organizations/${hostile.id}/closures`, {
        token: hostile.apiKey,
        json: { description: `Hostile ${n}`, annualDate: { month: 1, day: n + 1 }, chatGreeting: null, phoneGreeting: null },
      });
      expect(res.status).toBe(200);
    }
    await vi.waitFor(() => expect(hanging).toBeGreaterThanOrEqual(16), { timeout: 5_000, interval: 20 });

    // the quiet organization's writes (first attempts) and test deliveries (the deliveries lane), one after the other
    const latencies: number[] = [];
    for (let n = 0; n < 10; n++) {
      const written = await t.rest('POST', `/v1/organizations/${quiet.id}/closures`, {
        token: quiet.apiKey,
        json: { description: `Quiet ${n}`, annualDate: { month: 2, day: n + 1 }, chatGreeting: null, phoneGreeting: null },
      });
      expect(written.status).toBe(200);
      const committed = performance.now();
      const event = await t.deps.db.event.findFirstOrThrow({ where: { subjectId: written.body.data.id, type: 'closure.created' } });
      await vi.waitFor(() => expect(arrived.has(event.id), `closure ${n}`).toBe(true), { timeout: 3_000, interval: 5 });
      latencies.push(arrived.get(event.id)! - committed);

      const tested = await t.rest('POST', `/v1/webhook-endpoints/${quietEndpoint.body.data.id}/test`, { token: quiet.apiKey });
      expect(tested.status).toBe(200);
      const testCommitted = performance.now();
      const testEvent = await t.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: tested.body.data.id } });
      await vi.waitFor(() => expect(arrived.has(testEvent.eventId), `test ${n}`).toBe(true), { timeout: 3_000, interval: 5 });
      latencies.push(arrived.get(testEvent.eventId)! - testCommitted);
    }
    expect(percentile(latencies, 99)).toBeLessThan(2_000);
    // the hostile organization's receivers held at most its share of the slots (16), whatever its eight
    // endpoints' bound of 4 each would allow, and still do
    expect(hanging).toBe(16);
    expect(mostHanging).toBe(16);
  });
});
