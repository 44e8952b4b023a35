// Archiving a location and bringing it back (docs/decisions.md §19) on both surfaces: it leaves the lists unless
// asked for, its calls stop (new ones refused, queued ones not handed out), its data stays; an account is archived
// only once it has no active location, and nothing is made or brought back under an archived account.
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

const NOW = '2026-03-02T15:00:00Z';
const MISSING = '00000000-0000-4000-8000-000000000000';
const ARCHIVE = 'mutation($o: ID!) { archiveOrganization(orgId: $o) { organization { id archivedAt } } }';
const UNARCHIVE = 'mutation($o: ID!) { unarchiveOrganization(orgId: $o) { organization { id archivedAt } } }';

const ids = (t: TestApp) => t.demo.organizations;
const accountKey = (t: TestApp) => t.demo.organizations.account.apiKey;
const act = (t: TestApp, orgId: string, what: 'archive' | 'unarchive', token = accountKey(t)) =>
  t.rest('POST', `/v1/organizations/${orgId}/${what}`, { token });
const childIds = async (t: TestApp, query = '') =>
  (await t.rest('GET', `/v1/organizations/${ids(t).account.id}/children${query}`, { token: accountKey(t) })).body.data.children.map(
    (c: { id: string }) => c.id,
  ) as string[];
const code = (res: { body: { errors?: { extensions?: { code?: string } }[] } }) => res.body.errors?.[0]?.extensions?.code;

describe('archiving a location', () => {
  it('stamps it, takes it out of the lists and counts unless asked for, and unarchiving brings it back (REST)', async () => {
    t.clock.set(NOW);
    const clinic = ids(t).clinic.id;
    const before = (await t.rest('GET', `/v1/organizations/${ids(t).account.id}`, { token: accountKey(t) })).body.data;
    const res = await act(t, clinic, 'archive');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: clinic, archivedAt: '2026-03-02T15:00:00.000Z' });
    expect(await childIds(t)).not.toContain(clinic);
    expect(await childIds(t, '?includeArchived=true')).toContain(clinic);
    const page = (await t.rest('GET', `/v1/organizations/${ids(t).account.id}/children?includeArchived=true`, { token: accountKey(t) }))
      .body;
    expect(page.data.pagination.totalCount).toBe(before.childCount);
    const account = (await t.rest('GET', `/v1/organizations/${ids(t).account.id}`, { token: accountKey(t) })).body.data;
    expect(account.childCount).toBe(before.childCount - 1);
    expect(account.childIds).not.toContain(clinic);
    // its data stays: still readable by id
    expect((await t.rest('GET', `/v1/organizations/${clinic}/closures`, { token: accountKey(t) })).status).toBe(200);

    const again = await act(t, clinic, 'archive');
    expect(again.status).toBe(200);
    expect(again.body.data.archivedAt).toBe('2026-03-02T15:00:00.000Z');
    const events = await t.deps.db.event.findMany({
      where: { subjectId: clinic, type: { startsWith: 'organization.' } },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => e.type)).toEqual(['organization.archived']);
    expect(events[0]!.previous).toEqual({ archivedAt: null });

    const back = await act(t, clinic, 'unarchive');
    expect(back.body.data.archivedAt).toBeNull();
    expect(await childIds(t)).toContain(clinic);
  });

  it('works the same through GraphQL, and childrenConnection takes includeArchived', async () => {
    const clinic2 = ids(t).clinic2.id;
    const token = accountKey(t);
    const archived = await t.gql(ARCHIVE, { o: clinic2 }, { token });
    expect(archived.body.errors).toBeUndefined();
    expect(archived.body.data.archiveOrganization.organization.archivedAt).toEqual(expect.any(String));
    const list = await t.gql(
      'query($a: ID!) { organization(id: $a) { childCount active: childrenConnection(first: 50) { totalCount edges { node { id } } } all: childrenConnection(first: 50, includeArchived: true) { totalCount edges { node { id archivedAt } } } } }',
      { a: ids(t).account.id },
      { token },
    );
    const org = list.body.data.organization;
    expect(org.active.edges.map((e: { node: { id: string } }) => e.node.id)).not.toContain(clinic2);
    expect(org.all.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(clinic2);
    expect(org.all.totalCount).toBe(org.active.totalCount + 1);
    expect(org.childCount).toBe(org.active.totalCount);
    const back = await t.gql(UNARCHIVE, { o: clinic2 }, { token });
    expect(back.body.data.unarchiveOrganization.organization.archivedAt).toBeNull();
  });

  it('stops its calls: a new one is refused and a queued one is not handed out until it is back', async () => {
    t.clock.set(NOW);
    const placed = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006' },
    });
    expect(placed.status).toBe(200);
    expect((await act(t, ids(t).clinic.id, 'archive')).status).toBe(200);
    const refused = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550007' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('is archived');
    const claim = () => t.rest('POST', '/v1/dispatch/claim', { json: { max: 10 } });
    expect((await claim()).body.data.claims).toEqual([]);
    await act(t, ids(t).clinic.id, 'unarchive');
    expect((await claim()).body.data.claims.map((c: { callRequest: { callRequestId: string } }) => c.callRequest.callRequestId)).toEqual([
      placed.body.data.callRequestId,
    ]);
  });

  it("is its account's to do: the location's own key gets 403, another tenant's location a 404 like a missing one", async () => {
    const own = await act(t, ids(t).clinic.id, 'archive', ids(t).clinic.apiKey);
    expect(own.status).toBe(403);
    expect(own.body.message).toContain('its account');
    expect(code(await t.gql(ARCHIVE, { o: ids(t).clinic.id }))).toBe('FORBIDDEN');
    const foreign = await act(t, ids(t).other.id, 'archive');
    const missing = await act(t, MISSING, 'archive');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const readOnly = await act(t, ids(t).clinic.id, 'archive', await t.accessToken('clinicReadOnly'));
    expect(readOnly.status).toBe(403);
    expect((await t.rest('GET', `/v1/organizations/${ids(t).clinic.id}`)).body.data.archivedAt).toBeNull();
  });
});

