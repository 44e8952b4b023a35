// Bots' workflows (spec §2 "Workflow", §4 "Workflows"): exporting a bot's workflows in the portable form,
// importing that form into another bot, and replacing a bot's workflows with it (bots themselves: bots.ts).
//
// A bot is reachable when its organization is within the caller's reach (docs/decisions.md §2); any other bot
// answers 404 exactly like a missing one. The import is the purpose the specification gives the export:
// `{workflows: [...]}` as exported (ids ignored), at most 100 workflows of at most 200 steps each,
// appended after the target bot's existing workflows, all in one transaction.
//
// A bot's workflows have a version, as a template's workflow has (spec "Template version"): it grows by one exactly
// when they change (an import of at least one, a replace whose canonical workflows differ from the stored ones),
// under the bot's row lock, so that concurrent writers neither lose nor double a bump. A replace may name the
// version it read (`version`): another is a 409, the dashboard's guard against overwriting a change it never saw.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { DomainDeps } from '../shared/deps.js';
import { type Actor, reaches, requireScope } from '../shared/access.js';
import { Conflict, NotFound, parseInput } from '../shared/errors.js';
import { assertRoomFor } from '../shared/listLimits.js';
import { processTenantWork } from '../shared/tenantWork.js';
import { uuidParam } from '../shared/ids.js';
import { recordEvent } from '../events/log.js';
import type { Bot, WorkflowStep } from '../../generated/prisma/client.js';
import {
  canonicalPortableWorkflow,
  type ChildStep,
  objectError,
  type PortableWorkflow,
  portableWorkflowInputSchema,
  type Step,
  portableWorkflowFields,
} from './workflowShape.js';
import { viewSchema } from '../shared/viewSchema.js';
import { botWithParent } from './sql.js';

export const MAX_IMPORTED_WORKFLOWS = 100;

/** Loads a bot within the caller's reach (one statement: the bot and its organization's parent), or throws NotFound. No scope check: callers do that. */
export async function loadReachableBot(deps: DomainDeps, actor: Actor, botId: string): Promise<Bot> {
  const [bot] = await botWithParent(deps.db, uuidParam('botId', botId));
  if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
  const { parentId: _parentId, ...row } = bot;
  return row;
}

/** A bot workflow in the portable export form of spec §2, with its id. */
export interface ExportedWorkflow extends PortableWorkflow {
  id: string;
}

// the documented answers (the OpenAPI document), checked against the view types
export const exportedWorkflowResponse = viewSchema<ExportedWorkflow>()(
  z
    .object({ id: z.uuid(), ...portableWorkflowFields })
    .meta({ id: 'Workflow', description: 'A bot workflow in the portable export form; `id` is ignored on import.' }),
);
/** A bot's workflows and their version. */
export interface BotWorkflows {
  version: number;
  workflows: ExportedWorkflow[];
}

const versionView = () => z.int().min(1).describe("The version of the bot's workflows: grows by one with every change of them.");

export const workflowListResponse = viewSchema<BotWorkflows>()(
  z.object({ version: versionView(), workflows: z.array(exportedWorkflowResponse).describe('Ordered by `order`.') }),
);

/** A replace's answer: the bot's workflows after it, and whether they changed (false: nothing written, no event). */
export interface ReplacedWorkflows extends BotWorkflows {
  changed: boolean;
}

export const replacedWorkflowsResponse = viewSchema<ReplacedWorkflows>()(
  z.object({
    version: versionView(),
    changed: z.boolean().describe('False when the workflows given equal the stored ones: nothing was written and the version stays.'),
    workflows: z.array(exportedWorkflowResponse).describe('Ordered by `order`, with their new ids when they changed.'),
  }),
);

