// Workflow templates (spec §2 "Workflow template", §4 "Templates", docs/decisions.md §3).
//
// Templates belong to the credential owner's organization only: an account organization's key sees
// and edits the account's own templates, not its children's (a child's template is a 404 to it).
// `version` grows by exactly one when an update changes the stored workflow definition (compared in
// canonical form, see workflowShape.ts) and never otherwise; the template row is locked for the
// comparison so that concurrent updates neither lose nor double a bump.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import { Prisma } from '../../generated/prisma/client.js';
import { type Actor, requireScope } from '../shared/access.js';
import { Conflict, MAX_NAMED, NotFound, parseInput, shownName } from '../shared/errors.js';
import { changedFields, recordEvent } from '../events/log.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { uuidParam } from '../shared/ids.js';
import { withoutNulls } from '../shared/inputParams.js';
import {
  canonicalTemplateWorkflow,
  nonBlankField,
  objectError,
  type TemplateWorkflow,
  templateWorkflowInputSchema,
  textField,
  templateWorkflowResponse,
} from './workflowShape.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { botsOfTemplate, lockTemplate } from './sql.js';

export const MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const;
export type Medium = (typeof MEDIUMS)[number];
export const OFFICE_HOURS_AVAILABILITIES = ['OPEN', 'CLOSED'] as const;
export type OfficeHoursAvailability = (typeof OFFICE_HOURS_AVAILABILITIES)[number];

export const MAX_VARIABLES = 100;
export const MAX_TEMPLATE_DESCRIPTION = 2000;

const variableSchema = z.strictObject(
  {
    name: nonBlankField(255),
    description: textField(2000).optional(),
    // only STRING is known (spec §2); it may be sent, and is always answered
    type: z.literal('STRING', { error: 'must be STRING (the only variable type)' }).optional(),
  },
  objectError(),
);

