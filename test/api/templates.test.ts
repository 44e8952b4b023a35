// Workflow templates through REST and GraphQL (spec §2, §4 "Templates"; docs/decisions.md §3).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

type Issue = NonNullable<Schemas['ErrorEnvelope']['errors']>[number];
import { invalidTemplateCases } from './cases/templateCases.js';
import { graphql } from '../generated/index.js';
import { demoWorkflow } from './cases/demoWorkflow.js';

const t = useTestApp();

const STEP_FIELDS = 'title description instructions order examples action actionMetadata { templateName templateBody }';
const TEMPLATE_FIELDS = `id name description version createdAt variables { name type description } applicableMediums officeHoursAvailability
  workflow { title description enabled usageContext order steps { ${STEP_FIELDS} childSteps { ${STEP_FIELDS} } } }`;
const UPDATE = `mutation($id: ID!, $input: TemplateInput!) { updateTemplate(id: $id, input: $input) { ${TEMPLATE_FIELDS} } }`;
const CREATE = `mutation($input: TemplateInput!) { createTemplate(input: $input) { ${TEMPLATE_FIELDS} } }`;
const TEMPLATES = `{ templates { ${TEMPLATE_FIELDS} } }`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

async function restTemplate(id: string) {
  const res = await t.gql(TEMPLATES);
  return (res.body.data.templates as Schemas['Template'][]).find((tpl) => tpl.id === id);
}

describe('GET /v1/templates and Query.templates', () => {
  it("lists the owner organization's templates, oldest first, without workflow", async () => {
    const res = await t.rest('GET', '/v1/templates');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const templates = res.body.data.templates;
    expect(templates.map((tpl: Schemas['TemplateSummary']) => tpl.id)).toEqual(t.demo.templates.clinic);
    expect(templates[0]).toEqual({
      id: t.demo.templates.clinic[0],
      name: 'Book an appointment',
      description: 'Book an appointment template',
      version: 1,
      createdAt: expect.stringMatching(ISO),
      variables: [{ name: 'patientName', type: 'STRING', description: 'The patient name' }],
      applicableMediums: [],
      officeHoursAvailability: 'OPEN',
    });
    expect(templates[1]).toMatchObject({ name: 'Take a message', applicableMediums: ['PHONE', 'SMS'], officeHoursAvailability: 'CLOSED' });
    expect(templates[2]).toMatchObject({ name: 'Answer billing questions', applicableMediums: ['CHAT'], officeHoursAvailability: null });
    for (const tpl of templates) expect(tpl).not.toHaveProperty('workflow');
  });

  it('answers the same list on GraphQL, with each workflow', async () => {
    const rest = await t.rest('GET', '/v1/templates');
    const res = await t.gql(TEMPLATES);
    expect(res.body.errors).toBeUndefined();
    const templates = res.body.data.templates;
    expect(
      templates.map(({ workflow: _workflow, createdAt, ...rest }: Schemas['Template']) => ({
        ...rest,
        createdAt: new Date(createdAt).toISOString(),
      })),
    ).toEqual(rest.body.data.templates);
    expect(templates[0].workflow).toEqual(demoWorkflow('Book an appointment'));
  });

  it("lists only the credential owner's own templates (an account key sees none of its children's)", async () => {
    const account = await t.rest('GET', '/v1/templates', { token: t.demo.organizations.account.apiKey });
    expect(account.status).toBe(200);
    expect(account.body.data.templates).toEqual([]);
    const other = await t.rest('GET', '/v1/templates', { token: t.demo.organizations.other.apiKey });
    expect(other.body.data.templates.map((tpl: Schemas['TemplateSummary']) => tpl.id)).toEqual(t.demo.templates.other);
    const gql = await t.gql(
      graphql(`
        query TemplatesTemplates {
          templates {
            id
          }
        }
      `),
      {},
      { token: t.demo.organizations.account.apiKey },
    );
    expect(gql.body.data.templates).toEqual([]);
  });

  it('is readable with a read-only OAuth client', async () => {
    const token = await t.accessToken('clinicReadOnly');
    expect((await t.rest('GET', '/v1/templates', { token })).status).toBe(200);
    expect(
      (
        await t.gql(
          graphql(`
            query TemplatesTemplates2 {
              templates {
                id
              }
            }
          `),
          {},
          { token },
        )
      ).body.data.templates,
    ).toHaveLength(3);
  });
});