const workflowsField = z
  .array(portableWorkflowInputSchema, { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of workflows') })
  .max(MAX_IMPORTED_WORKFLOWS, { error: `must have at most ${MAX_IMPORTED_WORKFLOWS} workflows` });

const versionError = 'must be the version of the workflows read (a whole number from 1)';
const versionField = z.number({ error: versionError }).int({ error: versionError }).min(1, { error: versionError }).max(2_147_483_647, {
  error: versionError,
});

// the export's answer is sent to another bot as is: its `version` (the source bot's) is taken and ignored
export const importWorkflowsInputSchema = z.strictObject(
  {
    workflows: workflowsField,
    version: versionField.optional().describe("Ignored: the exported bot's version, sent back with the export."),
  },
  objectError('the body must be an object with workflows'),
);

export const replaceWorkflowsInputSchema = z.strictObject(
  {
    workflows: workflowsField,
    version: versionField
      .optional()
      .describe(
        "The version read before: another is a 409 (someone changed the bot's workflows since). Omitted: replaced whatever the version.",
      ),
  },
  objectError('the body must be an object with workflows'),
);

export type ImportWorkflowsInput = z.output<typeof importWorkflowsInputSchema>;

/** The columns of a workflow step row that the portable form is built from. */
type StepRow = Pick<
  WorkflowStep,
  'id' | 'parentStepId' | 'title' | 'description' | 'instructions' | 'order' | 'examples' | 'action' | 'templateName' | 'templateBody'
>;

function childStepOf(row: StepRow): ChildStep {
  return {
    title: row.title,
    description: row.description,
    instructions: row.instructions,
    order: row.order,
    examples: row.examples,
    action: row.action,
    actionMetadata:
      row.templateName === null && row.templateBody === null
        ? null
        : { templateName: row.templateName ?? '', templateBody: row.templateBody ?? '' },
  };
}

/** Reads workflows (in the given order) with their steps, child steps nested one level, each ordered by `order`. */
async function readWorkflows(db: Pick<Db, 'workflow'>, where: { botId: string } | { id: { in: string[] } }): Promise<ExportedWorkflow[]> {
  const workflows = await db.workflow.findMany({
    where,
    orderBy: [{ order: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
    include: { steps: { orderBy: [{ order: 'asc' }, { id: 'asc' }] } },
  });
  return workflows.map((wf) => {
    const children = new Map<string, ChildStep[]>();
    for (const s of wf.steps) {
      if (s.parentStepId === null) continue;
      const list = children.get(s.parentStepId) ?? [];
      list.push(childStepOf(s));
      children.set(s.parentStepId, list);
    }
    const steps: Step[] = wf.steps
      .filter((s) => s.parentStepId === null)
      .map((s) => ({ ...childStepOf(s), childSteps: children.get(s.id) ?? [] }));
    return { id: wf.id, title: wf.title, description: wf.description, enabled: wf.enabled, usageContext: wf.usageContext, steps };
  });
}

/** GET /v1/bots/{botId}/workflows: every workflow of the bot in the portable form, with their version. */
export async function readBotWorkflows(deps: DomainDeps, actor: Actor, botId: string): Promise<BotWorkflows> {
  const { db } = deps;
  requireScope(actor, 'bots:read');
  const bot = await loadReachableBot(deps, actor, botId);
  // up to LIST_LIMITS.workflows workflows of up to 200 steps: the credential owner's exports run a few at a time (tenantWork.ts)
  const workflows = await (deps.tenantWork ?? processTenantWork).run(
    actor.orgId,
    'export',
    () => readWorkflows(db, { botId: bot.id }),
    deps.answerMade,
  );
  return { version: bot.workflowsVersion, workflows };
}

/** Bot.workflows: the workflows alone. */
export async function exportBotWorkflows(deps: DomainDeps, actor: Actor, botId: string): Promise<ExportedWorkflow[]> {
  return (await readBotWorkflows(deps, actor, botId)).workflows;
}

const TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 30_000 };

/**
 * POST /v1/bots/{botId}/workflows/import, GraphQL importWorkflows: creates copies of the given workflows in the bot;
 * answers them with their new ids, and the workflows' version after.
 */
export async function importBotWorkflows(deps: DomainDeps, actor: Actor, botId: string, rawInput: unknown): Promise<BotWorkflows> {
  const { db } = deps;
  requireScope(actor, 'templates:write');
  const id = uuidParam('botId', botId);
  const input = parseInput(importWorkflowsInputSchema, rawInput ?? {});
  const workflows = input.workflows.map(canonicalPortableWorkflow);

  return db.$transaction(async (tx) => {
    // lock the bot: concurrent imports into one bot append one after the other, with distinct orders
    // reach from the organization's parent read in the same statement (no read outside the transaction)
    const [bot] = await botWithParent(tx, id, true);
    if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
    assertRoomFor('workflows', await tx.workflow.count({ where: { botId: id } }), workflows.length);
    const last = await tx.workflow.aggregate({ where: { botId: id }, _max: { order: true } });
    const firstOrder = (last._max.order ?? 0) + 1;

    const ids = await insertWorkflows(tx, id, firstOrder, workflows);
    if (ids.length === 0) return { version: bot.workflowsVersion, workflows: [] };
    const version = await bumpWorkflowsVersion(tx, deps, id);
    // the answer is read in the transaction: the event's data is exactly what the caller gets
    const imported = await readWorkflows(tx, { id: { in: ids } });
    await recordEvent(tx, deps, actor, {
      type: 'workflows.imported',
      orgId: bot.orgId,
      subject: { type: 'bot', id },
      data: { botId: id, version, workflows: imported },
    });
    return { version, workflows: imported };
  }, TRANSACTION_OPTIONS);
}

/** Moves a bot's workflows to their next version (the bot's row is locked), changed at the app's time; answers it. */
async function bumpWorkflowsVersion(tx: Pick<Db, 'bot'>, deps: Pick<DomainDeps, 'clock'>, botId: string): Promise<number> {
  const row = await tx.bot.update({
    where: { id: botId },
    data: { workflowsVersion: { increment: 1 }, updatedAt: deps.clock() },
    select: { workflowsVersion: true },
  });
  return row.workflowsVersion;
}

/** The workflows as compared: the canonical portable form, without ids. */
const comparable = (workflows: readonly PortableWorkflow[]) =>
  JSON.stringify(
    workflows.map(({ title, description, enabled, usageContext, steps }) => ({ title, description, enabled, usageContext, steps })),
  );

/**
 * PUT /v1/bots/{botId}/workflows, GraphQL replaceBotWorkflows: the bot's workflows become the given ones (in their
 * order), in one transaction; the version grows by one when they differ from the stored ones, and nothing is written
 * when they do not. With `version`, refused (409) unless it is the stored one. Scope bots:write.
 */
export async function replaceBotWorkflows(deps: DomainDeps, actor: Actor, botId: string, rawInput: unknown): Promise<ReplacedWorkflows> {
  requireScope(actor, 'bots:write');
  const id = uuidParam('botId', botId);
  const input = parseInput(replaceWorkflowsInputSchema, rawInput ?? {});
  const workflows = input.workflows.map(canonicalPortableWorkflow);

  return deps.db.$transaction(async (tx) => {
    // the bot's row lock orders replaces and imports of one bot: each compares with what the one before wrote
    const [bot] = await botWithParent(tx, id, true);
    if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
    if (input.version !== undefined && input.version !== bot.workflowsVersion)
      throw new Conflict(
        `The bot's workflows are at version ${bot.workflowsVersion}, not ${input.version}: they changed since they were read; read them again`,
      );
    const current = await readWorkflows(tx, { botId: id });
    if (comparable(current) === comparable(workflows)) return { version: bot.workflowsVersion, changed: false, workflows: current };

    await tx.workflow.deleteMany({ where: { botId: id } });
    await insertWorkflows(tx, id, 1, workflows);
    const version = await bumpWorkflowsVersion(tx, deps, id);
    const replaced = await readWorkflows(tx, { botId: id });
    await recordEvent(tx, deps, actor, {
      type: 'workflows.replaced',
      orgId: bot.orgId,
      subject: { type: 'bot', id },
      data: { botId: id, version, workflows: replaced },
      previous: { version: bot.workflowsVersion, workflowCount: current.length },
    });
    return { version, changed: true, workflows: replaced };
  }, TRANSACTION_OPTIONS);
}

/**
 * Inserts workflows into a bot from `firstOrder` on, in three statements (workflows, steps, child steps: ids are
 * made here); answers the new workflows' ids in order. Run within the transaction that holds the bot locked.
 */
export async function insertWorkflows(
  tx: Pick<Db, 'workflow' | 'workflowStep'>,
  botId: string,
  firstOrder: number,
  workflows: PortableWorkflow[],
): Promise<string[]> {
  const workflowRows = workflows.map((wf, i) => ({
    id: randomUUID(),
    botId,
    title: wf.title,
    description: wf.description,
    enabled: wf.enabled,
    usageContext: wf.usageContext,
    order: firstOrder + i,
  }));
  const stepRow = (workflowId: string, parentStepId: string | null, s: ChildStep) => ({
    id: randomUUID(),
    workflowId,
    parentStepId,
    title: s.title,
    description: s.description,
    instructions: s.instructions,
    order: s.order,
    examples: s.examples,
    action: s.action,
    templateName: s.actionMetadata?.templateName ?? null,
    templateBody: s.actionMetadata?.templateBody ?? null,
  });
  const parents: ReturnType<typeof stepRow>[] = [];
  const children: ReturnType<typeof stepRow>[] = [];
  workflows.forEach((wf, i) => {
    const workflowId = workflowRows[i]!.id;
    for (const step of wf.steps) {
      const parent = stepRow(workflowId, null, step);
      parents.push(parent);
      for (const child of step.childSteps) children.push(stepRow(workflowId, parent.id, child));
    }
  });
  if (workflowRows.length) await tx.workflow.createMany({ data: workflowRows });
  if (parents.length) await tx.workflowStep.createMany({ data: parents });
  if (children.length) await tx.workflowStep.createMany({ data: children });
  return workflowRows.map((w) => w.id);
}
