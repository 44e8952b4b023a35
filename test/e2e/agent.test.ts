// The reference runtime (agent/simulator.ts) as a real process against a started service: it claims
// the calls with the demo OAuth client and plays the documented outcome of each test number, writing a
// short transcript for the one that answers, and an opt-out that lists the number.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runScript, startServer } from '../support/processes.js';
import type { Schemas } from '../support/apiTypes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-agent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

vi.setConfig({ testTimeout: 180_000 });

describe('npm run agent -- --simulate', () => {
  it('works every due call to its documented outcome and writes the transcript of the answered one', async () => {
    const server = await startServer({ DATABASE_URL: `pglite:${join(scratch, 'pglite')}` });
    try {
      const demo = JSON.parse(readFileSync(join(scratch, 'demo-credentials.json'), 'utf8'));
      const { apiKey } = demo.organizations.clinic;
      const api = async (method: string, path: string, json?: unknown) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) },
          body: json ? JSON.stringify(json) : undefined,
        });
        return { status: res.status, body: await res.json() };
      };
      const expected: Record<string, { status: string; code: string | null }> = {
        '+15005550006': { status: 'completed', code: null },
        '+15005550009': { status: 'completed', code: null },
        '+15005550007': { status: 'failed', code: 'busy' },
        '+15005550008': { status: 'failed', code: 'no_answer' },
        '+15005550010': { status: 'failed', code: 'voicemail' },
        '+15005550001': { status: 'failed', code: 'target_unavailable' },
        '+14155552671': { status: 'failed', code: 'rejected' },
      };
      // on the real clock: the default calling policy (08:00-21:00 in New York) would hold the calls back at night
      const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
      const policy = await api('PUT', `/v1/organizations/${demo.organizations.clinic.id}/calling-policy`, {
        windows: days.map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' })),
        maxConcurrentCalls: 10,
      });
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);
      const ids: Record<string, string> = {};
      for (const to of Object.keys(expected)) {
        const res = await api('POST', '/v1/call-requests', { botId: demo.bots.clinic[0], phoneNumberId: demo.phoneNumbers.clinic[0], to });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        ids[to] = res.body.data.callRequestId;
      }

      const client = demo.oauthClients.clinic;
      const run = await runScript(
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
        ],
        {},
      );
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
    } finally {
      await server.stop();
    }
  });
});
