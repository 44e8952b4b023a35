import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const MISSING = '00000000-0000-4000-8000-000000000000';
const isoInstant = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const ORG = `query ($id: ID!) {
  organization(id: $id) { id name timezone isAccount communicationsEnabled parent { id } children { id name } }
}`;
const DISABLE = 'mutation ($orgId: ID!) { disableOrganization(orgId: $orgId) { status changed } }';
const ENABLE = 'mutation ($orgId: ID!) { enableOrganization(orgId: $orgId) { status changed } }';

const ids = () => t.demo.organizations;
const getOrg = (id: string, token?: string | null) => t.rest('GET', `/v1/organizations/${id}`, token === undefined ? {} : { token });
const post = (id: string, action: 'disable' | 'enable', token?: string | null) =>
  t.rest('POST', `/v1/organizations/${id}/${action}`, token === undefined ? {} : { token });
const enabled = async (id: string) => (await getOrg(id, ids().account.apiKey)).body.data.communicationsEnabled as boolean;

describe('GET /v1/organizations/{orgId}', () => {
  it('answers the own organization with every field; a parent outside reach reads as null', async () => {
    const res = await getOrg(ids().clinic.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: ids().clinic.id,
        name: 'Bright Smiles Downtown',
        timezone: 'America/New_York',
        isAccount: false,
        communicationsEnabled: true,
        archivedAt: null,
        parentId: null,
        childCount: 0,
        childIds: [],
        createdAt: isoInstant,
        updatedAt: isoInstant,
      },
    });
  });

  it('answers an account organization with its children, and a child with its parent, to the account key', async () => {
    const account = await getOrg(ids().account.id, ids().account.apiKey);
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({
      id: ids().account.id,
      name: 'Bright Smiles Dental Group',
      isAccount: true,
      parentId: null,
      childCount: 2,
      childIds: [ids().clinic.id, ids().clinic2.id],
    });
    const child = await getOrg(ids().clinic2.id, ids().account.apiKey);
    expect(child.body.data).toMatchObject({ id: ids().clinic2.id, timezone: 'America/Chicago', parentId: ids().account.id, childIds: [] });
  });

  it("answers 404 for another tenant's, a sibling's or the parent organization, exactly like a missing one", async () => {
    const missing = await getOrg(MISSING);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, data: {}, code: 'not_found', message: expect.any(String) });
    for (const id of [ids().other.id, ids().clinic2.id, ids().account.id]) {
      const res = await getOrg(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
  });

  it('answers 400 for a malformed id and 401 without a credential', async () => {
    const malformed = await getOrg('downtown');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('orgId: must be a UUID');
    expect((await getOrg(ids().clinic.id, null)).status).toBe(401);
  });

  it('is readable with a read-only token', async () => {
    const res = await getOrg(ids().clinic.id, await t.accessToken('clinicReadOnly'));
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(ids().clinic.id);
  });
});

