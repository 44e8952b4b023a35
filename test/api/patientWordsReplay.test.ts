// Patients' words are never in an idempotent replay (docs/decisions.md "Patients' words are never replayed",
// domain/shared/shownOnce.ts PATIENT_WORDS_FIELDS): appending a turn with an Idempotency-Key answers the words
// the first time; the stored answer, and so the replay, has `text: null` and `textWithheld: true`, and the
// IdempotencyKey row holds nothing of the words. Both surfaces.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
const WORDS = 'My date of birth is 4 July 1961 and my chest hurts when I climb stairs';

async function openConversation(): Promise<string> {
  const res = await t.rest('POST', '/v1/conversations', { json: { botId: t.demo.bots.clinic[0], medium: 'PHONE' } });
  expect(res.status).toBe(200);
  return res.body.data.conversationId as string;
}

/** Every IdempotencyKey row as text. */
async function storedAnswers(): Promise<string> {
  const rows = await t.db.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(k)::text AS row FROM "IdempotencyKey" k`);
  expect(rows.length).toBeGreaterThan(0);
  return rows.map((r) => r.row).join('\n');
}

function expectNoWords(text: string): void {
  for (const needle of [WORDS, 'chest hurts', '4 July 1961']) expect(text.includes(needle), needle).toBe(false);
}

describe("a turn's words are never stored for a replay", () => {
  it('REST: the first answer shows the words; the replay and the stored row do not', async () => {
    const id = await openConversation();
    const send = () =>
      t.rest('POST', `/v1/conversations/${id}/messages`, {
        json: { role: 'caller', text: WORDS },
        headers: { 'Idempotency-Key': 'turn-1' },
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ seq: 1, role: 'caller', text: WORDS, textWithheld: false });
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual({ ...first.body.data, text: null, textWithheld: true });
    expectNoWords(JSON.stringify(replay.body));
    expectNoWords(await storedAnswers());
    // one turn was written, and its words are read where reads are logged
    const read = await t.rest('GET', `/v1/conversations/${id}`);
    expect(read.body.data.transcript.messages.map((m: { text: string }) => m.text)).toEqual([WORDS]);
  });

  it('GraphQL: the same, under an alias and through a fragment', async () => {
    const id = await openConversation();
    const query = `mutation Turn($id: ID!, $text: String!) {
      said: addConversationMessage(id: $id, role: caller, text: $text) { seq ...Words textWithheld }
    }
    fragment Words on AddedConversationMessage { words: text }`;
    const send = () => t.gql(query, { id, text: WORDS }, { headers: { 'Idempotency-Key': 'turn-g' } });
    const first = await send();
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.said).toEqual({ seq: 1, words: WORDS, textWithheld: false });
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.said).toEqual({ seq: 1, words: null, textWithheld: true });
    expectNoWords(JSON.stringify(replay.body));
    expectNoWords(await storedAnswers());
    expect(await t.db.prisma.conversationMessage.count({ where: { conversationId: id } })).toBe(1);
  });
});
