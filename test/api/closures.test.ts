import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const timed = {
  description: 'Staff training',
  chatGreeting: 'We are training today.',
  phoneGreeting: 'We are in training.',
  startAt: '2026-03-10T14:00:00Z',
  endAt: '2026-03-10T18:00:00Z',
};
const annual = {
  description: 'Christmas',
  chatGreeting: null,
  phoneGreeting: 'Merry Christmas, we are closed.',
  annualDate: { month: 12, day: 25 },
};
const annualUpdate = { description: 'Christmas', annualDate: { month: 12, day: 25 } };

const CLOSURE_FIELDS = 'id description chatGreeting phoneGreeting startAt endAt annualDate { month day }';

function closuresPath(orgId: string, closureId?: string): string {
  return `/v1/organizations/${orgId}/closures${closureId ? `/${closureId}` : ''}`;
}

describe('closures over REST', () => {
  it('creates a timed closure and answers it in the timed form', async () => {
    const res = await t.rest('POST', closuresPath(t.demo.organizations.clinic.id), { json: timed });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: expect.any(String), ...timed } });
    expect(Object.keys(res.body.data)).toEqual(['id', 'description', 'chatGreeting', 'phoneGreeting', 'startAt', 'endAt']);
  });

  it('creates an annual closure and answers it in the annual form', async () => {
    const res = await t.rest('POST', closuresPath(t.demo.organizations.clinic.id), { json: annual });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: expect.any(String), ...annual });
    expect(res.body.data).not.toHaveProperty('startAt');
  });

  it('lists closures newest first and reads one', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const ids: string[] = [];
    for (const description of ['first', 'second', 'third']) {
      const res = await t.rest('POST', closuresPath(orgId), { json: { ...timed, description } });
      ids.push(res.body.data.id);
      await new Promise((r) => setTimeout(r, 5)); // distinct creation instants
    }
    const list = await t.rest('GET', closuresPath(orgId));
    expect(list.status).toBe(200);
    expect(list.body.data.closures.map((c: { description: string }) => c.description)).toEqual(['third', 'second', 'first']);
    const one = await t.rest('GET', closuresPath(orgId, ids[1]));
    expect(one.body.data).toEqual({ id: ids[1], ...timed, description: 'second' });
  });

  it('deletes a closure; reading it afterwards is a 404', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const id = (await t.rest('POST', closuresPath(orgId), { json: timed })).body.data.id;
    const del = await t.rest('DELETE', closuresPath(orgId, id));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { id, deleted: true } });
    expect((await t.rest('GET', closuresPath(orgId, id))).status).toBe(404);
    expect((await t.rest('DELETE', closuresPath(orgId, id))).status).toBe(404);
    expect((await t.rest('POST', closuresPath(orgId, id), { json: annualUpdate })).status).toBe(404);
  });

  it('keeps omitted greetings on update and switches between timed and annual', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const id = (await t.rest('POST', closuresPath(orgId), { json: timed })).body.data.id;
    const res = await t.rest('POST', closuresPath(orgId, id), { json: { description: 'Inventory', annualDate: { month: 2, day: 29 } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id,
      description: 'Inventory',
      chatGreeting: timed.chatGreeting,
      phoneGreeting: timed.phoneGreeting,
      annualDate: { month: 2, day: 29 },
    });
    const back = await t.rest('POST', closuresPath(orgId, id), {
      json: { description: 'Inventory', phoneGreeting: 'New phone', startAt: '2026-05-01T00:00:00Z', endAt: '2026-05-02T00:00:00Z' },
    });
    expect(back.body.data).toEqual({
      id,
      description: 'Inventory',
      chatGreeting: timed.chatGreeting,
      phoneGreeting: 'New phone',
      startAt: '2026-05-01T00:00:00Z',
      endAt: '2026-05-02T00:00:00Z',
    });
    expect((await t.rest('GET', closuresPath(orgId, id))).body.data).toEqual(back.body.data);
  });

  it('answers 404 for the other tenant on every route, and leaves its closures alone', async () => {
    const other = t.demo.organizations.other;
    const own = (await t.rest('POST', closuresPath(other.id), { json: timed, token: other.apiKey })).body.data.id;
    const clinicOwn = (await t.rest('POST', closuresPath(t.demo.organizations.clinic.id), { json: timed })).body.data.id;
    const answers = [
      await t.rest('POST', closuresPath(other.id), { json: timed }),
      await t.rest('GET', closuresPath(other.id)),
      await t.rest('GET', closuresPath(other.id, own)),
      await t.rest('POST', closuresPath(other.id, own), { json: annualUpdate }),
      await t.rest('DELETE', closuresPath(other.id, own)),
      // the other tenant's closure id under the caller's own organization is not found either
      await t.rest('GET', closuresPath(t.demo.organizations.clinic.id, own)),
      await t.rest('DELETE', closuresPath(t.demo.organizations.clinic.id, own)),
      await t.rest('GET', closuresPath(other.id, clinicOwn), { token: other.apiKey }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
    }
    const theirs = await t.rest('GET', closuresPath(other.id), { token: other.apiKey });
    expect(theirs.body.data.closures).toHaveLength(1);
  });

  it('lets the account key manage its child clinic, but not the clinic key the account', async () => {
    const { account, clinic } = t.demo.organizations;
    const created = await t.rest('POST', closuresPath(clinic.id), { json: annual, token: account.apiKey });
    expect(created.status).toBe(200);
    const list = await t.rest('GET', closuresPath(clinic.id), { token: account.apiKey });
    expect(list.body.data.closures.map((c: { id: string }) => c.id)).toEqual([created.body.data.id]);
    const updated = await t.rest('POST', closuresPath(clinic.id, created.body.data.id), {
      json: { description: 'Holiday', annualDate: { month: 1, day: 1 } },
      token: account.apiKey,
    });
    expect(updated.status).toBe(200);
    expect((await t.rest('DELETE', closuresPath(clinic.id, created.body.data.id), { token: account.apiKey })).status).toBe(200);
    expect((await t.rest('GET', closuresPath(account.id), { token: clinic.apiKey })).status).toBe(404);
  });

  it('refuses writes to a read-only OAuth token (403) but lets it read', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const orgId = t.demo.organizations.clinic.id;
    expect((await t.rest('POST', closuresPath(orgId), { json: timed, token })).status).toBe(403);
    expect((await t.rest('GET', closuresPath(orgId), { token })).status).toBe(200);
  });

  it('answers 400 naming closureId for a malformed id', async () => {
    const res = await t.rest('GET', closuresPath(t.demo.organizations.clinic.id, 'nope'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('closureId: must be a UUID');
  });

  it('tells an instant with seconds or a fraction that it does not match the pattern, once (not also "not a real date and time")', async () => {
    const org = t.demo.organizations.clinic.id;
    const pattern = 'must match YYYY-MM-DDTHH:mm:00Z (UTC, seconds zero, no fractional seconds)';
    for (const startAt of ['2026-03-10T14:00:30Z', '2026-03-10T14:00:00.000Z', '2026-03-10T14:00Z']) {
      const res = await t.rest('POST', closuresPath(org), { json: { ...timed, startAt } });
      expect(res.status, startAt).toBe(400);
      expect(res.body.errors, startAt).toEqual([{ path: 'startAt', message: pattern }]);
    }
    // a value of the right form that names no real instant is told that
    const february = await t.rest('POST', closuresPath(org), { json: { ...timed, startAt: '2026-02-30T14:00:00Z' } });
    expect(february.body.errors).toEqual([{ path: 'startAt', message: 'is not a real date and time' }]);
    const gql = await t.gql('mutation($org: ID!, $input: CreateClosureInput!) { createClosure(orgId: $org, input: $input) { id } }', {
      org,
      input: { ...timed, endAt: '2026-03-10T18:00:59Z' },
    });
    expect(gql.body.errors[0].extensions.issues).toEqual([{ path: 'input.endAt', message: pattern }]);
  });
});

