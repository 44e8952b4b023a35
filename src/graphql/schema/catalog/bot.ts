// Bots and their workflows (spec §2 "Bot and organization", §4 "Workflows"): Query.bot(id) with its
// workflows in the portable export form, and Organization.bots.
import { type BotSummary, type ExportedWorkflow, exportBotWorkflows, getBot, listBots } from '../../../domain/catalog/workflows.js';
import { builder } from '../../builder.js';
import { OrganizationRef } from '../organizations/organization.js';
import { WorkflowStepType } from './template.js';

const BotWorkflowType = builder.objectRef<ExportedWorkflow>('BotWorkflow').implement({
  description: 'A workflow of a bot in the portable export form: an ordered list of steps with optional child steps and actions.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Workflow id (UUID); ignored when the workflow is imported into another bot.' }),
    title: t.exposeString('title', { description: 'Workflow title.' }),
    description: t.exposeString('description', { description: 'Workflow description.' }),
    enabled: t.exposeBoolean('enabled', { description: 'Whether the workflow is enabled.' }),
    usageContext: t.exposeString('usageContext', { description: 'When the agent should use this workflow.' }),
    steps: t.expose('steps', { type: [WorkflowStepType], description: 'Steps, ordered by order, child steps nested one level.' }),
  }),
});

export const BotType = builder.objectRef<BotSummary>('Bot').implement({
  description: 'An AI agent that answers phone calls, SMS and chats for an organization.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Bot id (UUID).' }),
    name: t.exposeString('name', { description: 'Bot name.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the bot was created.' }),
    workflows: t.field({
      type: [BotWorkflowType],
      description: 'Every workflow of the bot in the portable export form, ordered by order. Scope bots:read.',
      resolve: async (bot, _args, ctx) => exportBotWorkflows(ctx.deps, await ctx.actor(), bot.id),
    }),
  }),
});

builder.queryFields((t) => ({
  bot: t.field({
    type: BotType,
    nullable: true,
    description: "A bot of an organization within the caller's reach (NOT_FOUND otherwise). Scope bots:read.",
    args: { id: t.arg.id({ required: true, description: 'Bot id.' }) },
    resolve: async (_root, args, ctx) => getBot(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));

builder.prismaObjectFields(OrganizationRef, (t) => ({
  bots: t.field({
    type: [BotType],
    description: "The organization's bots, oldest first. Scope bots:read.",
    resolve: async (org, _args, ctx) => listBots(ctx.deps, await ctx.actor(), org.id),
  }),
}));
