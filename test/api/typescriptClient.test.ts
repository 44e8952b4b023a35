// The typed client of clients/typescript (issue 37 §5) against the service on a real socket on 127.0.0.1: its types
// are generated from the service's document at install, and these calls go through it as an integrator's would —
// an API key and OAuth client credentials, a write sent again after a dropped connection (one change, thanks to
// the idempotency key it added), every page of a list, a refusal as an error, and a webhook delivery verified.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createOcsClient, OcsError, unwrap, verifyWebhook } from '../../clients/typescript/src/index.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  await t.app.ready();
  server = createServer((request, response) => t.app.listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const closure = { description: 'Staff training', annualDate: { month: 6, day: 1 }, chatGreeting: null, phoneGreeting: null };

describe('the TypeScript client', () => {
  it('reads and writes with an API key, and turns a refusal into an OcsError naming the field', async () => {
    const api = createOcsClient({ baseUrl, apiKey: t.demo.organizations.clinic.apiKey });
    const orgId = t.demo.organizations.clinic.id;
    const org = await unwrap(api.GET('/v1/organizations/{orgId}', { params: { path: { orgId } } }));
    expect(org.name).toBe('Bright Smiles Downtown');
    const created = await unwrap(api.POST('/v1/organizations/{orgId}/closures', { params: { path: { orgId } }, body: closure }));
    expect(created.description).toBe('Staff training');
    const refused = await unwrap(
      api.POST('/v1/organizations/{orgId}/closures', { params: { path: { orgId } }, body: { ...closure, description: '' } }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OcsError);
    expect(refused).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((refused as OcsError).errors[0]!.path).toBe('description');
  });

  it('sends a write again after a dropped connection with the same idempotency key: one closure, the first answer', async () => {
    let dropped = 0;
    // the first send reaches the service, then the connection "drops" before the client reads the answer
    const flaky: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (dropped++ === 0) throw new TypeError('fetch failed');
      return answer;
    };
    const api = createOcsClient({ baseUrl, apiKey: t.demo.organizations.clinic.apiKey, fetch: flaky });
    const orgId = t.demo.organizations.clinic.id;
    const before = await t.db.prisma.closure.count({ where: { orgId } });
    const { data, response } = await api.POST('/v1/organizations/{orgId}/closures', { params: { path: { orgId } }, body: closure });
    expect(response.status).toBe(200);
    expect(dropped).toBe(2);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(await t.db.prisma.closure.count({ where: { orgId } })).toBe(before + 1);
    expect(data?.data?.description).toBe('Staff training');
  });

  it('asks for an OAuth token narrowed to its scope, and follows every page of a list', async () => {
    const { clientId, clientSecret } = t.demo.oauthClients.clinic;
    const api = createOcsClient({ baseUrl, oauth: { clientId, clientSecret, scope: ['call-requests:read'] } });
    const ids: string[] = [];
    let pages = 0;
    for await (const page of allPages((cursor) => unwrap(api.GET('/v1/call-requests', { params: { query: { limit: 1, cursor } } })))) {
      pages++;
      ids.push(...page.callRequests.map((c) => c.callRequestId));
    }
    const all = await t.db.prisma.callRequest.count({ where: { orgId: t.demo.organizations.clinic.id } });
    expect(pages).toBe(all);
    expect(new Set(ids).size).toBe(all);
    // what the token may do is what it asked for
    const write = await unwrap(
      api.POST('/v1/organizations/{orgId}/closures', { params: { path: { orgId: t.demo.organizations.clinic.id } }, body: closure }),
    ).catch((error: unknown) => error);
    expect(write).toMatchObject({ status: 403 });
  });

  it('verifies a webhook delivery with the endpoint’s secret, and refuses one signed otherwise', async () => {
    const api = createOcsClient({ baseUrl, apiKey: t.demo.organizations.clinic.apiKey });
    const endpoint = await unwrap(api.POST('/v1/webhook-endpoints', { body: { url: receiver.url, eventTypes: ['webhook.test'] } }));
    await unwrap(api.POST('/v1/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId: endpoint.id } } }));
    await handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps).runDue();
    expect(receiver.received).toHaveLength(1);
    const { body, headers } = receiver.received[0]!;
    const event = verifyWebhook(endpoint.secret!, body, headers);
    expect(event).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
    expect(() => verifyWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', body, headers)).toThrow();
    // during a rotation either secret verifies
    expect(verifyWebhook(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', endpoint.secret!], body, headers).id).toBe(event.id);
    // every page of the endpoint's deliveries
    const page = await unwrap(api.GET('/v1/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId: endpoint.id } } }));
    expect(page.deliveries.map((d) => d.status)).toEqual(['delivered']);
  });
});
