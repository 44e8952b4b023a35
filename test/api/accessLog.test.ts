// Transcripts under governance (issue 36 §1, §2, §6; domain/governance/accessLog.ts): transcript text needs
// transcripts:read; every answer holding it is entered in the access log first (503 when the entry cannot
// be written); the log is append-only, hash-chained per organization, listed and verified on both surfaces
// within reach; and no log line carries a transcript's text or a callee's number.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000', TRUST_PROXY: 'true' } });

const NOW = '2026-03-02T15:00:00Z';
const SENTENCE = 'My date of birth is the ninth of Thermidor and my tooth aches like a violin';

async function conversationWithTranscript(t: TestApp, text = SENTENCE): Promise<string> {
  const res = await t.rest('POST', '/v1/conversations', {
    json: { botId: t.demo.bots.clinic[0], medium: 'PHONE', fromNumber: '+14155552671', toNumber: '+15550101' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const id = res.body.data.conversationId as string;
  const turn = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text } });
  expect(turn.status).toBe(200);
  return id;
}

type Entry = {
  id: string;
  orgId: string;
  seq: number;
  at: string;
  credential: { kind: string; id: string; name: string };
  conversationId: string;
  surface: string;
  requestId: string | null;
  clientAddress: string | null;
  unredacted: boolean;
  prevHash: string;
  hash: string;
};

