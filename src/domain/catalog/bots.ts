// Bots (spec §2 "Bot and organization"; docs/decisions.md §18): an organization's AI agents, created (empty, or
// from one of the credential owner's templates, whose workflow it starts with), read, listed with filters,
// renamed, disabled and enabled again. Deleting one ends its calls, so it lives with the calls
// (domain/calls/botDeletion.ts).
//
// A bot is reachable when its organization is within the caller's reach (docs/decisions.md §2); any other bot
// answers 404 exactly like a missing one. A bot created from a template keeps the template's id and version:
// the template cannot be deleted while a bot refers to it (templates.ts), and `templateId: null` unlinks it.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import type { Bot } from '../../generated/prisma/client.js';
import { type Actor, reaches, requireScope } from '../shared/access.js';
import { Conflict, NotFound, parseInput } from '../shared/errors.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { uuidParam } from '../shared/ids.js';
import { batchOf } from '../shared/batch.js';
import { optionalBooleanParam, withoutNulls } from '../shared/inputParams.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { isForeignKeyViolation } from '../shared/databaseErrors.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { changedFields, recordEvent } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { insertWorkflows, loadReachableBot } from './workflows.js';
import { canonicalTemplateWorkflow, type TemplateWorkflow, templateWorkflowInputSchema } from './workflowShape.js';
import { botWithParent } from './sql.js';

export const BOT_NAME_MAX = 200;

const botName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(BOT_NAME_MAX, { error: `must be at most ${BOT_NAME_MAX} characters` })
  .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });
const enabled = z.boolean({ error: 'must be true or false' });

/**
 * Body of POST /v1/organizations/{orgId}/bots and the GraphQL CreateBotInput: a name (trimmed, 1..200), whether
 * it is enabled (default true), and optionally a template of the credential owner's organization whose workflow
 * the bot starts with.
 */
export const createBotInput = z.strictObject({
  name: botName,
  enabled: enabled.optional(),
  templateId: z.uuid({ error: 'must be a UUID' }).optional(),
});
export type CreateBotInput = z.input<typeof createBotInput>;

/**
 * Body of PATCH /v1/bots/{botId} and the GraphQL UpdateBotInput: only the provided fields change; `templateId`
 * takes only null, which unlinks the bot from its template (its workflows stay). A body naming nothing is a 400.
 */
export const updateBotInput = z
  .strictObject({
    name: botName.optional(),
    enabled: enabled.optional(),
    templateId: z
      .null({ error: "must be null (unlinks the bot from its template; a bot's template is chosen when it is created)" })
      .optional(),
  })
  .refine((input) => Object.values(input).some((v) => v !== undefined), {
    error: 'nothing to update: send at least one of name, enabled, templateId',
  });
export type UpdateBotInput = z.input<typeof updateBotInput>;

/** Query of GET /v1/organizations/{orgId}/bots and the arguments of GraphQL `bots`: each filter one value. */
export const listBotsInput = z.strictObject({
  enabled: optionalBooleanParam.describe('Only bots that are (true) or are not (false) enabled.'),
  templateId: z.uuid({ error: 'must be a UUID' }).optional().describe('Only bots created from this template (and not unlinked).'),
});

export interface BotView {
  id: string;
  orgId: string;
  name: string;
  enabled: boolean;
  /** The template the bot was created from; null for none (or unlinked). */
  templateId: string | null;
  /** That template's version when the bot was created from it. */
  templateVersion: number | null;
  /** The version of its workflows: grows by one with every change of them (workflows.ts). */
  workflowsVersion: number;
  createdAt: string;
  updatedAt: string;
}

// the documented answers (the OpenAPI document), checked against the view type
export const botResponse = viewSchema<BotView>()(
  z
    .object({
      id: z.uuid(),
      orgId: z.uuid(),
      name: z.string(),
      enabled: z.boolean().describe('A disabled bot takes no new calls; its queued calls wait until it is enabled again.'),
      templateId: z.uuid().nullable().describe('The template the bot was created from; null for none.'),
      templateVersion: z.int().nullable().describe("That template's version when the bot was created from it."),
      workflowsVersion: z
        .int()
        .min(1)
        .describe('The version of its workflows: grows by one with every change of them (an import, a replace).'),
      createdAt: instantView(),
      updatedAt: instantView(),
    })
    .meta({ id: 'Bot' }),
);
export const botListResponse = viewSchema<{ bots: BotView[] }>()(z.object({ bots: z.array(botResponse).describe('Oldest first.') }));

