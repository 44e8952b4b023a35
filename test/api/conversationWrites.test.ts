// Conversations written (domain/calls/conversationWrites.ts): recorded, turns appended, ended with a summary
// (duration in seconds), read back with the transcript in cursor pages; the list's new filters.
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

type Conversation = Schemas['Conversation'];

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

const NOW = '2026-03-02T15:00:00Z';

async function open(t: TestApp, extra: Record<string, unknown> = {}) {
  const res = await t.rest('POST', '/v1/conversations', {
    json: { botId: t.demo.bots.clinic[0], medium: 'PHONE', fromNumber: '+14155552671', toNumber: '+15550101', ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.conversationId as string;
}

describe('writing a conversation', () => {
  it('records an inbound call, appends turns, ends it, and reads it back with its transcript page by page (REST)', async () => {
    t.clock.set(NOW);
    const id = await open(t, { tags: ['inbound'] });
    const lines = ['Bright Smiles, how can I help?', 'I would like to book a cleaning.', 'Tuesday at ten works.'];
    for (const [i, text] of lines.entries()) {
      t.clock.advance(5_000);
      const res = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: i % 2 ? 'caller' : 'agent', text } });
      expect(res.body.data).toMatchObject({ seq: i + 1, text });
    }
    t.clock.advance(5_000);
    const ended = await t.rest('POST', `/v1/conversations/${id}/end`, {
      json: { summary: 'Booked a cleaning', topic: 'Scheduling', tags: ['appointment'] },
    });
    expect(ended.body.data).toMatchObject({
      status: 'CLOSED',
      duration: 20,
      summary: 'Booked a cleaning',
      topic: 'Scheduling',
      conversationTags: ['appointment'],
      startTime: '2026-03-02T15:00:00.000Z',
      endTime: '2026-03-02T15:00:20.000Z',
    });
    const late = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'One more thing' } });
    expect(late.status).toBe(409);
    expect((await t.rest('POST', `/v1/conversations/${id}/end`, { json: {} })).status).toBe(409);

    const first = await t.rest('GET', `/v1/conversations/${id}?limit=2`);
    expect(first.body.data.conversation).toMatchObject({ conversationId: id, status: 'CLOSED', medium: 'PHONE' });
    expect(first.body.data.transcript.messages).toEqual([
      { seq: 1, role: 'agent', text: lines[0], at: '2026-03-02T15:00:05.000Z' },
      { seq: 2, role: 'caller', text: lines[1], at: '2026-03-02T15:00:10.000Z' },
    ]);
    const second = await t.rest(
      'GET',
      `/v1/conversations/${id}?limit=2&cursor=${encodeURIComponent(first.body.data.transcript.nextCursor)}`,
    );
    expect(second.body.data.transcript).toEqual({
      messages: [{ seq: 3, role: 'agent', text: lines[2], at: '2026-03-02T15:00:15.000Z' }],
      nextCursor: null,
    });
    // a cursor of one transcript does not continue another
    const otherId = await open(t);
    const foreignCursor = await t.rest(
      'GET',
      `/v1/conversations/${otherId}?cursor=${encodeURIComponent(first.body.data.transcript.nextCursor)}`,
    );
    expect(foreignCursor.status).toBe(400);
  });

  it('does the same on GraphQL', async () => {
    t.clock.set(NOW);
    const created = await t.gql('mutation($b: ID) { createConversation(input: {botId: $b, medium: CHAT}) { id status } }', {
      b: t.demo.bots.clinic[0],
    });
    const id = created.body.data.createConversation.id;
    await t.gql('mutation($id: ID!) { addConversationMessage(id: $id, role: caller, text: "Are you open Saturday?") { seq } }', { id });
    await t.gql('mutation($id: ID!) { addConversationMessage(id: $id, role: agent, text: "Yes, 9 to 12.") { seq } }', { id });
    const ended = await t.gql(
      'mutation($id: ID!) { endConversation(id: $id, input: {summary: "Hours", duration: 42}) { status duration } }',
      { id },
    );
    expect(ended.body.data.endConversation).toEqual({ status: 'CLOSED', duration: 42 });
    const read = await t.gql(
      'query($id: ID!) { conversation(id: $id, first: 1) { conversation { id medium } transcript { messages { seq role text } nextCursor } } }',
      { id },
    );
    expect(read.body.data.conversation.conversation).toEqual({ id, medium: 'CHAT' });
    expect(read.body.data.conversation.transcript.messages).toEqual([{ seq: 1, role: 'caller', text: 'Are you open Saturday?' }]);
    const next = await t.gql(
      'query($id: ID!, $after: String) { conversation(id: $id, first: 5, after: $after) { transcript { messages { seq } nextCursor } } }',
      {
        id,
        after: read.body.data.conversation.transcript.nextCursor,
      },
    );
    expect(next.body.data.conversation.transcript).toEqual({ messages: [{ seq: 2 }], nextCursor: null });
    const again = await t.gql('mutation($id: ID!) { endConversation(id: $id, input: {}) { status } }', { id });
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('refuses bad turns with a 400 naming the field, and a foreign conversation with a 404', async () => {
    const id = await open(t);
    const bad = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'robot', text: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('role: must be agent or caller');
    expect(bad.body.message).toContain('text: must not be empty');
    // texts the database cannot store as sent are a 400, not a 500 (found by the fuzzer)
    const nul = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'a\u0000b' } });
    expect(nul.status).toBe(400);
    expect(nul.body.message).toBe('text: must not contain NUL characters or unpaired UTF-16 surrogates');
    const nulTag = await t.rest('POST', '/v1/conversations', { json: { medium: 'CHAT', tags: ['\u0000'] } });
    expect(nulTag.body.message).toContain('tags.0: must not contain NUL');
    const negative = await t.rest('POST', `/v1/conversations/${id}/end`, { json: { duration: -1 } });
    expect(negative.body.message).toContain('duration: must not be negative');
    const foreign = await t.rest('POST', `/v1/conversations/${id}/messages`, {
      json: { role: 'caller', text: 'Hi' },
      token: t.demo.organizations.other.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Conversation not found');
    expect((await t.rest('GET', `/v1/conversations/${id}`, { token: t.demo.organizations.other.apiKey })).status).toBe(404);
    expect((await t.rest('POST', '/v1/conversations', { json: { botId: t.demo.bots.other[0], medium: 'CHAT' } })).status).toBe(404);
    const readOnly = await t.accessToken('clinicReadOnly');
    expect(
      (await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'Hi' }, token: readOnly })).status,
    ).toBe(403);
  });

  it('numbers turns written at the same instant one after the other, none lost, and adds none once the conversation ended', async () => {
    t.clock.set(NOW);
    const id = await open(t);
    const said = Array.from({ length: 20 }, (_, i) => `turn ${i}`);
    const answers = await Promise.all(
      said.map((text, i) =>
        i % 2
          ? t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text } })
          : t.gql('mutation($id: ID!, $text: String!) { addConversationMessage(id: $id, role: agent, text: $text) { seq } }', { id, text }),
      ),
    );
    const seqs = answers.map((a, i) => (i % 2 ? a.body.data.seq : a.body.data.addConversationMessage.seq) as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const read = await t.rest('GET', `/v1/conversations/${id}?limit=50`);
    const messages = read.body.data.transcript.messages as { seq: number; text: string }[];
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(messages.map((m) => m.text).sort()).toEqual([...said].sort());
    // each turn's number is the one its writer was answered
    for (const [i, text] of said.entries()) expect(messages.find((m) => m.text === text)!.seq).toBe(seqs[i]);
    // an end racing more turns: every turn is before the end or refused
    const racing = await Promise.all([
      t.rest('POST', `/v1/conversations/${id}/end`, { json: {} }),
      ...Array.from({ length: 5 }, () => t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'late' } })),
    ]);
    expect(racing[0].status).toBe(200);
    const added = racing.slice(1).filter((r) => r.status === 200).length;
    for (const r of racing.slice(1)) expect([200, 409]).toContain(r.status);
    const after = await t.rest('GET', `/v1/conversations/${id}?limit=50`);
    expect(after.body.data.transcript.messages).toHaveLength(20 + added);
  });
});