async function entries(t: TestApp, query = '', token?: string): Promise<Entry[]> {
  const res = await t.rest('GET', `/v1/access-log?limit=100${query}`, token ? { token } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.entries as Entry[];
}

const readRest = (t: TestApp, id: string, headers: Record<string, string> = {}, token?: string) =>
  t.rest('GET', `/v1/conversations/${id}`, { headers, ...(token ? { token } : {}) });

const READ_GQL = 'query($id: ID!) { conversation(id: $id) { conversation { id } transcript { messages { text } } } }';
const readGql = (t: TestApp, id: string, headers: Record<string, string> = {}, token?: string) =>
  t.gql(READ_GQL, { id }, { headers, ...(token ? { token } : {}) });

async function restrictedKey(t: TestApp, scopes: string[]): Promise<string> {
  const res = await t.rest('POST', '/v1/api-keys', { json: { name: 'Narrow key', scopes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.apiKey as string;
}

describe('reading a transcript writes one access-log entry first', () => {
  it('REST: one entry naming the credential, organization, conversation, surface, request id and client address', async () => {
    t.clock.set(NOW);
    const id = await conversationWithTranscript(t);
    expect(await entries(t)).toEqual([]);
    const read = await readRest(t, id, { 'x-request-id': 'read-rest-1', 'x-forwarded-for': '203.0.113.7' });
    expect(read.status).toBe(200);
    expect(read.body.data.transcript.messages[0].text).toBe(SENTENCE);
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.clinic.id } });
    const log = await entries(t);
    expect(log).toEqual([
      {
        id: expect.any(String),
        orgId: t.demo.organizations.clinic.id,
        seq: 1,
        at: '2026-03-02T15:00:00.000Z',
        credential: { kind: 'apiKey', id: key.id, name: 'Demo key' },
        conversationId: id,
        surface: 'rest',
        requestId: 'read-rest-1',
        clientAddress: '203.0.113.7',
        unredacted: false,
        prevHash: '0'.repeat(64),
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    // the list of conversations holds no transcript text: no entry
    expect((await t.rest('GET', '/v1/conversations?limit=5')).status).toBe(200);
    expect(await entries(t)).toHaveLength(1);
  });

  it('GraphQL: one entry with surface graphql, chained after the REST one', async () => {
    t.clock.set(NOW);
    const id = await conversationWithTranscript(t);
    await readRest(t, id);
    t.clock.advance(1_000);
    const read = await readGql(t, id, { 'x-request-id': 'read-gql-1', 'x-forwarded-for': '198.51.100.4' });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.conversation.transcript.messages[0].text).toBe(SENTENCE);
    const [latest, first] = await entries(t);
    expect(latest).toMatchObject({
      seq: 2,
      surface: 'graphql',
      requestId: 'read-gql-1',
      clientAddress: '198.51.100.4',
      conversationId: id,
    });
    expect(latest!.prevHash).toBe(first!.hash);
    // the GraphQL twin of the list answers the same entries
    const listed = await t.gql('{ accessLog(first: 10) { edges { node { id seq surface credential { kind name } } } } }');
    expect(listed.body.data.accessLog.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([latest!.id, first!.id]);
  });

  it('an OAuth token is named as such', async () => {
    const id = await conversationWithTranscript(t);
    const token = await t.accessToken('clinic');
    expect((await readRest(t, id, {}, token)).status).toBe(200);
    expect((await entries(t))[0]!.credential).toMatchObject({ kind: 'oauth', name: 'Demo client' });
  });

  it('a missing or foreign conversation is a 404 and writes nothing', async () => {
    const theirs = await t.rest('POST', '/v1/conversations', { json: { medium: 'CHAT' }, token: t.demo.organizations.other.apiKey });
    const foreign = theirs.body.data.conversationId as string;
    expect((await readRest(t, foreign)).status).toBe(404);
    expect((await readGql(t, foreign)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await readRest(t, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(await entries(t)).toEqual([]);
    expect(await entries(t, '', t.demo.organizations.other.apiKey)).toEqual([]);
  });
});

describe('transcripts:read', () => {
  it('without it a read is 403 on both surfaces and writes no entry; the list of conversations stays readable', async () => {
    const id = await conversationWithTranscript(t);
    const narrow = await restrictedKey(t, ['conversations:read']);
    const rest = await readRest(t, id, {}, narrow);
    expect(rest.status).toBe(403);
    expect(rest.body.message).toMatch(/transcripts:read/);
    expect(JSON.stringify(rest.body)).not.toContain(SENTENCE);
    const gql = await readGql(t, id, {}, narrow);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(JSON.stringify(gql.body)).not.toContain(SENTENCE);
    expect((await t.rest('GET', '/v1/conversations?limit=5', { token: narrow })).status).toBe(200);
    expect(await entries(t)).toEqual([]);
    // with it (and conversations:read) the read is answered and logged
    const reader = await restrictedKey(t, ['conversations:read', 'transcripts:read']);
    expect((await readRest(t, id, {}, reader)).status).toBe(200);
    expect((await entries(t)).map((e) => e.credential.name)).toEqual(['Narrow key']);
  });

  it('the migration grants it to every key and client that held conversations:read, and to no other', async () => {
    const org = t.demo.organizations.clinic.id;
    const held = await t.db.prisma.apiKey.create({
      data: { orgId: org, name: 'Old reader', prefix: 'x', hash: 'h1', restricted: true, scopes: ['conversations:read'] },
    });
    const other = await t.db.prisma.apiKey.create({
      data: { orgId: org, name: 'Old hours', prefix: 'x', hash: 'h2', restricted: true, scopes: ['closures:read'] },
    });
    const client = await t.db.prisma.oAuthClient.create({
      data: { orgId: org, name: 'Old client', clientId: 'old-client', secretHash: 'h3', scopes: ['conversations:read', 'events:read'] },
    });
    const dir = join(import.meta.dirname, '../../prisma/migrations');
    const migration = readdirSync(dir).find((name) => name.endsWith('_access_log'))!;
    const sql = readFileSync(join(dir, migration, 'migration.sql'), 'utf8');
    const grants = sql.split(';').filter((statement) => /^\s*(--[^\n]*\n\s*)*UPDATE/.test(statement));
    expect(grants).toHaveLength(2);
    for (const statement of grants) await t.db.prisma.$executeRawUnsafe(statement);
    for (const statement of grants) await t.db.prisma.$executeRawUnsafe(statement); // once only
    expect((await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: held.id } })).scopes).toEqual([
      'conversations:read',
      'transcripts:read',
    ]);
    expect((await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id: other.id } })).scopes).toEqual(['closures:read']);
    expect((await t.db.prisma.oAuthClient.findUniqueOrThrow({ where: { id: client.id } })).scopes).toEqual([
      'conversations:read',
      'events:read',
      'transcripts:read',
    ]);
  });
});

describe('an entry that cannot be written', () => {
  it('refuses the read with 503 on both surfaces, never answering the text unlogged', async () => {
    const id = await conversationWithTranscript(t);
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" RENAME TO "AccessLogEntryAway"');
    try {
      const rest = await readRest(t, id);
      expect(rest.status).toBe(503);
      expect(JSON.stringify(rest.body)).not.toContain(SENTENCE);
      const gql = await readGql(t, id);
      expect(gql.body.errors[0].extensions.code).toBe('UNAVAILABLE');
      expect(gql.body.data?.conversation ?? null).toBeNull();
      expect(JSON.stringify(gql.body)).not.toContain(SENTENCE);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntryAway" RENAME TO "AccessLogEntry"');
    }
    expect(await entries(t)).toEqual([]);
  });
});

describe('the chain', () => {
  it('is append-only: UPDATE and DELETE are refused by the database', async () => {
    const id = await conversationWithTranscript(t);
    await readRest(t, id);
    await expect(t.db.prisma.$executeRawUnsafe(`UPDATE "AccessLogEntry" SET "credentialName" = 'nobody'`)).rejects.toThrow(/append-only/);
    await expect(t.db.prisma.$executeRawUnsafe(`DELETE FROM "AccessLogEntry"`)).rejects.toThrow(/append-only/);
    expect(await entries(t)).toHaveLength(1);
  });

  it('verifies; an entry altered behind the service is reported as the first broken, on both surfaces', async () => {
    t.clock.set(NOW);
    const id = await conversationWithTranscript(t);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1_000);
      await (i % 2 ? readGql(t, id) : readRest(t, id));
    }
    const sound = await t.rest('GET', '/v1/access-log/verify');
    expect(sound.body.data).toEqual({ ok: true, entries: 4, firstBroken: null });
    const victim = (await entries(t)).find((e) => e.seq === 2)!;
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" DISABLE TRIGGER "AccessLogEntry_append_only"');
    try {
      await t.db.prisma.$executeRawUnsafe(`UPDATE "AccessLogEntry" SET "clientAddress" = '10.9.9.9' WHERE "id" = '${victim.id}'`);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" ENABLE TRIGGER "AccessLogEntry_append_only"');
    }
    const broken = { id: victim.id, orgId: victim.orgId, seq: 2, at: victim.at };
    expect((await t.rest('GET', '/v1/access-log/verify')).body.data).toEqual({ ok: false, entries: 2, firstBroken: broken });
    const gql = await t.gql('{ accessLogVerification { ok entries firstBroken { id orgId seq at } } }');
    expect(gql.body.data.accessLogVerification).toEqual({ ok: false, entries: 2, firstBroken: broken });
    // a range after the altered entry holds (its anchor is the entry before it, as stored)
    const later = encodeURIComponent(new Date(Date.parse(NOW) + 3_000).toISOString());
    expect((await t.rest('GET', `/v1/access-log/verify?from=${later}`)).body.data).toEqual({ ok: true, entries: 2, firstBroken: null });
  });

  it('a removed entry breaks the link of the one after it', async () => {
    const id = await conversationWithTranscript(t);
    for (let i = 0; i < 3; i++) await readRest(t, id);
    const second = (await entries(t)).find((e) => e.seq === 2)!;
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" DISABLE TRIGGER "AccessLogEntry_append_only"');
    try {
      await t.db.prisma.$executeRawUnsafe(`DELETE FROM "AccessLogEntry" WHERE "id" = '${second.id}'`);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" ENABLE TRIGGER "AccessLogEntry_append_only"');
    }
    const verified = (await t.rest('GET', '/v1/access-log/verify')).body.data;
    expect(verified).toMatchObject({ ok: false, firstBroken: { seq: 3 } });
  });

  it('stays one chain under concurrent reads on both surfaces', async () => {
    const id = await conversationWithTranscript(t);
    const reads = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? readGql(t, id) : readRest(t, id))));
    for (const read of reads) expect(read.status).toBe(200);
    const log = await entries(t);
    expect(log.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(new Set(log.map((e) => e.prevHash)).size).toBe(12);
    expect((await t.rest('GET', '/v1/access-log/verify')).body.data).toEqual({ ok: true, entries: 12, firstBroken: null });
  });

  it('appends reads that arrive together in shared transactions, each answered only once its entry is in', async () => {
    const id = await conversationWithTranscript(t);
    const { result: reads, sql } = await t.statements(() => Promise.all(Array.from({ length: 40 }, () => readRest(t, id))));
    for (const read of reads) expect(read.status).toBe(200);
    const inserts = sql.filter((statement) => statement.includes('INSERT INTO "AccessLogEntry"')).length;
    // one for the first read, then one for each group that waited behind a write: fewer than one per read
    expect(inserts).toBeGreaterThan(0);
    expect(inserts).toBeLessThan(40);
    const log = await entries(t);
    expect(log.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(log.map((e) => e.requestId)).size).toBe(40);
    expect((await t.rest('GET', '/v1/access-log/verify')).body.data).toEqual({ ok: true, entries: 40, firstBroken: null });
    // and when a shared write fails, every read in it is refused
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" RENAME TO "AccessLogEntryAway"');
    try {
      const refused = await Promise.all(Array.from({ length: 10 }, () => readRest(t, id)));
      expect(refused.map((r) => r.status)).toEqual(Array(10).fill(503));
      for (const r of refused) expect(JSON.stringify(r.body)).not.toContain(SENTENCE);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntryAway" RENAME TO "AccessLogEntry"');
    }
    expect(await entries(t)).toHaveLength(40);
  });
});

