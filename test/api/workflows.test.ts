// Bots and their workflows through REST and GraphQL (spec §2 "Workflow", §4 "Workflows"): the list of an
// organization's bots, the portable export of a bot's workflows, its import into another bot, and replacing a
// bot's workflows under the version rule (it grows exactly when they change; a stale version is a 409).
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';
import { graphql } from '../generated/index.js';
import { demoExport } from './cases/demoWorkflow.js';

const t = useTestApp();

const STEP_FIELDS = 'title description instructions order examples action actionMetadata { templateName templateBody }';
const WORKFLOW_FIELDS = `id title description enabled usageContext steps { ${STEP_FIELDS} childSteps { ${STEP_FIELDS} } }`;
const BOT = `query($id: ID!) { bot(id: $id) { id name createdAt workflows { ${WORKFLOW_FIELDS} } } }`;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

const withoutId = ({ id: _id, ...rest }: { id: string }) => rest;

/** What every demo bot of the clinic answers besides its id and name. */
const demoBot = (t: TestApp) => ({
  orgId: t.demo.organizations.clinic.id,
  enabled: true,
  templateId: null,
  templateVersion: null,
  workflowsVersion: 1,
  createdAt: expect.stringMatching(ISO),
  updatedAt: expect.stringMatching(ISO),
});