describe('when a conversation or a turn happened', () => {
  it('is 2000-01-01 or later and at most a day past the current time, on both surfaces (400 naming the field)', async () => {
    t.clock.set(NOW);
    const bot = t.demo.bots.clinic[0];
    const cases: [string, string][] = [
      ['1970-01-01T00:00:00Z', 'startTime: must be 2000-01-01T00:00:00Z or later'],
      ['1999-12-31T23:59:59Z', 'startTime: must be 2000-01-01T00:00:00Z or later'],
      ['2999-01-01T00:00:00Z', 'startTime: must be at most 24 hours after the current time (at most 2026-03-03T15:00:00.000Z)'],
      ['2026-03-03T15:00:01Z', 'startTime: must be at most 24 hours after the current time (at most 2026-03-03T15:00:00.000Z)'],
    ];
    for (const [startTime, message] of cases) {
      const res = await t.rest('POST', '/v1/conversations', { json: { botId: bot, medium: 'CHAT', startTime } });
      expect(res.status, startTime).toBe(400);
      expect(res.body.message, startTime).toBe(message);
    }
    const gql = await t.gql('mutation($b: ID, $s: String) { createConversation(input: {botId: $b, medium: CHAT, startTime: $s}) { id } }', {
      b: bot,
      s: '1970-01-01T00:00:00Z',
    });
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'startTime', message: 'must be 2000-01-01T00:00:00Z or later' }],
    });
    // the edges are accepted
    expect(await open(t, { startTime: '2000-01-01T00:00:00Z' })).toBeTruthy();
    const id = await open(t, { startTime: '2026-03-03T15:00:00Z' });
    // a turn's time follows the same rule
    const turn = await t.rest('POST', `/v1/conversations/${id}/messages`, {
      json: { role: 'caller', text: 'Hi', at: '2999-01-01T00:00:00Z' },
    });
    expect(turn.status).toBe(400);
    expect(turn.body.message).toBe('at: must be at most 24 hours after the current time (at most 2026-03-03T15:00:00.000Z)');
    // nothing of the refused writes was kept
    expect(await t.db.prisma.conversation.count({ where: { startTime: { lt: new Date('2000-01-01T00:00:00Z') } } })).toBe(0);
  });
});

