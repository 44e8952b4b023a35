import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const FIELDS = ['createdAt', 'id', 'name', 'notes', 'orgId', 'status', 'type', 'updatedAt'];
const MISSING = '00000000-0000-4000-8000-000000000000';
const isoInstant = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SELECTION = 'id orgId name type status notes createdAt updatedAt';
const UPDATE = `mutation ($orgId: ID!, $insuranceId: ID!, $input: UpdateInsuranceInput!) {
  updateInsurance(orgId: $orgId, insuranceId: $insuranceId, input: $input) { ${SELECTION} }
}`;
const LIST = `query ($id: ID!) { organization(id: $id) { id insurances { ${SELECTION} } } }`;

const clinicId = () => t.demo.organizations.clinic.id;
const path = (orgId: string, insuranceId: string) => `/v1/organizations/${orgId}/insurances/${insuranceId}`;
const patch = (body: Parameters<typeof t.rest>[2], orgId = clinicId(), insuranceId = t.demo.insurances.clinic[0]!) =>
  t.rest('PATCH', path(orgId, insuranceId), body);
const listInsurances = async (orgId = clinicId()) =>
  (await t.rest('GET', `/v1/organizations/${orgId}/insurances`)).body.data.insurances as Record<string, unknown>[];
const deltaDental = async () => (await listInsurances()).find((i) => i.name === 'Delta Dental')!;