describe('GET /v1/organizations/{orgId}/bots and Organization.bots', () => {
  it("lists the organization's bots, oldest first", async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}/bots`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        bots: [
          { id: t.demo.bots.clinic[0], name: 'Front desk', ...demoBot(t) },
          { id: t.demo.bots.clinic[1], name: 'After hours', ...demoBot(t) },
        ],
      },
    });
    const gql = await t.gql(
      'query($id: ID!) { organization(id: $id) { bots { id name orgId enabled templateId templateVersion workflowsVersion createdAt updatedAt } } }',
      { id: t.demo.organizations.clinic.id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(
      gql.body.data.organization.bots.map((b: Schemas['Bot']) => ({
        ...b,
        createdAt: new Date(b.createdAt).toISOString(),
        updatedAt: new Date(b.updatedAt).toISOString(),
      })),
    ).toEqual(res.body.data.bots);
  });

  it("lets an account organization list a child's bots", async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic2.id}/bots`, {
      token: t.demo.organizations.account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.bots.map((b: Schemas['Bot']) => b.id)).toEqual(t.demo.bots.clinic2);
  });

  it("answers 404 for another tenant's organization", async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}/bots`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: 'Organization not found' });
    const gql = await t.gql(
      graphql(`
        query WorkflowsForeignOrganizationBots($id: ID!) {
          organization(id: $id) {
            bots {
              id
            }
          }
        }
      `),
      { id: t.demo.organizations.other.id },
    );
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('GET /v1/bots/{botId}/workflows and Query.bot', () => {
  it('exports every workflow of the bot in the portable form, steps ordered, child steps nested', async () => {
    const res = await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.workflows).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...demoExport('Front desk scheduling') }]);
  });

  it('answers the same workflows on GraphQL', async () => {
    const rest = await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`);
    const res = await t.gql(BOT, { id: t.demo.bots.clinic[0] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.bot).toMatchObject({ id: t.demo.bots.clinic[0], name: 'Front desk', createdAt: expect.any(String) });
    expect(res.body.data.bot.workflows).toEqual(rest.body.data.workflows);
  });

  it('orders workflows and steps by order, whatever order they were created in', async () => {
    const botId = t.demo.bots.clinic[1]!;
    const wf = await t.db.prisma.workflow.create({ data: { botId, title: 'First', order: -5 } });
    await t.db.prisma.workflowStep.createMany({
      data: [
        { workflowId: wf.id, title: 'c', order: 3 },
        { workflowId: wf.id, title: 'a', order: 1 },
        { workflowId: wf.id, title: 'b', order: 2 },
      ],
    });
    const res = await t.rest('GET', `/v1/bots/${botId}/workflows`);
    expect(res.body.data.workflows.map((w: Schemas['Workflow']) => w.title)).toEqual(['First', 'After hours scheduling']);
    expect(res.body.data.workflows[0].steps.map((s: Schemas['Step']) => s.title)).toEqual(['a', 'b', 'c']);
    expect(res.body.data.workflows[0].steps[0]).toEqual({
      title: 'a',
      description: '',
      instructions: '',
      order: 1,
      examples: [],
      action: '',
      actionMetadata: null,
      childSteps: [],
    });
  });

  it("answers 404 for another tenant's bot and an unknown bot; 400 for a malformed id", async () => {
    for (const id of [t.demo.bots.other[0], UNKNOWN]) {
      const res = await t.rest('GET', `/v1/bots/${id}/workflows`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: 'Bot not found' });
      const gql = await t.gql(BOT, { id });
      expect(gql.body.data.bot).toBeNull();
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const bad = await t.rest('GET', '/v1/bots/nope/workflows');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('botId: must be a UUID');
    expect((await t.gql(BOT, { id: 'nope' })).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it("lets an account organization read its child's bot, and a child not its sibling's", async () => {
    const account = await t.rest('GET', `/v1/bots/${t.demo.bots.clinic2[0]}/workflows`, { token: t.demo.organizations.account.apiKey });
    expect(account.status).toBe(200);
    expect(account.body.data.workflows[0].title).toBe('Lakeside desk scheduling');
    const sibling = await t.rest('GET', `/v1/bots/${t.demo.bots.clinic2[0]}/workflows`);
    expect(sibling.status).toBe(404);
  });

  it('is readable with a read-only OAuth client', async () => {
    const token = await t.accessToken('clinicReadOnly');
    expect((await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`, { token })).status).toBe(200);
    expect((await t.gql(BOT, { id: t.demo.bots.clinic[0] }, { token })).body.data.bot.workflows).toHaveLength(1);
  });
});

describe('POST /v1/bots/{botId}/workflows/import', () => {
  it('round-trips: export one bot, import into another, export again gives the same content', async () => {
    const [source, target] = t.demo.bots.clinic as [string, string];
    const exported = (await t.rest('GET', `/v1/bots/${source}/workflows`)).body.data;
    const before = (await t.rest('GET', `/v1/bots/${target}/workflows`)).body.data.workflows;

    const imported = await t.rest('POST', `/v1/bots/${target}/workflows/import`, { json: exported });
    expect(imported.status).toBe(200);
    expect(imported.body.success).toBe(true);
    const created = imported.body.data.workflows;
    expect(created.map(withoutId)).toEqual(exported.workflows.map(withoutId));
    expect(created[0].id).not.toBe(exported.workflows[0].id);

    const after = (await t.rest('GET', `/v1/bots/${target}/workflows`)).body.data.workflows;
    // the copies come after the bot's own workflows, which are untouched
    expect(after).toEqual([...before, ...created]);
    expect(after.slice(before.length).map(withoutId)).toEqual(exported.workflows.map(withoutId));
    // the source is unchanged
    expect((await t.rest('GET', `/v1/bots/${source}/workflows`)).body.data).toEqual(exported);
    // GraphQL sees the copies too
    expect((await t.gql(BOT, { id: target })).body.data.bot.workflows).toEqual(after);
  });

  it("imports into a child's bot with the account's key, and copies several workflows in order", async () => {
    const workflows = [
      { title: 'One', steps: [{ title: 'x' }] },
      {
        title: 'Two',
        enabled: false,
        steps: [
          { title: 'y', order: 2 },
          { title: 'z', order: 1, childSteps: [{ title: 'w' }] },
        ],
      },
      { title: 'Three' },
    ];
    const res = await t.rest('POST', `/v1/bots/${t.demo.bots.clinic2[0]}/workflows/import`, {
      token: t.demo.organizations.account.apiKey,
      json: { workflows },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.workflows.map((w: Schemas['Workflow']) => [w.title, w.enabled, w.steps.map((s) => s.title)])).toEqual([
      ['One', true, ['x']],
      ['Two', false, ['z', 'y']],
      ['Three', true, []],
    ]);
    expect(res.body.data.workflows[1].steps[0].childSteps).toEqual([
      { title: 'w', description: '', instructions: '', order: 1, examples: [], action: '', actionMetadata: null },
    ]);
    const all = (await t.rest('GET', `/v1/bots/${t.demo.bots.clinic2[0]}/workflows`, { token: t.demo.organizations.account.apiKey })).body
      .data.workflows;
    expect(all.map((w: Schemas['Workflow']) => w.title)).toEqual(['Lakeside desk scheduling', 'One', 'Two', 'Three']);
  });

  it('accepts an empty list', async () => {
    const res = await t.rest('POST', `/v1/bots/${t.demo.bots.clinic[1]}/workflows/import`, { json: { workflows: [] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ version: 1, workflows: [] });
  });

  it("answers 404 for another tenant's bot and an unknown bot, and writes nothing there", async () => {
    const exported = (await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`)).body.data;
    for (const id of [t.demo.bots.other[0], UNKNOWN]) {
      const res = await t.rest('POST', `/v1/bots/${id}/workflows/import`, { json: exported });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: 'Bot not found' });
    }
    const other = await t.rest('GET', `/v1/bots/${t.demo.bots.other[0]}/workflows`, { token: t.demo.organizations.other.apiKey });
    expect(other.body.data.workflows.map((w: Schemas['Workflow']) => w.title)).toEqual(['Rezeption scheduling']);
  });

  it('answers 403 to a read-only OAuth client', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const res = await t.rest('POST', `/v1/bots/${t.demo.bots.clinic[1]}/workflows/import`, {
      token,
      json: { workflows: [{ title: 'x' }] },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('templates:write');
    expect((await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[1]}/workflows`)).body.data.workflows).toHaveLength(1);
  });

  const invalid: { name: string; body: unknown; message: string }[] = [
    { name: 'no workflows', body: {}, message: 'workflows: is required' },
    { name: 'workflows not an array', body: { workflows: 'x' }, message: 'workflows: must be an array of workflows' },
    {
      name: 'more than 100 workflows',
      body: { workflows: Array.from({ length: 101 }, (_, i) => ({ title: `W${i}` })) },
      message: 'workflows: must have at most 100 workflows',
    },
    {
      name: 'more than 200 steps in a workflow',
      body: { workflows: [{ title: 'W', steps: Array.from({ length: 201 }, (_, i) => ({ title: `S${i}` })) }] },
      message: 'workflows.0.steps: must have at most 200 steps',
    },
    { name: 'a workflow without title', body: { workflows: [{ title: 'ok' }, { steps: [] }] }, message: 'workflows.1.title: is required' },
    {
      name: 'nested child steps',
      body: { workflows: [{ title: 'W', steps: [{ title: 'S', childSteps: [{ title: 'C', childSteps: [{ title: 'D' }] }] }] }] },
      message: 'workflows.0.steps.0.childSteps.0.childSteps: child steps cannot have childSteps (one level only)',
    },
    { name: 'a template-only property', body: { workflows: [{ title: 'W', order: 1 }] }, message: 'workflows.0: unknown property "order"' },
    { name: 'an unknown top-level property', body: { workflows: [], bot: 'x' }, message: 'unknown property "bot"' },
  ];
  for (const c of invalid) {
    it(`refuses ${c.name} (400) and writes nothing`, async () => {
      const res = await t.rest('POST', `/v1/bots/${t.demo.bots.clinic[1]}/workflows/import`, { json: c.body });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain(c.message);
      expect((await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[1]}/workflows`)).body.data.workflows).toHaveLength(1);
    });
  }
});