describe('PUT /v1/templates/{id} and Mutation.updateTemplate', () => {
  it('updates every field and answers the full template', async () => {
    const id = t.demo.templates.clinic[0]!;
    const input = {
      name: 'Book a visit',
      description: 'Books visits',
      variables: [
        { name: 'patientName', description: 'Who' },
        { name: 'time', type: 'STRING', description: 'When' },
      ],
      applicableMediums: ['PHONE', 'CHAT'],
      officeHoursAvailability: 'CLOSED',
      workflow: {
        title: 'Booking',
        steps: [
          { title: 'Second', order: 20, examples: ['b'] },
          {
            title: 'First',
            order: 10,
            action: 'SEND_SMS',
            actionMetadata: { templateName: 'n' },
            childSteps: [
              { title: 'B', order: 2 },
              { title: 'A', order: 1 },
            ],
          },
        ],
      },
    };
    const res = await t.rest('PUT', `/v1/templates/${id}`, { json: input });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const child = (title: string, order: number) => ({
      title,
      description: '',
      instructions: '',
      order,
      examples: [],
      action: '',
      actionMetadata: null,
    });
    expect(res.body.data).toEqual({
      id,
      name: 'Book a visit',
      description: 'Books visits',
      version: 2,
      createdAt: expect.stringMatching(ISO),
      variables: [
        { name: 'patientName', type: 'STRING', description: 'Who' },
        { name: 'time', type: 'STRING', description: 'When' },
      ],
      applicableMediums: ['PHONE', 'CHAT'],
      officeHoursAvailability: 'CLOSED',
      workflow: {
        title: 'Booking',
        description: '',
        enabled: true,
        usageContext: '',
        order: 0,
        steps: [
          {
            ...child('First', 10),
            action: 'SEND_SMS',
            actionMetadata: { templateName: 'n', templateBody: '' },
            childSteps: [child('A', 1), child('B', 2)],
          },
          { ...child('Second', 20), examples: ['b'], childSteps: [] },
        ],
      },
    });
    // the list shows the change too
    const list = await t.rest('GET', '/v1/templates');
    expect(list.body.data.templates[0]).toMatchObject({ name: 'Book a visit', version: 2, applicableMediums: ['PHONE', 'CHAT'] });

    // GraphQL answers the same template, and the same update through it changes nothing further
    const gql = await t.gql(UPDATE, { id, input });
    expect(gql.body.errors).toBeUndefined();
    expect({ ...gql.body.data.updateTemplate, createdAt: new Date(gql.body.data.updateTemplate.createdAt).toISOString() }).toEqual(
      res.body.data,
    );
  });

  it('keeps omitted fields, and the version when no workflow is sent', async () => {
    const id = t.demo.templates.clinic[1]!;
    const res = await t.rest('PUT', `/v1/templates/${id}`, { json: { name: 'Messages' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Messages',
      description: 'Take a message template',
      version: 1,
      variables: [{ name: 'patientName', type: 'STRING', description: 'The patient name' }],
      applicableMediums: ['PHONE', 'SMS'],
      officeHoursAvailability: 'CLOSED',
      workflow: demoWorkflow('Take a message'),
    });
    const gql = await t.gql(UPDATE, { id, input: { description: 'Changed' } });
    expect(gql.body.data.updateTemplate).toMatchObject({
      name: 'Messages',
      description: 'Changed',
      version: 1,
      applicableMediums: ['PHONE', 'SMS'],
    });
    // an empty body changes nothing
    const empty = await t.rest('PUT', `/v1/templates/${id}`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ name: 'Messages', description: 'Changed', version: 1 });
  });

  it('treats applicableMediums null and [] as "all" (answered as []), and officeHoursAvailability null as "any time"', async () => {
    const id = t.demo.templates.clinic[1]!;
    const a = await t.rest('PUT', `/v1/templates/${id}`, { json: { applicableMediums: null, officeHoursAvailability: null } });
    expect(a.body.data).toMatchObject({ applicableMediums: [], officeHoursAvailability: null, version: 1 });
    const b = await t.gql(UPDATE, { id, input: { applicableMediums: ['SMS'], officeHoursAvailability: 'OPEN' } });
    expect(b.body.data.updateTemplate).toMatchObject({ applicableMediums: ['SMS'], officeHoursAvailability: 'OPEN' });
    const c = await t.gql(UPDATE, { id, input: { applicableMediums: [] } });
    expect(c.body.data.updateTemplate).toMatchObject({ applicableMediums: [], officeHoursAvailability: 'OPEN' });
  });

  it('bumps the version by one for a changed workflow, and not for the same one in another spelling', async () => {
    const id = t.demo.templates.clinic[0]!;
    const same = demoWorkflow('Book an appointment');
    // same definition: steps listed in another order, defaults spelled out or left out
    const respelled = {
      steps: [...same.steps].reverse().map(({ childSteps, ...s }) => (childSteps.length ? { ...s, childSteps } : s)),
      order: 1,
      usageContext: same.usageContext,
      description: same.description,
      title: same.title,
    };
    const a = await t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: respelled } });
    expect(a.status).toBe(200);
    expect(a.body.data.version).toBe(1);
    expect(a.body.data.workflow).toEqual(same);

    const changed = { ...same, steps: same.steps.map((s) => (s.order === 2 ? { ...s, instructions: 'Offer two slots.' } : s)) };
    const b = await t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: changed } });
    expect(b.body.data.version).toBe(2);
    const c = await t.gql(UPDATE, { id, input: { workflow: changed } });
    expect(c.body.data.updateTemplate.version).toBe(2);
    const d = await t.gql(UPDATE, { id, input: { workflow: { ...changed, enabled: false } } });
    expect(d.body.data.updateTemplate.version).toBe(3);
    expect(d.body.data.updateTemplate.workflow.enabled).toBe(false);

    // null removes the definition (a change), a second null changes nothing
    const e = await t.rest('PUT', `/v1/templates/${id}`, { json: { workflow: null } });
    expect(e.body.data).toMatchObject({ version: 4, workflow: null });
    const f = await t.gql(UPDATE, { id, input: { workflow: null } });
    expect(f.body.data.updateTemplate).toMatchObject({ version: 4, workflow: null });
  });

  it('accepts a form-urlencoded body with a nested workflow', async () => {
    const id = t.demo.templates.clinic[2]!;
    const res = await t.rest('PUT', `/v1/templates/${id}`, {
      form: [
        ['name', 'Billing'],
        ['applicableMediums', 'CHAT'],
        ['applicableMediums', 'SMS'],
        ['officeHoursAvailability', 'OPEN'],
        ['variables[0][name]', 'amount'],
        ['variables[0][description]', 'Amount due'],
        ['workflow[title]', 'Billing help'],
        ['workflow[enabled]', 'false'],
        ['workflow[order]', '3'],
        ['workflow[steps][0][title]', 'Look up'],
        ['workflow[steps][0][order]', '5'],
        ['workflow[steps][0][examples][]', 'What do I owe?'],
        ['workflow[steps][0][examples][]', 'Is my bill paid?'],
        ['workflow[steps][0][actionMetadata][templateName]', 'balance'],
        ['workflow[steps][0][actionMetadata][templateBody]', 'You owe {{amount}}'],
        ['workflow[steps][0][childSteps][0][title]', 'Confirm identity'],
        ['workflow[steps][0][childSteps][0][order]', '1'],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Billing',
      version: 2,
      applicableMediums: ['CHAT', 'SMS'],
      officeHoursAvailability: 'OPEN',
      variables: [{ name: 'amount', type: 'STRING', description: 'Amount due' }],
      workflow: {
        title: 'Billing help',
        enabled: false,
        order: 3,
        steps: [
          {
            title: 'Look up',
            order: 5,
            examples: ['What do I owe?', 'Is my bill paid?'],
            actionMetadata: { templateName: 'balance', templateBody: 'You owe {{amount}}' },
            childSteps: [{ title: 'Confirm identity', order: 1 }],
          },
        ],
      },
    });
    // an empty form value for a nullable field is null
    const cleared = await t.rest('PUT', `/v1/templates/${id}`, {
      form: [
        ['officeHoursAvailability', ''],
        ['applicableMediums', ''],
      ],
    });
    expect(cleared.body.data).toMatchObject({ officeHoursAvailability: null, applicableMediums: [], version: 2 });
  });

  it('accepts a multipart body, and refuses a bad one like JSON', async () => {
    const id = t.demo.templates.clinic[2]!;
    const res = await t.rest('PUT', `/v1/templates/${id}`, {
      multipart: [
        ['description', 'Multipart'],
        ['workflow[title]', 'Billing help'],
        ['workflow[steps][0][title]', 'Look up'],
        ['workflow[steps][1][title]', 'Answer'],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ description: 'Multipart', version: 2 });
    expect(res.body.data.workflow.steps.map((s: Schemas['Step']) => [s.title, s.order])).toEqual([
      ['Look up', 1],
      ['Answer', 2],
    ]);
    const bad = await t.rest('PUT', `/v1/templates/${id}`, {
      multipart: [
        ['workflow[title]', 'X'],
        ['workflow[steps][0][order]', '1'],
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('workflow.steps.0.title');
  });

  it("answers 404 for another tenant's template, a child organization's template and an unknown id", async () => {
    const foreign = t.demo.templates.other[0]!;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const id of [foreign, unknown]) {
      const res = await t.rest('PUT', `/v1/templates/${id}`, { json: { name: 'Hijacked' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: 'Template not found' });
      const gql = await t.gql(UPDATE, { id, input: { name: 'Hijacked' } });
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(gql.body.errors[0].message).toBe('Template not found');
    }
    // templates are the credential owner's own: the account's key does not reach its clinic's templates
    const byAccount = await t.rest('PUT', `/v1/templates/${t.demo.templates.clinic[0]}`, {
      token: t.demo.organizations.account.apiKey,
      json: { name: 'X' },
    });
    expect(byAccount.status).toBe(404);
    const other = await t.rest('GET', '/v1/templates', { token: t.demo.organizations.other.apiKey });
    expect(other.body.data.templates[0].name).toBe('Termin buchen');
  });

  it('answers 400 for a malformed template id', async () => {
    const res = await t.rest('PUT', '/v1/templates/not-a-uuid', { json: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('templateId: must be a UUID');
    const gql = await t.gql(UPDATE, { id: 'not-a-uuid', input: { name: 'x' } });
    expect(gql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'templateId', message: 'must be a UUID' }],
    });
  });

  it('answers 403 to a read-only OAuth client, on both surfaces, and changes nothing', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const id = t.demo.templates.clinic[0]!;
    const put = await t.rest('PUT', `/v1/templates/${id}`, { token, json: { name: 'No' } });
    expect(put.status).toBe(403);
    expect(put.body).toEqual({ success: false, data: {}, code: 'forbidden', message: expect.stringContaining('templates:write') });
    const post = await t.rest('POST', '/v1/templates', { token, json: { name: 'No' } });
    expect(post.status).toBe(403);
    expect((await t.gql(UPDATE, { id, input: { name: 'No' } }, { token })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.gql(CREATE, { input: { name: 'No' } }, { token })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    const list = await t.rest('GET', '/v1/templates');
    expect(list.body.data.templates.map((tpl: Schemas['TemplateSummary']) => tpl.name)).toEqual([
      'Book an appointment',
      'Take a message',
      'Answer billing questions',
    ]);
    // a full-scope OAuth client may write
    const full = await t.rest('PUT', `/v1/templates/${id}`, { token: await t.accessToken('clinic'), json: { name: 'Yes' } });
    expect(full.status).toBe(200);
  });
});

describe('POST /v1/templates and Mutation.createTemplate', () => {
  it('creates a template with version 1 and defaults', async () => {
    const res = await t.rest('POST', '/v1/templates', { json: { name: 'Recall reminder' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Recall reminder',
      description: '',
      version: 1,
      createdAt: expect.stringMatching(ISO),
      variables: [],
      applicableMediums: [],
      officeHoursAvailability: null,
      workflow: null,
    });
    const list = await t.rest('GET', '/v1/templates');
    expect(list.body.data.templates.map((tpl: Schemas['TemplateSummary']) => tpl.id)).toEqual([
      ...t.demo.templates.clinic,
      res.body.data.id,
    ]);
    // the organization's other tenant does not see it
    const other = await t.rest('GET', '/v1/templates', { token: t.demo.organizations.other.apiKey });
    expect(other.body.data.templates).toHaveLength(1);
  });

  it('creates a full template on GraphQL, with its workflow', async () => {
    const input = {
      name: 'Intake',
      description: 'New patients',
      variables: [{ name: 'patientName', description: 'Name' }],
      applicableMediums: ['CHAT'],
      officeHoursAvailability: 'OPEN',
      workflow: { title: 'Intake', usageContext: 'New patients', steps: [{ title: 'Ask', childSteps: [{ title: 'Insurance' }] }] },
    };
    const res = await t.gql(CREATE, { input });
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createTemplate;
    expect(created).toMatchObject({
      name: 'Intake',
      version: 1,
      variables: [{ name: 'patientName', type: 'STRING', description: 'Name' }],
      applicableMediums: ['CHAT'],
      officeHoursAvailability: 'OPEN',
      workflow: {
        title: 'Intake',
        enabled: true,
        order: 0,
        steps: [{ title: 'Ask', order: 1, childSteps: [{ title: 'Insurance', order: 1, actionMetadata: null }] }],
      },
    });
    // the same workflow sent again is no change
    const again = await t.rest('PUT', `/v1/templates/${created.id}`, { json: { workflow: input.workflow } });
    expect(again.body.data.version).toBe(1);
  });

  it('creates from a form body', async () => {
    const res = await t.rest('POST', '/v1/templates', {
      form: [
        ['name', 'Form made'],
        ['workflow[title]', 'W'],
        ['workflow[steps][0][title]', 'S'],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Form made', version: 1, workflow: { title: 'W', steps: [{ title: 'S', order: 1 }] } });
  });

  it('requires a name', async () => {
    const res = await t.rest('POST', '/v1/templates', { json: { description: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('name: is required');
    const gql = await t.gql(CREATE, { input: { description: 'x' } });
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'name', message: 'is required' }] });
    const empty = await t.rest('POST', '/v1/templates');
    expect(empty.status).toBe(400);
    expect((await t.rest('GET', '/v1/templates')).body.data.templates).toHaveLength(3);
  });
});

describe('invalid template input: the same verdict on REST and GraphQL', () => {
  const uniq = (paths: string[]) => [...new Set(paths)].sort();

  for (const c of invalidTemplateCases) {
    it(`refuses ${c.name}`, async () => {
      const id = t.demo.templates.clinic[0]!;
      const before = await restTemplate(id);

      const put = await t.rest('PUT', `/v1/templates/${id}`, { json: c.input });
      expect(put.status, JSON.stringify(put.body)).toBe(400);
      expect(put.body.success).toBe(false);
      expect(uniq(put.body.errors.map((e: Issue) => e.path))).toEqual(uniq(c.paths));
      for (const e of put.body.errors) expect(put.body.message).toContain(e.path ? `${e.path}: ${e.message}` : e.message);

      const createInput = { name: 'New', ...c.input };
      const post = await t.rest('POST', '/v1/templates', { json: createInput });
      expect(post.status).toBe(400);
      expect(uniq(post.body.errors.map((e: Issue) => e.path))).toEqual(uniq(c.paths));

      if (!c.restOnly) {
        const gql = await t.gql(UPDATE, { id, input: c.input });
        expect(gql.body.data).toBeNull();
        expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(gql.body.errors[0].message).toBe(put.body.message);
        expect(gql.body.errors[0].extensions.issues).toEqual(put.body.errors);
        const created = await t.gql(CREATE, { input: createInput });
        expect(created.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(created.body.errors[0].extensions.issues).toEqual(post.body.errors);
      } else {
        // GraphQL's closed input types refuse these before execution: a client error, never a 5xx
        const gql = await t.gql(UPDATE, { id, input: c.input });
        expect(gql.body.data ?? null).toBeNull();
        expect(gql.body.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
        expect(gql.status).toBeLessThan(500);
      }

      // nothing changed, nothing created
      expect(await restTemplate(id)).toEqual(before);
      expect((await t.rest('GET', '/v1/templates')).body.data.templates).toHaveLength(3);
    });
  }

  it('refuses a body that is not an object', async () => {
    const res = await t.rest('PUT', `/v1/templates/${t.demo.templates.clinic[0]}`, { json: [{ name: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the body must be an object');
  });

  it('accepts exactly 200 steps, child steps included', async () => {
    const steps = Array.from({ length: 100 }, (_, i) => ({ title: `S${i}`, order: i, childSteps: [{ title: `C${i}` }] }));
    const res = await t.rest('PUT', `/v1/templates/${t.demo.templates.clinic[0]}`, { json: { workflow: { title: 'Big', steps } } });
    expect(res.status).toBe(200);
    expect(res.body.data.workflow.steps).toHaveLength(100);
  });
});

describe('one template, filters and delete (REST and GraphQL)', () => {
  const names = async (query: string) =>
    ((await t.rest('GET', `/v1/templates${query}`)).body.data.templates as { name: string }[]).map((tpl) => tpl.name);
  const gqlNames = async (variables: Record<string, unknown>) => {
    const res = await t.gql(
      'query($m: Medium, $a: OfficeHoursAvailability) { templates(medium: $m, officeHoursAvailability: $a) { name } }',
      variables,
    );
    return (res.body.data.templates as { name: string }[]).map((tpl) => tpl.name);
  };
  const [book, message, billing] = ['Book an appointment', 'Take a message', 'Answer billing questions'];

  it('gets one template with its workflow, exactly as GraphQL and the update answer it', async () => {
    const id = t.demo.templates.clinic[1]!;
    const res = await t.rest('GET', `/v1/templates/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(await restTemplate(id));
    expect(res.body.data.workflow.title).toBe('Take a message');
    const gql = await t.gql(`query($id: ID!) { template(id: $id) { ${TEMPLATE_FIELDS} } }`, { id });
    expect(gql.body.data.template).toEqual(res.body.data);
  });

  it("answers another organization's template exactly like a missing one (404 / NOT_FOUND), and 400 for a malformed id", async () => {
    const foreign = await t.rest('GET', `/v1/templates/${t.demo.templates.other[0]}`);
    const missing = await t.rest('GET', '/v1/templates/00000000-0000-4000-8000-000000000000');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const gql = await t.gql('query($id: ID!) { template(id: $id) { id } }', { id: t.demo.templates.other[0] });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const malformed = await t.rest('GET', '/v1/templates/book');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('templateId: must be a UUID');
    // the account's key sees the account's own templates, not a child's
    const account = await t.rest('GET', `/v1/templates/${t.demo.templates.clinic[0]}`, { token: t.demo.organizations.account.apiKey });
    expect(account.status).toBe(404);
  });

  it('filters by medium (those naming it and those naming none) and by office hours (those for it and for any time)', async () => {
    expect(await names('?medium=PHONE')).toEqual([book, message]);
    expect(await names('?medium=CHAT')).toEqual([book, billing]);
    expect(await names('?medium=GHL')).toEqual([book]);
    expect(await names('?officeHoursAvailability=CLOSED')).toEqual([message, billing]);
    expect(await names('?officeHoursAvailability=OPEN')).toEqual([book, billing]);
    expect(await names('?medium=PHONE&officeHoursAvailability=CLOSED')).toEqual([message]);
    expect(await gqlNames({ m: 'PHONE', a: 'CLOSED' })).toEqual([message]);
    expect(await gqlNames({ m: 'CHAT' })).toEqual([book, billing]);
    expect(await gqlNames({ m: null, a: null })).toEqual([book, message, billing]);
    const bad = await t.rest('GET', '/v1/templates?medium=FAX');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('medium: must be one of CHAT, PHONE, GHL, SMS');
    const badTime = await t.rest('GET', '/v1/templates?officeHoursAvailability=open');
    expect(badTime.status).toBe(400);
    expect(badTime.body.message).toBe('officeHoursAvailability: must be OPEN or CLOSED');
  });

  it('deletes a template once on either surface (a second delete is a 404), and the list no longer has it', async () => {
    const [first, second] = t.demo.templates.clinic;
    const res = await t.rest('DELETE', `/v1/templates/${first}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: first, deleted: true });
    expect((await t.rest('DELETE', `/v1/templates/${first}`)).status).toBe(404);
    expect((await t.rest('GET', `/v1/templates/${first}`)).status).toBe(404);
    const gql = await t.gql('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: second });
    expect(gql.body.data).toEqual({ deleteTemplate: true });
    const again = await t.gql('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: second });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await names('')).toEqual([billing]);
  });

  it("never deletes another organization's template, and refuses a read-only credential (403 / FORBIDDEN)", async () => {
    const foreign = await t.rest('DELETE', `/v1/templates/${t.demo.templates.other[0]}`);
    expect(foreign.status).toBe(404);
    const token = await t.accessToken('clinicReadOnly');
    expect((await t.rest('DELETE', `/v1/templates/${t.demo.templates.clinic[0]}`, { token })).status).toBe(403);
    const gql = await t.gql('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: t.demo.templates.clinic[0] }, { token });
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await names('')).toEqual([book, message, billing]);
    const theirs = await t.rest('GET', '/v1/templates', { token: t.demo.organizations.other.apiKey });
    expect(theirs.body.data.templates).toHaveLength(1);
  });

  it('lets one of two deletes at the same instant win; the other is a 404, never an error', async () => {
    const id = t.demo.templates.clinic[0]!;
    const answers = await Promise.all([
      t.rest('DELETE', `/v1/templates/${id}`),
      t.gql('mutation($id: ID!) { deleteTemplate(id: $id) }', { id }),
    ]);
    const ok = [answers[0].status === 200, answers[1].body.data?.deleteTemplate === true];
    expect(ok.filter(Boolean)).toHaveLength(1);
    if (!ok[0]) expect(answers[0].status).toBe(404);
    if (!ok[1]) expect(answers[1].body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await t.db.prisma.event.count({ where: { type: 'template.deleted', subjectId: id } })).toBe(1);
  });
});
