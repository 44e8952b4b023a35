// Receivers that misbehave at the HTTP level (domain/events/webhooks/delivery.ts, undici's pool): an answer that never
// ends is read up to 64 KB and the attempt ends; a receiver that never answers is given up on after 10 s
// (on faked timers, no real wait); a kept connection that the receiver drops as it is reused has the
// delivery sent again once, on a new connection, and delivered. Receivers listen on 127.0.0.1.
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attemptDelivery, DELIVERY_TIMEOUT_MS } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { deliveryRow } from '../support/webhooks.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

let closures = 0;

/**
 * A closure written through the API, with a pending delivery of its event to `url` (as the dispatcher hands
 * one to the deliveries lane): the lane's attempt is the one under test; the dispatcher's posts the same way.
 */
async function pendingDeliveryTo(url: string): Promise<string> {
  const org = t.demo.organizations.clinic.id;
  await t.deps.db.webhookEndpoint.deleteMany();
  const endpoint = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), { orgId: org, url, eventTypes: ['closure.*'] });
  closures++;
  const written = await t.rest('POST', `/v1/organizations/${org}/closures`, {
    json: { description: `Closure ${closures}`, annualDate: { month: 12, day: closures }, chatGreeting: null, phoneGreeting: null },
  });
  expect(written.status).toBe(200);
  const event = await t.deps.db.event.findFirstOrThrow({ where: { type: 'closure.created', subjectId: written.body.data.id } });
  return deliveryRow(t.deps.db, { endpointId: endpoint.id, eventId: event.id, at: t.clock.now() });
}

describe('a hostile receiver', () => {
  it('answering without end is read up to 64 KB: the attempt ends (a private target: nothing of the answer kept)', async () => {
    t.clock.set(new Date());
    let closed = false;
    const { url } = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // without end: only the client going away stops it (a client reading it all would never finish)
      const more = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', more);
      res.on('close', () => (closed = true));
      more();
    });
    const id = await pendingDeliveryTo(url);
    expect(await attemptDelivery(t.deps, id)).toMatchObject({ done: true, label: 'delivered' });
    const row = await t.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'delivered', statusCode: 200 });
    expect(row.response).toBeNull();
    // the client abandoned the answer (its connection closed) instead of reading on
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it('never answering is given up on after 10 s: a failed attempt, retried later', async () => {
    t.clock.set(new Date());
    const held: ServerResponse[] = [];
    const { url } = await listen((req, res) => {
      req.resume();
      held.push(res);
    });
    const id = await pendingDeliveryTo(url);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const attempt = attemptDelivery(t.deps, id);
    await vi.waitFor(() => expect(held).toHaveLength(1), { interval: 5 });
    await vi.advanceTimersByTimeAsync(DELIVERY_TIMEOUT_MS - 100);
    let settled = false;
    void attempt.finally(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(await attempt).toMatchObject({ error: 'timeout' });
    vi.useRealTimers();
    expect(await t.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      response: 'timeout',
    });
  });

  it('dropping a kept connection as it is reused has the delivery sent again once, on a new connection, and delivered', async () => {
    t.clock.set(new Date());
    const perSocket = new Map<Socket, number>();
    const received: string[] = [];
    const { url } = await listen((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        // a receiver closing an idle connection just as it is used again: the second request on a socket is dropped unanswered
        if (n >= 2) req.socket.destroy();
        else res.end('ok');
      });
    });
    const first = await pendingDeliveryTo(url);
    expect(await attemptDelivery(t.deps, first)).toMatchObject({ label: 'delivered' });
    const second = await pendingDeliveryTo(url);
    expect(await attemptDelivery(t.deps, second)).toMatchObject({ label: 'delivered' });
    expect(await t.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: second } })).toMatchObject({
      status: 'delivered',
      attempts: 1,
      statusCode: 200,
    });
    // the second event reached the receiver twice (the dropped request and its repeat), on two connections
    expect(received).toHaveLength(3);
    expect(received[1]).toBe(received[2]);
    expect(perSocket.size).toBe(2);
  });
});
