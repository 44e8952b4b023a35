// The redaction policy (issue 36 §5; domain/governance/redactionPolicy.ts): e-mail addresses and phone numbers are
// replaced on an organization's demand, the words as said kept (sealed) when it says so and read only with
// transcripts:read_unredacted, each such read logged as unredacted; the settings on both surfaces with validation
// naming the field, inheritance from the account and tenant isolation; a dump holds no original in clear.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redactTranscript } from '../../src/domain/governance/redaction.js';
import { currentBackend } from '../support/testDatabase.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

const path = (orgId: string) => `/v1/organizations/${orgId}/redaction`;
const FIELDS = 'orgId emails phones keepOriginals inheritedFrom updatedAt sources { emails phones keepOriginals }';
const GET = `query($orgId: ID!) { redactionPolicy(orgId: $orgId) { ${FIELDS} } }`;
const SET = `mutation($orgId: ID!, $input: RedactionPolicyInput!) { setRedactionPolicy(orgId: $orgId, input: $input) { ${FIELDS} } }`;

const SAID = 'Write to jane.doe+clinic@mail.example.org or call me on (415) 555-2671; card 4111 1111 1111 1111.';
const ALL_REDACTED = 'Write to [email] or call me on [phone]; card [card].';
const CARDS_ONLY = 'Write to jane.doe+clinic@mail.example.org or call me on (415) 555-2671; card [card].';

