// Bots' lifecycle (docs/decisions.md §18) on both surfaces: create (empty or from a template), read, list with
// filters, rename, switch off and on, unlink from the template, delete (refused while numbers or calls hang on
// the bot, unless forced). What a switched-off or deleted bot does to calls is checked on the claims.
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

const NOW = '2026-03-02T15:00:00Z';
const MISSING = '00000000-0000-4000-8000-000000000000';
const FIELDS = ['id', 'orgId', 'name', 'enabled', 'templateId', 'templateVersion', 'workflowsVersion', 'createdAt', 'updatedAt'];
const SELECTION = FIELDS.join(' ');

const clinicId = (t: TestApp) => t.demo.organizations.clinic.id;
const createRest = (t: TestApp, json: unknown, orgId = clinicId(t), token?: string) =>
  t.rest('POST', `/v1/organizations/${orgId}/bots`, { json, ...(token ? { token } : {}) });
const createGql = (t: TestApp, input: Record<string, unknown>, orgId = clinicId(t)) =>
  t.gql(`mutation($o: ID!, $i: CreateBotInput!) { createBot(orgId: $o, input: $i) { ${SELECTION} workflows { title steps { title } } } }`, {
    o: orgId,
    i: input,
  });
const place = (t: TestApp, botId: string, phoneNumberId: string) =>
  t.rest('POST', '/v1/call-requests', { json: { botId, phoneNumberId, to: '+15005550006' } });
const claim = async (t: TestApp) => {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 10 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.claims as { leaseId: string; callRequest: { callRequestId: string } }[];
};
const code = (res: { body: { errors?: { extensions?: { code?: string } }[] } }) => res.body.errors?.[0]?.extensions?.code;

/** A bot of the clinic with a number of its own attached (registered through the API). */
async function botWithNumber(t: TestApp, number = '+14155552671') {
  const bot = (await createRest(t, { name: 'Recall caller' })).body.data;
  const phone = await t.rest('POST', `/v1/organizations/${clinicId(t)}/phone-numbers`, { json: { number, botId: bot.id } });
  expect(phone.status, JSON.stringify(phone.body)).toBe(200);
  return { botId: bot.id as string, phoneNumberId: phone.body.data.id as string };
}