describe('reading the log', () => {
  it('needs access-log:read on both surfaces', async () => {
    const narrow = await restrictedKey(t, ['conversations:read', 'transcripts:read']);
    expect((await t.rest('GET', '/v1/access-log', { token: narrow })).status).toBe(403);
    expect((await t.rest('GET', '/v1/access-log/verify', { token: narrow })).status).toBe(403);
    for (const query of ['{ accessLog { edges { node { id } } } }', '{ accessLogVerification { ok } }']) {
      const gql = await t.gql(query, {}, { token: narrow });
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
  });

  it("another tenant sees none of the entries; an account sees its children's", async () => {
    const id = await conversationWithTranscript(t);
    await readRest(t, id);
    await readGql(t, id);
    const other = t.demo.organizations.other;
    expect(await entries(t, '', other.apiKey)).toEqual([]);
    expect((await t.rest('GET', '/v1/access-log/verify', { token: other.apiKey })).body.data).toEqual({
      ok: true,
      entries: 0,
      firstBroken: null,
    });
    const clinic = t.demo.organizations.clinic.id;
    expect((await t.rest('GET', `/v1/access-log?orgId=${clinic}`, { token: other.apiKey })).status).toBe(404);
    expect((await t.rest('GET', `/v1/access-log/verify?orgId=${clinic}`, { token: other.apiKey })).status).toBe(404);
    const gql = await t.gql('{ accessLog { edges { node { id } } } }', {}, { token: other.apiKey });
    expect(gql.body.data.accessLog.edges).toEqual([]);
    const named = await t.gql('query($o: ID) { accessLog(orgId: $o) { edges { node { id } } } }', { o: clinic }, { token: other.apiKey });
    expect(named.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // a sibling location neither
    expect(await entries(t, '', t.demo.organizations.clinic2.apiKey)).toEqual([]);
    // the account's key sees its child's entries
    expect(await entries(t, '', t.demo.organizations.account.apiKey)).toHaveLength(2);
  });

  it('filters by conversation, credential and time, and pages by cursor', async () => {
    t.clock.set(NOW);
    const first = await conversationWithTranscript(t);
    const second = await conversationWithTranscript(t, 'Another line');
    const narrow = await restrictedKey(t, ['conversations:read', 'transcripts:read']);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      await readRest(t, first);
      await readRest(t, second, {}, narrow);
    }
    expect((await entries(t, `&conversationId=${first}`)).map((e) => e.conversationId)).toEqual([first, first, first]);
    const narrowId = (await entries(t, `&conversationId=${second}`))[0]!.credential.id;
    expect((await entries(t, `&credentialId=${narrowId}`)).map((e) => e.conversationId)).toEqual([second, second, second]);
    const from = encodeURIComponent('2026-03-02T15:02:00Z');
    const to = encodeURIComponent('2026-03-02T15:03:00Z');
    expect(await entries(t, `&from=${from}&to=${to}`)).toHaveLength(2);
    const page1 = await t.rest('GET', '/v1/access-log?limit=4');
    const page2 = await t.rest('GET', `/v1/access-log?limit=4&cursor=${encodeURIComponent(page1.body.data.pagination.nextCursor)}`);
    expect(page2.body.data.pagination.nextCursor).toBeNull();
    const all = [...page1.body.data.entries, ...page2.body.data.entries].map((e: Entry) => e.id);
    expect(all).toEqual((await entries(t)).map((e) => e.id));
    const wrongFilter = await t.rest(
      'GET',
      `/v1/access-log?limit=4&conversationId=${first}&cursor=${encodeURIComponent(page1.body.data.pagination.nextCursor)}`,
    );
    expect(wrongFilter.status).toBe(400);
    // the same filters and pages on GraphQL
    const types: Record<string, string> = { c: 'ID', k: 'ID', from: 'DateTime', to: 'DateTime', after: 'String' };
    const gqlIds = async (args: string, variables: Record<string, unknown> = {}) => {
      const declared = Object.keys(variables).map((name) => `$${name}: ${types[name]}`);
      const res = await t.gql(
        `query${declared.length ? `(${declared.join(', ')})` : ''} { accessLog(${args}) { edges { node { id conversationId } } pageInfo { endCursor hasNextPage } } }`,
        variables,
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data.accessLog as { edges: { node: Entry }[]; pageInfo: { endCursor: string; hasNextPage: boolean } };
    };
    expect((await gqlIds('conversationId: $c', { c: first })).edges.map((e) => e.node.conversationId)).toEqual([first, first, first]);
    expect((await gqlIds('credentialId: $k', { k: narrowId })).edges).toHaveLength(3);
    expect((await gqlIds('from: $from, to: $to', { from: '2026-03-02T15:02:00Z', to: '2026-03-02T15:03:00Z' })).edges).toHaveLength(2);
    const gqlPage1 = await gqlIds('first: 4');
    const gqlPage2 = await gqlIds('first: 4, after: $after', { after: gqlPage1.pageInfo.endCursor });
    expect([...gqlPage1.edges, ...gqlPage2.edges].map((e) => e.node.id)).toEqual(all);
    expect(gqlPage2.pageInfo.hasNextPage).toBe(false);
    const badGql = await t.gql('{ accessLog(conversationId: "nope") { edges { cursor } } }');
    expect(badGql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(badGql.body.errors[0].message).toMatch(/conversationId/);
    expect((await t.rest('GET', '/v1/access-log?conversationId=nope')).body.message).toMatch(/conversationId/);
    expect((await t.rest('GET', '/v1/access-log/verify?from=yesterday')).body.message).toMatch(/from/);
  });
});

describe('events', () => {
  it('name a turn without its words: the event log and webhooks are no unlogged way to a transcript', async () => {
    t.clock.set(NOW);
    const id = await conversationWithTranscript(t);
    const res = await t.rest('GET', '/v1/events?type=conversation.message_added&limit=100');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const added = res.body.data.events.filter((e: { subject: { id: string } }) => e.subject.id === id);
    expect(added.length).toBeGreaterThan(0);
    expect(JSON.stringify(added)).not.toContain('Thermidor');
    expect(added[0].data).toMatchObject({ seq: 1, length: expect.any(Number) });
    expect(added[0].data).not.toHaveProperty('text');
    const stored = await t.deps.db.event.findMany({ where: { type: 'conversation.message_added', subjectId: id } });
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain('Thermidor');
  });
});

describe('log lines', () => {
  it("never hold a transcript's text nor a callee's full number", async () => {
    const lines: string[] = [];
    const app = createApp({ ...t.deps, logger: createLogger('debug', (line) => lines.push(line)) });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://127.0.0.1${path}`, {
          method,
          headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, body: (await res.json()) as { data: Record<string, string> } };
    };
    const CALLEE = '+14155550199';
    const created = await call('POST', '/v1/conversations', {
      botId: t.demo.bots.clinic[0],
      medium: 'PHONE',
      fromNumber: '+15550101',
      toNumber: CALLEE,
    });
    const id = created.body.data.conversationId!;
    expect((await call('POST', `/v1/conversations/${id}/messages`, { role: 'caller', text: SENTENCE })).status).toBe(200);
    expect((await call('GET', `/v1/conversations/${id}`)).status).toBe(200);
    const gql = await call('POST', '/graphql', {
      query: 'query($id: ID!) { conversation(id: $id) { transcript { messages { text } } } }',
      variables: { id },
    });
    expect(gql.status).toBe(200);
    // refusals too: a turn too long (its text echoed nowhere), a turn on an ended conversation
    expect((await call('POST', `/v1/conversations/${id}/messages`, { role: 'caller', text: SENTENCE.repeat(80) })).status).toBe(400);
    expect((await call('POST', `/v1/conversations/${id}/end`, { summary: 'x' })).status).toBe(200);
    expect((await call('POST', `/v1/conversations/${id}/messages`, { role: 'caller', text: SENTENCE })).status).toBe(409);
    const request = await call('POST', '/v1/call-requests', {
      botId: t.demo.bots.clinic[0],
      phoneNumberId: t.demo.phoneNumbers.clinic[0],
      to: CALLEE,
    });
    expect(request.status).toBeLessThan(500);
    // a number in a path (the suppression list is addressed by the number itself)
    expect((await call('POST', '/v1/suppressions', { number: CALLEE, reason: 'Asked not to be called' })).status).toBeLessThan(300);
    expect((await call('DELETE', `/v1/suppressions/${encodeURIComponent(CALLEE)}`)).status).toBeLessThan(300);
    // the lines read are the requests' own (each names its path), so a leak would be in them
    // a read refused because its access-log entry cannot be written, and a GraphQL refusal carrying the text
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntry" RENAME TO "AccessLogEntryAway"');
    try {
      expect((await call('GET', `/v1/conversations/${id}`)).status).toBe(503);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE "AccessLogEntryAway" RENAME TO "AccessLogEntry"');
    }
    const refused = await call('POST', '/graphql', {
      query: 'mutation($id: ID!, $text: String!) { addConversationMessage(id: $id, role: caller, text: $text) { seq } }',
      variables: { id, text: SENTENCE },
    });
    expect(JSON.stringify(refused.body)).toContain('CONFLICT');
    // the lines read are the requests' own: one per request, naming its route
    expect(lines.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(11);
    expect(lines.some((line) => line.includes('GET /v1/conversations/:conversationId'))).toBe(true);
    const digits = CALLEE.slice(1);
    for (const line of lines) {
      expect(line).not.toContain(SENTENCE.slice(0, 30));
      expect(line).not.toContain(digits);
    }
  });
});
