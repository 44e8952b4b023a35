import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const FIELDS = [
  'id',
  'orgId',
  'botId',
  'createdAt',
  'updatedAt',
  'number',
  'name',
  'language',
  'outbound',
  'verifiedCallerId',
  'callbackForwardingNumber',
  'voiceId',
  'speed',
  'stability',
  'similarity',
  'style',
  'customGreeting',
  'customClosedGreeting',
];
const SELECTION = FIELDS.join(' ');
const MISSING = '00000000-0000-4000-8000-000000000000';
const isoInstant = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const ATTACH = `mutation ($phoneNumberId: ID!, $botId: ID!) { attachPhoneNumber(phoneNumberId: $phoneNumberId, botId: $botId) { ${SELECTION} } }`;
const LIST = `query ($id: ID!) { organization(id: $id) { id phoneNumbers { ${SELECTION} } } }`;

const clinicId = () => t.demo.organizations.clinic.id;
const attach = (phoneNumberId: string, body: Parameters<typeof t.rest>[2]) =>
  t.rest('POST', `/v1/phone-numbers/${phoneNumberId}/attach`, body);
const listPhoneNumbers = async (orgId = clinicId(), token?: string) =>
  (await t.rest('GET', `/v1/organizations/${orgId}/phone-numbers`, token ? { token } : {})).body.data.phoneNumbers as Record<
    string,
    unknown
  >[];
const billingLine = async () => (await listPhoneNumbers()).find((p) => p.id === t.demo.phoneNumbers.clinic[1])!;