describe('GET /v1/organizations/{orgId}/insurances', () => {
  it("lists the organization's insurances by name, with every field", async () => {
    const res = await t.rest('GET', `/v1/organizations/${clinicId()}/insurances`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(['insurances']);
    const [aetna, delta] = res.body.data.insurances;
    expect(res.body.data.insurances).toHaveLength(2);
    for (const i of res.body.data.insurances) expect(Object.keys(i).sort()).toEqual(FIELDS);
    expect(aetna).toEqual({
      id: t.demo.insurances.clinic[1],
      orgId: clinicId(),
      name: 'Aetna',
      type: 'HMO',
      status: 'ACCEPTED',
      notes: 'Aetna notes',
      createdAt: isoInstant,
      updatedAt: isoInstant,
    });
    expect(delta).toEqual({
      id: t.demo.insurances.clinic[0],
      orgId: clinicId(),
      name: 'Delta Dental',
      type: 'PPO',
      status: 'IN_NETWORK',
      notes: 'Delta Dental notes',
      createdAt: isoInstant,
      updatedAt: isoInstant,
    });
  });

  it("lists a child organization's insurances to the account key, and nothing of its own", async () => {
    const account = t.demo.organizations.account.apiKey;
    const child = await t.rest('GET', `/v1/organizations/${clinicId()}/insurances`, { token: account });
    expect(child.status).toBe(200);
    expect(child.body.data.insurances).toHaveLength(2);
    const own = await t.rest('GET', `/v1/organizations/${t.demo.organizations.account.id}/insurances`, { token: account });
    expect(own.body.data).toEqual({ insurances: [] });
  });

  it("answers 404 for another tenant's organization, like a missing one; 400 for a malformed id", async () => {
    const foreign = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/insurances`);
    const missing = await t.rest('GET', `/v1/organizations/${MISSING}/insurances`);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const malformed = await t.rest('GET', '/v1/organizations/clinic/insurances');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('orgId: must be a UUID');
  });

  it('is readable with a read-only token', async () => {
    const res = await t.rest('GET', `/v1/organizations/${clinicId()}/insurances`, { token: await t.accessToken('clinicReadOnly') });
    expect(res.status).toBe(200);
    expect(res.body.data.insurances).toHaveLength(2);
  });
});

describe('PATCH /v1/organizations/{orgId}/insurances/{insuranceId}', () => {
  it('changes only the provided field and answers the whole record', async () => {
    const before = await deltaDental();
    const res = await patch({ json: { status: 'CONDITIONAL' } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ ...before, status: 'CONDITIONAL', updatedAt: isoInstant });
    expect(await deltaDental()).toEqual(res.body.data);
  });

  it('changes type, status and notes together', async () => {
    const res = await patch({ json: { type: 'EPO', status: 'NOT_ACCEPTED', notes: 'No longer accepted from March.' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Delta Dental',
      type: 'EPO',
      status: 'NOT_ACCEPTED',
      notes: 'No longer accepted from March.',
    });
    expect(await deltaDental()).toMatchObject({ type: 'EPO', status: 'NOT_ACCEPTED', notes: 'No longer accepted from March.' });
  });

  it('accepts notes of 2000 characters and clears notes with ""', async () => {
    const long = await patch({ json: { notes: 'n'.repeat(2000) } });
    expect(long.status).toBe(200);
    expect(long.body.data.notes).toHaveLength(2000);
    const cleared = await patch({ json: { notes: '' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.notes).toBe('');
    expect(cleared.body.data.type).toBe('PPO');
  });

  it('accepts a form-urlencoded body', async () => {
    const res = await patch({ form: { type: 'MEDICAID', notes: 'Form notes' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'MEDICAID', status: 'IN_NETWORK', notes: 'Form notes' });
  });

  it('accepts a multipart body', async () => {
    const res = await patch({ multipart: { status: 'CAN_FILE' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'PPO', status: 'CAN_FILE', notes: 'Delta Dental notes' });
  });

  it("updates a child organization's insurance with the account key", async () => {
    const res = await patch({ json: { type: 'HMO' }, token: t.demo.organizations.account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.type).toBe('HMO');
  });

  const invalid: [string, Parameters<typeof t.rest>[2], RegExp][] = [
    ['an empty body', { json: {} }, /^nothing to update/],
    ['no body at all', {}, /^nothing to update/],
    ['an empty form', { form: {} }, /^nothing to update/],
    ['an unknown property', { json: { status: 'ACCEPTED', name: 'Renamed' } }, /name/],
    ['an unknown type', { json: { type: 'POS' } }, /^type: must be one of PPO, HMO, EPO, MEDICAID, MEDICARE$/],
    ['a lowercase type', { json: { type: 'ppo' } }, /^type: must be one of/],
    [
      'an unknown status',
      { json: { status: 'MAYBE' } },
      /^status: must be one of IN_NETWORK, ACCEPTED, CAN_FILE, CONDITIONAL, NOT_ACCEPTED$/,
    ],
    ['a null status', { json: { status: null } }, /^status: must be one of/],
    ['notes over 2000 characters', { json: { notes: 'n'.repeat(2001) } }, /^notes: must be at most 2000 characters$/],
    ['notes that are not a string', { json: { notes: 5 } }, /^notes: must be a string$/],
    // found by the fuzzer: NUL made the database refuse the write (a 500)
    [
      'notes with a NUL character',
      { json: { notes: 'a\u0000b' } },
      /^notes: must not contain NUL characters or unpaired UTF-16 surrogates$/,
    ],
    ['notes with an unpaired surrogate', { json: { notes: '\uD83D' } }, /^notes: must not contain NUL/],
    ['a body that is not an object', { json: ['PPO'] }, /./],
    ['malformed JSON', { raw: { body: '{"type":', contentType: 'application/json' } }, /JSON/],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name}, and changes nothing`, async () => {
      const before = await deltaDental();
      const res = await patch(body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.data).toEqual({});
      expect(res.body.message).toMatch(message);
      expect(await deltaDental()).toEqual(before);
    });
  }

  it('names every invalid field at once', async () => {
    const res = await patch({ json: { type: 'X', status: 'Y' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('type: must be one of');
    expect(res.body.message).toContain('status: must be one of');
  });

  it('answers 400 for malformed ids', async () => {
    const badInsurance = await patch({ json: { type: 'PPO' } }, clinicId(), 'delta');
    expect(badInsurance.status).toBe(400);
    expect(badInsurance.body.message).toBe('insuranceId: must be a UUID');
    const badOrg = await patch({ json: { type: 'PPO' } }, 'clinic');
    expect(badOrg.status).toBe(400);
    expect(badOrg.body.message).toBe('orgId: must be a UUID');
  });

  it("answers 404 for another tenant's insurance or organization, exactly like a missing one", async () => {
    const missing = await patch({ json: { type: 'PPO' } }, clinicId(), MISSING);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, data: {}, code: 'not_found', message: expect.any(String) });
    const foreignUnderOwnOrg = await patch({ json: { type: 'PPO' } }, clinicId(), t.demo.insurances.other[0]);
    const foreignOrg = await patch({ json: { type: 'PPO' } }, t.demo.organizations.other.id, t.demo.insurances.other[0]);
    expect(foreignUnderOwnOrg.status).toBe(404);
    expect(foreignUnderOwnOrg.body).toEqual(missing.body);
    expect(foreignOrg.status).toBe(404);
    // the other tenant's insurance is untouched
    const other = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/insurances`, {
      token: t.demo.organizations.other.apiKey,
    });
    expect(other.body.data.insurances[0]).toMatchObject({ type: 'MEDICARE', status: 'CAN_FILE' });
  });

  it('answers 404 for an insurance of another organization within reach, under this orgId', async () => {
    const res = await patch(
      { json: { type: 'EPO' }, token: t.demo.organizations.account.apiKey },
      t.demo.organizations.account.id,
      t.demo.insurances.clinic[0],
    );
    expect(res.status).toBe(404);
    expect((await deltaDental()).type).toBe('PPO');
  });

  it('answers 403 to a read-only client and changes nothing', async () => {
    const res = await patch({ json: { type: 'EPO' }, token: await t.accessToken('clinicReadOnly') });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, data: {}, code: 'forbidden', message: expect.stringContaining('insurances:write') });
    expect((await deltaDental()).type).toBe('PPO');
  });

  it('answers 401 without a credential', async () => {
    const res = await patch({ json: { type: 'EPO' }, token: null });
    expect(res.status).toBe(401);
  });
});

describe('GraphQL insurances', () => {
  it('lists Organization.insurances like REST', async () => {
    const res = await t.gql(LIST, { id: clinicId() });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.organization.insurances).toEqual(await listInsurances());
  });

  it('updates with updateInsurance and answers the whole record', async () => {
    const before = await deltaDental();
    const res = await t.gql(UPDATE, {
      orgId: clinicId(),
      insuranceId: t.demo.insurances.clinic[0],
      input: { type: 'MEDICARE', notes: 'via GraphQL' },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateInsurance).toEqual({ ...before, type: 'MEDICARE', notes: 'via GraphQL', updatedAt: isoInstant });
    expect(await deltaDental()).toEqual(res.body.data.updateInsurance);
  });

  it('answers BAD_USER_INPUT for an empty input, notes too long and notes with NUL', async () => {
    const empty = await t.gql(UPDATE, { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0], input: {} });
    expect(empty.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(empty.body.errors[0].message).toMatch(/^nothing to update/);
    const long = await t.gql(UPDATE, { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0], input: { notes: 'n'.repeat(2001) } });
    expect(long.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'notes', message: 'must be at most 2000 characters' }],
      requestId: long.headers.get('x-request-id'),
    });
    const nul = await t.gql(UPDATE, { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0], input: { notes: 'a\u0000b' } });
    expect(nul.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'notes', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' }],
      requestId: nul.headers.get('x-request-id'),
    });
    expect((await deltaDental()).notes).toBe('Delta Dental notes');
  });

  it('rejects an unknown enum value by the GraphQL types', async () => {
    // a variable that GraphQL itself refuses is the client's error, never a 5xx (docs/decisions.md §3)
    const res = await t.gql(UPDATE, { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0], input: { type: 'POS' } });
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.[0]?.message).toContain('POS');
    expect((await deltaDental()).type).toBe('PPO');
  });

  it("answers NOT_FOUND for another tenant's insurance", async () => {
    for (const [orgId, insuranceId] of [
      [clinicId(), t.demo.insurances.other[0]],
      [t.demo.organizations.other.id, t.demo.insurances.other[0]],
    ]) {
      const res = await t.gql(UPDATE, { orgId, insuranceId, input: { type: 'PPO' } });
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('answers FORBIDDEN to a read-only client', async () => {
    const res = await t.gql(
      UPDATE,
      { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0], input: { type: 'EPO' } },
      { token: await t.accessToken('clinicReadOnly') },
    );
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await deltaDental()).type).toBe('PPO');
  });
});

describe('the lifecycle: create, filter, delete (REST and GraphQL, one domain)', () => {
  const CREATE = `mutation ($orgId: ID!, $input: CreateInsuranceInput!) { createInsurance(orgId: $orgId, input: $input) { ${SELECTION} } }`;
  const DELETE = 'mutation ($orgId: ID!, $insuranceId: ID!) { deleteInsurance(orgId: $orgId, insuranceId: $insuranceId) }';
  const FILTERED = `query ($id: ID!, $type: InsuranceType, $status: InsuranceStatus) {
    organization(id: $id) { insurances(type: $type, status: $status) { name } } }`;
  const create = (json: unknown, orgId = clinicId(), token?: string) =>
    t.rest('POST', `/v1/organizations/${orgId}/insurances`, { json, ...(token ? { token } : {}) });
  const names = async (query = '') =>
    ((await t.rest('GET', `/v1/organizations/${clinicId()}/insurances${query}`)).body.data.insurances as { name: string }[]).map(
      (i) => i.name,
    );

  it('creates an insurance with every field, trims its name, lists it by name and answers it on both surfaces', async () => {
    const res = await create({ name: '  Cigna ', type: 'EPO', status: 'CONDITIONAL', notes: 'Referral needed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      orgId: clinicId(),
      name: 'Cigna',
      type: 'EPO',
      status: 'CONDITIONAL',
      notes: 'Referral needed',
      createdAt: isoInstant,
      updatedAt: isoInstant,
    });
    expect(await names()).toEqual(['Aetna', 'Cigna', 'Delta Dental']);
    const gql = await t.gql(CREATE, { orgId: clinicId(), input: { name: 'Humana', type: 'MEDICARE', status: 'CAN_FILE', notes: null } });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createInsurance).toMatchObject({ name: 'Humana', type: 'MEDICARE', status: 'CAN_FILE', notes: '' });
    const listed = await t.gql(LIST, { id: clinicId() });
    expect(listed.body.data.organization.insurances.map((i: { name: string }) => i.name)).toEqual([
      'Aetna',
      'Cigna',
      'Delta Dental',
      'Humana',
    ]);
  });

  it('keeps one insurance per name and type: a second is a 409 naming the first, a new type is another insurance', async () => {
    const first = await create({ name: 'Aetna', type: 'PPO', status: 'ACCEPTED' }); // the demo's Aetna is an HMO
    expect(first.status).toBe(200);
    const again = await create({ name: 'Aetna', type: 'PPO', status: 'IN_NETWORK' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'conflict' });
    expect(again.body.message).toBe(
      `The organization already has an insurance named "Aetna" of type PPO (${first.body.data.id}); change that one instead`,
    );
    const gql = await t.gql(CREATE, { orgId: clinicId(), input: { name: 'Aetna', type: 'HMO', status: 'ACCEPTED' } });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(gql.body.errors[0].message).toContain(t.demo.insurances.clinic[1]);
    // a change of type onto an existing name and type is the same conflict, and changes nothing
    const moved = await patch({ json: { type: 'HMO' } }, clinicId(), first.body.data.id);
    expect(moved.status).toBe(409);
    expect(moved.body.message).toContain(`named "Aetna" of type HMO (${t.demo.insurances.clinic[1]})`);
    expect(await names('?type=PPO')).toEqual(['Aetna', 'Delta Dental']);
    // the same name in another organization is that organization's business
    const otherOrg = await create(
      { name: 'Aetna', type: 'HMO', status: 'ACCEPTED' },
      t.demo.organizations.other.id,
      t.demo.organizations.other.apiKey,
    );
    expect(otherOrg.status).toBe(200);
  });

  const invalid: [string, unknown, string][] = [
    ['no name', { type: 'PPO', status: 'ACCEPTED' }, 'name: must be a string'],
    ['a name of spaces', { name: '   ', type: 'PPO', status: 'ACCEPTED' }, 'name: must not be empty'],
    ['a name over 200 characters', { name: 'n'.repeat(201), type: 'PPO', status: 'ACCEPTED' }, 'name: must be at most 200 characters'],
    ['a name with a NUL', { name: 'A\u0000', type: 'PPO', status: 'ACCEPTED' }, 'name: must not contain NUL'],
    ['no type', { name: 'Cigna', status: 'ACCEPTED' }, 'type: must be one of PPO, HMO, EPO, MEDICAID, MEDICARE'],
    ['no status', { name: 'Cigna', type: 'PPO' }, 'status: must be one of IN_NETWORK'],
    [
      'notes over 2000 characters',
      { name: 'Cigna', type: 'PPO', status: 'ACCEPTED', notes: 'n'.repeat(2001) },
      'notes: must be at most 2000',
    ],
    ['an unknown field', { name: 'Cigna', type: 'PPO', status: 'ACCEPTED', id: MISSING }, 'id'],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name} on both surfaces, and stores nothing`, async () => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
      if (name !== 'an unknown field' && name !== 'no type' && name !== 'no status' && name !== 'no name') {
        const gql = await t.gql(CREATE, { orgId: clinicId(), input: body });
        expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(gql.body.errors[0].message).toContain(message);
      }
      expect(await names()).toEqual(['Aetna', 'Delta Dental']);
    });
  }

  it('filters by type and by status, alone or together, on both surfaces; an unknown value is a 400 naming it', async () => {
    await create({ name: 'Cigna', type: 'PPO', status: 'ACCEPTED' });
    expect(await names('?type=PPO')).toEqual(['Cigna', 'Delta Dental']);
    expect(await names('?status=ACCEPTED')).toEqual(['Aetna', 'Cigna']);
    expect(await names('?type=PPO&status=ACCEPTED')).toEqual(['Cigna']);
    expect(await names('?type=MEDICAID')).toEqual([]);
    const gql = await t.gql(FILTERED, { id: clinicId(), type: 'PPO', status: 'ACCEPTED' });
    expect(gql.body.data.organization.insurances).toEqual([{ name: 'Cigna' }]);
    const unfiltered = await t.gql(FILTERED, { id: clinicId(), type: null });
    expect(unfiltered.body.data.organization.insurances).toHaveLength(3);
    const bad = await t.rest('GET', `/v1/organizations/${clinicId()}/insurances?type=POS`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('type: must be one of PPO, HMO, EPO, MEDICAID, MEDICARE');
    const unknown = await t.rest('GET', `/v1/organizations/${clinicId()}/insurances?plan=PPO`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('plan');
  });

  it('deletes an insurance once (a second delete is a 404), on both surfaces', async () => {
    const [delta, aetna] = t.demo.insurances.clinic;
    const res = await t.rest('DELETE', path(clinicId(), delta!));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: delta, deleted: true });
    expect(await names()).toEqual(['Aetna']);
    const twice = await t.rest('DELETE', path(clinicId(), delta!));
    expect(twice.status).toBe(404);
    const gql = await t.gql(DELETE, { orgId: clinicId(), insuranceId: aetna });
    expect(gql.body.data).toEqual({ deleteInsurance: true });
    const gqlTwice = await t.gql(DELETE, { orgId: clinicId(), insuranceId: aetna });
    expect(gqlTwice.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await names()).toEqual([]);
    // deleted, the name and type are free again
    expect((await create({ name: 'Aetna', type: 'HMO', status: 'ACCEPTED' })).status).toBe(200);
  });

  it("never creates in or deletes from another tenant's organization: 404 exactly like a missing one", async () => {
    const other = t.demo.organizations.other.id;
    const foreignCreate = await create({ name: 'Sneaky', type: 'PPO', status: 'ACCEPTED' }, other);
    const missingCreate = await create({ name: 'Sneaky', type: 'PPO', status: 'ACCEPTED' }, MISSING);
    expect(foreignCreate.status).toBe(404);
    expect(foreignCreate.body).toEqual(missingCreate.body);
    const foreignDelete = await t.rest('DELETE', path(clinicId(), t.demo.insurances.other[0]!));
    const missingDelete = await t.rest('DELETE', path(clinicId(), MISSING));
    expect(foreignDelete.status).toBe(404);
    expect(foreignDelete.body).toEqual(missingDelete.body);
    expect((await t.rest('DELETE', path(other, t.demo.insurances.other[0]!))).status).toBe(404);
    const theirs = await t.rest('GET', `/v1/organizations/${other}/insurances`, { token: t.demo.organizations.other.apiKey });
    expect(theirs.body.data.insurances.map((i: { name: string }) => i.name)).toEqual(['AOK']);
  });

  it('refuses creates and deletes to a read-only credential (403 / FORBIDDEN), changing nothing', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const created = await create({ name: 'Cigna', type: 'PPO', status: 'ACCEPTED' }, clinicId(), token);
    expect(created.status).toBe(403);
    const deleted = await t.rest('DELETE', path(clinicId(), t.demo.insurances.clinic[0]!), { token });
    expect(deleted.status).toBe(403);
    const gql = await t.gql(DELETE, { orgId: clinicId(), insuranceId: t.demo.insurances.clinic[0] }, { token });
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await names()).toEqual(['Aetna', 'Delta Dental']);
  });
});
