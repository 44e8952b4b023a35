// Transcript text sealed at rest (issue 36 §5; domain/governance/transcriptKeys.ts): a turn's words are stored
// encrypted with its organization's data key, itself stored wrapped by a master key; both surfaces read them back;
// a dump of the database (pg_dump, on PostgreSQL) holds neither the words nor a card number said in them; a master
// key rotation re-wraps the data keys and leaves every message as it was; turns stored in clear before sealing
// existed are read as they are and sealed by `seal-transcripts`.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runAdminCommand } from '../../src/admin/commands.js';
import { masterKeys } from '../../src/crypto/masterKeys.js';
import { loadConfig, parseMasterKeys, SIGNING_KEY_MASTER_ID } from '../../src/config.js';
import { TranscriptKeyring } from '../../src/domain/governance/transcriptKeys.js';
import { currentBackend } from '../support/testDatabase.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

const SENTENCE = 'The lighthouse keeper swallowed a harmonica on Tuesday';
const CARD = '4111 1111 1111 1111';
const WORDS = `${SENTENCE}; my card is ${CARD}`;
/** The words as stored and read: the card number is not kept (governance/redaction.ts). */
const KEPT = `${SENTENCE}; my card is [card]`;

async function conversation(t: TestApp, org: 'clinic' | 'other' = 'clinic'): Promise<string> {
  const res = await t.rest('POST', '/v1/conversations', {
    json: { botId: t.demo.bots[org][0], medium: 'PHONE', fromNumber: '+14155552671', toNumber: '+15550101' },
    token: t.demo.organizations[org].apiKey,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.conversationId as string;
}

async function say(t: TestApp, id: string, text: string): Promise<void> {
  const res = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // the writer's own answer shows what was stored
  expect(res.body.data.text).toBe(text === WORDS ? KEPT : text);
}

async function readBoth(t: TestApp, id: string): Promise<{ rest: string[]; graphql: string[] }> {
  const rest = await t.rest('GET', `/v1/conversations/${id}`);
  expect(rest.status, JSON.stringify(rest.body)).toBe(200);
  const gql = await t.gql('query($id: ID!) { conversation(id: $id) { transcript { messages { text } } } }', { id });
  expect(gql.body.errors, JSON.stringify(gql.body)).toBeUndefined();
  return {
    rest: (rest.body.data.transcript.messages as { text: string }[]).map((m) => m.text),
    graphql: (gql.body.data.conversation.transcript.messages as { text: string }[]).map((m) => m.text),
  };
}

const storedMessages = (t: TestApp) =>
  t.db.prisma.$queryRawUnsafe<{ id: string; text: string; keyVersion: number | null }[]>(
    `SELECT "id"::text AS "id", "text", "keyVersion" FROM "ConversationMessage" ORDER BY "seq"`,
  );
const storedKeys = (t: TestApp) =>
  t.db.prisma.$queryRawUnsafe<{ orgId: string; masterKeyId: string; wrapped: string }[]>(
    `SELECT "orgId"::text AS "orgId", "masterKeyId", "wrapped" FROM "TranscriptDataKey"`,
  );

describe('a turn written', () => {
  it('is stored sealed (no word of it, nor the card number, in the row) and read back whole on both surfaces', async () => {
    const id = await conversation(t);
    await say(t, id, WORDS);
    await say(t, id, 'Second turn');
    const rows = await storedMessages(t);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.keyVersion).toBe(1);
      expect(row.text).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    }
    const everything = JSON.stringify(rows);
    expect(everything).not.toContain('lighthouse');
    expect(everything).not.toContain(CARD);
    expect(everything).not.toContain(CARD.replace(/ /g, ''));
    // one data key for the organization, stored wrapped
    const keys = await storedKeys(t);
    expect(keys).toEqual([{ orgId: t.demo.organizations.clinic.id, masterKeyId: SIGNING_KEY_MASTER_ID, wrapped: expect.any(String) }]);
    expect(await readBoth(t, id)).toEqual({ rest: [KEPT, 'Second turn'], graphql: [KEPT, 'Second turn'] });
  });

  it('seals two organizations with two keys, and the first turns of one organization at the same instant with one', async () => {
    const first = await conversation(t);
    const second = await conversation(t);
    await Promise.all([say(t, first, 'one at once'), say(t, second, 'two at once')]);
    const other = await conversation(t, 'other');
    const res = await t.rest('POST', `/v1/conversations/${other}/messages`, {
      json: { role: 'caller', text: 'the other clinic' },
      token: t.demo.organizations.other.apiKey,
    });
    expect(res.status).toBe(200);
    const keys = await storedKeys(t);
    expect(keys.map((k) => k.orgId).sort()).toEqual([t.demo.organizations.clinic.id, t.demo.organizations.other.id].sort());
    expect((await readBoth(t, first)).rest).toEqual(['one at once']);
    expect((await readBoth(t, second)).rest).toEqual(['two at once']);
  });

  it('does not open when its sealed text is moved to another turn (the text is bound to its turn)', async () => {
    const id = await conversation(t);
    await say(t, id, WORDS);
    await say(t, id, 'harmless');
    const [first, second] = await storedMessages(t);
    const keyring = new TranscriptKeyring(masterKeys([], t.deps.tokens.key));
    const orgId = t.demo.organizations.clinic.id;
    expect(await keyring.open(t.db.prisma, orgId, first!.id, first!)).toBe(KEPT);
    await expect(keyring.open(t.db.prisma, orgId, second!.id, { text: first!.text, keyVersion: 1 })).rejects.toThrow();
    // nor under another organization's name
    await expect(keyring.open(t.db.prisma, t.demo.organizations.other.id, first!.id, first!)).rejects.toThrow();
  });
});