describe('archiving an account', () => {
  it('is refused while it has active locations; once they are archived it is, and nothing comes back or is made under it', async () => {
    const account = ids(t).account.id;
    const refused = await act(t, account, 'archive');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/has \d+ active locations?; archive them first/);
    for (const child of await childIds(t)) expect((await act(t, child, 'archive')).status).toBe(200);
    expect((await act(t, account, 'archive')).status).toBe(200);

    const created = await t.rest('POST', `/v1/organizations/${account}/children`, {
      token: accountKey(t),
      json: { name: 'Uptown', timezone: 'America/Chicago' },
    });
    expect(created.status).toBe(409);
    expect(created.body.message).toContain('is archived');
    const back = await act(t, ids(t).clinic.id, 'unarchive');
    expect(back.status).toBe(409);
    expect(back.body.message).toContain('unarchive its account first');

    expect((await act(t, account, 'unarchive')).status).toBe(200);
    expect((await act(t, ids(t).clinic.id, 'unarchive')).status).toBe(200);
  });

  it('of an account archived and a location brought back at the same instant, one wins: never an active location under an archived account', async () => {
    const account = ids(t).account.id;
    const children = await childIds(t);
    for (const child of children.slice(1)) await act(t, child, 'archive');
    const last = children[0]!;
    for (let i = 0; i < 3; i++) {
      await act(t, last, 'archive');
      const [archived, back] = await Promise.all([act(t, account, 'archive'), act(t, last, 'unarchive')]);
      expect([archived.status, back.status].sort()).toEqual([200, 409]);
      const accountRow = await t.deps.db.organization.findUniqueOrThrow({ where: { id: account } });
      const active = await t.deps.db.organization.count({ where: { parentId: account, archivedAt: null } });
      expect(accountRow.archivedAt === null || active === 0).toBe(true);
      await act(t, account, 'unarchive');
    }
  });
});
