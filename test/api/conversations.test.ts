import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
import { invalidPagingCases, pagingCases } from './cases/conversationCases.js';

const t = useTestApp();

const FIELDS = [
  'conversationId',
  'orgId',
  'botId',
  'conversationTags',
  'medium',
  'toNumber',
  'fromNumber',
  'summary',
  'topic',
  'duration',
  'startTime',
  'endTime',
  'status',
];
const ITEM_SELECTION = FIELDS.join(' ');
const QUERY = `query ($offset: Int, $limit: Int, $orgId: ID, $botId: ID, $includeArchived: Boolean, $includeChildren: Boolean) {
  conversations(offset: $offset, limit: $limit, orgId: $orgId, botId: $botId, includeArchived: $includeArchived, includeChildren: $includeChildren) {
    items { ${ITEM_SELECTION} }
    pagination { offset limit totalCount }
  }
}`;

const list = (query: Record<string, string> = {}, token?: string) =>
  t.rest('GET', `/v1/conversations?${new URLSearchParams(query)}`, token === undefined ? {} : { token });
const gqlList = (args: Record<string, unknown> = {}, token?: string) => t.gql(QUERY, args, token === undefined ? {} : { token });

type Item = { conversationId: string; startTime: string; orgId: string; botId: string | null };

/** Newest startTime first; equal startTimes by id. */
function expectOrdered(items: Item[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const ta = Date.parse(a.startTime);
    const tb = Date.parse(b.startTime);
    expect(ta >= tb, `${a.startTime} before ${b.startTime}`).toBe(true);
    if (ta === tb) expect(a.conversationId < b.conversationId, `tie ${a.conversationId} before ${b.conversationId}`).toBe(true);
  }
}