describe('card numbers and SSNs said in a turn', () => {
  it('are not kept, whichever surface wrote the turn; the writer is answered the words as stored', async () => {
    const id = await conversation(t);
    const said = 'Card 5500-0000-0000-0004 exp 12/27, SSN 123-45-6789, order 4111111111111112';
    const kept = 'Card [card] exp 12/27, SSN [ssn], order 4111111111111112';
    const gql = await t.gql('mutation($id: ID!, $text: String!) { addConversationMessage(id: $id, role: caller, text: $text) { text } }', {
      id,
      text: said,
    });
    expect(gql.body.errors, JSON.stringify(gql.body)).toBeUndefined();
    expect(gql.body.data.addConversationMessage.text).toBe(kept);
    const rest = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'agent', text: said } });
    expect(rest.body.data.text).toBe(kept);
    expect(await readBoth(t, id)).toEqual({ rest: [kept, kept], graphql: [kept, kept] });
  });
});

describe('a master key rotation', () => {
  it('re-wraps every data key with the new master key and rewrites no message; the old key can then go', async () => {
    const old = { id: 'k2025', key: new Uint8Array(randomBytes(32)) };
    const next = { id: 'k2026', key: new Uint8Array(randomBytes(32)) };
    const orgId = t.demo.organizations.clinic.id;
    // the service runs with `k2025` first
    const configured = t.deps.transcripts;
    onTestFinished(() => void (t.deps.transcripts = configured));
    t.deps.transcripts = new TranscriptKeyring([old]);
    const id = await conversation(t);
    await say(t, id, WORDS);
    const sealed = await storedMessages(t);
    expect((await storedKeys(t))[0]!.masterKeyId).toBe('k2025');

    // TRANSCRIPT_MASTER_KEYS=k2026:…,k2025:… then `seal-transcripts`
    const during = new TranscriptKeyring([next, old]);
    t.deps.transcripts = during;
    expect(await runAdminCommand(t.deps, 'seal-transcripts', {})).toEqual({ rewrappedDataKeys: 1, sealed: 0 });
    expect((await storedKeys(t))[0]!.masterKeyId).toBe('k2026');
    expect(await storedMessages(t)).toEqual(sealed);
    // run again (another instance, or twice by hand): nothing left to do
    expect(await runAdminCommand(t.deps, 'seal-transcripts', {})).toEqual({ rewrappedDataKeys: 0, sealed: 0 });

    // TRANSCRIPT_MASTER_KEYS=k2026:… alone: every turn still opens
    const after = new TranscriptKeyring([next]);
    t.deps.transcripts = after;
    expect(await after.open(t.db.prisma, orgId, sealed[0]!.id, sealed[0]!)).toBe(KEPT);
    expect((await readBoth(t, id)).graphql).toEqual([KEPT]);
    // and one that lists only the old key cannot open a data key wrapped by the new one
    await expect(new TranscriptKeyring([old]).open(t.db.prisma, orgId, sealed[0]!.id, sealed[0]!)).rejects.toThrow(/k2026/);
  });
});