async function put(t: TestApp, orgId: string, body: unknown, token?: string) {
  const res = await t.rest('PUT', path(orgId), { json: body, ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function conversation(t: TestApp, fromNumber = '+14155550100'): Promise<string> {
  const res = await t.rest('POST', '/v1/conversations', {
    json: { botId: t.demo.bots.clinic[0], medium: 'PHONE', fromNumber, toNumber: '+14155550199' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.conversationId as string;
}

/** Says `text` in a new turn; answers what the writer was told was stored. */
async function say(t: TestApp, id: string, text: string): Promise<string> {
  const res = await t.rest('POST', `/v1/conversations/${id}/messages`, { json: { role: 'caller', text } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.text as string;
}

async function keyWith(t: TestApp, scopes: string[]): Promise<string> {
  const res = await t.rest('POST', '/v1/api-keys', { json: { name: 'Reader', scopes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.apiKey as string;
}

const READ_GQL = 'query($id: ID!, $u: Boolean) { conversation(id: $id, unredacted: $u) { transcript { messages { text } } } }';

async function readTexts(t: TestApp, id: string, unredacted: boolean, token?: string): Promise<{ rest: string[]; graphql: string[] }> {
  const rest = await t.rest('GET', `/v1/conversations/${id}${unredacted ? '?unredacted=true' : ''}`, token ? { token } : {});
  expect(rest.status, JSON.stringify(rest.body)).toBe(200);
  const gql = await t.gql(READ_GQL, { id, u: unredacted }, token ? { token } : {});
  expect(gql.body.errors, JSON.stringify(gql.body)).toBeUndefined();
  return {
    rest: (rest.body.data.transcript.messages as { text: string }[]).map((m) => m.text),
    graphql: (gql.body.data.conversation.transcript.messages as { text: string }[]).map((m) => m.text),
  };
}

async function accessLog(t: TestApp): Promise<{ surface: string; unredacted: boolean }[]> {
  const res = await t.rest('GET', '/v1/access-log?limit=100');
  expect(res.status).toBe(200);
  return (res.body.data.entries as { surface: string; unredacted: boolean }[]).map((e) => ({
    surface: e.surface,
    unredacted: e.unredacted,
  }));
}

describe('the policy, on both surfaces', () => {
  it('is off by default, set and read back the same way on REST and GraphQL, with an event', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const initial = await t.rest('GET', path(clinic));
    expect(initial.body.data).toEqual({
      orgId: clinic,
      emails: false,
      phones: false,
      keepOriginals: false,
      sources: { emails: 'default', phones: 'default', keepOriginals: 'default' },
      inheritedFrom: null,
      updatedAt: null,
    });
    t.clock.set('2026-11-28T10:00:00.000Z');
    const set = await put(t, clinic, { emails: true, keepOriginals: true });
    expect(set).toMatchObject({ emails: true, phones: false, keepOriginals: true, updatedAt: '2026-11-28T10:00:00.000Z' });
    expect(set.sources).toEqual({ emails: 'own', phones: 'default', keepOriginals: 'own' });
    const gql = await t.gql(GET, { orgId: clinic });
    expect(gql.body.data.redactionPolicy).toEqual(set);
    const viaGql = await t.gql(SET, { orgId: clinic, input: { phones: true } });
    expect(viaGql.body.errors).toBeUndefined();
    // a PUT replaces: what it leaves out is inherited again
    expect(viaGql.body.data.setRedactionPolicy).toMatchObject({ emails: false, phones: true, keepOriginals: false });
    const events = await t.rest('GET', '/v1/events?type=redaction_policy.updated');
    expect(events.body.data.events.map((e: { data: { phones: boolean } }) => e.data.phones).sort()).toEqual([false, true]);
    // the same write again changes nothing and records nothing
    await put(t, clinic, { phones: true });
    expect((await t.rest('GET', '/v1/events?type=redaction_policy.updated')).body.data.events).toHaveLength(2);
  });

  it('refuses a value that is not a boolean, naming the field, on both surfaces; nothing is written', async () => {
    const clinic = t.demo.organizations.clinic.id;
    const rest = await t.rest('PUT', path(clinic), { json: { emails: 'yes' } });
    expect(rest.status).toBe(400);
    expect(JSON.stringify(rest.body)).toContain('emails');
    const unknown = await t.rest('PUT', path(clinic), { json: { email: true } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('email');
    const gql = await t.gql(SET, { orgId: clinic, input: { phones: 'yes' } });
    expect(gql.body.errors?.[0]?.message).toMatch(/phones/);
    expect((await t.rest('GET', path(clinic))).body.data.updatedAt).toBeNull();
  });

  it("an account's policy applies to its locations that set none; a location's own setting wins", async () => {
    const { account, clinic } = t.demo.organizations;
    await put(t, account.id, { phones: true, keepOriginals: true }, account.apiKey);
    await put(t, clinic.id, { keepOriginals: false });
    const view = (await t.rest('GET', path(clinic.id))).body.data;
    expect(view).toMatchObject({ emails: false, phones: true, keepOriginals: false, inheritedFrom: account.id });
    expect(view.sources).toEqual({ emails: 'default', phones: 'account', keepOriginals: 'own' });
    // and what applies is what a turn gets
    const id = await conversation(t);
    expect(await say(t, id, 'Call (415) 555-2671')).toBe('Call [phone]');
  });

  it("another tenant's organization is not found, and a read-only credential cannot set the policy", async () => {
    const other = t.demo.organizations.other;
    expect((await t.rest('GET', path(other.id))).status).toBe(404);
    expect((await t.rest('PUT', path(other.id), { json: { emails: true } })).status).toBe(404);
    const gql = await t.gql(SET, { orgId: other.id, input: { emails: true } });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await t.rest('GET', path(other.id), { token: other.apiKey })).body.data.emails).toBe(false);
    const reader = await keyWith(t, ['organizations:read']);
    const refused = await t.rest('PUT', path(t.demo.organizations.clinic.id), { json: { emails: true }, token: reader });
    expect(refused.status).toBe(403);
    expect((await t.rest('GET', path(t.demo.organizations.clinic.id), { token: reader })).status).toBe(200);
  });
});

describe('a turn under the policy', () => {
  it('without a policy: card numbers go, e-mail addresses and phone numbers stay', async () => {
    const id = await conversation(t);
    expect(await say(t, id, SAID)).toBe(CARDS_ONLY);
  });

  it('with emails and phones: both are replaced on either surface, and no original is kept unless asked', async () => {
    await put(t, t.demo.organizations.clinic.id, { emails: true, phones: true });
    const id = await conversation(t);
    expect(await say(t, id, SAID)).toBe(ALL_REDACTED);
    const gql = await t.gql('mutation($id: ID!, $text: String!) { addConversationMessage(id: $id, role: caller, text: $text) { text } }', {
      id,
      text: 'Reach me at +44 20 7946 0958 or JOHN@EXAMPLE.CO.UK',
    });
    expect(gql.body.data.addConversationMessage.text).toBe('Reach me at [phone] or [email]');
    const rows = await t.db.prisma.conversationMessage.findMany({ where: { conversationId: id } });
    expect(rows.map((r) => r.original)).toEqual([null, null]);
    // asking for originals when none were kept answers the stored words
    expect(await readTexts(t, id, true)).toEqual({
      rest: [ALL_REDACTED, 'Reach me at [phone] or [email]'],
      graphql: [ALL_REDACTED, 'Reach me at [phone] or [email]'],
    });
  });

  it('reads a number said without its country code in the region of the conversation', async () => {
    await put(t, t.demo.organizations.clinic.id, { phones: true });
    // a UK caller: 020 7946 0958 is a London number, not a US one
    const uk = await conversation(t, '+442079460000');
    expect(await say(t, uk, 'ring 020 7946 0958 please')).toBe('ring [phone] please');
    const us = await conversation(t);
    expect(await say(t, us, 'ring 020 7946 0958 please')).toBe('ring 020 7946 0958 please');
  });

  it('keeps the original sealed; it is read only with transcripts:read_unredacted and unredacted=true, and logged as such', async () => {
    await put(t, t.demo.organizations.clinic.id, { emails: true, phones: true, keepOriginals: true });
    const id = await conversation(t);
    expect(await say(t, id, SAID)).toBe(ALL_REDACTED);
    expect(await say(t, id, 'Nothing to hide here')).toBe('Nothing to hide here');
    const rows = await t.db.prisma.conversationMessage.findMany({ where: { conversationId: id }, orderBy: { seq: 'asc' } });
    // kept only where something was replaced, and sealed: the row holds no word of it
    expect(rows[0]!.original).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(rows[1]!.original).toBeNull();
    expect(JSON.stringify(rows)).not.toMatch(/jane|555-2671|4111 1111/);

    // a reader without the scope gets the redacted words, and asking for originals is refused on both surfaces
    const reader = await keyWith(t, ['conversations:read', 'transcripts:read']);
    expect(await readTexts(t, id, false, reader)).toEqual({
      rest: [ALL_REDACTED, 'Nothing to hide here'],
      graphql: [ALL_REDACTED, 'Nothing to hide here'],
    });
    const refused = await t.rest('GET', `/v1/conversations/${id}?unredacted=true`, { token: reader });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('transcripts:read_unredacted');
    const refusedGql = await t.gql(READ_GQL, { id, u: true }, { token: reader });
    expect(refusedGql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(refusedGql.body.data?.conversation ?? null).toBeNull();

    const unredactedReader = await keyWith(t, ['conversations:read', 'transcripts:read', 'transcripts:read_unredacted']);
    // the scope alone does not show originals: the reader asks for them
    expect((await readTexts(t, id, false, unredactedReader)).rest).toEqual([ALL_REDACTED, 'Nothing to hide here']);
    expect(await readTexts(t, id, true, unredactedReader)).toEqual({
      rest: [SAID, 'Nothing to hide here'],
      graphql: [SAID, 'Nothing to hide here'],
    });
    const bad = await t.rest('GET', `/v1/conversations/${id}?unredacted=yes`, { token: unredactedReader });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('unredacted');

    // newest first: the two unredacted reads, then the four redacted ones; the refused reads wrote nothing
    const log = await accessLog(t);
    expect(log).toEqual([
      { surface: 'graphql', unredacted: true },
      { surface: 'rest', unredacted: true },
      { surface: 'graphql', unredacted: false },
      { surface: 'rest', unredacted: false },
      { surface: 'graphql', unredacted: false },
      { surface: 'rest', unredacted: false },
    ]);
    // the chain holds with the unredacted entries in it
    const verify = await t.rest('GET', '/v1/access-log/verify');
    expect(verify.body.data).toMatchObject({ ok: true, firstBroken: null });
  });

  it('does not rewrite stored turns when the policy changes', async () => {
    const id = await conversation(t);
    expect(await say(t, id, SAID)).toBe(CARDS_ONLY);
    await put(t, t.demo.organizations.clinic.id, { emails: true, phones: true, keepOriginals: true });
    expect(await say(t, id, SAID)).toBe(ALL_REDACTED);
    expect((await readTexts(t, id, false)).rest).toEqual([CARDS_ONLY, ALL_REDACTED]);
    // the first turn had nothing kept beside it: its stored words are all there is
    expect((await readTexts(t, id, true)).rest).toEqual([CARDS_ONLY, SAID]);
  });

  it('an original sealed for one turn does not open as its shown text, nor as another turn’s original', async () => {
    await put(t, t.demo.organizations.clinic.id, { emails: true, keepOriginals: true });
    const id = await conversation(t);
    await say(t, id, 'mail a@example.com');
    await say(t, id, 'mail b@example.com');
    const [first, second] = await t.db.prisma.conversationMessage.findMany({ where: { conversationId: id }, orderBy: { seq: 'asc' } });
    const orgId = t.demo.organizations.clinic.id;
    const cipher = t.deps.transcripts;
    expect(await cipher.open(t.db.prisma, orgId, first!.id, { text: first!.original!, keyVersion: 1 }, 'original')).toBe(
      'mail a@example.com',
    );
    await expect(cipher.open(t.db.prisma, orgId, first!.id, { text: first!.original!, keyVersion: 1 })).rejects.toThrow();
    await expect(cipher.open(t.db.prisma, orgId, second!.id, { text: first!.original!, keyVersion: 1 }, 'original')).rejects.toThrow();
  });
});

describe('redaction of e-mail addresses and phone numbers', () => {
  it('replaces what is one and leaves what is not', () => {
    const all = { emails: true, phones: true, region: 'US' as const };
    const cases: [string, string][] = [
      ['jane@example.com', '[email]'],
      ['x.y_z-1@sub.domain.health', '[email]'],
      ['at @example.com or jane@ or jane@localhost', 'at @example.com or jane@ or jane@localhost'],
      ['+1 415 555 2671', '[phone]'],
      ['415.555.2671 and 415-555-2671', '[phone] and [phone]'],
      // a date, an order number, a short number and a year are not phone numbers
      ['born 03/14/1985, order 12345, room 204, in 2026', 'born 03/14/1985, order 12345, room 204, in 2026'],
      // a card is a card, an SSN an SSN, whatever else they look like
      ['4111-1111-1111-1111 / 123-45-6789', '[card] / [ssn]'],
    ];
    for (const [said, stored] of cases) expect(redactTranscript(said, all).text, said).toBe(stored);
    expect(redactTranscript('jane@example.com 415-555-2671', {}).text).toBe('jane@example.com 415-555-2671');
    expect(redactTranscript('jane@example.com', { emails: true }).redacted).toBe(true);
  });

  it('answers a hostile 4,000-character turn without backtracking for long', () => {
    const all = { emails: true, phones: true, region: 'US' as const };
    for (const text of ['a'.repeat(4000), 'a.'.repeat(1999) + '@', 'x@' + 'b.'.repeat(1999), '1 '.repeat(2000), '+1 '.repeat(1333)]) {
      const started = process.hrtime.bigint();
      redactTranscript(text, all);
      // generous: a regular expression gone quadratic on these takes seconds
      expect(Number(process.hrtime.bigint() - started) / 1e6, text.slice(0, 10)).toBeLessThan(1000);
    }
  });
});

describe.runIf(currentBackend() === 'postgres')('a dump of the database', () => {
  it('holds neither the e-mail address, the phone number nor the card number of a kept original', async () => {
    await put(t, t.demo.organizations.clinic.id, { emails: true, phones: true, keepOriginals: true });
    const id = await conversation(t);
    await say(t, id, SAID);
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', '--inserts', t.db.url], { maxBuffer: 256 * 1024 * 1024 });
    expect(stdout).toContain('RedactionPolicy');
    for (const secret of ['jane.doe', '555-2671', '4111 1111 1111 1111']) expect(stdout).not.toContain(secret);
  });
});
