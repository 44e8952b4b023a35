// An account organization with thousands of locations, created in bulk directly in the database: the
// reach rules hold unchanged (a sibling still reads 404, another tenant too), a new child is reachable
// at once (also on an instance that never heard of it), the organization read does not grow with the
// number of children, children are paged exactly by cursor, and includeChildren conversation pages are
// exact across pages — on both surfaces.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { AppDeps } from '../../src/deps.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { useTestApp } from '../support/testApp.js';

/** A GraphQL connection as the paging loops read it. */
interface Connection<Node> {
  totalCount: number;
  pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean; endCursor: string | null };
  edges: { node: Node }[];
}

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED } });

const CHILDREN = 3_000;

/** `n` locations under the demo account, created in one statement; three share each creation instant (ties by id). */
async function addChildren(n: number, prefix = 'Location'): Promise<string[]> {
  const base = Date.parse('2025-06-01T00:00:00Z');
  const data = Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    name: `${prefix} ${i}`,
    timezone: 'America/New_York',
    parentId: t.demo.organizations.account.id,
    createdAt: new Date(base + Math.floor(i / 3) * 1_000),
  }));
  await t.db.prisma.organization.createMany({ data });
  // as a bulk import would: the account's record (its child count) is refreshed
  t.deps.changes.publish({ kind: 'organization', orgId: t.demo.organizations.account.id });
  return data.map((d) => d.id);
}