describe('closures over GraphQL', () => {
  it('creates, lists, updates and deletes', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const created = await t.gql(
      `mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { ${CLOSURE_FIELDS} } }`,
      { orgId, input: timed },
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createClosure.id;
    expect(created.body.data.createClosure).toEqual({ id, ...timed, annualDate: null });

    const updated = await t.gql(
      `mutation($orgId: ID!, $id: ID!, $input: UpdateClosureInput!) { updateClosure(orgId: $orgId, closureId: $id, input: $input) { ${CLOSURE_FIELDS} } }`,
      { orgId, id, input: { description: 'Holiday', annualDate: { month: 7, day: 4 } } },
    );
    expect(updated.body.data.updateClosure).toEqual({
      id,
      description: 'Holiday',
      chatGreeting: timed.chatGreeting,
      phoneGreeting: timed.phoneGreeting,
      startAt: null,
      endAt: null,
      annualDate: { month: 7, day: 4 },
    });

    const listed = await t.gql(`query($orgId: ID!) { organization(id: $orgId) { closures { id description } } }`, { orgId });
    expect(listed.body.data.organization.closures).toEqual([{ id, description: 'Holiday' }]);

    const deleted = await t.gql(`mutation($orgId: ID!, $id: ID!) { deleteClosure(orgId: $orgId, closureId: $id) }`, { orgId, id });
    expect(deleted.body.data.deleteClosure).toBe(true);
    const again = await t.gql(`mutation($orgId: ID!, $id: ID!) { deleteClosure(orgId: $orgId, closureId: $id) }`, { orgId, id });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers NOT_FOUND for the other tenant on every operation', async () => {
    const other = t.demo.organizations.other;
    const own = (await t.rest('POST', closuresPath(other.id), { json: timed, token: other.apiKey })).body.data.id;
    const ops: [string, Record<string, unknown>][] = [
      [
        `mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }`,
        { orgId: other.id, input: timed },
      ],
      [
        `mutation($orgId: ID!, $id: ID!, $input: UpdateClosureInput!) { updateClosure(orgId: $orgId, closureId: $id, input: $input) { id } }`,
        { orgId: other.id, id: own, input: annualUpdate },
      ],
      [`mutation($orgId: ID!, $id: ID!) { deleteClosure(orgId: $orgId, closureId: $id) }`, { orgId: other.id, id: own }],
      [
        `mutation($orgId: ID!, $id: ID!) { deleteClosure(orgId: $orgId, closureId: $id) }`,
        { orgId: t.demo.organizations.clinic.id, id: own },
      ],
    ];
    for (const [query, variables] of ops) {
      const res = await t.gql(query, variables);
      expect(res.body.errors?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
    }
    const org = await t.gql(`query($id: ID!) { organization(id: $id) { closures { id } } }`, { id: other.id });
    expect(org.body.data?.organization ?? null).toBeNull();
    expect(org.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('lets the account key manage its child clinic', async () => {
    const { account, clinic } = t.demo.organizations;
    const res = await t.gql(
      `mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id annualDate { month day } } }`,
      { orgId: clinic.id, input: annual },
      { token: account.apiKey },
    );
    expect(res.body.data.createClosure.annualDate).toEqual({ month: 12, day: 25 });
  });

  it('refuses a write to a read-only OAuth token with FORBIDDEN', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const res = await t.gql(
      `mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }`,
      { orgId: t.demo.organizations.clinic.id, input: timed },
      { token },
    );
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
