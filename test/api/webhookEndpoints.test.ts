// The webhook endpoints API (/v1/webhook-endpoints and the GraphQL twins): the secret shown once and
// never again (nor in events), validation, rotation with a 24 h overlap of both signatures, test events,
// the deliveries list and retries. The receiver listens on 127.0.0.1 (private targets allowed here).
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { useTestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

const receiver = useWebhookReceiver();

/** The test's job queue with webhook delivery, one per test (as one per process: its dispatcher holds the lease). */
let current: JobQueue | undefined;
beforeEach(() => {
  current = undefined;
});
const queue = () =>
  (current ??= handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps));

function verifies(secret: string, message: { headers: IncomingHttpHeaders; body: string }): boolean {
  vi.useFakeTimers({ toFake: ['Date'], now: t.clock.now() });
  try {
    new Webhook(secret).verify(message.body, message.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

describe('/v1/webhook-endpoints', () => {
  it('answers the secret once; reads never show it, nor do the events', async () => {
    const created = await t.rest('POST', '/v1/webhook-endpoints', {
      json: { url: receiver.url, description: 'Back office', eventTypes: ['closure.*'] },
    });
    expect(created.status).toBe(200);
    const { secret, secretShownOnce, ...endpoint } = created.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretShownOnce).toBe(false);
    expect(endpoint).toMatchObject({
      url: receiver.url,
      description: 'Back office',
      eventTypes: ['closure.*'],
      enabled: true,
      orgId: t.demo.organizations.clinic.id,
    });
    const got = await t.rest('GET', `/v1/webhook-endpoints/${endpoint.id}`);
    expect(got.body.data).toEqual(endpoint);
    expect((await t.rest('GET', '/v1/webhook-endpoints')).body.data.webhookEndpoints).toEqual([endpoint]);
    const events = await t.deps.db.event.findMany({ where: { subjectId: endpoint.id } });
    expect(events.map((e) => e.type)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(events.map((e) => [e.data, e.previous]))).not.toContain('whsec_');
    // another tenant's key does not see it
    expect((await t.rest('GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: t.demo.organizations.other.apiKey })).status).toBe(404);
  });

  it('refuses a bad URL or an unknown event type with a 400 naming the field', async () => {
    const bad = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: 'ftp://example.com/x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('url');
    const types = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['closure.exploded'] } });
    expect(types.status).toBe(400);
    expect(types.body.errors[0].path).toMatch(/^eventTypes/);
    const scope = await t.rest('POST', '/v1/webhook-endpoints', {
      token: await t.accessToken('clinicReadOnly'),
      json: { url: receiver.url },
    });
    expect(scope.status).toBe(403);
  });

  it('sends a webhook.test event to that endpoint only, and lists its deliveries with the answer', async () => {
    t.clock.set(new Date());
    const a = (await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['*'] } })).body.data;
    await t.rest('POST', '/v1/webhook-endpoints', { json: { url: `${receiver.url}/other`, eventTypes: ['*'] } });
    await queue().runDue(); // the second endpoint's creation event went to the first one
    receiver.received = [];
    t.clock.advance(1_000);
    const sent = await t.rest('POST', `/v1/webhook-endpoints/${a.id}/test`);
    expect(sent.body.data).toMatchObject({ endpointId: a.id, eventType: 'webhook.test', status: 'pending', attempts: 0 });
    expect(await queue().runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(verifies(a.secret, receiver.received[0]!)).toBe(true);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'webhook.test', data: { endpointId: a.id } });
    const deliveries = (await t.rest('GET', `/v1/webhook-endpoints/${a.id}/deliveries`)).body.data.deliveries;
    // a private target's answer (allowed here) is never shown: only its status and latency
    expect(deliveries[0]).toMatchObject({
      id: sent.body.data.id,
      status: 'delivered',
      attempts: 1,
      statusCode: 200,
      response: null,
      nextAttemptAt: null,
    });
    expect(deliveries[0].latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('rotates the secret: both signatures for 24 hours, then only the new one', async () => {
    t.clock.set(new Date());
    const created = (await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['closure.*'] } })).body.data;
    const rotated = (await t.rest('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`)).body.data;
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previousSecretExpiresAt).toBe(new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString());
    const closure = { description: 'Holiday', annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null };
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
    await queue().runDue();
    expect(String(receiver.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(rotated.secret, receiver.received[0]!)).toBe(true);
    expect(verifies(created.secret, receiver.received[0]!)).toBe(true);
    t.clock.advance(24 * 3_600_000);
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/closures`, { json: closure });
    await queue().runDue();
    expect(verifies(rotated.secret, receiver.received[1]!)).toBe(true);
    expect(verifies(created.secret, receiver.received[1]!)).toBe(false);
  });

  it('retries a failed delivery on request; updates and deletes the endpoint', async () => {
    t.clock.set(new Date());
    const endpoint = (await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['webhook.test'] } })).body
      .data;
    receiver.script = [410];
    const delivery = (await t.rest('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).body.data;
    await queue().runDue();
    const gone = (await t.rest('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.data;
    expect(gone).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    const enabled = await t.rest('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { json: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null });
    const retried = await t.rest('POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`);
    expect(retried.body.data).toMatchObject({ status: 'pending', attempts: 0 });
    const again = await t.rest('POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`);
    expect(again.status).toBe(400);
    await queue().runDue();
    expect((await t.rest('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data.deliveries[0]).toMatchObject({
      status: 'delivered',
      statusCode: 200,
    });
    expect((await t.rest('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).body.data).toEqual({ id: endpoint.id, deleted: true });
    expect((await t.rest('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
  });
});

describe('GraphQL webhook endpoints', () => {
  it('creates, lists, tests and reads deliveries like REST', async () => {
    t.clock.set(new Date());
    const created = await t.gql(
      'mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["closure.*"]}) { id url eventTypes secret } }',
      { url: receiver.url },
    );
    expect(created.body.errors).toBeUndefined();
    const endpoint = created.body.data.createWebhookEndpoint;
    expect(endpoint.secret).toMatch(/^whsec_/);
    const rest = (await t.rest('GET', '/v1/webhook-endpoints')).body.data.webhookEndpoints;
    expect(rest.map((e: Schemas['WebhookEndpoint']) => e.id)).toEqual([endpoint.id]);
    const listed = await t.gql('{ webhookEndpoints { id url eventTypes enabled } }');
    expect(listed.body.data.webhookEndpoints).toEqual([{ id: endpoint.id, url: receiver.url, eventTypes: ['closure.*'], enabled: true }]);
    const tested = await t.gql('mutation($id: ID!) { testWebhookEndpoint(id: $id) { id status eventType } }', { id: endpoint.id });
    expect(tested.body.data.testWebhookEndpoint).toMatchObject({ status: 'pending', eventType: 'webhook.test' });
    await queue().runDue();
    expect(verifies(endpoint.secret, receiver.received[0]!)).toBe(true);
    const deliveries = await t.gql('query($id: ID!) { webhookDeliveries(endpointId: $id) { id status statusCode } }', { id: endpoint.id });
    expect(deliveries.body.data.webhookDeliveries).toEqual([
      { id: tested.body.data.testWebhookEndpoint.id, status: 'delivered', statusCode: 200 },
    ]);
    const bad = await t.gql('mutation { createWebhookEndpoint(input: {url: "ftp://x"}) { id } }');
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
