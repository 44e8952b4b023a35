// Cursor pagination of conversations: REST `cursor`/`nextCursor` beside `offset`, and the GraphQL
// connection `conversationsConnection(first, after)`. Walking by cursor gives exactly the offset list;
// cursors are opaque, tamper-checked, bound to their filters, and agreed on by every instance.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadSigningKey } from '../../src/auth/signingKey.js';
import type { ConversationsConnectionPageQuery } from '../generated/graphql.js';
import { graphql } from '../generated/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

type ConnectionPage = ConversationsConnectionPageQuery['conversationsConnection'];
type Item = { conversationId: string; startTime: string; orgId: string; botId: string | null };

const list = (query: Record<string, string>, token?: string) =>
  t.rest('GET', `/v1/conversations?${new URLSearchParams(query)}`, token === undefined ? {} : { token });

const Connection = graphql(`
  query ConversationsConnectionPage(
    $first: Int
    $after: String
    $orgId: ID
    $botId: ID
    $includeArchived: Boolean
    $includeChildren: Boolean
  ) {
    conversationsConnection(
      first: $first
      after: $after
      orgId: $orgId
      botId: $botId
      includeArchived: $includeArchived
      includeChildren: $includeChildren
    ) {
      totalCount
      edges {
        cursor
        node {
          conversationId
          startTime
          orgId
          botId
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`);

