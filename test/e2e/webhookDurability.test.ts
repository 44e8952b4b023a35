// Webhook deliveries survive kill -9: the real server on a PGlite folder commits a write whose event is
// due to a receiver on 127.0.0.1, is killed with SIGKILL before the receiver has accepted it, and after a
// restart on the same folder the delivery arrives, signed (verified with `standardwebhooks`), once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServer } from '../support/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-webhooks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
vi.setConfig({ testTimeout: 180_000 });

describe('webhook deliveries across SIGKILL', () => {
  it('delivers an event committed before the kill once the server is back', async () => {
    const received: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
    let accepting = false;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = accepting ? 200 : 503;
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const dir = join(scratch, 'pglite');
    // the receiver is on 127.0.0.1: private targets are off unless asked for
    const env = { DATABASE_URL: `pglite:${dir}`, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
    let server = await startServer(env);
    try {
      const demo = JSON.parse(readFileSync(join(dirname(dir), 'demo-credentials.json'), 'utf8')) as {
        organizations: { clinic: { id: string; apiKey: string } };
      };
      const { id: orgId, apiKey } = demo.organizations.clinic;
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });

      const created = (await (await call('POST', '/v1/webhook-endpoints', { url: hookUrl, eventTypes: ['closure.created'] })).json()) as {
        data: { secret: string };
      };
      const write = await call('POST', `/v1/organizations/${orgId}/closures`, {
        description: 'Before the kill',
        annualDate: { month: 12, day: 25 },
        chatGreeting: null,
        phoneGreeting: null,
      });
      expect(write.status).toBe(200);
      // the first attempt reached the receiver (answered 503): the delivery is committed and pending
      await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(1), { timeout: 15_000, interval: 100 });
      server.child.kill('SIGKILL');
      expect(await server.stop()).toBeNull();
      accepting = true;

      server = await startServer(env);
      await vi.waitFor(() => expect(received.some((r) => r.status === 200)).toBe(true), { timeout: 30_000, interval: 200 });
      const delivered = received.filter((r) => r.status === 200);
      expect(delivered).toHaveLength(1);
      expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const event = new Webhook(created.data.secret).verify(delivered[0]!.body, delivered[0]!.headers as Record<string, string>) as {
        type: string;
        data: { description: string };
      };
      expect(event).toMatchObject({ type: 'closure.created', data: { description: 'Before the kill' } });
    } finally {
      await server.stop();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