describe('creating a bot', () => {
  it('answers the bot with every field, and GET, the list and GraphQL answer the same', async () => {
    t.clock.set(NOW);
    const res = await createRest(t, { name: '  Recall caller  ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const bot = res.body.data;
    expect(Object.keys(bot).sort()).toEqual([...FIELDS].sort());
    expect(bot).toEqual({
      id: expect.any(String),
      orgId: clinicId(t),
      name: 'Recall caller',
      enabled: true,
      templateId: null,
      templateVersion: null,
      workflowsVersion: 1,
      createdAt: '2026-03-02T15:00:00.000Z',
      updatedAt: '2026-03-02T15:00:00.000Z',
    });
    expect((await t.rest('GET', `/v1/bots/${bot.id}`)).body.data).toEqual(bot);
    const list = (await t.rest('GET', `/v1/organizations/${clinicId(t)}/bots`)).body.data.bots;
    expect(list.map((b: { name: string }) => b.name).sort()).toEqual(['After hours', 'Front desk', 'Recall caller']);
    expect(list).toContainEqual(bot);
    const viaGql = await t.gql(`query($id: ID!) { bot(id: $id) { ${SELECTION} workflows { id } } }`, { id: bot.id });
    expect(viaGql.body.data.bot).toEqual({ ...bot, workflows: [] });
  });

  it('from a template: starts with its workflow and keeps its id and version (REST and GraphQL)', async () => {
    const templateId = t.demo.templates.clinic[0]!;
    const template = (await t.rest('GET', `/v1/templates/${templateId}`)).body.data;
    expect(template.workflow).not.toBeNull();
    const created = await createRest(t, { name: 'From template', templateId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const rest = created.body.data;
    expect(rest).toMatchObject({ templateId, templateVersion: template.version });
    const workflows = (await t.rest('GET', `/v1/bots/${rest.id}/workflows`)).body.data.workflows;
    expect(workflows).toHaveLength(1);
    const { order: _order, ...portable } = template.workflow;
    expect(workflows[0]).toEqual({ id: expect.any(String), ...portable });

    const gql = await createGql(t, { name: 'From template too', templateId: templateId.toUpperCase() });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createBot).toMatchObject({ templateId, templateVersion: template.version, enabled: true });
    expect(gql.body.data.createBot.workflows.map((w: { title: string }) => w.title)).toEqual([template.workflow.title]);
  });

  it("refuses another tenant's template or organization exactly like missing ones, and creates nothing", async () => {
    const before = await t.deps.db.bot.count();
    const foreignTemplate = await createRest(t, { name: 'X', templateId: t.demo.templates.other[0] });
    const missingTemplate = await createRest(t, { name: 'X', templateId: MISSING });
    expect(foreignTemplate.status).toBe(404);
    expect(foreignTemplate.body).toEqual(missingTemplate.body);
    const foreignOrg = await createRest(t, { name: 'X' }, t.demo.organizations.other.id);
    const missingOrg = await createRest(t, { name: 'X' }, MISSING);
    expect(foreignOrg.status).toBe(404);
    expect(foreignOrg.body).toEqual(missingOrg.body);
    expect(code(await createGql(t, { name: 'X', templateId: t.demo.templates.other[0] }))).toBe('NOT_FOUND');
    expect(await t.deps.db.bot.count()).toBe(before);
  });

  it('refuses bad input with a 400 naming the field, on both surfaces', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name: '],
      [{ name: '   ' }, 'name: must not be empty'],
      [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
      [{ name: 'A\u0000B' }, 'name: '],
      [{ name: 'A', enabled: 'yes' }, 'enabled: must be true or false'],
      [{ name: 'A', templateId: 'abc' }, 'templateId: must be a UUID'],
      [{ name: 'A', color: 'red' }, 'unknown property "color"'],
    ];
    for (const [body, message] of cases) {
      const res = await createRest(t, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(message);
    }
    const gql = await createGql(t, { name: ' ' });
    expect(code(gql)).toBe('BAD_USER_INPUT');
    expect(gql.body.errors[0].message).toContain('name: must not be empty');
  });

  it('holds at most 100 bots per organization, also when creates arrive together', async () => {
    const existing = await t.deps.db.bot.count({ where: { orgId: clinicId(t) } });
    await t.deps.db.bot.createMany({ data: Array.from({ length: 98 - existing }, (_, i) => ({ orgId: clinicId(t), name: `Bot ${i}` })) });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => createRest(t, { name: `Racer ${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body.message).toContain('at most 100 bots');
    expect(await t.deps.db.bot.count({ where: { orgId: clinicId(t) } })).toBe(100);
  });
});

describe('listing bots', () => {
  it('filters by enabled and by template on both surfaces; a bad filter is a 400', async () => {
    const templateId = t.demo.templates.clinic[0]!;
    const fromTemplate = (await createRest(t, { name: 'Templated', templateId })).body.data;
    const off = (await createRest(t, { name: 'Off', enabled: false })).body.data;
    const names = async (query: string) =>
      (await t.rest('GET', `/v1/organizations/${clinicId(t)}/bots?${query}`)).body.data.bots.map((b: { name: string }) => b.name);
    expect(await names('enabled=false')).toEqual([off.name]);
    expect(await names('enabled=true')).toEqual(['Front desk', 'After hours', 'Templated']);
    expect(await names(`templateId=${templateId}`)).toEqual([fromTemplate.name]);
    expect(await names(`templateId=${templateId}&enabled=false`)).toEqual([]);
    const bad = await t.rest('GET', `/v1/organizations/${clinicId(t)}/bots?enabled=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('enabled: must be true or false');
    const gql = await t.gql(
      'query($id: ID!, $tpl: ID) { organization(id: $id) { off: bots(enabled: false) { name } tpl: bots(templateId: $tpl) { name } } }',
      {
        id: clinicId(t),
        tpl: templateId,
      },
    );
    expect(gql.body.data.organization).toEqual({ off: [{ name: 'Off' }], tpl: [{ name: 'Templated' }] });
  });
});

describe('changing a bot', () => {
  it('renames it and switches it off, recording the values replaced; a change to nothing writes no event', async () => {
    const botId = t.demo.bots.clinic[0]!;
    t.clock.set('2026-03-03T09:00:00Z');
    const res = await t.rest('PATCH', `/v1/bots/${botId}`, { json: { name: 'Reception', enabled: false } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: botId, name: 'Reception', enabled: false, updatedAt: '2026-03-03T09:00:00.000Z' });
    const event = await t.deps.db.event.findFirstOrThrow({ where: { subjectId: botId, type: 'bot.updated' } });
    expect(event.previous).toEqual({ name: 'Front desk', enabled: true });
    const events = await t.deps.db.event.count();
    const again = await t.gql('mutation($b: ID!) { updateBot(botId: $b, input: {name: "Reception"}) { name enabled } }', { b: botId });
    expect(again.body.data.updateBot).toEqual({ name: 'Reception', enabled: false });
    expect(await t.deps.db.event.count()).toBe(events);
  });

  it('refuses an empty change, a templateId other than null, and bots out of reach', async () => {
    const botId = t.demo.bots.clinic[0]!;
    const empty = await t.rest('PATCH', `/v1/bots/${botId}`, { json: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('nothing to update');
    const relink = await t.rest('PATCH', `/v1/bots/${botId}`, { json: { templateId: t.demo.templates.clinic[0] } });
    expect(relink.status).toBe(400);
    expect(relink.body.message).toContain('templateId: must be null');
    const gqlRelink = await t.gql('mutation($b: ID!, $t: ID) { updateBot(botId: $b, input: {templateId: $t}) { id } }', {
      b: botId,
      t: t.demo.templates.clinic[0],
    });
    expect(code(gqlRelink)).toBe('BAD_USER_INPUT');
    const foreign = await t.rest('PATCH', `/v1/bots/${t.demo.bots.other[0]}`, { json: { name: 'Mine' } });
    const missing = await t.rest('PATCH', `/v1/bots/${MISSING}`, { json: { name: 'Mine' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });
});

describe('a disabled bot', () => {
  it('takes no new calls (409), and its queued calls wait until it is enabled again', async () => {
    t.clock.set(NOW);
    const botId = t.demo.bots.clinic[0]!;
    const phoneNumberId = t.demo.phoneNumbers.clinic[0]!;
    const queued = await place(t, botId, phoneNumberId);
    expect(queued.status).toBe(200);
    await t.rest('PATCH', `/v1/bots/${botId}`, { json: { enabled: false } });
    const refused = await place(t, botId, phoneNumberId);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('is disabled');
    const gql = await t.gql(
      'mutation($b: ID!, $p: ID!) { createCallRequest(input: {botId: $b, phoneNumberId: $p, to: "+15005550006"}) { callRequestId } }',
      {
        b: botId,
        p: phoneNumberId,
      },
    );
    expect(code(gql)).toBe('CONFLICT');
    expect(await claim(t)).toEqual([]);
    await t.rest('PATCH', `/v1/bots/${botId}`, { json: { enabled: true } });
    expect((await claim(t)).map((c) => c.callRequest.callRequestId)).toEqual([queued.body.data.callRequestId]);
  });
});

describe('deleting a bot', () => {
  it('deletes a bot with nothing attached, its workflows with it; a second delete is a 404', async () => {
    const botId = t.demo.bots.clinic[1]!;
    expect(await t.deps.db.workflow.count({ where: { botId } })).toBeGreaterThan(0);
    const res = await t.rest('DELETE', `/v1/bots/${botId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ id: botId, deleted: true, detachedPhoneNumbers: [], canceledCallRequests: [] });
    expect(await t.deps.db.workflow.count({ where: { botId } })).toBe(0);
    expect((await t.rest('GET', `/v1/bots/${botId}`)).status).toBe(404);
    expect((await t.rest('DELETE', `/v1/bots/${botId}`)).status).toBe(404);
    expect(code(await t.gql('mutation($b: ID!) { deleteBot(botId: $b) { id } }', { b: botId }))).toBe('NOT_FOUND');
  });

  it('is refused while numbers are attached or calls queued, saying what; force detaches and cancels them', async () => {
    t.clock.set(NOW);
    const { botId, phoneNumberId } = await botWithNumber(t);
    const call = (await place(t, botId, phoneNumberId)).body.data.callRequestId;
    const refused = await t.rest('DELETE', `/v1/bots/${botId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `Bot ${botId} has 1 phone number attached and 1 call request queued; detach and cancel them first, or delete with force=true`,
    );
    expect(code(await t.gql('mutation($b: ID!) { deleteBot(botId: $b, force: false) { id } }', { b: botId }))).toBe('CONFLICT');

    const before = await t.deps.db.event.findFirstOrThrow({ orderBy: { seq: 'desc' } });
    const forced = await t.gql(
      'mutation($b: ID!) { deleteBot(botId: $b, force: true) { id deleted detachedPhoneNumbers canceledCallRequests } }',
      {
        b: botId,
      },
    );
    expect(forced.body.errors).toBeUndefined();
    expect(forced.body.data.deleteBot).toEqual({
      id: botId,
      deleted: true,
      detachedPhoneNumbers: [phoneNumberId],
      canceledCallRequests: [call],
    });
    const events = await t.deps.db.event.findMany({ where: { seq: { gt: before.seq } }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => `${e.type} ${e.subjectId}`)).toEqual([
      `phone_number.detached ${phoneNumberId}`,
      `call_request.canceled ${call}`,
      `bot.deleted ${botId}`,
    ]);
    expect((await t.rest('GET', `/v1/phone-numbers/${phoneNumberId}`)).body.data.botId).toBeNull();
    expect((await t.rest('GET', `/v1/call-requests/${call}`)).body.data).toMatchObject({ status: 'canceled' });
    // the request keeps the id of the bot it was placed for
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id: call } })).botId).toBe(botId);
  });

  it('never cuts off a call in progress, forced or not', async () => {
    t.clock.set(NOW);
    const { botId, phoneNumberId } = await botWithNumber(t);
    const call = (await place(t, botId, phoneNumberId)).body.data.callRequestId;
    const [claimed] = await claim(t);
    expect((await t.rest('POST', `/v1/call-requests/${call}/start`, { json: { leaseId: claimed!.leaseId } })).status).toBe(200);
    const res = await t.rest('DELETE', `/v1/bots/${botId}?force=true`);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('1 call of this bot is in progress; delete it once they have ended');
    expect(await t.deps.db.bot.count({ where: { id: botId } })).toBe(1);
  });

  it('takes the scopes of what force does; a restricted key without them changes nothing', async () => {
    t.clock.set(NOW);
    const { botId, phoneNumberId } = await botWithNumber(t);
    const key = await t.rest('POST', '/v1/api-keys', { json: { name: 'Bots only', scopes: ['bots:read', 'bots:write'] } });
    const token = key.body.data.apiKey as string;
    const res = await t.rest('DELETE', `/v1/bots/${botId}?force=true`, { token });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('phone-numbers:write');
    expect((await t.rest('GET', `/v1/phone-numbers/${phoneNumberId}`)).body.data.botId).toBe(botId);
    const bad = await t.rest('DELETE', `/v1/bots/${botId}?force=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('force: must be true or false');
  });

  it('keeps the bot id on the conversations it answered', async () => {
    const botId = t.demo.bots.clinic[1]!;
    const answered = await t.deps.db.conversation.count({ where: { botId } });
    expect(answered).toBeGreaterThan(0);
    expect((await t.rest('DELETE', `/v1/bots/${botId}`)).status).toBe(200);
    expect(await t.deps.db.conversation.count({ where: { botId } })).toBe(answered);
  });
});

describe('a template bots were created from', () => {
  it('is not deleted while a bot refers to it (409 naming the bots); unlinked, it is', async () => {
    const templateId = t.demo.templates.clinic[0]!;
    const a = (await createRest(t, { name: 'Recall A', templateId })).body.data;
    const b = (await createGql(t, { name: 'Recall B', templateId })).body.data.createBot;
    const refused = await t.rest('DELETE', `/v1/templates/${templateId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`is used by bots "Recall A" (${a.id}), "Recall B" (${b.id})`);
    expect(code(await t.gql('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: templateId }))).toBe('CONFLICT');

    const unlinked = await t.rest('PATCH', `/v1/bots/${a.id}`, { json: { templateId: null } });
    expect(unlinked.body.data).toMatchObject({ templateId: null, templateVersion: null });
    expect((await t.gql('mutation($b: ID!) { deleteBot(botId: $b) { deleted } }', { b: b.id })).body.data.deleteBot.deleted).toBe(true);
    expect((await t.rest('DELETE', `/v1/templates/${templateId}`)).status).toBe(200);
    // the bot keeps the workflow it started with
    expect((await t.rest('GET', `/v1/bots/${a.id}/workflows`)).body.data.workflows).toHaveLength(1);
  });

  it('of a template deleted and a bot created at the same instant, one wins: never a bot pointing at nothing', async () => {
    for (let i = 0; i < 3; i++) {
      const template = (await t.rest('POST', '/v1/templates', { json: { name: `Race ${i}` } })).body.data;
      const [created, deleted] = await Promise.all([
        createRest(t, { name: `Racer ${i}`, templateId: template.id }),
        t.rest('DELETE', `/v1/templates/${template.id}`),
      ]);
      expect([created.status, deleted.status].sort()).toEqual(created.status === 200 ? [200, 409] : [200, 404]);
      const pointing = await t.deps.db.bot.findMany({ where: { templateId: template.id } });
      const templateLeft = await t.deps.db.workflowTemplate.count({ where: { id: template.id } });
      expect(pointing.length === 0 || templateLeft === 1).toBe(true);
    }
  });
});
