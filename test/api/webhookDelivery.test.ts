// Webhook delivery (domain/events/webhooks/delivery.ts): a write's event reaches the subscribed endpoints, signed per
// Standard Webhooks (verified here with the `standardwebhooks` package, as a receiver would); failures
// are retried with growing gaps on the app's clock; 410 disables the endpoint; private and metadata
// addresses are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS. The receiver listens on 127.0.0.1.
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { deliveriesLane, handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { isPrivateAddress, urlProblem } from '../../src/domain/events/webhooks/targets.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { type Received, useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

const receiver = useWebhookReceiver();

/** The test's job queue with webhook delivery, one per test (as one per process: its dispatcher holds the lease). */
let current: JobQueue | undefined;
beforeEach(() => {
  current = undefined;
});
function queue() {
  return (current ??= handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps));
}

/** Verifies as a receiver would, with the receiver's clock at the app's time (the library checks the timestamp against Date.now()). */
function verify(secret: string, message: Received): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: t.clock.now() });
  try {
    return new Webhook(secret).verify(message.body, message.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

async function endpoint(eventTypes: string[], orgId = t.demo.organizations.clinic.id, url = receiver.url) {
  return createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId, url, eventTypes });
}

const closureBody = { description: 'Christmas', annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null };