export function botView(row: Bot): BotView {
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    enabled: row.enabled,
    templateId: row.templateId,
    templateVersion: row.templateVersion,
    workflowsVersion: row.workflowsVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /v1/organizations/{orgId}/bots, Organization.bots: oldest first, filtered. Scope bots:read. */
export async function listBots(deps: DomainDeps, actor: Actor, orgId: string, filters: unknown = {}): Promise<BotView[]> {
  requireScope(actor, 'bots:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const { enabled, templateId } = parseInput(listBotsInput, withoutNulls(filters));
  const rows = await batchOf(deps).bots.load(org.id); // oldest first; at most LIST_LIMITS.bots
  const template = templateId?.toLowerCase();
  return rows
    .filter((row) => (enabled === undefined || row.enabled === enabled) && (template === undefined || row.templateId === template))
    .map(botView);
}

/** GET /v1/bots/{botId}, Query.bot(id). Scope bots:read. */
export async function getBot(deps: DomainDeps, actor: Actor, botId: string): Promise<BotView> {
  requireScope(actor, 'bots:read');
  return botView(await loadReachableBot(deps, actor, botId));
}

/**
 * Creates a bot in an organization within reach; from a template, with the template's workflow as its first
 * one (reading the template takes templates:read too). At most LIST_LIMITS.bots per organization, counted
 * under its lock. Event bot.created. Scope bots:write.
 */
export async function createBot(deps: DomainDeps, actor: Actor, orgId: string, input: unknown): Promise<BotView> {
  requireScope(actor, 'bots:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const data = parseInput(createBotInput, input ?? {});
  if (data.templateId !== undefined) requireScope(actor, 'templates:read');
  const templateId = data.templateId?.toLowerCase();
  return deps.db
    .$transaction(async (tx) => {
      await lockOrganizationForLimit(tx, org.id);
      assertRoomFor('bots', await tx.bot.count({ where: { orgId: org.id } }));
      // templates are the credential owner's (templates.ts); the bot's row refers to the template, so a delete of
      // it waits for this transaction and then finds the bot (or this insert finds the template gone)
      const template =
        templateId === undefined
          ? null
          : await tx.workflowTemplate.findFirst({
              where: { id: templateId, orgId: actor.orgId },
              select: { id: true, version: true, workflow: true },
            });
      if (templateId !== undefined && !template) throw new NotFound('Template');
      const now = deps.clock();
      const row = await tx.bot.create({
        data: {
          createdAt: now,
          updatedAt: now,
          orgId: org.id,
          name: data.name,
          enabled: data.enabled ?? true,
          templateId: template?.id ?? null,
          templateVersion: template?.version ?? null,
        },
      });
      // a template's workflow is a portable one with an `order`; the bot's first workflow takes order 1 instead
      const workflow = templateWorkflowOf(template);
      const workflows = workflow ? await insertWorkflows(tx, row.id, 1, [workflow]) : [];
      const view = botView(row);
      await recordEvent(tx, deps, actor, {
        type: 'bot.created',
        orgId: org.id,
        subject: { type: 'bot', id: row.id },
        data: { ...view, workflows: workflows.length },
      });
      return view;
    }, LIMIT_TRANSACTION_OPTIONS)
    .catch((error: unknown) => {
      if (isForeignKeyViolation(error)) throw new NotFound('Template');
      throw error;
    });
}

/** A template's stored workflow in canonical form (null for none); one stored before today's rules is a 409. */
function templateWorkflowOf(template: { id: string; workflow: unknown } | null): TemplateWorkflow | null {
  if (template === null || template.workflow === null) return null;
  const parsed = templateWorkflowInputSchema.safeParse(template.workflow);
  if (!parsed.success)
    throw new Conflict(
      `The workflow of template ${template.id} no longer meets the rules of a workflow; save it again (PUT /v1/templates/{id}) first`,
    );
  return canonicalTemplateWorkflow(parsed.data);
}

/**
 * Changes a bot's name or enabled switch, or unlinks it from its template. Event bot.updated with the values
 * replaced; a change to nothing writes no event. Scope bots:write.
 */
export async function updateBot(deps: DomainDeps, actor: Actor, botId: string, input: unknown): Promise<BotView> {
  requireScope(actor, 'bots:write');
  const id = uuidParam('botId', botId);
  const changes = parseInput(updateBotInput, input ?? {});
  return deps.db.$transaction(async (tx) => {
    // locked and read first: the event records the values it replaces, and reach is decided in the same statement
    const [locked] = await botWithParent(tx, id, true);
    if (!locked || !reaches(actor, { id: locked.orgId, parentId: locked.parentId })) throw new NotFound('Bot');
    const before = botView(locked);
    const unlink = changes.templateId === null ? { templateId: null, templateVersion: null } : {};
    const view = botView(
      await tx.bot.update({ where: { id }, data: { name: changes.name, enabled: changes.enabled, ...unlink, updatedAt: deps.clock() } }),
    );
    const previous = changedFields(before, view);
    if (previous)
      await recordEvent(tx, deps, actor, { type: 'bot.updated', orgId: locked.orgId, subject: { type: 'bot', id }, data: view, previous });
    return view;
  });
}
