import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  botListResponse,
  exportBotWorkflows,
  importBotWorkflows,
  importWorkflowsInputSchema,
  listBots,
  workflowListResponse,
} from '../../../domain/catalog/workflows.js';
import { defineRoute } from '../../route.js';

export const botRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/bots',
    tag: 'Bots',
    summary: "List an organization's bots",
    scope: 'bots:read',
    response: botListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { bots: await listBots(deps, actor, params.orgId!) } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/bots/:botId/workflows',
    tag: 'Workflows',
    summary: "Export a bot's workflows in the portable form",
    description:
      'Workflows and steps ordered by `order`, child steps nested one level. The answer can be sent as is to the import of another bot.',
    scope: 'bots:read',
    response: workflowListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { workflows: await exportBotWorkflows(deps, actor, params.botId!) } }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/bots/:botId/workflows/import',
    tag: 'Workflows',
    summary: 'Import exported workflows into a bot',
    description:
      "Takes `{workflows: [...]}` as exported (ids are ignored; at most 100 workflows of at most 200 steps each) and creates copies after the bot's existing workflows, in one transaction. Answers the created workflows with their new ids.",
    scope: 'templates:write',
    errors: { 409: `The bot would pass ${LIST_LIMITS.workflows} workflows, the most a bot may have (nothing is imported).` },
    body: importWorkflowsInputSchema,
    response: workflowListResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: { workflows: await importBotWorkflows(deps, actor, params.botId!, body) } }),
  }),
];