describe('turns stored in clear before sealing existed', () => {
  it('are read as they are, and `seal-transcripts` seals them', async () => {
    const id = await conversation(t);
    await say(t, id, 'sealed from the start');
    await t.db.prisma.$executeRawUnsafe(
      `INSERT INTO "ConversationMessage" ("id", "conversationId", "seq", "role", "text", "at") VALUES ($1::uuid, $2::uuid, 2, 'caller', $3, now())`,
      '00000000-0000-4000-8000-000000000001',
      id,
      WORDS,
    );
    expect((await readBoth(t, id)).rest).toEqual(['sealed from the start', WORDS]);
    expect(JSON.stringify(await storedMessages(t))).toContain('lighthouse');

    expect(await runAdminCommand(t.deps, 'seal-transcripts', {})).toEqual({ rewrappedDataKeys: 0, sealed: 1 });
    const rows = await storedMessages(t);
    expect(rows.map((r) => r.keyVersion)).toEqual([1, 1]);
    expect(JSON.stringify(rows)).not.toContain('lighthouse');
    // sealed as a turn is stored today: without the card number
    expect(await readBoth(t, id)).toEqual({ rest: ['sealed from the start', KEPT], graphql: ['sealed from the start', KEPT] });
  });
});

describe('a dump of the database', () => {
  it.runIf(currentBackend() === 'postgres')('holds no transcript text in clear (pg_dump)', async () => {
    const id = await conversation(t);
    await say(t, id, WORDS);
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', t.db.url], { maxBuffer: 256 * 1024 * 1024 });
    expect(stdout).toContain('TranscriptDataKey');
    expect(stdout).not.toContain('lighthouse');
    // the card as said and without its spaces (a bare '4111' turns up in uuids and ciphertexts by chance)
    expect(stdout).not.toContain(CARD);
    expect(stdout).not.toContain(CARD.replace(/ /g, ''));
  });
});

describe('TRANSCRIPT_MASTER_KEYS', () => {
  const key = randomBytes(32).toString('base64');
  it('lists id:key pairs, the first current', () => {
    const keys = parseMasterKeys(` a:${key} , b-2:${randomBytes(32).toString('base64url')}`);
    expect(keys.map((k) => k.id)).toEqual(['a', 'b-2']);
    expect(Buffer.from(keys[0]!.key).toString('base64')).toBe(key);
  });
  it.each([
    ['no id', key, /must be id:key/],
    ['a bad id', `a b:${key}`, /must be id:key/],
    ['a short key', `a:${randomBytes(16).toString('base64')}`, /must be 32 bytes \(it is 16\)/],
    ['a key not base64', 'a:not*base64', /base64/],
    ['an id twice', `a:${key},a:${key}`, /listed twice/],
    ['the reserved id', `${SIGNING_KEY_MASTER_ID}:${key}`, /signing key/],
  ])('refuses %s, naming the setting', (_name, value, reason) => {
    expect(() => parseMasterKeys(value)).toThrow(reason);
    expect(() => loadConfig({ TRANSCRIPT_MASTER_KEYS: value })).toThrow(/TRANSCRIPT_MASTER_KEYS/);
  });
});