describe('GET /v1/conversations', () => {
  it("lists the owner's non-archived conversations, newest first, with every field", async () => {
    const res = await list({ limit: '100' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(['conversations', 'pagination']);
    expect(res.body.data.pagination).toEqual({ offset: 0, limit: 100, totalCount: 40, nextCursor: null });
    const items = res.body.data.conversations as Record<string, unknown>[];
    expect(items).toHaveLength(40);
    for (const c of items) {
      expect(Object.keys(c).sort()).toEqual([...FIELDS].sort());
      expect(c.orgId).toBe(t.demo.organizations.clinic.id);
      expect(t.demo.bots.clinic).toContain(c.botId);
      expect(c.conversationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Array.isArray(c.conversationTags)).toBe(true);
      expect(['CHAT', 'PHONE', 'SMS', 'GHL']).toContain(c.medium);
      expect(['OPEN', 'CLOSED']).toContain(c.status);
      expect(typeof c.duration).toBe('number');
      expect(new Date(c.startTime as string).toISOString()).toBe(c.startTime);
      expect(Date.parse(c.endTime as string)).toBe(Date.parse(c.startTime as string) + (c.duration as number) * 1000);
    }
    // the newest conversation of the demo data is "Conversation 1"
    expect(items[0]).toEqual({
      conversationId: expect.any(String),
      orgId: t.demo.organizations.clinic.id,
      botId: t.demo.bots.clinic[0],
      conversationTags: ['appointment'],
      medium: 'CHAT',
      toNumber: '+15550100',
      fromNumber: '+155502000',
      summary: 'Conversation 1',
      topic: 'Billing',
      duration: 30,
      startTime: '2026-10-01T15:00:00.000Z',
      endTime: '2026-10-01T15:00:30.000Z',
      status: 'OPEN',
    });
    expectOrdered(items as Item[]);
  });

  it('orders equal startTimes by id (the demo data has ties)', async () => {
    const res = await list({ limit: '100', includeArchived: 'true' });
    const items = res.body.data.conversations as Item[];
    expect(items).toHaveLength(45);
    const starts = items.map((c) => c.startTime);
    expect(new Set(starts).size).toBeLessThan(starts.length);
    expectOrdered(items);
  });

  it('pages consistently: two pages of 20 are the list of 40', async () => {
    const all = (await list({ limit: '40' })).body.data.conversations as Item[];
    const first = (await list({ offset: '0', limit: '20' })).body.data.conversations as Item[];
    const second = (await list({ offset: '20', limit: '20' })).body.data.conversations as Item[];
    expect([...first, ...second].map((c) => c.conversationId)).toEqual(all.map((c) => c.conversationId));
  });

  for (const c of pagingCases) {
    it(`pages at the boundaries: ${c.name}`, async () => {
      const res = await list(c.query);
      expect(res.status).toBe(200);
      expect(res.body.data.conversations).toHaveLength(c.count);
      // a cursor to go on from exactly when conversations follow the page
      const nextCursor = c.offset + c.count < 40 ? expect.any(String) : null;
      expect(res.body.data.pagination).toEqual({ offset: c.offset, limit: c.limit, totalCount: 40, nextCursor });
    });
  }

  for (const c of invalidPagingCases) {
    it(`answers 400 naming the parameter: ${c.name}`, async () => {
      const res = await list(c.query);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.data).toEqual({});
      expect(res.body.message).toMatch(new RegExp(`^${c.invalid}: `));
    });
  }

  it('answers 400 for an unknown query parameter (a misspelt filter never answers another list)', async () => {
    const res = await list({ includeArchive: 'true' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('includeArchive');
  });

  it('includes archived conversations on request (45 of which 5 archived)', async () => {
    const withArchived = await list({ includeArchived: 'true', limit: '100' });
    expect(withArchived.body.data.pagination.totalCount).toBe(45);
    expect(withArchived.body.data.conversations).toHaveLength(45);
    const explicitFalse = await list({ includeArchived: 'false' });
    expect(explicitFalse.body.data.pagination.totalCount).toBe(40);
    const archivedIds = new Set((withArchived.body.data.conversations as Item[]).map((c) => c.conversationId));
    for (const c of (await list({ limit: '100' })).body.data.conversations as Item[]) archivedIds.delete(c.conversationId);
    expect(archivedIds.size).toBe(5);
  });

  it("lists an account organization's own conversations, and its children's with includeChildren", async () => {
    const account = t.demo.organizations.account.apiKey;
    const own = await list({}, account);
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual({ conversations: [], pagination: { offset: 0, limit: 20, totalCount: 0, nextCursor: null } });

    const withChildren = await list({ includeChildren: 'true', limit: '100' }, account);
    expect(withChildren.status).toBe(200);
    expect(withChildren.body.data.pagination.totalCount).toBe(47);
    const items = withChildren.body.data.conversations as Item[];
    expect(items).toHaveLength(47);
    expect(items.filter((c) => c.orgId === t.demo.organizations.clinic.id)).toHaveLength(40);
    expect(items.filter((c) => c.orgId === t.demo.organizations.clinic2.id)).toHaveLength(7);
    expectOrdered(items);

    const archivedToo = await list({ includeChildren: 'true', includeArchived: 'true' }, account);
    expect(archivedToo.body.data.pagination.totalCount).toBe(52);
  });

  it('lists a child organization with the account key and orgId', async () => {
    const account = t.demo.organizations.account.apiKey;
    const clinic2 = await list({ orgId: t.demo.organizations.clinic2.id }, account);
    expect(clinic2.status).toBe(200);
    expect(clinic2.body.data.pagination.totalCount).toBe(7);
    expect((clinic2.body.data.conversations as Item[]).every((c) => c.orgId === t.demo.organizations.clinic2.id)).toBe(true);
    // a child has no children of its own
    const clinic = await list({ orgId: t.demo.organizations.clinic.id, includeChildren: 'true' }, account);
    expect(clinic.body.data.pagination.totalCount).toBe(40);
  });

  it('accepts the owner’s own orgId', async () => {
    const res = await list({ orgId: t.demo.organizations.clinic.id });
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.totalCount).toBe(40);
  });

  it("answers 404 for an orgId outside the caller's reach, like a missing one", async () => {
    const foreign = await list({ orgId: t.demo.organizations.other.id });
    const sibling = await list({ orgId: t.demo.organizations.clinic2.id });
    const parent = await list({ orgId: t.demo.organizations.account.id });
    const missing = await list({ orgId: '00000000-0000-4000-8000-000000000000' });
    for (const res of [foreign, sibling, parent, missing]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: missing.body.message });
    }
  });

  it('filters by bot', async () => {
    const res = await list({ botId: t.demo.bots.clinic[0]!, limit: '100' });
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.totalCount).toBe(20);
    expect((res.body.data.conversations as Item[]).every((c) => c.botId === t.demo.bots.clinic[0])).toBe(true);
    const account = await list({ botId: t.demo.bots.clinic2[0]!, includeChildren: 'true' }, t.demo.organizations.account.apiKey);
    expect(account.body.data.pagination.totalCount).toBe(7);
  });

  it("answers 404 for a botId outside the caller's reach, like a missing one", async () => {
    const foreign = await list({ botId: t.demo.bots.other[0]! });
    const sibling = await list({ botId: t.demo.bots.clinic2[0]! });
    const missing = await list({ botId: '00000000-0000-4000-8000-000000000000' });
    for (const res of [foreign, sibling, missing]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: missing.body.message });
    }
  });

  it('is readable with a read-only OAuth token and needs a credential', async () => {
    const readOnly = await list({}, await t.accessToken('clinicReadOnly'));
    expect(readOnly.status).toBe(200);
    expect(readOnly.body.data.pagination.totalCount).toBe(40);
    const anonymous = await t.rest('GET', '/v1/conversations', { token: null });
    expect(anonymous.status).toBe(401);
  });
});

