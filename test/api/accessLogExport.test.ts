// The access-log export (issue 36 §2; GET /v1/access-log/export, domain/governance/accessLog.ts exportAccessLog): a
// range as NDJSON, organization by organization in chain order, so that an archive verifies line by line; the list's
// filters; refusals before the first line in the envelope; an account's export covering its locations and no one
// else's; ranges of many pages without a line lost or repeated; a client that goes away stops the reading.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { EXPORT_PAGE } from '../../src/domain/governance/accessLog.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Entry = { id: string; orgId: string; seq: number; at: string; conversationId: string; prevHash: string; hash: string };

async function conversationWithTurn(t: TestApp, org: 'clinic' | 'clinic2' = 'clinic'): Promise<string> {
  const token = t.demo.organizations[org].apiKey;
  const res = await t.rest('POST', '/v1/conversations', { json: { botId: t.demo.bots[org][0], medium: 'CHAT' }, token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const id = res.body.data.conversationId as string;
  expect((await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'hello' }, token })).status).toBe(200);
  return id;
}

async function read(t: TestApp, id: string, org: 'clinic' | 'clinic2' = 'clinic'): Promise<void> {
  expect((await t.rest('GET', `/v1/conversations/${id}`, { token: t.demo.organizations[org].apiKey })).status).toBe(200);
}