/** Every page of a REST list by cursor, from the first (asked without one). */
async function walkRest(filters: Record<string, string>, limit: number, token?: string): Promise<Item[][]> {
  const pages: Item[][] = [];
  let cursor: string | null = null;
  do {
    const res = await list({ ...filters, limit: String(limit), ...(cursor ? { cursor } : {}) }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (cursor) expect(res.body.data.pagination.offset).toBeNull();
    pages.push(res.body.data.conversations);
    cursor = res.body.data.pagination.nextCursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

const ids = (items: Item[]) => items.map((c) => c.conversationId);

describe('REST cursor pagination', () => {
  it('walks the whole list by cursor in exactly the offset order, ties included; the last page has no nextCursor', async () => {
    const all = (await list({ includeArchived: 'true', limit: '100' })).body.data.conversations as Item[];
    expect(all).toHaveLength(45);
    const pages = await walkRest({ includeArchived: 'true' }, 7);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
    expect(ids(pages.flat())).toEqual(ids(all));
  });

  it('walks lists that span several organizations and archived states, and a bot filter', async () => {
    const account = t.demo.organizations.account.apiKey;
    const filters = { includeChildren: 'true', includeArchived: 'true' };
    const all = (await list({ ...filters, limit: '100' }, account)).body.data.conversations as Item[];
    expect(all).toHaveLength(52);
    expect(ids((await walkRest(filters, 5, account)).flat())).toEqual(ids(all));
    const bot = { botId: t.demo.bots.clinic[0]!, includeArchived: 'true' };
    const botAll = (await list({ ...bot, limit: '100' })).body.data.conversations as Item[];
    expect(ids((await walkRest(bot, 6)).flat())).toEqual(ids(botAll));
    // a child's bot listed from the account without includeChildren: nothing, by offset and by cursor alike
    expect((await walkRest({ botId: t.demo.bots.clinic2[0]! }, 5, account)).flat()).toEqual([]);
  });

  it('continues an offset page with its nextCursor', async () => {
    const all = (await list({ limit: '100' })).body.data.conversations as Item[];
    const byOffset = await list({ offset: '10', limit: '10' });
    const next = await list({ cursor: byOffset.body.data.pagination.nextCursor, limit: '10' });
    expect(ids(next.body.data.conversations)).toEqual(ids(all.slice(20, 30)));
    expect(next.body.data.pagination).toEqual({ offset: null, limit: 10, totalCount: 40, nextCursor: expect.any(String) });
  });

  it('keeps its place when the conversation it points at is deleted', async () => {
    const first = await list({ limit: '10' });
    const second = await list({ cursor: first.body.data.pagination.nextCursor, limit: '10' });
    await t.db.prisma.conversation.delete({ where: { id: first.body.data.conversations[9].conversationId } });
    const again = await list({ cursor: first.body.data.pagination.nextCursor, limit: '10' });
    expect(ids(again.body.data.conversations)).toEqual(ids(second.body.data.conversations));
  });

  it('answers the largest offset with an empty page', async () => {
    const res = await list({ offset: '2147483647', limit: '100', includeArchived: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ conversations: [], pagination: { offset: 2147483647, limit: 100, totalCount: 45, nextCursor: null } });
  });

  it('answers 400 for offset and cursor together', async () => {
    const cursor = (await list({ limit: '5' })).body.data.pagination.nextCursor;
    const res = await list({ offset: '5', cursor });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('cursor: cannot be combined with offset; send one of them');
  });

  it('answers 400 naming cursor for an altered or made-up cursor', async () => {
    const cursor: string = (await list({ limit: '5' })).body.data.pagination.nextCursor;
    const [payload, mac] = cursor.split('.') as [string, string];
    // the payload is only base64url JSON: moving the position must not go unnoticed
    const moved = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
        p: { t: 0, i: '00000000-0000-4000-8000-000000000000' },
      }),
    ).toString('base64url');
    for (const bad of [`${moved}.${mac}`, `${payload}.${mac.slice(0, -2)}AA`, 'abc', `${cursor}.x`, 'x'.repeat(513)]) {
      const res = await list({ cursor: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toMatch(/^cursor: /);
    }
  });

  it('answers 400 naming cursor when it comes back with other filters, or from another organization', async () => {
    const cursor = (await list({ limit: '5' })).body.data.pagination.nextCursor;
    for (const filters of [{ includeArchived: 'true' }, { botId: t.demo.bots.clinic[0]! }] as Record<string, string>[]) {
      const res = await list({ ...filters, cursor });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        'cursor: was issued for other filters; send the same filters as for the page it came from, or start again without it',
      );
    }
    // the same query by the account for itself: another list
    expect((await list({ cursor }, t.demo.organizations.account.apiKey)).status).toBe(400);
    // … and for the clinic, by orgId: the same list, so the cursor goes on
    expect((await list({ cursor, orgId: t.demo.organizations.clinic.id }, t.demo.organizations.account.apiKey)).status).toBe(200);
  });

  it('is honoured by every instance with the same signing key, and by no other', async () => {
    const cursor = (await list({ limit: '5' })).body.data.pagination.nextCursor;
    const expected = ids((await list({ cursor, limit: '5' })).body.data.conversations);
    const ask = async (app: ReturnType<typeof createApp>) =>
      app.fetch(
        new Request(`http://127.0.0.1/v1/conversations?limit=5&cursor=${cursor}`, {
          headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
        }),
      );
    // another instance on the same database loads the same key
    const sameKey = createApp({ ...t.deps, tokens: { ...t.deps.tokens, key: await loadSigningKey(t.db.prisma, undefined) } });
    const res = await ask(sameKey);
    expect(res.status).toBe(200);
    expect(ids(((await res.json()) as { data: { conversations: Item[] } }).data.conversations)).toEqual(expected);
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const otherKey = createApp({ ...t.deps, tokens: { ...t.deps.tokens, key: await loadSigningKey(t.db.prisma, pem) } });
    expect((await ask(otherKey)).status).toBe(400);
  });
});

describe('GraphQL conversationsConnection', () => {
  it('walks the list with first/after in the order of conversations(offset), with pageInfo and totalCount', async () => {
    const all = (await list({ includeArchived: 'true', limit: '100' })).body.data.conversations as Item[];
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res = await t.gql(Connection, { first: 10, after, includeArchived: true });
      expect(res.body.errors).toBeUndefined();
      const connection: ConnectionPage = res.body.data.conversationsConnection;
      expect(connection.totalCount).toBe(45);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
      seen.push(...connection.edges.map((e) => e.node.conversationId));
      pages++;
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(ids(all));
  });

  it('continues after any edge cursor, and shares cursors with REST', async () => {
    const page = (await t.gql(Connection, { first: 10 })).body.data.conversationsConnection;
    const fromEdge = (await t.gql(Connection, { first: 3, after: page.edges[4]!.cursor })).body.data.conversationsConnection;
    expect(fromEdge.edges.map((e) => e.node.conversationId)).toEqual(page.edges.slice(5, 8).map((e) => e.node.conversationId));
    const rest = await list({ cursor: page.pageInfo.endCursor!, limit: '5' });
    const gql = (await t.gql(Connection, { first: 5, after: page.pageInfo.endCursor })).body.data.conversationsConnection;
    expect(ids(rest.body.data.conversations)).toEqual(gql.edges.map((e) => e.node.conversationId));
    const restCursor = (await list({ limit: '5' })).body.data.pagination.nextCursor;
    expect((await t.gql(Connection, { first: 5, after: restCursor })).body.data.conversationsConnection.edges[0]!.node.conversationId).toBe(
      page.edges[5]!.node.conversationId,
    );
  });

  it('answers BAD_USER_INPUT on `after` for an altered cursor or other filters, and on `first` out of range', async () => {
    const endCursor = (await t.gql(Connection, { first: 5 })).body.data.conversationsConnection.pageInfo.endCursor!;
    const altered = await t.gql(Connection, { after: endCursor.slice(0, -3) + 'AAA' });
    expect(altered.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'after', message: expect.stringContaining('not a cursor') }],
    });
    const otherFilters = await t.gql(Connection, { after: endCursor, includeArchived: true });
    expect(otherFilters.body.errors[0].extensions.issues).toEqual([{ path: 'after', message: expect.stringContaining('other filters') }]);
    const tooMany = await t.gql(Connection, { first: 101 });
    expect(tooMany.body.errors[0].extensions.issues).toEqual([{ path: 'first', message: 'must be an integer between 1 and 100' }]);
  });

  it('keeps reach: a foreign orgId is NOT_FOUND, and an empty list has null cursors', async () => {
    const foreign = await t.gql(Connection, { orgId: t.demo.organizations.other.id });
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const empty = (await t.gql(Connection, {}, { token: t.demo.organizations.account.apiKey })).body.data.conversationsConnection;
    expect(empty).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });
});