describe('GraphQL conversations', () => {
  it('answers the same page as REST, field by field', async () => {
    const rest = await list({ offset: '3', limit: '7' });
    const gql = await gqlList({ offset: 3, limit: 7 });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.conversations.pagination).toEqual({ offset: 3, limit: 7, totalCount: 40 });
    expect(gql.body.data.conversations.items).toEqual(rest.body.data.conversations);
  });

  it('uses the defaults when arguments are omitted or null', async () => {
    for (const args of [{}, { offset: null, limit: null, orgId: null, includeArchived: null, includeChildren: null }]) {
      const res = await gqlList(args);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.conversations.pagination).toEqual({ offset: 0, limit: 20, totalCount: 40 });
      expect(res.body.data.conversations.items).toHaveLength(20);
    }
  });

  for (const c of pagingCases) {
    it(`pages at the boundaries: ${c.name}`, async () => {
      const res = await gqlList(c.args);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.conversations.items).toHaveLength(c.count);
      expect(res.body.data.conversations.pagination).toEqual({ offset: c.offset, limit: c.limit, totalCount: 40 });
    });
  }

  for (const c of invalidPagingCases.filter((c) => c.args)) {
    it(`answers BAD_USER_INPUT naming the argument: ${c.name}`, async () => {
      const res = await gqlList(c.args);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors[0].extensions.issues).toEqual([{ path: c.invalid, message: expect.any(String) }]);
      expect(res.body.errors[0].message).toMatch(new RegExp(`^${c.invalid}: `));
    });
  }

  it('rejects a non-integer limit by the GraphQL types', async () => {
    // a variable that GraphQL itself refuses is the client's error, never a 5xx (docs/decisions.md §3)
    const res = await gqlList({ limit: 'abc' });
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.[0]?.message).toContain('abc');
    expect(res.body.data).toBeUndefined();
    const inline = await t.gql('{ conversations(limit: "abc") { pagination { limit } } }');
    expect(inline.status).toBeLessThan(500);
    expect(inline.body.errors?.[0]?.message).toContain('abc');
  });

  it('includes archived conversations and, for the account organization, its children', async () => {
    const archived = await gqlList({ includeArchived: true });
    expect(archived.body.data.conversations.pagination.totalCount).toBe(45);
    const account = t.demo.organizations.account.apiKey;
    const children = await gqlList({ includeChildren: true, limit: 100 }, account);
    expect(children.body.errors).toBeUndefined();
    expect(children.body.data.conversations.pagination.totalCount).toBe(47);
    expectOrdered(children.body.data.conversations.items);
    const child = await gqlList({ orgId: t.demo.organizations.clinic2.id }, account);
    expect(child.body.data.conversations.pagination.totalCount).toBe(7);
  });

  it('answers NOT_FOUND for a foreign orgId or botId', async () => {
    for (const args of [
      { orgId: t.demo.organizations.other.id },
      { orgId: t.demo.organizations.clinic2.id },
      { botId: t.demo.bots.other[0] },
    ]) {
      const res = await gqlList(args);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('requires a credential', async () => {
    const res = await gqlList({}, null as unknown as string);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
