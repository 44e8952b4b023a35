// Durable timing of calls (item 6 of issue 21): the end of a claim's lease is a job row written in the
// claim's transaction, so a server killed with SIGKILL while a runtime holds a call still gives the call
// back once the lease has ended — on the next start, without any runtime or client doing anything.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServer } from '../support/processes.js';
import type { Schemas } from '../support/apiTypes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-call-durability-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

vi.setConfig({ testTimeout: 180_000 });

describe('a claimed call across a SIGKILL', () => {
  it('is re-queued when its lease ends, by the restarted server', async () => {
    const env = { DATABASE_URL: `pglite:${join(scratch, 'pglite')}` };
    let server = await startServer(env);
    const demo = JSON.parse(readFileSync(join(scratch, 'demo-credentials.json'), 'utf8'));
    const auth = { authorization: `Bearer ${demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' };
    const post = async (path: string, json: unknown) =>
      await (await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(json) })).json();
    try {
      // on the real clock: the default calling policy (08:00-21:00 in New York) would hold the call back at night
      const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
      await fetch(`${server.baseUrl}/v1/organizations/${demo.organizations.clinic.id}/calling-policy`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ windows: days.map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' })), maxConcurrentCalls: 10 }),
      });
      const placed = await post('/v1/call-requests', {
        botId: demo.bots.clinic[0],
        phoneNumberId: demo.phoneNumbers.clinic[0],
        to: '+15005550006',
      });
      const id = placed.data.callRequestId;
      const claimed = await post('/v1/dispatch/claim', { max: 50, leaseSeconds: 10 });
      expect(claimed.data.claims.map((c: Schemas['CallClaim']) => c.callRequest.callRequestId)).toContain(id);
      const leaseEnds = Date.parse(claimed.data.claims[0].leaseUntil);
      await server.stop('SIGKILL');

      server = await startServer(env);
      const statusOf = async () => {
        const res = await fetch(`${server.baseUrl}/v1/call-requests?limit=100`, { headers: auth });
        return (await res.json()).data.callRequests.find((c: Schemas['CallRequest']) => c.callRequestId === id) as {
          status: string;
          claims: number;
        };
      };
      expect((await statusOf()).status).toBe('in_progress');
      await vi.waitFor(async () => expect(await statusOf()).toMatchObject({ status: 'queued', claims: 1 }), {
        timeout: 30_000,
        interval: 500,
      });
      expect(Date.now()).toBeGreaterThanOrEqual(leaseEnds);
    } finally {
      await server.stop();
    }
  });
});