const variablesField = z
  .array(variableSchema, { error: 'must be an array of {name, description}' })
  .max(MAX_VARIABLES, { error: `must have at most ${MAX_VARIABLES} variables` })
  .superRefine((vars, ctx) => {
    const seen = new Set<string>();
    vars.forEach((v, i) => {
      if (seen.has(v.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicates the variable name "${v.name}"` });
      seen.add(v.name);
    });
  });

const mediumsField = z
  .array(z.enum(MEDIUMS, { error: `must be one of ${MEDIUMS.join(', ')}` }), { error: `must be an array of ${MEDIUMS.join(', ')} or null` })
  // each type once at most: a longer list is refused before its items are read
  .max(MEDIUMS.length, { error: `must name each of ${MEDIUMS.join(', ')} at most once` })
  .superRefine((mediums, ctx) => {
    const seen = new Set<string>();
    mediums.forEach((m, i) => {
      if (seen.has(m)) ctx.addIssue({ code: 'custom', path: [i], message: `duplicates ${m}` });
      seen.add(m);
    });
  })
  .nullable();

const templateFields = {
  name: nonBlankField(255),
  description: textField(MAX_TEMPLATE_DESCRIPTION),
  variables: variablesField,
  /** null or [] = every conversation type. */
  applicableMediums: mediumsField,
  officeHoursAvailability: z.enum(OFFICE_HOURS_AVAILABILITIES, { error: 'must be OPEN, CLOSED or null' }).nullable(),
  /** null removes the definition. */
  workflow: templateWorkflowInputSchema.nullable(),
};

/** PUT /v1/templates/{id}, Mutation.updateTemplate: every field optional; an omitted field keeps its value. */
export const updateTemplateInputSchema = z.strictObject(
  {
    name: templateFields.name.optional(),
    description: templateFields.description.optional(),
    variables: templateFields.variables.optional(),
    applicableMediums: templateFields.applicableMediums.optional(),
    officeHoursAvailability: templateFields.officeHoursAvailability.optional(),
    workflow: templateFields.workflow.optional(),
  },
  objectError('the body must be an object'),
);

/** POST /v1/templates, Mutation.createTemplate: the same fields (still closed), `name` required. */
export const createTemplateInputSchema = updateTemplateInputSchema.extend({ name: templateFields.name });

/**
 * Query of GET /v1/templates and the arguments of GraphQL `templates`: the templates usable on a medium
 * (those naming it, and those naming none: every medium) and at a time of day (those for it, and those
 * for any time). One value each.
 */
export const listTemplatesInput = z.strictObject({
  medium: z
    .enum(MEDIUMS, { error: `must be one of ${MEDIUMS.join(', ')}` })
    .optional()
    .describe('Only templates usable on this medium: those naming it and those naming none.'),
  officeHoursAvailability: z
    .enum(OFFICE_HOURS_AVAILABILITIES, { error: 'must be OPEN or CLOSED' })
    .optional()
    .describe('Only templates usable then: those for it and those for any time.'),
});

export type UpdateTemplateInput = z.output<typeof updateTemplateInputSchema>;
export type CreateTemplateInput = z.output<typeof createTemplateInputSchema>;

export interface TemplateVariable {
  name: string;
  type: 'STRING';
  description: string;
}

/** A template as listed (GET /v1/templates): without `workflow`. */
export interface TemplateSummary {
  id: string;
  name: string;
  description: string;
  version: number;
  createdAt: string;
  variables: TemplateVariable[];
  /** [] = every conversation type (null is never answered). */
  applicableMediums: Medium[];
  officeHoursAvailability: OfficeHoursAvailability | null;
}

/** The full template (create, update, GraphQL), with its workflow definition (null when it has none). */
export interface TemplateView extends TemplateSummary {
  workflow: TemplateWorkflow | null;
}

// the documented answers (the OpenAPI document), checked against the view types
const templateVariableResponse = viewSchema<TemplateVariable>()(
  z.object({ name: z.string(), type: z.literal('STRING'), description: z.string() }).meta({ id: 'TemplateVariable' }),
);
const templateSummaryFields = {
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  version: z.int().min(1).describe('Grows by one each time the workflow definition changes.'),
  createdAt: instantView(),
  variables: z.array(templateVariableResponse),
  applicableMediums: z.array(z.enum(MEDIUMS)).describe('`[]` = every conversation type.'),
  officeHoursAvailability: z.enum(OFFICE_HOURS_AVAILABILITIES).nullable().describe('When the template may be used; null = always.'),
};
export const templateSummaryResponse = viewSchema<TemplateSummary>()(
  z.object(templateSummaryFields).meta({ id: 'TemplateSummary', description: 'A template as listed: without `workflow`.' }),
);
export const templateListResponse = viewSchema<{ templates: TemplateSummary[] }>()(
  z.object({ templates: z.array(templateSummaryResponse).describe('Oldest first.') }),
);
export const deletedTemplateResponse = viewSchema<{ id: string; deleted: true }>()(z.object({ id: z.uuid(), deleted: z.literal(true) }));
export const templateResponse = viewSchema<TemplateView>()(
  z
    .object({
      ...templateSummaryFields,
      workflow: templateWorkflowResponse.nullable().describe('Null when the template has no workflow definition.'),
    })
    .meta({ id: 'Template', description: 'The full template, with its workflow definition.' }),
);

interface TemplateRow {
  id: string;
  name: string;
  description: string;
  version: number;
  createdAt: Date;
  variables: Prisma.JsonValue;
  workflow: Prisma.JsonValue;
  applicableMediums: Medium[];
  officeHoursAvailability: OfficeHoursAvailability | null;
}

function variablesOf(stored: Prisma.JsonValue): TemplateVariable[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((v) =>
    v && typeof v === 'object' && !Array.isArray(v) && typeof v.name === 'string'
      ? [{ name: v.name, type: 'STRING' as const, description: typeof v.description === 'string' ? v.description : '' }]
      : [],
  );
}

/** The stored definition in canonical form; a document that no longer parses is answered as stored. */
function storedWorkflow(stored: Prisma.JsonValue): TemplateWorkflow | null {
  if (stored === null) return null;
  const parsed = templateWorkflowInputSchema.safeParse(stored);
  return parsed.success ? canonicalTemplateWorkflow(parsed.data) : (stored as unknown as TemplateWorkflow);
}

function summaryOf(row: TemplateRow): TemplateSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    variables: variablesOf(row.variables),
    applicableMediums: row.applicableMediums,
    officeHoursAvailability: row.officeHoursAvailability,
  };
}

function viewOf(row: TemplateRow): TemplateView {
  return { ...summaryOf(row), workflow: storedWorkflow(row.workflow) };
}

const storedVariables = (vars: { name: string; description?: string | undefined }[]) =>
  vars.map((v) => ({ name: v.name, type: 'STRING', description: v.description ?? '' }));

const ownTemplates = (actor: Actor) => ({ orgId: actor.orgId });
const listOrder = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/** The filters of a list (query strings as sent, or GraphQL arguments; null is no filter) as a `where`. */
function listWhere(actor: Actor, filters: unknown): Prisma.WorkflowTemplateWhereInput {
  const { medium, officeHoursAvailability } = parseInput(listTemplatesInput, withoutNulls(filters));
  return {
    ...ownTemplates(actor),
    AND: [
      ...(medium ? [{ OR: [{ applicableMediums: { has: medium } }, { applicableMediums: { isEmpty: true } }] }] : []),
      ...(officeHoursAvailability ? [{ OR: [{ officeHoursAvailability }, { officeHoursAvailability: null }] }] : []),
    ],
  };
}

/** GET /v1/templates: the credential owner's templates, oldest first, without workflows; filtered when asked. */
export async function listTemplates(deps: DomainDeps, actor: Actor, filters: unknown = {}): Promise<TemplateSummary[]> {
  const { db } = deps;
  requireScope(actor, 'templates:read');
  const rows = await db.workflowTemplate.findMany({ where: listWhere(actor, filters), orderBy: listOrder });
  return rows.map(summaryOf);
}

/** Query.templates: the same list, with each template's workflow. */
export async function listTemplatesWithWorkflows(deps: DomainDeps, actor: Actor, filters: unknown = {}): Promise<TemplateView[]> {
  const { db } = deps;
  requireScope(actor, 'templates:read');
  const rows = await db.workflowTemplate.findMany({ where: listWhere(actor, filters), orderBy: listOrder });
  return rows.map(viewOf);
}

/** GET /v1/templates/{id}, Query.template: one template of the credential owner's organization, with its workflow. */
export async function getTemplate(deps: DomainDeps, actor: Actor, templateId: string): Promise<TemplateView> {
  requireScope(actor, 'templates:read');
  const id = uuidParam('templateId', templateId);
  const row = await deps.db.workflowTemplate.findFirst({ where: { id, ...ownTemplates(actor) } });
  if (!row) throw new NotFound('Template');
  return viewOf(row);
}

/**
 * DELETE /v1/templates/{id}, Mutation.deleteTemplate. Refused (409 naming them) while bots created from it refer
 * to it: delete them or unlink them (PATCH /v1/bots/{id} with templateId null) first. Bots keep the workflows
 * imported from it (an import copies the definition). A second delete is a 404.
 */
export async function deleteTemplate(deps: DomainDeps, actor: Actor, templateId: string): Promise<{ id: string; deleted: true }> {
  requireScope(actor, 'templates:write');
  const id = uuidParam('templateId', templateId);
  await deps.db.$transaction(async (tx) => {
    // locked first: of two deletes at once, the second finds nothing (a 404, not an error)
    if ((await lockTemplate(tx, actor.orgId, id)).length === 0) throw new NotFound('Template');
    // a bot made from it refers to its row (a foreign key): one that commits first is found here, one that
    // commits later waited for this lock and then finds the template gone
    const users = await botsOfTemplate(tx, id, MAX_NAMED + 1);
    if (users.length > 0) throw new Conflict(templateInUse(id, users));
    const deleted = await tx.workflowTemplate.delete({ where: { id } });
    await recordEvent(tx, deps, actor, {
      type: 'template.deleted',
      orgId: actor.orgId,
      subject: { type: 'template', id },
      data: viewOf(deleted),
    });
  });
  deps.changes.publish({ kind: 'templates', orgId: actor.orgId });
  return { id, deleted: true };
}

/** `Template … is used by bots "A" (id), …`: the first few bots that refer to it, and whether there are more. */
function templateInUse(id: string, bots: { id: string; name: string }[]): string {
  const named = bots
    .slice(0, MAX_NAMED)
    .map((b) => `"${shownName(b.name)}" (${b.id})`)
    .join(', ');
  const more = bots.length > MAX_NAMED ? ' and more' : '';
  return `Template ${id} is used by bot${bots.length === 1 ? '' : 's'} ${named}${more}; delete them or unlink them from it (PATCH /v1/bots/{id} with templateId null) first`;
}

export async function createTemplate(deps: DomainDeps, actor: Actor, rawInput: unknown): Promise<TemplateView> {
  const { db } = deps;
  requireScope(actor, 'templates:write');
  const input = parseInput(createTemplateInputSchema, rawInput ?? {});
  const view = await db.$transaction(async (tx) => {
    await lockOrganizationForLimit(tx, actor.orgId);
    assertRoomFor('templates', await tx.workflowTemplate.count({ where: { orgId: actor.orgId } }));
    const row = await tx.workflowTemplate.create({
      data: {
        orgId: actor.orgId,
        name: input.name,
        description: input.description ?? '',
        version: 1,
        variables: storedVariables(input.variables ?? []),
        applicableMediums: input.applicableMediums ?? [],
        officeHoursAvailability: input.officeHoursAvailability ?? null,
        workflow: input.workflow ? (canonicalTemplateWorkflow(input.workflow) as unknown as Prisma.InputJsonObject) : Prisma.DbNull,
      },
    });
    const view = viewOf(row);
    await recordEvent(tx, deps, actor, {
      type: 'template.created',
      orgId: actor.orgId,
      subject: { type: 'template', id: row.id },
      data: view,
    });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  deps.changes.publish({ kind: 'templates', orgId: actor.orgId });
  return view;
}

// Interactive transactions wait for one another on the embedded database (one connection), so
// a burst of concurrent updates needs more than Prisma's default 2 s to start and 5 s to finish.
const TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 20_000 };

export async function updateTemplate(deps: DomainDeps, actor: Actor, templateId: string, rawInput: unknown): Promise<TemplateView> {
  const { db } = deps;
  requireScope(actor, 'templates:write');
  const id = uuidParam('templateId', templateId);
  // an absent body changes nothing (every field is optional)
  const input = parseInput(updateTemplateInputSchema, rawInput ?? {});
  const result = await db.$transaction(async (tx) => {
    // lock the row first: the comparison below and the bump must see the latest committed definition
    const locked = await lockTemplate(tx, actor.orgId, id);
    if (locked.length === 0) throw new NotFound('Template');
    const current = await tx.workflowTemplate.findUniqueOrThrow({ where: { id } });

    const data: Prisma.WorkflowTemplateUpdateInput = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.description !== undefined) data.description = input.description;
    if (input.variables !== undefined) data.variables = storedVariables(input.variables);
    if (input.applicableMediums !== undefined) data.applicableMediums = input.applicableMediums ?? [];
    if (input.officeHoursAvailability !== undefined) data.officeHoursAvailability = input.officeHoursAvailability;
    if (input.workflow !== undefined) {
      const next = input.workflow === null ? null : canonicalTemplateWorkflow(input.workflow);
      if (JSON.stringify(next) !== JSON.stringify(storedWorkflow(current.workflow))) {
        data.workflow = next === null ? Prisma.DbNull : (next as unknown as Prisma.InputJsonObject);
        data.version = { increment: 1 };
      }
    }
    if (Object.keys(data).length === 0) return { view: viewOf(current), changed: false };
    const updated = await tx.workflowTemplate.update({ where: { id }, data });
    const view = viewOf(updated);
    const previous = changedFields(viewOf(current), view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'template.updated',
        orgId: actor.orgId,
        subject: { type: 'template', id },
        data: view,
        previous,
      });
    return { view, changed: previous !== null };
  }, TRANSACTION_OPTIONS);
  if (result.changed) deps.changes.publish({ kind: 'templates', orgId: actor.orgId });
  return result.view;
}