describe('POST /v1/organizations/{orgId}/disable and /enable', () => {
  it('disables once (changed true), then answers changed false; enable is the inverse', async () => {
    const first = await post(ids().clinic.id, 'disable');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, data: { status: 'disabled', changed: true }, message: expect.any(String) });
    expect(await enabled(ids().clinic.id)).toBe(false);

    const second = await post(ids().clinic.id, 'disable');
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ status: 'disabled', changed: false });
    expect(await enabled(ids().clinic.id)).toBe(false);

    const enable = await post(ids().clinic.id, 'enable');
    expect(enable.status).toBe(200);
    expect(enable.body).toEqual({ success: true, data: { status: 'enabled', changed: true }, message: expect.any(String) });
    expect(await enabled(ids().clinic.id)).toBe(true);

    const again = await post(ids().clinic.id, 'enable');
    expect(again.body.data).toEqual({ status: 'enabled', changed: false });
  });

  it('ignores an empty JSON body', async () => {
    const res = await t.rest('POST', `/v1/organizations/${ids().clinic.id}/disable`, { json: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: 'disabled', changed: true });
  });

  it('answers 400 for a body with properties (the routes take none), and changes nothing', async () => {
    for (const body of [{ json: { reason: 'holiday' } }, { form: { reason: 'holiday' } }]) {
      const res = await t.rest('POST', `/v1/organizations/${ids().clinic.id}/disable`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        data: {},
        code: 'validation_failed',
        message: expect.stringContaining('reason'),
        errors: expect.any(Array),
      });
    }
    expect(await enabled(ids().clinic.id)).toBe(true);
  });

  it('lets the account key disable and enable a child; the sibling stays untouched', async () => {
    const res = await post(ids().clinic2.id, 'disable', ids().account.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: 'disabled', changed: true });
    expect(await enabled(ids().clinic2.id)).toBe(false);
    expect(await enabled(ids().clinic.id)).toBe(true);
    expect((await post(ids().clinic2.id, 'enable', ids().account.apiKey)).body.data).toEqual({ status: 'enabled', changed: true });
  });

  it('refuses to disable an account organization with 403, and it stays enabled', async () => {
    const res = await post(ids().account.id, 'disable', ids().account.apiKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, data: {}, code: 'forbidden', message: expect.stringMatching(/account/i) });
    expect(await enabled(ids().account.id)).toBe(true);
    // enabling an enabled account organization is allowed and changes nothing
    const enable = await post(ids().account.id, 'enable', ids().account.apiKey);
    expect(enable.status).toBe(200);
    expect(enable.body.data).toEqual({ status: 'enabled', changed: false });
  });

  it("answers 404 for another tenant's organization, exactly like a missing one, and leaves it alone", async () => {
    for (const action of ['disable', 'enable'] as const) {
      const missing = await post(MISSING, action);
      const foreign = await post(ids().other.id, action);
      const parent = await post(ids().account.id, action);
      expect(missing.status).toBe(404);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(missing.body);
      expect(parent.status).toBe(404);
      expect(parent.body).toEqual(missing.body);
    }
    const other = await getOrg(ids().other.id, ids().other.apiKey);
    expect(other.body.data.communicationsEnabled).toBe(true);
  });

  it('answers 403 to a read-only client and changes nothing', async () => {
    const token = await t.accessToken('clinicReadOnly');
    for (const action of ['disable', 'enable'] as const) {
      const res = await post(ids().clinic.id, action, token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, data: {}, code: 'forbidden', message: expect.stringContaining('organizations:write') });
    }
    expect(await enabled(ids().clinic.id)).toBe(true);
  });

  it('answers 401 without a credential and 400 for a malformed id', async () => {
    expect((await post(ids().clinic.id, 'disable', null)).status).toBe(401);
    const malformed = await post('downtown', 'disable');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('orgId: must be a UUID');
  });

  it('agrees under concurrent disables: exactly one reports changed', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => post(ids().clinic.id, 'disable')));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.data.changed)).toHaveLength(1);
  });
});