describe('the list filters', () => {
  it('filters by medium, status and a startTime range, with cursors bound to the filters (REST and GraphQL)', async () => {
    // the demo's clinic conversations: 40 unarchived, mediums in turn CHAT PHONE SMS GHL, every fifth OPEN
    const all = await t.rest('GET', '/v1/conversations?limit=100');
    const phone = await t.rest('GET', '/v1/conversations?limit=100&medium=PHONE');
    const expected = all.body.data.conversations.filter((c: Conversation) => c.medium === 'PHONE');
    expect(phone.body.data.conversations).toEqual(expected);
    expect(phone.body.data.pagination.totalCount).toBe(expected.length);
    const open = await t.rest('GET', '/v1/conversations?limit=100&status=OPEN');
    expect(open.body.data.conversations.map((c: Conversation) => c.conversationId)).toEqual(
      all.body.data.conversations.filter((c: Conversation) => c.status === 'OPEN').map((c: Conversation) => c.conversationId),
    );
    const [a, b] = [all.body.data.conversations[10].startTime, all.body.data.conversations[5].startTime];
    const range = await t.rest('GET', `/v1/conversations?limit=100&startedFrom=${a}&startedTo=${b}`);
    const inRange = all.body.data.conversations.filter((c: Conversation) => c.startTime >= a && c.startTime < b);
    expect(range.body.data.conversations).toEqual(inRange);
    // cursor pages of a filtered list
    const page1 = await t.rest('GET', '/v1/conversations?limit=3&medium=PHONE');
    const page2 = await t.rest(
      'GET',
      `/v1/conversations?limit=3&medium=PHONE&cursor=${encodeURIComponent(page1.body.data.pagination.nextCursor)}`,
    );
    expect([...page1.body.data.conversations, ...page2.body.data.conversations]).toEqual(expected.slice(0, 6));
    const mixed = await t.rest(
      'GET',
      `/v1/conversations?limit=3&medium=CHAT&cursor=${encodeURIComponent(page1.body.data.pagination.nextCursor)}`,
    );
    expect(mixed.status).toBe(400);
    const gql = await t.gql(
      '{ conversationsConnection(first: 100, medium: PHONE, status: CLOSED) { totalCount edges { node { medium status } } } }',
    );
    expect(
      gql.body.data.conversationsConnection.edges.every(
        (e: { node: { medium: string; status: string } }) => e.node.medium === 'PHONE' && e.node.status === 'CLOSED',
      ),
    ).toBe(true);
    expect(gql.body.data.conversationsConnection.totalCount).toBe(expected.filter((c: Conversation) => c.status === 'CLOSED').length);
    expect((await t.rest('GET', '/v1/conversations?medium=FAX')).status).toBe(400);
  });

  it("reads a turn's instant back as written whatever the process's time zone, and a policy set a moment before applies", async () => {
    t.clock.set(NOW);
    const id = await open(t);
    const previous = process.env.TZ;
    // the turns are read in one statement that builds them as JSON: an instant without its zone would be read in
    // the process's (14 hours off here)
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      const at = '2026-03-02T14:59:58.123Z';
      const written = await t.rest('POST', `/v1/conversations/${id}/messages`, {
        json: { role: 'caller', text: 'mail me at a@b.example', at },
      });
      expect(written.body.data.at).toBe(at);
      const put = await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/redaction`, { json: { emails: true } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text: 'or at c@d.example' } });
      const read = await t.rest('GET', `/v1/conversations/${id}`);
      expect(read.body.data.transcript.messages.map((m: { at: string; text: string }) => [m.at, m.text])).toEqual([
        [at, 'mail me at a@b.example'],
        [new Date(NOW).toISOString(), 'or at [email]'],
      ]);
    } finally {
      if (previous === undefined) delete process.env.TZ;
      else process.env.TZ = previous;
      await t.rest('PUT', `/v1/organizations/${t.demo.organizations.clinic.id}/redaction`, { json: {} });
    }
  });
});