/** Every child of the account in the documented order (creation time, ties by id), as the database sorts them. */
async function childrenInOrder(): Promise<string[]> {
  const rows = await t.db.prisma.organization.findMany({
    where: { parentId: t.demo.organizations.account.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

const account = () => t.demo.organizations.account;

describe('reach under an account with thousands of locations', () => {
  it('keeps the rules: the account reaches every child, a location only itself, another tenant nothing (REST and GraphQL)', async () => {
    const ids = await addChildren(CHILDREN);
    const last = ids.at(-1)!;
    const { clinic, clinic2, other } = t.demo.organizations;
    expect((await t.rest('GET', `/v1/organizations/${last}`, { token: account().apiKey })).body.data).toMatchObject({
      id: last,
      parentId: account().id,
    });
    expect((await t.rest('GET', `/v1/organizations/${ids[0]}/closures`, { token: account().apiKey })).status).toBe(200);
    const missing = await t.rest('GET', `/v1/organizations/${randomUUID()}`, { token: clinic.apiKey });
    for (const [id, token] of [
      [clinic2.id, clinic.apiKey],
      [last, clinic.apiKey],
      [account().id, clinic.apiKey],
      [last, other.apiKey],
      [account().id, other.apiKey],
    ] as const) {
      const res = await t.rest('GET', `/v1/organizations/${id}`, { token });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: missing.body });
    }
    const read = (id: string, token: string) => t.gql('query($id: ID!) { organization(id: $id) { id parent { id } } }', { id }, { token });
    expect((await read(last, account().apiKey)).body.data.organization).toEqual({ id: last, parent: { id: account().id } });
    for (const [id, token] of [
      [last, clinic.apiKey],
      [clinic2.id, clinic.apiKey],
      [last, other.apiKey],
    ] as const) {
      expect((await read(id, token)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('reaches a new child at once, also on an instance that never heard of it and holds the account warm', async () => {
    await addChildren(CHILDREN);
    const readModel = new ReadModel(t.db.prisma, { maxEntries: 1_000, maxAgeMs: 3_600_000, clock: t.clock.now });
    // entries live an hour: only a change could tell this instance, and none will
    const deps: AppDeps = { ...t.deps, readModel, liveStreams: new LiveStreams(10) };
    const other = createApp(deps);
    const get = async (path: string) => {
      const res = await other.fetch(new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${account().apiKey}` } }));
      return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
    };
    expect((await get(`/v1/organizations/${account().id}`)).status).toBe(200); // the account's record is now warm here
    expect((await get(`/v1/organizations/${t.demo.organizations.clinic.id}`)).status).toBe(200);
    // created behind both instances' backs: no change is published
    const child = await t.db.prisma.organization.create({
      data: { name: 'New location', timezone: 'America/Denver', parentId: account().id },
    });
    expect((await get(`/v1/organizations/${child.id}`)).status).toBe(200);
    expect((await get(`/v1/organizations/${child.id}/office-hours?dayOfWeek=MONDAY`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/organizations/${child.id}`, { token: account().apiKey })).status).toBe(200);
    expect((await t.rest('GET', `/v1/organizations/${child.id}`, { token: t.demo.organizations.clinic.apiKey })).status).toBe(404);
  });
});

describe('per-request cost under a large account', () => {
  it("answers a child's availability to the account's key without a statement when warm, and with a constant few when cold", async () => {
    const ids = await addChildren(CHILDREN);
    const child = ids[1234]!;
    const path = `/v1/organizations/${child}/availability?medium=PHONE`;
    t.deps.readModel.clear();
    const cold = await t.statements(() => t.rest('GET', path, { token: account().apiKey }));
    expect(cold.result.status).toBe(200);
    // the account's record (child count and first ids), the child's record, its schedule: never one row per child
    expect(cold.sql.length).toBeLessThanOrEqual(4);
    const warm = await t.statements(() => t.rest('GET', path, { token: account().apiKey }));
    expect(warm.result.status).toBe(200);
    expect(warm.sql).toEqual([]);
  });
});

describe('the organization read of a large account', () => {
  it('carries a child count and at most 100 child ids, and does not grow with the number of children (REST and GraphQL)', async () => {
    await addChildren(CHILDREN);
    const first = (await childrenInOrder()).slice(0, 100);
    const rest = await t.rest('GET', `/v1/organizations/${account().id}`, { token: account().apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.data.childCount).toBe(CHILDREN + 2);
    expect(rest.body.data.childIds).toEqual(first);
    const query = '{ viewer { organization { childCount children { id } } } }';
    const gql = await t.gql(query, {}, { token: account().apiKey });
    expect(gql.body.data.viewer.organization.childCount).toBe(CHILDREN + 2);
    expect(gql.body.data.viewer.organization.children.map((c: { id: string }) => c.id)).toEqual(first);

    await addChildren(1_000, 'More');
    const after = await t.rest('GET', `/v1/organizations/${account().id}`, { token: account().apiKey });
    expect(after.body.data.childCount).toBe(CHILDREN + 1_002);
    expect(JSON.stringify(after.body).length).toBe(JSON.stringify(rest.body).length);
    expect(JSON.stringify((await t.gql(query, {}, { token: account().apiKey })).body).length).toBe(JSON.stringify(gql.body).length);
  });

  it('answers a location with no children and a child count of 0', async () => {
    await addChildren(10);
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`, { token: account().apiKey });
    expect(res.body.data).toMatchObject({ childCount: 0, childIds: [], parentId: account().id });
  });
});

describe('children page by page', () => {
  it('REST: every child exactly once, in order, across cursor pages', async () => {
    await addChildren(CHILDREN);
    const expected = await childrenInOrder();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await t.rest('GET', `/v1/organizations/${account().id}/children?limit=200${q}`, { token: account().apiKey });
      expect(res.status).toBe(200);
      expect(res.body.data.pagination).toMatchObject({ limit: 200, totalCount: CHILDREN + 2 });
      expect(res.body.data.children.length).toBeLessThanOrEqual(200);
      for (const child of res.body.data.children) expect(child.parentId).toBe(account().id);
      seen.push(...res.body.data.children.map((c: { id: string }) => c.id));
      cursor = res.body.data.pagination.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil((CHILDREN + 2) / 200));
  });

  it('GraphQL: childrenConnection walks the same list, with totalCount and pageInfo', async () => {
    await addChildren(1_000);
    const expected = await childrenInOrder();
    const query =
      'query($id: ID!, $after: String) { organization(id: $id) { childrenConnection(first: 50, after: $after) { totalCount edges { node { id } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }';
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res = await t.gql(query, { id: account().id, after }, { token: account().apiKey });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const connection: Connection<{ id: string }> = res.body.data.organization.childrenConnection;
      expect(connection.totalCount).toBe(1_002);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...connection.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
  });

  it('a location has no children within reach; a cursor of another list and a page past the bound are 400 naming the field', async () => {
    const ids = await addChildren(300);
    const asLocation = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/children`);
    expect(asLocation.body.data).toEqual({ children: [], pagination: { limit: 50, totalCount: 0, nextCursor: null } });
    const ofChild = await t.rest('GET', `/v1/organizations/${ids[0]}/children`, { token: account().apiKey });
    expect(ofChild.body.data.children).toEqual([]);
    const page = await t.rest('GET', `/v1/organizations/${account().id}/children?limit=10`, { token: account().apiKey });
    const cursor = page.body.data.pagination.nextCursor as string;
    const elsewhere = await t.rest('GET', `/v1/organizations/${ids[0]}/children?cursor=${encodeURIComponent(cursor)}`, {
      token: account().apiKey,
    });
    expect(elsewhere.status).toBe(400);
    expect(JSON.stringify(elsewhere.body)).toContain('cursor');
    const tooMany = await t.rest('GET', `/v1/organizations/${account().id}/children?limit=201`, { token: account().apiKey });
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain('limit');
    // a sibling's or another tenant's children: 404 like a missing organization
    expect((await t.rest('GET', `/v1/organizations/${account().id}/children`)).status).toBe(404);
    expect((await t.rest('GET', `/v1/organizations/${account().id}/children`, { token: t.demo.organizations.other.apiKey })).status).toBe(
      404,
    );
    const gql = await t.gql(
      'query($id: ID!) { organization(id: $id) { childrenConnection(first: 201) { totalCount } } }',
      { id: account().id },
      { token: account().apiKey },
    );
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('includeChildren conversations under thousands of locations', () => {
  async function withConversations(): Promise<string[]> {
    const ids = await addChildren(CHILDREN);
    const base = Date.parse('2026-03-01T00:00:00Z');
    // one conversation per location (every fifth one archived), ties in startTime every few rows
    await t.db.prisma.conversation.createMany({
      data: ids.map((orgId, i) => ({
        orgId,
        tags: [],
        medium: 'PHONE' as const,
        startTime: new Date(base - Math.floor(i / 4) * 60_000),
        archived: i % 5 === 4,
      })),
    });
    // another tenant's conversations never show up
    await t.db.prisma.conversation.createMany({
      data: Array.from({ length: 50 }, (_, i) => ({
        orgId: t.demo.organizations.other.id,
        tags: [],
        medium: 'CHAT' as const,
        startTime: new Date(base - i * 1_000),
      })),
    });
    const rows = await t.db.prisma.conversation.findMany({
      where: { archived: false, OR: [{ orgId: account().id }, { org: { parentId: account().id } }] },
      orderBy: [{ startTime: 'desc' }, { id: 'asc' }],
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  it('REST: cursor pages are exact across pages, with the right total, and never fail', async () => {
    const expected = await withConversations();
    expect(expected.length).toBeGreaterThan(CHILDREN / 2);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await t.rest('GET', `/v1/conversations?includeChildren=true&limit=100${q}`, { token: account().apiKey });
      expect(res.status).toBe(200);
      expect(res.body.data.pagination.totalCount).toBe(expected.length);
      seen.push(...res.body.data.conversations.map((c: { conversationId: string }) => c.conversationId));
      cursor = res.body.data.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toEqual(expected);
    // an offset page deep in the list agrees with the cursor walk
    const deep = await t.rest('GET', '/v1/conversations?includeChildren=true&limit=20&offset=1000', { token: account().apiKey });
    expect(deep.body.data.conversations.map((c: { conversationId: string }) => c.conversationId)).toEqual(expected.slice(1000, 1020));
    // with archived ones: every child's conversation
    const all = await t.rest('GET', '/v1/conversations?includeChildren=true&includeArchived=true&limit=1', { token: account().apiKey });
    expect(all.body.data.pagination.totalCount).toBe(
      await t.db.prisma.conversation.count({ where: { OR: [{ orgId: account().id }, { org: { parentId: account().id } }] } }),
    );
    expect(all.body.data.pagination.totalCount).toBeGreaterThanOrEqual(CHILDREN);
  });

  it('GraphQL: conversationsConnection with includeChildren walks the same list', async () => {
    const expected = await withConversations();
    const query =
      'query($after: String) { conversationsConnection(first: 100, after: $after, includeChildren: true) { totalCount edges { node { conversationId } } pageInfo { hasNextPage endCursor } } }';
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const res = await t.gql(query, { after }, { token: account().apiKey });
      expect(res.body.errors).toBeUndefined();
      const connection: Connection<{ conversationId: string }> = res.body.data.conversationsConnection;
      expect(connection.totalCount).toBe(expected.length);
      seen.push(...connection.edges.map((e: { node: { conversationId: string } }) => e.node.conversationId));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
    const offsetPage = await t.gql(
      '{ conversations(includeChildren: true, limit: 10, offset: 500) { items { conversationId } pagination { totalCount } } }',
      {},
      { token: account().apiKey },
    );
    expect(offsetPage.body.errors, JSON.stringify(offsetPage.body.errors)).toBeUndefined();
    expect(offsetPage.body.data.conversations.items.map((c: { conversationId: string }) => c.conversationId)).toEqual(
      expected.slice(500, 510),
    );
  });

  it("a child's bot filters within the account's list; a location's credential still may not include children", async () => {
    const ids = await addChildren(500);
    const bot = await t.db.prisma.bot.create({ data: { orgId: ids[7]!, name: 'Child bot' } });
    await t.db.prisma.conversation.create({
      data: { orgId: ids[7]!, botId: bot.id, tags: [], medium: 'CHAT', startTime: new Date('2026-03-01T00:00:00Z') },
    });
    const withBot = await t.rest('GET', `/v1/conversations?includeChildren=true&botId=${bot.id}`, { token: account().apiKey });
    expect(withBot.body.data.conversations.map((c: { orgId: string }) => c.orgId)).toEqual([ids[7]]);
    const ownOnly = await t.rest('GET', `/v1/conversations?botId=${bot.id}`, { token: account().apiKey });
    expect(ownOnly.body.data.pagination.totalCount).toBe(0);
    expect((await t.rest('GET', `/v1/conversations?botId=${bot.id}`)).status).toBe(404);
    expect((await t.rest('GET', '/v1/conversations?includeChildren=true')).status).toBe(400);
  });
});