describe('PUT /v1/bots/{botId}/workflows and replaceBotWorkflows', () => {
  const REPLACE = `mutation($b: ID!, $w: [BotWorkflowInput!]!, $v: Int) {
    replaceBotWorkflows(botId: $b, workflows: $w, version: $v) { version changed workflows { ${WORKFLOW_FIELDS} } }
  }`;
  const recall = {
    title: 'Recall',
    usageContext: 'Six-month recalls',
    steps: [
      { title: 'Greet', order: 2 },
      { title: 'Check', order: 1 },
    ],
  };

  it('replaces the workflows in order, moves the version by one, and answers what GET then answers', async () => {
    const bot = t.demo.bots.clinic[0]!;
    const before = (await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data;
    expect(before.version).toBe(1);
    const res = await t.rest('PUT', `/v1/bots/${bot}/workflows`, { json: { version: 1, workflows: [recall, { title: 'Billing' }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ version: 2, changed: true });
    expect(res.body.data.workflows.map((w: { title: string }) => w.title)).toEqual(['Recall', 'Billing']);
    // steps sorted by order, defaults filled in
    expect(res.body.data.workflows[0].steps.map((s: { title: string }) => s.title)).toEqual(['Check', 'Greet']);
    expect(res.body.data.workflows[1]).toMatchObject({ description: '', enabled: true, usageContext: '', steps: [] });
    const after = (await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data;
    expect(after).toEqual({ version: 2, workflows: res.body.data.workflows });
    expect((await t.rest('GET', `/v1/bots/${bot}`)).body.data.workflowsVersion).toBe(2);
    // the old workflows are gone with their steps
    expect(await t.db.prisma.workflow.count({ where: { id: { in: before.workflows.map((w: { id: string }) => w.id) } } })).toBe(0);
    const event = await t.db.prisma.event.findFirstOrThrow({ where: { type: 'workflows.replaced', subjectId: bot } });
    expect(event.previous).toEqual({ version: 1, workflowCount: before.workflows.length });
    expect((event.data as { version: number }).version).toBe(2);
  });

  it('writes nothing when the workflows equal the stored ones (the export sent back as is): same version, no event', async () => {
    const bot = t.demo.bots.clinic[0]!;
    const exported = (await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data;
    const res = await t.rest('PUT', `/v1/bots/${bot}/workflows`, { json: exported });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ version: 1, changed: false, workflows: exported.workflows });
    expect(await t.db.prisma.event.count({ where: { type: 'workflows.replaced' } })).toBe(0);
  });

  it('refuses a stale version with 409 on both surfaces and writes nothing; an import moves the version too', async () => {
    const bot = t.demo.bots.clinic[1]!;
    const imported = await t.rest('POST', `/v1/bots/${bot}/workflows/import`, { json: { workflows: [{ title: 'Extra' }] } });
    expect(imported.body.data.version).toBe(2);
    const stale = await t.rest('PUT', `/v1/bots/${bot}/workflows`, { json: { version: 1, workflows: [recall] } });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('version 2, not 1');
    const gql = await t.gql(REPLACE, { b: bot, w: [recall], v: 1 });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data.workflows.map((w: { title: string }) => w.title)).not.toContain(
      'Recall',
    );
    const fresh = await t.gql(REPLACE, { b: bot, w: [recall], v: 2 });
    expect(fresh.body.errors).toBeUndefined();
    expect(fresh.body.data.replaceBotWorkflows).toMatchObject({ version: 3, changed: true });
    const rest = (await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data;
    expect(fresh.body.data.replaceBotWorkflows.workflows).toEqual(rest.workflows);
  });

  it('lets one of two replaces naming the same version through, and the other is a 409', async () => {
    const bot = t.demo.bots.clinic[0]!;
    const answers = await Promise.all(
      ['A', 'B'].map((title) => t.rest('PUT', `/v1/bots/${bot}/workflows`, { json: { version: 1, workflows: [{ title }] } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const after = (await t.rest('GET', `/v1/bots/${bot}/workflows`)).body.data;
    expect(after.version).toBe(2);
    expect(after.workflows).toHaveLength(1);
  });

  it("needs bots:write, and answers another tenant's bot as a missing one", async () => {
    const token = await t.accessToken('clinicReadOnly');
    const readOnly = await t.rest('PUT', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`, { token, json: { workflows: [] } });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toContain('bots:write');
    const foreign = await t.rest('PUT', `/v1/bots/${t.demo.bots.other[0]}/workflows`, { json: { workflows: [] } });
    const missing = await t.rest('PUT', `/v1/bots/${UNKNOWN}/workflows`, { json: { workflows: [] } });
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(foreign.body.message).toBe(missing.body.message);
    expect(
      (await t.rest('GET', `/v1/bots/${t.demo.bots.other[0]}/workflows`, { token: t.demo.organizations.other.apiKey })).body.data.version,
    ).toBe(1);
  });

  it('names a bad version or workflow by its path, on both surfaces', async () => {
    const bot = t.demo.bots.clinic[0]!;
    for (const version of [0, 1.5, '2', 2 ** 31]) {
      const res = await t.rest('PUT', `/v1/bots/${bot}/workflows`, { json: { version, workflows: [] } });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('version: must be the version of the workflows read');
    }
    const gql = await t.gql(REPLACE, { b: bot, w: [{ title: '' }] });
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors[0].extensions.issues[0].path).toBe('workflows.0.title');
  });
});
