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