async function exported(t: TestApp, query = '', token?: string): Promise<Entry[]> {
  const res = await t.rest('GET', `/v1/access-log/export${query}`, token ? { token } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  return res.body as Entry[];
}

/**
 * `n` entries of `orgId` stored straight in the table in one statement (seq 1..n, a second apart from `start`;
 * their hashes stand in for real ones: an export answers what is stored, the verification checks it).
 */
async function storeEntries(t: TestApp, orgId: string, n: number, start = '2026-01-01T00:00:00Z'): Promise<void> {
  await t.db.prisma.$executeRawUnsafe(
    `INSERT INTO "AccessLogEntry" ("id", "orgId", "seq", "at", "credentialKind", "credentialId", "credentialName", "conversationId",
                                   "surface", "requestId", "clientAddress", "unredacted", "prevHash", "hash")
     SELECT gen_random_uuid(), $1::uuid, s, $2::timestamp(3) + s * interval '1 second', 'apiKey', 'k', 'Archive test', $3::uuid,
            'rest', NULL, NULL, false, lpad(to_hex(s - 1), 64, '0'), lpad(to_hex(s), 64, '0')
     FROM generate_series(1, $4::int) AS s`,
    orgId,
    start,
    randomUUID(),
    n,
  );
}

describe('GET /v1/access-log/export', () => {
  it('answers every entry of the range as NDJSON, oldest first in chain order: the list, reversed', async () => {
    t.clock.set('2026-11-28T09:00:00.000Z');
    const first = await conversationWithTurn(t);
    const second = await conversationWithTurn(t);
    for (const id of [first, second, first]) {
      await read(t, id);
      t.clock.advance(60_000);
    }
    const lines = await exported(t);
    const listed = (await t.rest('GET', '/v1/access-log?limit=100')).body.data.entries as Entry[];
    expect(lines).toEqual([...listed].reverse());
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3]);
    // each line links to the one before: an archive verifies on its own
    expect(lines[0]!.prevHash).toBe('0'.repeat(64));
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.prevHash).toBe(lines[i - 1]!.hash);
    // an empty range is an empty answer, not an error
    expect(await exported(t, '?from=2030-01-01T00:00:00Z')).toEqual([]);
  });

  it('honours the filters: from and to (to exclusive), conversationId, credentialId', async () => {
    t.clock.set('2026-11-28T09:00:00.000Z');
    const first = await conversationWithTurn(t);
    const second = await conversationWithTurn(t);
    await read(t, first); // 09:00
    t.clock.advance(3_600_000);
    await read(t, second); // 10:00
    t.clock.advance(3_600_000);
    await read(t, first); // 11:00
    const range = await exported(t, '?from=2026-11-28T10:00:00Z&to=2026-11-28T11:00:00Z');
    expect(range.map((l) => [l.seq, l.conversationId])).toEqual([[2, second]]);
    expect((await exported(t, `?conversationId=${first}`)).map((l) => l.seq)).toEqual([1, 3]);
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.clinic.id } });
    expect(await exported(t, `?credentialId=${key.id}`)).toHaveLength(3);
    expect(await exported(t, `?credentialId=${randomUUID()}`)).toEqual([]);
  });

  it('refuses before the first line, in the envelope: a bad filter, an unknown parameter, no scope, another tenant', async () => {
    const bad = await t.rest('GET', '/v1/access-log/export?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.stringify(bad.body)).toContain('from');
    const unknown = await t.rest('GET', '/v1/access-log/export?limit=10');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('limit');
    const narrow = await t.rest('POST', '/v1/api-keys', { json: { name: 'Reader', scopes: ['conversations:read', 'transcripts:read'] } });
    const refused = await t.rest('GET', '/v1/access-log/export', { token: narrow.body.data.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('access-log:read');
    const other = await t.rest('GET', `/v1/access-log/export?orgId=${t.demo.organizations.other.id}`);
    expect(other.status).toBe(404);
    const unknownOrg = await t.rest('GET', `/v1/access-log/export?orgId=${randomUUID()}`);
    expect(unknownOrg.status).toBe(404);
    expect(unknownOrg.body).toEqual(other.body);
  });

  it("an account's export covers its locations, each in its own chain order; a location's, itself only; never another tenant's", async () => {
    const { account, clinic, clinic2, other } = t.demo.organizations;
    const a = await conversationWithTurn(t);
    const b = await conversationWithTurn(t, 'clinic2');
    await read(t, a);
    await read(t, b, 'clinic2');
    await read(t, a);
    await storeEntries(t, other.id, 3);
    const all = await exported(t, '', account.apiKey);
    const byOrg = [clinic.id, clinic2.id].sort();
    expect(all.map((l) => l.orgId)).toEqual(byOrg.flatMap((id) => (id === clinic.id ? [clinic.id, clinic.id] : [clinic2.id])));
    expect(all.filter((l) => l.orgId === clinic.id).map((l) => l.seq)).toEqual([1, 2]);
    expect((await exported(t, `?orgId=${clinic2.id}`, account.apiKey)).map((l) => l.orgId)).toEqual([clinic2.id]);
    expect((await exported(t, '', clinic.apiKey)).every((l) => l.orgId === clinic.id)).toBe(true);
    expect(JSON.stringify(all)).not.toContain(other.id);
  });

  it('walks a range of many pages without losing or repeating a line', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const n = EXPORT_PAGE * 2 + 7;
    await storeEntries(t, clinic, n);
    const lines = await exported(t);
    expect(lines).toHaveLength(n);
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // a page boundary inside a range
    const from = new Date(Date.parse('2026-01-01T00:00:00Z') + (EXPORT_PAGE - 1) * 1000).toISOString();
    const partial = await exported(t, `?from=${from}`);
    expect(partial[0]!.seq).toBe(EXPORT_PAGE - 1);
    expect(partial).toHaveLength(n - EXPORT_PAGE + 2);
  });

  it('stops reading when the client goes away mid-stream', async () => {
    const clinic = t.demo.organizations.clinic;
    const pages = 60;
    await storeEntries(t, clinic.id, EXPORT_PAGE * pages);
    let pagesRead = 0;
    const observer = {
      onStatement: (e: { sql: string }) => {
        if (e.sql.includes('ORDER BY "at", "seq"')) pagesRead++;
      },
    };
    t.db.observers.add(observer);
    try {
      const app = createApp(t.deps);
      await app.ready();
      const server = createHttpServer(app.listener, t.deps.config.http);
      servers.push(server);
      const { port } = await listen(server, 0, '127.0.0.1');
      // read the head and the first bytes of the body, then hang up
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', reject);
        let seen = 0;
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 10_000) {
            socket.destroy();
            resolve();
          }
        });
        socket.write(`GET /v1/access-log/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${clinic.apiKey}\r\n\r\n`);
      });
      // the reading stops: the count settles, well short of the whole range
      let settled = -1;
      for (let i = 0; i < 100 && settled !== pagesRead; i++) {
        settled = pagesRead;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(pagesRead).toBeGreaterThan(0);
      expect(pagesRead).toBeLessThan(pages / 2);
    } finally {
      t.db.observers.delete(observer);
    }
  });
});
