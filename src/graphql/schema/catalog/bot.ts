// Bots and their workflows (spec §2 "Bot and organization", §4 "Workflows"): Query.bot(id) with its
// workflows in the portable export form, Organization.bots, the bots' lifecycle, and importing and replacing workflows.
import {
  type BotWorkflows,
  type ExportedWorkflow,
  exportBotWorkflows,
  importBotWorkflows,
  replaceBotWorkflows,
  type ReplacedWorkflows,
} from '../../../domain/catalog/workflows.js';
import { BOT_NAME_MAX, type BotView, createBot, getBot, listBots, updateBot } from '../../../domain/catalog/bots.js';
import { type BotDeletion, deleteBot } from '../../../domain/calls/botDeletion.js';
import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { OrganizationRef } from '../organizations/organization.js';
import { WorkflowStepInput, WorkflowStepType } from './template.js';

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

export const BotType = builder.objectRef<BotView>('Bot').implement({
  interfaces: [NodeRef],
  description: 'An AI agent that answers phone calls, SMS and chats for an organization.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Bot id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization the bot belongs to.' }),
    name: t.exposeString('name', { description: 'Bot name.' }),
    enabled: t.exposeBoolean('enabled', {
      description: 'A disabled bot takes no new calls; its queued calls wait until it is enabled again.',
    }),
    templateId: t.exposeID('templateId', { nullable: true, description: 'The template the bot was created from; null for none.' }),
    templateVersion: t.exposeInt('templateVersion', {
      nullable: true,
      description: "That template's version when the bot was created from it.",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the bot was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the bot was last changed.' }),
    workflowsVersion: t.exposeInt('workflowsVersion', {
      description: 'The version of its workflows: grows by one with every change of them (an import, a replace).',
    }),
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
    description: "The organization's bots, oldest first; `enabled` and `templateId` keep only those that match. Scope bots:read.",
    args: {
      enabled: t.arg.boolean({ description: 'Only bots that are (true) or are not (false) enabled.' }),
      templateId: t.arg.id({ description: 'Only bots created from this template (and not unlinked).' }),
    },
    resolve: async (org, args, ctx) =>
      listBots(ctx.deps, await ctx.actor(), org.id, {
        enabled: args.enabled,
        templateId: args.templateId == null ? null : String(args.templateId),
      }),
  }),
}));

const CreateBotInput = builder.inputType('CreateBotInput', {
  description: 'A new bot. Checked by the same rules as POST /v1/organizations/{orgId}/bots.',
  fields: (t) => ({
    name: t.string({ required: true, description: `Bot name, trimmed, 1..${BOT_NAME_MAX} characters.` }),
    enabled: t.boolean({ description: 'Whether it takes calls (default true).' }),
    templateId: t.id({
      description:
        "A template of the credential owner's organization (read with templates:read): the bot starts with its workflow and refers to it.",
    }),
  }),
});

const UpdateBotInput = builder.inputType('UpdateBotInput', {
  description: 'Only the provided fields change; at least one is required. Checked by the same rules as PATCH /v1/bots/{id}.',
  fields: (t) => ({
    name: t.string({ description: `Bot name, trimmed, 1..${BOT_NAME_MAX} characters.` }),
    enabled: t.boolean({ description: 'false: no new calls, and its queued calls wait until it is enabled again.' }),
    templateId: t.id({ description: 'Only null: unlinks the bot from its template (its workflows stay).' }),
  }),
});

const BotDeletionType = builder.objectRef<BotDeletion>('BotDeletion').implement({
  description: 'A bot deleted, with what `force` detached and canceled.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The bot deleted.' }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
    detachedPhoneNumbers: t.exposeIDList('detachedPhoneNumbers', { description: 'The phone numbers detached; they stay registered.' }),
    canceledCallRequests: t.exposeIDList('canceledCallRequests', { description: 'The call requests canceled.' }),
  }),
});