describe('GET /v1/organizations/{orgId}/phone-numbers', () => {
  it("lists the organization's phone numbers with every field", async () => {
    const res = await t.rest('GET', `/v1/organizations/${clinicId()}/phone-numbers`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(['phoneNumbers']);
    expect(res.body.data.phoneNumbers).toHaveLength(2);
    for (const p of res.body.data.phoneNumbers) expect(Object.keys(p).sort()).toEqual([...FIELDS].sort());
    const [main, billing] = res.body.data.phoneNumbers;
    expect(main).toEqual({
      id: t.demo.phoneNumbers.clinic[0],
      orgId: clinicId(),
      botId: t.demo.bots.clinic[0],
      createdAt: isoInstant,
      updatedAt: isoInstant,
      number: '+15550101',
      name: 'Downtown main line',
      language: 'ENGLISH',
      outbound: true,
      verifiedCallerId: '+15550101',
      callbackForwardingNumber: '+15550199',
      voiceId: 'FRIENDLY_BRIGHT',
      speed: 1,
      stability: 0.5,
      similarity: 0.75,
      style: 0,
      customGreeting: 'Thanks for calling Downtown main line, how can I help?',
      customClosedGreeting: 'Downtown main line is closed right now; leave a message and we will call you back.',
    });
    expect(billing).toMatchObject({ id: t.demo.phoneNumbers.clinic[1], botId: null, number: '+15550102', name: 'Downtown billing' });
  });

  it("lists a child's numbers to the account key; answers 404 for another tenant's organization", async () => {
    expect(await listPhoneNumbers(clinicId(), t.demo.organizations.account.apiKey)).toHaveLength(2);
    const foreign = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/phone-numbers`);
    const missing = await t.rest('GET', `/v1/organizations/${MISSING}/phone-numbers`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  it('is readable with a read-only token (scope organizations:read)', async () => {
    const res = await t.rest('GET', `/v1/organizations/${clinicId()}/phone-numbers`, { token: await t.accessToken('clinicReadOnly') });
    expect(res.status).toBe(200);
    expect(res.body.data.phoneNumbers).toHaveLength(2);
  });
});

describe('POST /v1/phone-numbers/{phoneNumberId}/attach', () => {
  const encodings: [string, (botId: string) => Parameters<typeof t.rest>[2]][] = [
    ['JSON', (botId) => ({ json: { botId } })],
    ['form-urlencoded', (botId) => ({ form: { botId } })],
    ['multipart', (botId) => ({ multipart: { botId } })],
  ];
  for (const [name, body] of encodings) {
    it(`attaches a number to a bot of its organization (${name}) and answers the whole record`, async () => {
      const before = await billingLine();
      const botId = t.demo.bots.clinic[1]!;
      const res = await attach(t.demo.phoneNumbers.clinic[1]!, body(botId));
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({ ...before, botId, updatedAt: isoInstant });
      expect(await billingLine()).toEqual(res.body.data);
    });
  }

  it('moves an attached number to another bot, and accepts an upper-case UUID', async () => {
    const res = await attach(t.demo.phoneNumbers.clinic[0]!, { json: { botId: t.demo.bots.clinic[1]!.toUpperCase() } });
    expect(res.status).toBe(200);
    expect(res.body.data.botId).toBe(t.demo.bots.clinic[1]);
  });

  it("attaches a child's number with the account key", async () => {
    const res = await attach(t.demo.phoneNumbers.clinic[1]!, {
      json: { botId: t.demo.bots.clinic[0] },
      token: t.demo.organizations.account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.botId).toBe(t.demo.bots.clinic[0]);
  });

  it('answers 400 naming botId for a bot of another organization within reach, and changes nothing', async () => {
    const res = await attach(t.demo.phoneNumbers.clinic[1]!, {
      json: { botId: t.demo.bots.clinic2[0] },
      token: t.demo.organizations.account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: {}, message: expect.stringMatching(/^botId: /) });
    expect((await billingLine()).botId).toBeNull();
  });

  const invalid: [string, Parameters<typeof t.rest>[2], string][] = [
    ['a missing botId', { json: {} }, 'botId: is required'],
    ['no body', {}, 'botId: is required'],
    ['a botId that is not a UUID', { json: { botId: 'front-desk' } }, 'botId: must be a UUID'],
    ['a numeric botId', { json: { botId: 7 } }, 'botId: must be a UUID'],
    ['an unknown property', { json: { botId: '00000000-0000-4000-8000-000000000000', orgId: 'x' } }, 'orgId'],
    ['a body that is not an object', { json: 'bot' }, ''],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name}`, async () => {
      const res = await attach(t.demo.phoneNumbers.clinic[1]!, body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.data).toEqual({});
      expect(res.body.message).toContain(message);
      expect((await billingLine()).botId).toBeNull();
    });
  }

  it('answers 400 naming phoneNumberId when it is not a UUID', async () => {
    const res = await attach('main-line', { json: { botId: t.demo.bots.clinic[0] } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('phoneNumberId: must be a UUID');
  });

  it('answers 404 for a bot of another tenant, exactly like a missing bot', async () => {
    const missing = await attach(t.demo.phoneNumbers.clinic[1]!, { json: { botId: MISSING } });
    const foreign = await attach(t.demo.phoneNumbers.clinic[1]!, { json: { botId: t.demo.bots.other[0] } });
    // a sibling clinic is outside a clinic key's reach
    const sibling = await attach(t.demo.phoneNumbers.clinic[1]!, { json: { botId: t.demo.bots.clinic2[0] } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, data: {}, code: 'not_found', message: expect.any(String) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(sibling.status).toBe(404);
    expect(sibling.body).toEqual(missing.body);
    expect((await billingLine()).botId).toBeNull();
  });

  it("answers 404 for another tenant's phone number, exactly like a missing one, and leaves it alone", async () => {
    const missing = await attach(MISSING, { json: { botId: t.demo.bots.clinic[0] } });
    const foreign = await attach(t.demo.phoneNumbers.other[0]!, { json: { botId: t.demo.bots.clinic[0] } });
    const foreignBoth = await attach(t.demo.phoneNumbers.other[0]!, { json: { botId: t.demo.bots.other[0] } });
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(foreignBoth.body).toEqual(missing.body);
    const other = await listPhoneNumbers(t.demo.organizations.other.id, t.demo.organizations.other.apiKey);
    expect(other[0]!.botId).toBe(t.demo.bots.other[0]);
  });

  it('answers 403 to a read-only client and changes nothing', async () => {
    const res = await attach(t.demo.phoneNumbers.clinic[1]!, {
      json: { botId: t.demo.bots.clinic[0] },
      token: await t.accessToken('clinicReadOnly'),
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, data: {}, code: 'forbidden', message: expect.stringContaining('phone-numbers:write') });
    expect((await billingLine()).botId).toBeNull();
  });

  it('answers 401 without a credential', async () => {
    const res = await attach(t.demo.phoneNumbers.clinic[1]!, { json: { botId: t.demo.bots.clinic[0] }, token: null });
    expect(res.status).toBe(401);
  });
});

describe('GraphQL phone numbers', () => {
  it('lists Organization.phoneNumbers like REST', async () => {
    const res = await t.gql(LIST, { id: clinicId() });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.organization.phoneNumbers).toEqual(await listPhoneNumbers());
  });

  it('attaches with attachPhoneNumber and answers the whole record', async () => {
    const before = await billingLine();
    const res = await t.gql(ATTACH, { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: t.demo.bots.clinic[1] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.attachPhoneNumber).toEqual({ ...before, botId: t.demo.bots.clinic[1], updatedAt: isoInstant });
    expect(await billingLine()).toEqual(res.body.data.attachPhoneNumber);
  });

  it('answers BAD_USER_INPUT naming botId for a bot of another organization within reach', async () => {
    const res = await t.gql(
      ATTACH,
      { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: t.demo.bots.clinic2[0] },
      { token: t.demo.organizations.account.apiKey },
    );
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.issues).toEqual([{ path: 'botId', message: expect.any(String) }]);
    const malformed = await t.gql(ATTACH, { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: 'nope' });
    expect(malformed.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'botId', message: 'must be a UUID' }],
      requestId: malformed.headers.get('x-request-id'),
    });
  });

  it("answers NOT_FOUND for another tenant's phone number or bot", async () => {
    for (const vars of [
      { phoneNumberId: t.demo.phoneNumbers.other[0], botId: t.demo.bots.clinic[0] },
      { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: t.demo.bots.other[0] },
      { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: MISSING },
    ]) {
      const res = await t.gql(ATTACH, vars);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    expect((await billingLine()).botId).toBeNull();
  });

  it('answers FORBIDDEN to a read-only client', async () => {
    const res = await t.gql(
      ATTACH,
      { phoneNumberId: t.demo.phoneNumbers.clinic[1], botId: t.demo.bots.clinic[0] },
      { token: await t.accessToken('clinicReadOnly') },
    );
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await billingLine()).botId).toBeNull();
  });
});