describe('GraphQL organizations', () => {
  it('answers organization(id) with its fields; parent and children follow reach', async () => {
    const res = await t.gql(ORG, { id: ids().clinic.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.organization).toEqual({
      id: ids().clinic.id,
      name: 'Bright Smiles Downtown',
      timezone: 'America/New_York',
      isAccount: false,
      communicationsEnabled: true,
      parent: null,
      children: [],
    });
    const account = await t.gql(ORG, { id: ids().account.id }, { token: ids().account.apiKey });
    expect(account.body.data.organization).toMatchObject({
      isAccount: true,
      parent: null,
      children: [
        { id: ids().clinic.id, name: 'Bright Smiles Downtown' },
        { id: ids().clinic2.id, name: 'Bright Smiles Lakeside' },
      ],
    });
    const child = await t.gql(ORG, { id: ids().clinic.id }, { token: ids().account.apiKey });
    expect(child.body.data.organization.parent).toEqual({ id: ids().account.id });
  });

  it("answers NOT_FOUND for another tenant's organization and BAD_USER_INPUT for a malformed id", async () => {
    for (const id of [ids().other.id, MISSING]) {
      const res = await t.gql(ORG, { id });
      expect(res.body.data).toEqual({ organization: null });
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const malformed = await t.gql(ORG, { id: 'downtown' });
    expect(malformed.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'orgId', message: 'must be a UUID' }],
      requestId: malformed.headers.get('x-request-id'),
    });
  });

  it('disables and enables with changed, like REST', async () => {
    const first = await t.gql(DISABLE, { orgId: ids().clinic.id });
    expect(first.body).toEqual({
      data: { disableOrganization: { status: 'disabled', changed: true } },
      extensions: { rateLimit: expect.objectContaining({ cost: 1 }) },
    });
    const second = await t.gql(DISABLE, { orgId: ids().clinic.id });
    expect(second.body.data.disableOrganization).toEqual({ status: 'disabled', changed: false });
    expect(await enabled(ids().clinic.id)).toBe(false);
    const enable = await t.gql(ENABLE, { orgId: ids().clinic.id });
    expect(enable.body.data.enableOrganization).toEqual({ status: 'enabled', changed: true });
    const again = await t.gql(ENABLE, { orgId: ids().clinic.id });
    expect(again.body.data.enableOrganization).toEqual({ status: 'enabled', changed: false });
    expect(await enabled(ids().clinic.id)).toBe(true);
  });

  it('answers FORBIDDEN for an account organization, which stays enabled', async () => {
    const res = await t.gql(DISABLE, { orgId: ids().account.id }, { token: ids().account.apiKey });
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await enabled(ids().account.id)).toBe(true);
  });

  it("answers NOT_FOUND for another tenant's organization", async () => {
    for (const mutation of [DISABLE, ENABLE]) {
      const res = await t.gql(mutation, { orgId: ids().other.id });
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('answers FORBIDDEN to a read-only client', async () => {
    const token = await t.accessToken('clinicReadOnly');
    for (const mutation of [DISABLE, ENABLE]) {
      const res = await t.gql(mutation, { orgId: ids().clinic.id }, { token });
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    expect(await enabled(ids().clinic.id)).toBe(true);
  });
});

describe('PATCH /v1/organizations/{orgId} and updateOrganization: a new name or time zone', () => {
  const UPDATE =
    'mutation ($orgId: ID!, $input: UpdateOrganizationInput!) { updateOrganization(orgId: $orgId, input: $input) { organization { id name timezone } } }';
  const patchOrg = (id: string, json: unknown, token?: string) =>
    t.rest('PATCH', `/v1/organizations/${id}`, { json, ...(token ? { token } : {}) });
  const events = (id: string) =>
    t.db.prisma.event.findMany({ where: { type: 'organization.updated', subjectId: id }, orderBy: { seq: 'asc' } });

  it('renames and moves an organization on either surface; the event keeps the old values; the answers follow at once', async () => {
    const clinic = ids().clinic.id;
    await getOrg(clinic); // read once: the read model holds it
    const res = await patchOrg(clinic, { name: '  Main Street  ', timezone: 'Australia/Lord_Howe' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: clinic, name: 'Main Street', timezone: 'Australia/Lord_Howe', updatedAt: isoInstant });
    expect((await getOrg(clinic)).body.data).toMatchObject({ name: 'Main Street', timezone: 'Australia/Lord_Howe' });
    const [event] = await events(clinic);
    expect(event!.previous).toEqual({ name: 'Bright Smiles Downtown', timezone: 'America/New_York' });
    // availability reads the wall clock of the new zone (Lord Howe: UTC+11 in March, daylight time)
    const now = await t.rest('GET', `/v1/organizations/${clinic}/availability?at=2026-03-02T00:00:00Z&medium=CHAT`);
    expect(now.body.data).toMatchObject({ timezone: 'Australia/Lord_Howe', localTime: '2026-03-02T11:00' });
    const gql = await t.gql(UPDATE, { orgId: clinic, input: { timezone: 'America/Havana' } });
    expect(gql.body.data.updateOrganization).toEqual({ organization: { id: clinic, name: 'Main Street', timezone: 'America/Havana' } });
    // the account lists its child under the new name
    const children = await t.rest('GET', `/v1/organizations/${ids().account.id}/children`, { token: ids().account.apiKey });
    expect(children.body.data.children.map((c: { name: string }) => c.name)).toContain('Main Street');
  });

  it('writes nothing for a name and zone it already has (no event)', async () => {
    const clinic = ids().clinic.id;
    const res = await patchOrg(clinic, { name: 'Bright Smiles Downtown', timezone: 'America/New_York' });
    expect(res.status).toBe(200);
    expect(await events(clinic)).toHaveLength(0);
  });

  const invalid: [string, unknown, string][] = [
    ['a zone that does not exist', { timezone: 'Mars/Olympus_Mons' }, 'timezone: must be an IANA time zone'],
    ['an offset instead of a zone', { timezone: '+05:00' }, 'timezone: must be an IANA time zone'],
    ['an empty name', { name: '   ' }, 'name: must not be empty'],
    ['a name over 200 characters', { name: 'n'.repeat(201) }, 'name: must be at most 200 characters'],
    ['a NUL in the name', { name: 'Main\u0000Street' }, 'name: must not contain NUL'],
    ['nothing to change', {}, 'nothing to update'],
    ['another field', { isAccount: true }, 'isAccount'],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name} on both surfaces, changing nothing`, async () => {
      const clinic = ids().clinic.id;
      const res = await patchOrg(clinic, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
      if (name !== 'another field') {
        const gql = await t.gql(UPDATE, { orgId: clinic, input: body });
        expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      }
      expect((await getOrg(clinic)).body.data).toMatchObject({ name: 'Bright Smiles Downtown', timezone: 'America/New_York' });
    });
  }

  it("answers another tenant's organization like a missing one (404), and refuses a read-only credential (403)", async () => {
    const foreign = await patchOrg(ids().other.id, { name: 'Taken over' });
    const missing = await patchOrg(MISSING, { name: 'Taken over' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const token = await t.accessToken('clinicReadOnly');
    expect((await patchOrg(ids().clinic.id, { name: 'Read only' }, token)).status).toBe(403);
    expect((await getOrg(ids().other.id, ids().other.apiKey)).body.data.name).not.toBe('Taken over');
    // an account renames its location
    expect((await patchOrg(ids().clinic.id, { name: 'Renamed by the account' }, ids().account.apiKey)).status).toBe(200);
  });
});

describe('POST /v1/organizations/{accountId}/children and createLocation: a new location', () => {
  const CREATE =
    'mutation ($a: ID!, $input: CreateLocationInput!) { createLocation(accountId: $a, input: $input) { organization { id name timezone parent { id } } } }';
  const account = () => ids().account;
  const create = (json: unknown, accountId = account().id, token = account().apiKey) =>
    t.rest('POST', `/v1/organizations/${accountId}/children`, { json, token });
  const WEEK = [
    ...['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((dayOfWeek) => ({
      dayOfWeek,
      isClosed: false,
      open: '08:00',
      close: '18:00',
    })),
    { dayOfWeek: 'SATURDAY', isClosed: true },
    { dayOfWeek: 'SUNDAY', isClosed: true },
  ];

  it('creates a location with its week in one request; the account reaches it at once; its availability uses that week', async () => {
    await getOrg(account().id, account().apiKey); // the account's record is held by the read model
    const res = await create({ name: ' Bright Smiles Uptown ', timezone: 'America/Chicago', officeHours: WEEK });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Bright Smiles Uptown',
      timezone: 'America/Chicago',
      isAccount: false,
      parentId: account().id,
      childCount: 0,
    });
    const id = res.body.data.id as string;
    expect((await getOrg(id, account().apiKey)).status).toBe(200);
    expect((await getOrg(account().id, account().apiKey)).body.data.childCount).toBe(3);
    // Monday 2026-03-09 07:30 in Chicago (13:30Z) is before its opening; 08:30 is open
    const at = (instant: string) =>
      t.rest('GET', `/v1/organizations/${id}/availability?at=${instant}&medium=CHAT`, { token: account().apiKey });
    expect((await at('2026-03-09T12:30:00Z')).body.data.state).toBe('CLOSED');
    expect((await at('2026-03-09T13:30:00Z')).body.data.state).toBe('OPEN');
    const events = await t.db.prisma.event.findMany({ where: { orgId: id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['organization.created', 'office_hours.updated']);
    // GraphQL, without a week: every day closed until set
    const gql = await t.gql(
      CREATE,
      { a: account().id, input: { name: 'Lakeside North', timezone: 'Pacific/Chatham' } },
      { token: account().apiKey },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createLocation.organization).toMatchObject({
      name: 'Lakeside North',
      timezone: 'Pacific/Chatham',
      parent: { id: account().id },
    });
  });

  it('refuses a location under a location (409), and under another tenant or a sibling exactly like a missing account (404)', async () => {
    const under = await create({ name: 'Nested', timezone: 'America/Chicago' }, ids().clinic.id);
    expect(under.status).toBe(409);
    expect(under.body.message).toBe('A location cannot have locations: only an account organization has children');
    const own = await create({ name: 'Nested', timezone: 'America/Chicago' }, ids().clinic.id, ids().clinic.apiKey);
    expect(own.status).toBe(409);
    const foreign = await create({ name: 'Sneaky', timezone: 'America/Chicago' }, account().id, ids().other.apiKey);
    const missing = await create({ name: 'Sneaky', timezone: 'America/Chicago' }, MISSING, ids().other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await create({ name: 'Sneaky', timezone: 'America/Chicago' }, account().id, ids().clinic.apiKey)).status).toBe(404);
    expect(await t.db.prisma.organization.count({ where: { parentId: account().id } })).toBe(2);
  });

  const invalid: [string, unknown, string][] = [
    ['a zone that does not exist', { name: 'Uptown', timezone: 'Mars/Olympus_Mons' }, 'timezone: must be an IANA time zone'],
    ['no zone', { name: 'Uptown' }, 'timezone: must be an IANA time zone'],
    ['no name', { timezone: 'America/Chicago' }, 'name: must be a string'],
    [
      'a week missing a day',
      { name: 'Uptown', timezone: 'America/Chicago', officeHours: WEEK.slice(1) },
      'officeHours: must hold all seven days; missing MONDAY',
    ],
    [
      'a day that closes before it opens',
      { name: 'Uptown', timezone: 'America/Chicago', officeHours: [{ ...WEEK[0], open: '18:00', close: '08:00' }, ...WEEK.slice(1)] },
      'officeHours.0',
    ],
    ['another field', { name: 'Uptown', timezone: 'America/Chicago', isAccount: true }, 'isAccount'],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name}, and makes nothing (no location without its week)`, async () => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
      expect(await t.db.prisma.organization.count({ where: { parentId: account().id } })).toBe(2);
    });
  }

  it('needs office-hours:write for a week as well as organizations:write, and makes nothing without it', async () => {
    const keys = await t.rest('POST', '/v1/api-keys', {
      token: account().apiKey,
      json: { name: 'Locations only', scopes: ['organizations:write', 'organizations:read'] },
    });
    expect(keys.status).toBe(200);
    const narrow = keys.body.data.apiKey as string;
    expect((await create({ name: 'With a week', timezone: 'America/Chicago', officeHours: WEEK }, account().id, narrow)).status).toBe(403);
    expect((await create({ name: 'Without a week', timezone: 'America/Chicago' }, account().id, narrow)).status).toBe(200);
    expect(await t.db.prisma.organization.count({ where: { name: 'With a week' } })).toBe(0);
  });
});