builder.mutationFields((t) => ({
  createBot: t.field({
    type: BotType,
    description: `Creates a bot in an organization within reach, empty or from a template; CONFLICT when it has ${LIST_LIMITS.bots} bots. Scope bots:write.`,
    args: {
      orgId: t.arg.id({ required: true, description: 'The organization.' }),
      input: t.arg({ type: CreateBotInput, required: true, description: 'The bot.' }),
    },
    resolve: async (_root, args, ctx) =>
      createBot(ctx.deps, await ctx.actor(), String(args.orgId), {
        ...args.input,
        templateId: args.input.templateId == null ? args.input.templateId : String(args.input.templateId),
      }),
  }),
  updateBot: t.field({
    type: BotType,
    description:
      "Renames a bot, switches it off or on, or unlinks it from its template; NOT_FOUND outside the caller's reach. Scope bots:write.",
    args: {
      botId: t.arg.id({ required: true, description: 'The bot.' }),
      input: t.arg({ type: UpdateBotInput, required: true, description: 'What changes.' }),
    },
    resolve: async (_root, args, ctx) =>
      // the input goes to the domain as sent (omitted fields absent, null as null), where it is validated once
      updateBot(ctx.deps, await ctx.actor(), String(args.botId), {
        ...args.input,
        ...(args.input.templateId == null ? {} : { templateId: String(args.input.templateId) }),
      }),
  }),
  deleteBot: t.field({
    type: BotDeletionType,
    description:
      'Deletes a bot and its workflows; CONFLICT while numbers are attached or calls queued unless force (which detaches and cancels them, with phone-numbers:write and call-requests:write), and while a call of it is in progress. Scope bots:write.',
    args: {
      botId: t.arg.id({ required: true, description: 'The bot.' }),
      force: t.arg.boolean({ description: 'Detach its numbers and cancel its calls not yet started rather than refuse.' }),
    },
    resolve: async (_root, args, ctx) => deleteBot(ctx.deps, await ctx.actor(), String(args.botId), { force: args.force }),
  }),
}));

const BotWorkflowInput = builder.inputType('BotWorkflowInput', {
  description: 'A bot workflow in the portable export form (`Bot.workflows` as answered). At most 200 steps, child steps included.',
  fields: (t) => ({
    id: t.id({ description: 'Ignored (an exported workflow can be sent as is).' }),
    title: t.field({ type: 'JSON', description: 'String, required: workflow title (1 to 255 characters).' }),
    description: t.field({ type: 'JSON', description: 'String: workflow description (up to 2000 characters).' }),
    enabled: t.field({ type: 'JSON', description: 'Boolean: whether the workflow is enabled (default true).' }),
    usageContext: t.field({ type: 'JSON', description: 'String: when the agent should use this workflow (up to 2000 characters).' }),
    steps: t.field({ type: [WorkflowStepInput], description: 'Steps.' }),
  }),
});

const BotWorkflowsType = builder.objectRef<BotWorkflows>('BotWorkflows').implement({
  description: "A bot's workflows with their version.",
  fields: (t) => ({
    version: t.exposeInt('version', { description: "The version of the bot's workflows: grows by one with every change of them." }),
    workflows: t.expose('workflows', { type: [BotWorkflowType], description: 'The workflows, ordered by order.' }),
  }),
});

const ReplacedBotWorkflowsType = builder.objectRef<ReplacedWorkflows>('ReplacedBotWorkflows').implement({
  description: "A bot's workflows after a replace.",
  fields: (t) => ({
    version: t.exposeInt('version', { description: "The version of the bot's workflows after the replace." }),
    changed: t.exposeBoolean('changed', {
      description: 'False when the workflows given equal the stored ones: nothing was written and the version stays.',
    }),
    workflows: t.expose('workflows', { type: [BotWorkflowType], description: 'The workflows, ordered by order.' }),
  }),
});

// the workflows go to the domain as sent (a step's fields are JSON there too), where they are validated once
const workflowsArg = (workflows: readonly unknown[]) => workflows.map((wf) => ({ ...(wf as object) }));

builder.mutationFields((t) => ({
  importWorkflows: t.field({
    type: BotWorkflowsType,
    description: `Appends copies of workflows in the portable form to a bot (as POST /v1/bots/{botId}/workflows/import): at most 100; CONFLICT past ${LIST_LIMITS.workflows} per bot. Answers the copies and the version after. Scope templates:write.`,
    args: {
      botId: t.arg.id({ required: true, description: 'The bot.' }),
      workflows: t.arg({ type: [BotWorkflowInput], required: true, description: 'The workflows, as exported.' }),
    },
    resolve: async (_root, args, ctx) =>
      importBotWorkflows(ctx.deps, await ctx.actor(), String(args.botId), { workflows: workflowsArg(args.workflows) }),
  }),
  replaceBotWorkflows: t.field({
    type: ReplacedBotWorkflowsType,
    description:
      "Replaces a bot's workflows with these, in this order, in one transaction (as PUT /v1/bots/{botId}/workflows): the version grows by one when they differ from the stored ones; nothing is written when they do not. With version (the one read), CONFLICT when they changed since. Scope bots:write.",
    args: {
      botId: t.arg.id({ required: true, description: 'The bot.' }),
      workflows: t.arg({ type: [BotWorkflowInput], required: true, description: 'The workflows, in the portable form (at most 100).' }),
      version: t.arg.int({ description: 'The version read: another is CONFLICT. Omitted: replaced whatever the version.' }),
    },
    resolve: async (_root, args, ctx) =>
      replaceBotWorkflows(ctx.deps, await ctx.actor(), String(args.botId), {
        workflows: workflowsArg(args.workflows),
        ...(args.version == null ? {} : { version: args.version }),
      }),
  }),
}));
