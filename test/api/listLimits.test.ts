// Lists answered whole stay bounded because writes stop at a limit (domain/shared/listLimits.ts): the create
// that would pass it is a 409 (GraphQL CONFLICT) naming the limit, and writes nothing — on both surfaces.
import { describe, expect, it } from 'vitest';
import { LIST_LIMITS } from '../../src/domain/shared/listLimits.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

const closureBody = { description: 'Holiday', annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null };

describe('closures per organization', () => {
  it(`accepts the ${LIST_LIMITS.closures}th closure and refuses the next with 409 / CONFLICT, writing nothing`, async () => {
    const orgId = t.demo.organizations.clinic.id;
    const have = await t.db.prisma.closure.count({ where: { orgId } });
    await t.db.prisma.closure.createMany({
      data: Array.from({ length: LIST_LIMITS.closures - 1 - have }, (_, i) => ({
        orgId,
        description: `Past ${i}`,
        startAt: new Date(Date.UTC(2020, 0, 1, 0, i)),
        endAt: new Date(Date.UTC(2020, 0, 1, 1, i)),
      })),
    });
    const last = await t.rest('POST', `/v1/organizations/${orgId}/closures`, { json: closureBody });
    expect(last.status).toBe(200);
    const refused = await t.rest('POST', `/v1/organizations/${orgId}/closures`, { json: closureBody });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, data: {} });
    expect(refused.body.message).toContain(`at most ${LIST_LIMITS.closures} closures`);
    const gql = await t.gql('mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }', {
      orgId,
      input: { description: 'Holiday', annualDate: { month: 12, day: 26 }, chatGreeting: null, phoneGreeting: null },
    });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(gql.body.errors[0].message).toContain(`at most ${LIST_LIMITS.closures} closures`);
    expect(await t.db.prisma.closure.count({ where: { orgId } })).toBe(LIST_LIMITS.closures);
    // another organization is not affected, and a deleted closure makes room again
    expect(
      (
        await t.rest('POST', `/v1/organizations/${t.demo.organizations.other.id}/closures`, {
          token: t.demo.organizations.other.apiKey,
          json: closureBody,
        })
      ).status,
    ).toBe(200);
    expect((await t.rest('DELETE', `/v1/organizations/${orgId}/closures/${last.body.data.id}`)).status).toBe(200);
    expect((await t.rest('POST', `/v1/organizations/${orgId}/closures`, { json: closureBody })).status).toBe(200);
  });

  it('lets concurrent creates at the limit through one at a time: never more than the limit', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const have = await t.db.prisma.closure.count({ where: { orgId } });
    await t.db.prisma.closure.createMany({
      data: Array.from({ length: LIST_LIMITS.closures - 3 - have }, (_, i) => ({
        orgId,
        description: `Past ${i}`,
        startAt: new Date(Date.UTC(2020, 0, 1, 0, i)),
        endAt: new Date(Date.UTC(2020, 0, 1, 1, i)),
      })),
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.rest('POST', `/v1/organizations/${orgId}/closures`, { json: closureBody })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 409, 409, 409]);
    expect(await t.db.prisma.closure.count({ where: { orgId } })).toBe(LIST_LIMITS.closures);
  });
});

describe('templates per organization', () => {
  it(`refuses the template past ${LIST_LIMITS.templates} with 409 / CONFLICT on both surfaces`, async () => {
    const orgId = t.demo.organizations.clinic.id;
    const have = await t.db.prisma.workflowTemplate.count({ where: { orgId } });
    await t.db.prisma.workflowTemplate.createMany({
      data: Array.from({ length: LIST_LIMITS.templates - 1 - have }, (_, i) => ({
        orgId,
        name: `Bulk ${i}`,
        version: 1,
        variables: [],
        applicableMediums: [],
      })),
    });
    expect((await t.rest('POST', '/v1/templates', { json: { name: 'Last one' } })).status).toBe(200);
    const refused = await t.rest('POST', '/v1/templates', { json: { name: 'One too many' } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`at most ${LIST_LIMITS.templates} templates`);
    const gql = await t.gql('mutation { createTemplate(input: { name: "One too many" }) { id } }');
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await t.db.prisma.workflowTemplate.count({ where: { orgId } })).toBe(LIST_LIMITS.templates);
    expect((await t.rest('GET', '/v1/templates')).body.data.templates).toHaveLength(LIST_LIMITS.templates);
  });
});

describe('workflows per bot', () => {
  it(`refuses an import that would pass ${LIST_LIMITS.workflows} workflows, importing none of it`, async () => {
    const botId = t.demo.bots.clinic[1]!;
    const have = await t.db.prisma.workflow.count({ where: { botId } });
    await t.db.prisma.workflow.createMany({
      data: Array.from({ length: LIST_LIMITS.workflows - 2 - have }, (_, i) => ({ botId, title: `Bulk ${i}`, order: i + 1 })),
    });
    const workflow = { title: 'Imported', description: '', enabled: true, usageContext: '', steps: [] };
    const refused = await t.rest('POST', `/v1/bots/${botId}/workflows/import`, { json: { workflows: [workflow, workflow, workflow] } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`at most ${LIST_LIMITS.workflows} workflows`);
    expect(await t.db.prisma.workflow.count({ where: { botId } })).toBe(LIST_LIMITS.workflows - 2);
    expect((await t.rest('POST', `/v1/bots/${botId}/workflows/import`, { json: { workflows: [workflow, workflow] } })).status).toBe(200);
  });
});