describe('one phone number and its settings (GET / PATCH /v1/phone-numbers/{id}, GraphQL phoneNumber / updatePhoneNumber)', () => {
  const UPDATE = `mutation ($id: ID!, $input: UpdatePhoneNumberInput!) { updatePhoneNumber(phoneNumberId: $id, input: $input) { ${SELECTION} } }`;
  const mainLine = () => t.demo.phoneNumbers.clinic[0]!;
  const patchNumber = (json: unknown, id = mainLine(), token?: string) =>
    t.rest('PATCH', `/v1/phone-numbers/${id}`, { json, ...(token ? { token } : {}) });
  const current = async (id = mainLine()) => (await t.rest('GET', `/v1/phone-numbers/${id}`)).body.data;

  it('answers one number with every field, the same on both surfaces and as listed', async () => {
    const res = await t.rest('GET', `/v1/phone-numbers/${mainLine()}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([...FIELDS].sort());
    const listed = (await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/phone-numbers`)).body.data.phoneNumbers;
    expect(listed.find((p: { id: string }) => p.id === mainLine())).toEqual(res.body.data);
    const gql = await t.gql(`query ($id: ID!) { phoneNumber(id: $id) { ${SELECTION} } }`, { id: mainLine() });
    expect(gql.body.data.phoneNumber).toEqual(res.body.data);
  });

  it('changes every setting at once, canonicalizing the numbers, and records what it replaced', async () => {
    const before = await current();
    const res = await patchNumber({
      name: 'Front desk',
      language: 'SPANISH',
      voiceId: 'CALM_WARM',
      speed: 0.7,
      stability: 0,
      similarity: 1,
      style: 0.35,
      customGreeting: 'Gracias por llamar',
      customClosedGreeting: 'Estamos cerrados',
      outbound: true,
      verifiedCallerId: '+4402079460000', // a trunk 0 after the country code: kept without it
      callbackForwardingNumber: '+14155552671',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...before,
      name: 'Front desk',
      language: 'SPANISH',
      voiceId: 'CALM_WARM',
      speed: 0.7,
      stability: 0,
      similarity: 1,
      style: 0.35,
      customGreeting: 'Gracias por llamar',
      customClosedGreeting: 'Estamos cerrados',
      outbound: true,
      verifiedCallerId: '+442079460000',
      callbackForwardingNumber: '+14155552671',
      updatedAt: isoInstant,
    });
    const [event] = await t.db.prisma.event.findMany({ where: { type: 'phone_number.updated', subjectId: mainLine() } });
    expect(event!.previous).toMatchObject({ name: before.name, speed: before.speed, customGreeting: before.customGreeting });
    // "" clears a greeting and a number; only what is sent changes
    const cleared = await patchNumber({ customGreeting: '', callbackForwardingNumber: '' });
    expect(cleared.body.data).toMatchObject({ customGreeting: '', callbackForwardingNumber: '', name: 'Front desk', speed: 0.7 });
  });

  it('takes a form body, its numbers and booleans read from strings', async () => {
    const res = await t.rest('PATCH', `/v1/phone-numbers/${mainLine()}`, { form: { speed: '1.2', outbound: 'true', name: 'Form line' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ speed: 1.2, outbound: true, name: 'Form line' });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['speed 1e9', { speed: 1e9 }, 'speed: must be a number from 0.7 to 1.2'],
    ['speed below its range', { speed: 0.69 }, 'speed: must be a number from 0.7 to 1.2'],
    ['a negative stability', { stability: -0.1 }, 'stability: must be a number from 0 to 1'],
    ['similarity over 1', { similarity: 1.01 }, 'similarity: must be a number from 0 to 1'],
    ['style as a string', { style: 'high' }, 'style: must be a number from 0 to 1'],
    ['an unknown voice', { voiceId: 'ROBOT' }, 'voiceId: must be one of FRIENDLY_BRIGHT, CALM_WARM, PROFESSIONAL_CLEAR'],
    ['an unknown language', { language: 'KLINGON' }, 'language: must be one of ENGLISH, SPANISH, FRENCH, GERMAN'],
    ['a greeting over 1000 characters', { customGreeting: 'g'.repeat(1001) }, 'customGreeting: must be at most 1000 characters'],
    ['a greeting with a NUL', { customClosedGreeting: 'closed\u0000' }, 'customClosedGreeting: must not contain NUL'],
    ['a caller id that is not E.164', { verifiedCallerId: '415-555-2671' }, 'verifiedCallerId: must be a phone number in E.164 form'],
    [
      'a forwarding number of no number plan',
      { callbackForwardingNumber: '+999123456789' },
      'callbackForwardingNumber: must be a phone number',
    ],
    ['outbound as a word', { outbound: 'yes' }, 'outbound: must be true or false'],
    ['the number itself', { number: '+14155550000' }, 'number'],
    ['nothing at all', {}, 'nothing to update'],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name} on both surfaces, naming it, and changes nothing`, async () => {
      const before = await current();
      const res = await patchNumber(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
      if (
        name !== 'the number itself' &&
        !['style as a string', 'an unknown voice', 'an unknown language', 'outbound as a word'].includes(name)
      ) {
        const gql = await t.gql(UPDATE, { id: mainLine(), input: body });
        expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(gql.body.errors[0].message).toContain(message);
      }
      expect(await current()).toEqual(before);
    });
  }

  it("answers another tenant's number exactly like a missing one (404 / NOT_FOUND), for reads and changes", async () => {
    const foreign = t.demo.phoneNumbers.other[0]!;
    const missing = await t.rest('GET', `/v1/phone-numbers/${MISSING}`);
    const read = await t.rest('GET', `/v1/phone-numbers/${foreign}`);
    expect(read.status).toBe(404);
    expect(read.body).toEqual(missing.body);
    const change = await patchNumber({ customGreeting: 'Hijacked' }, foreign);
    expect(change.status).toBe(404);
    const gql = await t.gql(UPDATE, { id: foreign, input: { customGreeting: 'Hijacked' } });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const theirs = await t.rest('GET', `/v1/phone-numbers/${foreign}`, { token: t.demo.organizations.other.apiKey });
    expect(theirs.body.data.customGreeting).not.toBe('Hijacked');
    // an account reaches its clinics' numbers
    const account = await patchNumber({ name: 'Set by the account' }, mainLine(), t.demo.organizations.account.apiKey);
    expect(account.status).toBe(200);
  });

  it('refuses a change to a read-only credential (403 / FORBIDDEN)', async () => {
    const token = await t.accessToken('clinicReadOnly');
    expect((await patchNumber({ speed: 1 }, mainLine(), token)).status).toBe(403);
    expect((await t.gql(UPDATE, { id: mainLine(), input: { speed: 1 } }, { token })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it("puts a new open greeting into the number's availability at once (the read model hears of the change)", async () => {
    const clinic = t.demo.organizations.clinic.id;
    await t.rest('POST', `/v1/organizations/${clinic}/office-hours`, {
      json: { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [] },
    });
    const greeting = async () =>
      (await t.rest('GET', `/v1/organizations/${clinic}/availability?at=2026-03-09T14:30:00Z&medium=PHONE&phoneNumberId=${mainLine()}`))
        .body.data.greeting;
    const before = await greeting(); // read once, so that the read model holds the number
    expect((await patchNumber({ customGreeting: 'Welcome to the new front desk' })).status).toBe(200);
    expect(await greeting()).toBe('Welcome to the new front desk');
    expect(before).not.toBe('Welcome to the new front desk');
  });
});

describe('registering, detaching and removing a number', () => {
  const REGISTER = `mutation ($orgId: ID!, $input: RegisterPhoneNumberInput!) { registerPhoneNumber(orgId: $orgId, input: $input) { ${SELECTION} } }`;
  const clinic = () => t.demo.organizations.clinic.id;
  const register = (json: unknown, orgId = clinic(), token?: string) =>
    t.rest('POST', `/v1/organizations/${orgId}/phone-numbers`, { json, ...(token ? { token } : {}) });
  const numbers = async (orgId = clinic()) =>
    ((await t.rest('GET', `/v1/organizations/${orgId}/phone-numbers`)).body.data.phoneNumbers as { number: string }[]).map((p) => p.number);

  it('registers a number with its settings, in canonical form, answering for a bot of the organization', async () => {
    const res = await register({ number: '+4402079460000', botId: t.demo.bots.clinic[1], name: 'London line', speed: 0.9 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      orgId: clinic(),
      botId: t.demo.bots.clinic[1],
      number: '+442079460000',
      name: 'London line',
      speed: 0.9,
      language: 'ENGLISH',
      voiceId: 'FRIENDLY_BRIGHT',
      customGreeting: '',
    });
    expect(await numbers()).toContain('+442079460000');
    const gql = await t.gql(REGISTER, { orgId: clinic(), input: { number: '+14155552671' } });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.registerPhoneNumber).toMatchObject({ number: '+14155552671', botId: null });
  });

  it('registers a number once across the service: a second registration, by anyone, is a 409 naming no owner', async () => {
    expect((await register({ number: '+14155552671' })).status).toBe(200);
    const again = await register({ number: '+1 (415) 555-2671'.replace(/[ ()-]/g, '') });
    expect(again.status).toBe(409);
    const elsewhere = await register({ number: '+14155552671' }, t.demo.organizations.other.id, t.demo.organizations.other.apiKey);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.message).toBe('This number is already registered');
    expect(elsewhere.body).toEqual({ ...again.body, requestId: elsewhere.body.requestId });
    const gql = await t.gql(REGISTER, { orgId: clinic(), input: { number: '+14155552671' } });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('lets exactly one of many registrations of one number at the same instant through, across tenants', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? register({ number: '+14155552699' })
          : register({ number: '+14155552699' }, t.demo.organizations.other.id, t.demo.organizations.other.apiKey),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
    expect(await t.db.prisma.phoneNumber.count({ where: { number: '+14155552699' } })).toBe(1);
  });

  const invalid: [string, Record<string, unknown>, number, string][] = [
    ['no number', { name: 'Nameless' }, 400, 'number: must be a phone number in E.164 form'],
    ['a number of no number plan', { number: '+999123456789' }, 400, 'number: is not a valid phone number'],
    ['a local spelling', { number: '(415) 555-2671' }, 400, 'number: must be a phone number in E.164 form'],
    ['speed 1e9', { number: '+14155552671', speed: 1e9 }, 400, 'speed: must be a number from 0.7 to 1.2'],
    ['a malformed bot id', { number: '+14155552671', botId: 'front-desk' }, 400, 'botId: must be a UUID'],
  ];
  for (const [name, body, status, message] of invalid) {
    it(`answers ${status} for ${name}, registering nothing`, async () => {
      const res = await register(body);
      expect(res.status).toBe(status);
      expect(res.body.message).toContain(message);
      expect(await numbers()).toHaveLength(2);
    });
  }

  it("refuses another tenant's bot (404, like a missing one) and another location's bot (400 naming botId)", async () => {
    const foreign = await register({ number: '+14155552671', botId: t.demo.bots.other[0] });
    expect(foreign.status).toBe(404);
    const account = t.demo.organizations.account.apiKey;
    const sibling = await register({ number: '+14155552671', botId: t.demo.bots.clinic2[0] }, clinic(), account);
    expect(sibling.status).toBe(400);
    expect(sibling.body.message).toBe('botId: must be a bot of the same organization');
    expect((await register({ number: '+14155552671' }, t.demo.organizations.other.id)).status).toBe(404);
    expect(await numbers()).toHaveLength(2);
  });

  it('detaches a number from its bot (once: a second detach changes nothing), on both surfaces', async () => {
    const main = t.demo.phoneNumbers.clinic[0]!;
    const res = await t.rest('POST', `/v1/phone-numbers/${main}/detach`);
    expect(res.status).toBe(200);
    expect(res.body.data.botId).toBeNull();
    const gql = await t.gql('mutation ($p: ID!) { detachPhoneNumber(phoneNumberId: $p) { botId } }', { p: main });
    expect(gql.body.data.detachPhoneNumber).toEqual({ botId: null });
    expect(await t.db.prisma.event.count({ where: { type: 'phone_number.detached', subjectId: main } })).toBe(1);
    expect((await t.rest('POST', `/v1/phone-numbers/${t.demo.phoneNumbers.other[0]}/detach`)).status).toBe(404);
  });

  it('removes a number, but not while a queued call uses it as caller id (409 with how many); past calls keep the id', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const main = t.demo.phoneNumbers.clinic[0]!;
    // the demo's own queued call is placed from the main line too: out of the way first
    expect((await t.rest('POST', `/v1/call-requests/${t.demo.callRequests.clinic.queued}/cancel`)).status).toBe(200);
    const call = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: main, to: '+15005550006' },
    });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const refused = await t.rest('DELETE', `/v1/phone-numbers/${main}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('1 call request is queued or in progress with this number as caller id; cancel them first');
    const gqlRefused = await t.gql('mutation ($p: ID!) { deletePhoneNumber(phoneNumberId: $p) }', { p: main });
    expect(gqlRefused.body.errors[0].extensions.code).toBe('CONFLICT');
    const id = call.body.data.callRequestId ?? call.body.data.id;
    expect((await t.rest('POST', `/v1/call-requests/${id}/cancel`)).status).toBe(200);
    const res = await t.rest('DELETE', `/v1/phone-numbers/${main}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: main, deleted: true });
    expect((await t.rest('DELETE', `/v1/phone-numbers/${main}`)).status).toBe(404);
    expect((await t.rest('GET', `/v1/call-requests/${id}`)).body.data.status).toBe('canceled');
    // a call placed with the removed number is a 404 naming it, never a call without a caller id
    const later = await t.rest('POST', '/v1/call-requests', {
      json: { botId: t.demo.bots.clinic[0], phoneNumberId: main, to: '+15005550006' },
    });
    expect(later.status).toBe(404);
  });

  it("never removes another tenant's number; refuses a read-only credential", async () => {
    const foreign = await t.rest('DELETE', `/v1/phone-numbers/${t.demo.phoneNumbers.other[0]}`);
    expect(foreign.status).toBe(404);
    const token = await t.accessToken('clinicReadOnly');
    expect((await t.rest('DELETE', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}`, { token })).status).toBe(403);
    expect((await register({ number: '+14155552671' }, clinic(), token)).status).toBe(403);
    expect(await numbers()).toHaveLength(2);
    const theirs = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/phone-numbers`, {
      token: t.demo.organizations.other.apiKey,
    });
    expect(theirs.body.data.phoneNumbers).toHaveLength(1);
  });
});