describe('webhook delivery', () => {
  it('delivers a write’s event to the subscribed endpoint, signed per Standard Webhooks', async () => {
    t.clock.set(new Date());
    const { id, secret } = await endpoint(['closure.*']);
    const created = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    await t.rest('PATCH', `/v1/organizations/${t.demo.organizations.clinic.id}/insurances/${t.demo.insurances.clinic[0]}`, {
      json: { notes: 'Not subscribed' },
    });
    expect(await queue().runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const payload = verify(secret, receiver.received[0]!) as Record<string, unknown>;
    const event = await t.deps.db.event.findFirstOrThrow({ where: { type: 'closure.created' } });
    expect(payload).toEqual({
      id: event.id,
      type: 'closure.created',
      occurredAt: event.occurredAt.toISOString(),
      orgId: t.demo.organizations.clinic.id,
      data: created.body.data,
    });
    expect(receiver.received[0]!.headers['webhook-id']).toBe(event.id);
    // a wrong secret does not verify
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, receiver.received[0]!)).toThrow();
    const delivery = await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: id } });
    // a private target (allowed here): its answer is not kept, only its status and latency
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, statusCode: 200, response: null, nextAttemptAt: null });
    // the secret is stored encrypted
    const stored = await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(stored.secret).not.toContain(secret.slice(6, 20));
  });

  it('retries a failing receiver with growing gaps on the app clock: three failures, then delivered on the fourth attempt', async () => {
    t.clock.set(new Date());
    const { secret } = await endpoint(['*']);
    receiver.script = [500, 503, 502];
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    const q = queue();
    expect(await q.runDue()).toBe(1);
    for (const gap of [5_000, 5 * 60_000, 30 * 60_000]) {
      t.clock.advance(gap - 1_000);
      expect(await q.runDue()).toBe(0); // not before its time
      t.clock.advance(1_000);
      expect(await q.runDue()).toBe(1);
    }
    expect(receiver.received).toHaveLength(4);
    const times = receiver.received.map((r) => Number(r.headers['webhook-timestamp']));
    expect(times.slice(1).map((at, i) => at - times[i]!)).toEqual([5, 300, 1800]);
    // the same message id every time, each attempt signed
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(verify(secret, receiver.received[3]!)).toMatchObject({ type: 'closure.created' });
    const delivery = await t.deps.db.webhookDelivery.findFirstOrThrow();
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, statusCode: 200 });
    expect(await t.deps.db.job.count()).toBe(0);
  });

  it('marks a delivery failed after the last retry', async () => {
    t.clock.set(new Date());
    await endpoint(['*']);
    receiver.script = Array(8).fill(500);
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    const q = queue();
    await q.runDue();
    for (let i = 0; i < 7; i++) {
      t.clock.advance(10 * 3_600_000);
      expect(await q.runDue()).toBe(1);
    }
    expect(receiver.received).toHaveLength(8);
    expect(await t.deps.db.webhookDelivery.findFirstOrThrow()).toMatchObject({
      status: 'failed',
      attempts: 8,
      statusCode: 500,
      nextAttemptAt: null,
    });
  });

  it('disables the endpoint when it answers 410 Gone, and sends it nothing more', async () => {
    t.clock.set(new Date());
    const { id } = await endpoint(['*']);
    receiver.script = [410];
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    await queue().runDue();
    expect(await t.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ enabled: false });
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    expect(await queue().runDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it("sends an account's endpoint its children's events, and no endpoint another tenant's", async () => {
    t.clock.set(new Date());
    const { secret } = await endpoint(['closure.created'], t.demo.organizations.account.id);
    await endpoint(['*'], t.demo.organizations.other.id);
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic2.id}/closures`, {
      token: t.demo.organizations.account.apiKey,
      json: closureBody,
    });
    expect(await queue().runDue()).toBe(1);
    expect(verify(secret, receiver.received[0]!)).toMatchObject({ orgId: t.demo.organizations.clinic2.id });
  });

  it('claims a delivery to retry from its own row under a lease: no job row beside it, and one claim at a time until the lease runs out', async () => {
    t.clock.set(new Date());
    const { id } = await endpoint(['closure.*']);
    receiver.script = [503];
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
    expect(await queue().runDue()).toBe(1);
    expect(await t.deps.db.job.count()).toBe(0);
    t.clock.advance(5_000);
    const lane = deliveriesLane(t.deps.db);
    const lease = () => new Date(t.clock.now().getTime() + 60_000);
    const [claimed] = await lane.claim(10, t.clock.now(), lease());
    expect(claimed).toMatchObject({
      kind: 'webhook.deliver',
      attempts: 2,
      payload: { endpointId: id, eventType: 'closure.created', status: 'pending' },
    });
    expect(await lane.depth()).toMatchObject({ pending: 1 });
    // in flight on one instance: nobody else takes it while the lease holds
    expect(await lane.claim(10, t.clock.now(), lease())).toHaveLength(0);
    t.clock.advance(60_000);
    // the instance that held it died: taken over once the lease ran out
    expect(await lane.claim(10, t.clock.now(), lease())).toHaveLength(1);
  });

  it('records the event with the write: a write that rolls back sends nothing', async () => {
    t.clock.set(new Date());
    await endpoint(['*']);
    const refused = await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {
      json: {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: [{ start: '18:00', end: '19:00', reason: 'x', greeting: 'x' }],
      },
    });
    expect(refused.status).toBe(400);
    expect(await queue().runDue()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    expect(await t.deps.db.job.count()).toBe(0);
    expect(await t.deps.db.webhookDelivery.count()).toBe(0);
  });
});

describe('webhook metrics', () => {
  it('counts deliveries by outcome and shows the queue depth on /metrics', async () => {
    t.clock.set(new Date());
    await endpoint(['*']);
    const q = queue();
    t.deps.jobs = q;
    try {
      receiver.script = [503];
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
      await q.runDue();
      const scrape = async () => (await t.fetch('/metrics')).text();
      await scrape(); // the queue was attached after the app was made: the metrics hear it from a scrape on
      expect(await scrape()).toMatch(/ocs_webhook_deliveries_total\{outcome="retried"\} 1/);
      // the depth is the previous scrape's look
      await expect.poll(scrape).toMatch(/^ocs_jobs_pending 1$/m);
      t.clock.advance(5_000);
      await q.runDue();
      expect(await scrape()).toMatch(/ocs_webhook_deliveries_total\{outcome="delivered"\} 1/);
      // delivered 5 s after the commit (the retry's gap), on the app's clock
      expect(await scrape()).toMatch(/^ocs_webhook_delivery_latency_seconds_count 1$/m);
      expect(await scrape()).toMatch(/^ocs_webhook_delivery_latency_seconds_sum 5$/m);
      expect(await scrape()).toMatch(/^ocs_webhook_delivery_latency_seconds_bucket\{le="2.5"\} 0$/m);
      expect(await scrape()).toMatch(/^ocs_webhook_delivery_latency_seconds_bucket\{le="5"\} 1$/m);
      await expect.poll(scrape).toMatch(/^ocs_jobs_pending 0$/m);
    } finally {
      t.deps.jobs = undefined;
    }
  });
});

describe('webhook targets', () => {
  it('refuses loopback, private, link-local and metadata addresses unless private targets are allowed', () => {
    for (const address of [
      '127.0.0.1',
      '169.254.169.254',
      '10.1.2.3',
      '192.168.0.10',
      '172.20.0.1',
      '::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '0.0.0.0',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect(isPrivateAddress(address), address).toBe(false);
    expect(urlProblem('http://example.com/hook', false)).toMatch(/https/);
    expect(urlProblem('https://example.com/hook', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9/hook', true)).toBeNull();
  });

  it('does not connect to 127.0.0.1, localhost, 169.254.169.254 or 10.x without the flag: checked at delivery, failed for good', async () => {
    t.clock.set(new Date());
    const port = new URL(receiver.url).port;
    const strict = handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), {
      ...t.deps,
      config: { ...t.deps.config, webhookAllowPrivateTargets: false },
    });
    for (const url of [
      `https://127.0.0.1:${port}/hooks`,
      `https://localhost:${port}/hooks`,
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
    ]) {
      await t.deps.db.webhookEndpoint.deleteMany();
      await endpoint(['*'], t.demo.organizations.clinic.id, url);
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closureBody });
      expect(await strict.runDue(), url).toBe(1);
      // refused by policy: failed at once (the row the dispatcher wrote when it ended), never retried
      const refused = { status: 'failed', attempts: 1, statusCode: null, response: 'target_not_allowed', nextAttemptAt: null };
      expect(await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpoint: { url } } }), url).toMatchObject(refused);
      t.clock.advance(5_000);
      expect(await strict.runDue(), url).toBe(0);
      // a delivery retried on request (the lane's way) is refused the same way
      const { id } = await t.deps.db.webhookDelivery.findFirstOrThrow({ where: { endpoint: { url } } });
      await t.deps.db.webhookDelivery.update({ where: { id }, data: { status: 'pending', attempts: 0, nextAttemptAt: t.clock.now() } });
      expect(await strict.runDue(), url).toBe(1);
      expect(await t.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id } }), url).toMatchObject(refused);
    }
    expect(receiver.received).toHaveLength(0);
  });
});
