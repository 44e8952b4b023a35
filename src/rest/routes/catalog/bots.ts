import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  exportBotWorkflows,
  importBotWorkflows,
  importWorkflowsInputSchema,
  workflowListResponse,
} from '../../../domain/catalog/workflows.js';
import {
  BOT_NAME_MAX,
  botListResponse,
  botResponse,
  createBot,
  createBotInput,
  getBot,
  listBots,
  listBotsInput,
  updateBot,
  updateBotInput,
} from '../../../domain/catalog/bots.js';
import { botDeletionResponse, deleteBot, deleteBotInput } from '../../../domain/calls/botDeletion.js';
import { defineRoute } from '../../route.js';

export const botRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/bots',
    tag: 'Bots',
    summary: "List an organization's bots",
    description: '`data` = `{bots: [bot]}`, oldest first. `enabled` (`true` or `false`) and `templateId` keep only the bots that match.',
    scope: 'bots:read',
    query: listBotsInput,
    response: botListResponse,
    handler: async ({ actor, deps, params, query }) => ({ data: { bots: await listBots(deps, actor, params.orgId!, query) } }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/bots',
    tag: 'Bots',
    summary: 'Create a bot',
    description: `Body: \`name\` (required, trimmed, 1..${BOT_NAME_MAX} characters), \`enabled\` (default true), \`templateId\` (optional: a template of the credential owner's organization, read with \`templates:read\`; the bot starts with its workflow and keeps its id and version, and the template cannot be deleted while the bot refers to it). Event \`bot.created\`.`,
    errors: { 409: `The organization has ${LIST_LIMITS.bots} bots, the most it may have.` },
    scope: 'bots:write',
    body: createBotInput,
    response: botResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await createBot(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/bots/:botId',
    tag: 'Bots',
    summary: 'Get one bot',
    description: "A bot that is missing or outside the caller's reach is a 404.",
    scope: 'bots:read',
    response: botResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getBot(deps, actor, params.botId!) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/bots/:botId',
    tag: 'Bots',
    summary: 'Rename a bot, switch it off or on, or unlink it from its template',
    description:
      'Any of `name`, `enabled` (a disabled bot takes no new calls, 409; its queued calls wait, not handed out, until it is enabled again or they expire) and `templateId: null` (unlinks it from its template; its workflows stay). A body naming nothing is a 400. Event `bot.updated` with the values replaced.',
    scope: 'bots:write',
    body: updateBotInput,
    response: botResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await updateBot(deps, actor, params.botId!, body) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/bots/:botId',
    tag: 'Bots',
    summary: 'Delete a bot',
    description:
      'Deletes the bot and its workflows; past conversations and calls keep its id. Refused (409 saying what) while phone numbers are attached to it or call requests are queued for it, unless `force=true`: then the numbers are detached (they stay registered) and the requests canceled, each with its event, and the answer lists them; that takes `phone-numbers:write` and `call-requests:write` as doing it by hand would. A call already started is never cut off: while one runs the delete is a 409, forced or not. Event `bot.deleted`.',
    errors: { 409: 'Phone numbers are attached or calls queued (without force), or a call of the bot is in progress.' },
    scope: 'bots:write',
    query: deleteBotInput,
    response: botDeletionResponse,
    handler: async ({ actor, deps, params, query }) => ({ data: await deleteBot(deps, actor, params.botId!, query) }),
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
