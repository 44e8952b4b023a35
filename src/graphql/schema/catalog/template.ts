// Workflow templates (spec §2, §4 "Templates"): Query.templates/template, Mutation.createTemplate/updateTemplate/deleteTemplate,
// and the workflow types shared with bot workflows (graphql/schema/catalog/bot.ts).
// The input types mirror the REST body; their leaves are permissive (plain strings and ints) so that the
// domain's zod schema, the same one REST uses, decides what is valid and says why.
import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplatesWithWorkflows,
  type TemplateVariable,
  type TemplateView,
  updateTemplate,
} from '../../../domain/catalog/templates.js';
import type { ActionMetadata, ChildStep, Step, TemplateWorkflow } from '../../../domain/catalog/workflowShape.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { MediumEnum, OfficeHoursAvailabilityEnum } from '../enums.js';

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

// ── output types ──────────────────────────────────────────────────────────────────────────────

export const StepActionMetadataType = builder.objectRef<ActionMetadata>('StepActionMetadata').implement({
  description: 'Metadata of a step action: the message template it uses.',
  fields: (t) => ({
    templateName: t.exposeString('templateName', { description: 'Name of the message template.' }),
    templateBody: t.exposeString('templateBody', { description: 'Body of the message template.' }),
  }),
});

/** The fields a step and a child step share; `orderDescription` differs. */
function stepFields<S extends ChildStep>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, S>, orderDescription: string) {
  return {
    title: t.string({ description: 'Step title.', resolve: (s: S) => s.title }),
    description: t.string({ description: 'Step description.', resolve: (s: S) => s.description }),
    instructions: t.string({ description: 'Instructions for the agent at this step.', resolve: (s: S) => s.instructions }),
    order: t.int({ description: orderDescription, resolve: (s: S) => s.order }),
    examples: t.stringList({ description: 'Example utterances.', resolve: (s: S) => s.examples }),
    action: t.string({ description: 'The action taken at this step ("" for none).', resolve: (s: S) => s.action }),
    actionMetadata: t.field({
      type: StepActionMetadataType,
      nullable: true,
      description: 'The action metadata (templateName, templateBody); null when the step has none.',
      resolve: (s: S) => s.actionMetadata,
    }),
  };
}

export const WorkflowChildStepType = builder.objectRef<ChildStep>('WorkflowChildStep').implement({
  description: 'A child step of a workflow step: the same fields as a step, without further child steps.',
  fields: (t) => stepFields(t, 'Position among its sibling steps (ascending).'),
});

export const WorkflowStepType = builder.objectRef<Step>('WorkflowStep').implement({
  description: 'A step of a workflow, with optional child steps (one level) and an optional action.',
  fields: (t) => ({
    ...stepFields(t, 'Position among the workflow steps (ascending).'),
    childSteps: t.expose('childSteps', {
      type: [WorkflowChildStepType],
      description: 'Child steps, ordered by order; they have no further child steps.',
    }),
  }),
});

export const TemplateWorkflowType = builder.objectRef<TemplateWorkflow>('TemplateWorkflow').implement({
  description: "A template's workflow definition: an ordered list of steps with optional child steps and actions.",
  fields: (t) => ({
    title: t.exposeString('title', { description: 'Workflow title.' }),
    description: t.exposeString('description', { description: 'Workflow description.' }),
    enabled: t.exposeBoolean('enabled', { description: 'Whether the workflow is enabled.' }),
    usageContext: t.exposeString('usageContext', { description: 'When the agent should use this workflow.' }),
    order: t.exposeInt('order', { description: 'Position of the workflow.' }),
    steps: t.expose('steps', { type: [WorkflowStepType], description: 'Steps, ordered by order.' }),
  }),
});

const TemplateVariableTypeEnum = builder.enumType('TemplateVariableType', {
  description: 'The type of a template variable (STRING is the only one known).',
  values: ['STRING'] as const,
});

const TemplateVariableType = builder.objectRef<TemplateVariable>('TemplateVariable').implement({
  description: 'A variable a template uses.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Variable name.' }),
    type: t.expose('type', { type: TemplateVariableTypeEnum, description: 'Variable type.' }),
    description: t.exposeString('description', { description: 'What the variable holds.' }),
  }),
});

export const WorkflowTemplateType = builder.objectRef<TemplateView>('WorkflowTemplate').implement({
  interfaces: [NodeRef],
  description: 'A reusable workflow template of an organization.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Template id (UUID).' }),
    name: t.exposeString('name', { description: 'Template name, 1 to 255 characters.' }),
    description: t.exposeString('description', { description: 'Template description.' }),
    version: t.exposeInt('version', { description: 'Incremented when the workflow definition changes on update.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the template was created.' }),
    variables: t.expose('variables', { type: [TemplateVariableType], description: 'Variables the template uses.' }),
    workflow: t.expose('workflow', {
      type: TemplateWorkflowType,
      nullable: true,
      description: 'The workflow definition; null when the template has none.',
    }),
    applicableMediums: t.expose('applicableMediums', {
      type: [MediumEnum],
      description: 'Conversation types where the template can be used; empty = all.',
    }),
    officeHoursAvailability: t.expose('officeHoursAvailability', {
      type: OfficeHoursAvailabilityEnum,
      nullable: true,
      description: 'OPEN = usable during office hours; CLOSED = usable outside office hours; null = any time.',
    }),
  }),
});

// ── input types ───────────────────────────────────────────────────────────────────────────────
// The shape (field names, nesting) is typed; the leaves are the permissive JSON scalar, so a wrong
// value reaches the domain's zod schema and is answered exactly as on REST (BAD_USER_INPUT with issues).

const StepActionMetadataInput = builder.inputType('StepActionMetadataInput', {
  description: 'Metadata of a step action.',
  fields: (t) => ({
    templateName: t.field({ type: 'JSON', description: 'String: name of the message template (up to 255 characters).' }),
    templateBody: t.field({ type: 'JSON', description: 'String: body of the message template (up to 10 000 characters).' }),
  }),
});

interface WorkflowStepInputShape {
  [field: string]: unknown;
  childSteps?: WorkflowStepInputShape[] | null;
}

export const WorkflowStepInput = builder.inputRef<WorkflowStepInputShape>('WorkflowStepInput').implement({
  description:
    'A workflow step. title is required (1 to 255 characters); order defaults to the position (1-based) and must differ among siblings; a child step may not have childSteps.',
  fields: (t) => ({
    title: t.field({ type: 'JSON', description: 'String, required: step title (1 to 255 characters).' }),
    description: t.field({ type: 'JSON', description: 'String: step description (up to 2000 characters).' }),
    instructions: t.field({ type: 'JSON', description: 'String: instructions for the agent (up to 10 000 characters).' }),
    order: t.field({
      type: 'JSON',
      description: 'Integer 0 to 1 000 000: position among sibling steps; defaults to the position in the list (1-based).',
    }),
    examples: t.field({ type: 'JSON', description: 'Array of strings: example utterances (at most 50).' }),
    action: t.field({ type: 'JSON', description: 'String: the action taken at this step.' }),
    actionMetadata: t.field({ type: StepActionMetadataInput, description: 'Action metadata.' }),
    childSteps: t.field({ type: [WorkflowStepInput], description: 'Child steps (one level only).' }),
  }),
});

export const WorkflowInput = builder.inputType('WorkflowInput', {
  description: 'A workflow definition, in the shape it is returned. At most 200 steps, child steps included.',
  fields: (t) => ({
    title: t.field({ type: 'JSON', description: 'String, required: workflow title (1 to 255 characters).' }),
    description: t.field({ type: 'JSON', description: 'String: workflow description (up to 2000 characters).' }),
    enabled: t.field({ type: 'JSON', description: 'Boolean: whether the workflow is enabled (default true).' }),
    usageContext: t.field({ type: 'JSON', description: 'String: when the agent should use this workflow (up to 2000 characters).' }),
    order: t.field({ type: 'JSON', description: 'Integer 0 to 1 000 000: position of the workflow (default 0).' }),
    steps: t.field({ type: [WorkflowStepInput], description: 'Steps.' }),
  }),
});

const TemplateVariableInput = builder.inputType('TemplateVariableInput', {
  description: 'A template variable: name (required, unique within the template) and description.',
  fields: (t) => ({
    name: t.field({ type: 'JSON', description: 'String, required: variable name (1 to 255 characters).' }),
    description: t.field({ type: 'JSON', description: 'String: what the variable holds (up to 2000 characters).' }),
    type: t.field({ type: 'JSON', description: 'String: the variable type; only "STRING" is accepted (and it is the default).' }),
  }),
});

const TemplateInput = builder.inputType('TemplateInput', {
  description:
    'Fields of a workflow template. On create, name is required; on update every field is optional and an omitted field keeps its value.',
  fields: (t) => ({
    name: t.field({
      type: 'JSON',
      description: 'String: template name, 1 to 255 characters with a non-whitespace character (required on create).',
    }),
    description: t.field({ type: 'JSON', description: 'String: template description (up to 2000 characters).' }),
    variables: t.field({ type: [TemplateVariableInput], description: 'Variables; replaces the list.' }),
    applicableMediums: t.field({
      type: 'JSON',
      description: 'Array of CHAT, PHONE, GHL, SMS (no duplicates): conversation types where the template can be used; null or [] = all.',
    }),
    officeHoursAvailability: t.field({
      type: 'JSON',
      description: '"OPEN" (usable during office hours), "CLOSED" (outside office hours) or null (any time).',
    }),
    workflow: t.field({ type: WorkflowInput, description: 'The workflow definition; a change increments version; null removes it.' }),
  }),
});

// ── operations ────────────────────────────────────────────────────────────────────────────────

builder.queryFields((t) => ({
  templates: t.field({
    type: [WorkflowTemplateType],
    description:
      "Workflow templates of the credential owner's organization, oldest first, with their workflows; only those usable on a medium and/or at a time when given (as GET /v1/templates). Scope templates:read.",
    args: {
      medium: t.arg({ type: MediumEnum, description: 'Only templates usable on this medium: those naming it and those naming none.' }),
      officeHoursAvailability: t.arg({
        type: OfficeHoursAvailabilityEnum,
        description: 'Only templates usable then: those for it and those for any time.',
      }),
    },
    resolve: async (_root, args, ctx) => listTemplatesWithWorkflows(ctx.deps, await ctx.actor(), args),
  }),
  template: t.field({
    type: WorkflowTemplateType,
    nullable: true,
    description:
      "One template of the credential owner's organization, with its workflow (another organization's is NOT_FOUND, like a missing one). Scope templates:read.",
    args: { id: t.arg.id({ required: true, description: 'Template id.' }) },
    resolve: async (_root, args, ctx) => getTemplate(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createTemplate: t.field({
    type: WorkflowTemplateType,
    description: `Creates a workflow template in the credential owner's organization, with version 1; CONFLICT when it already has ${LIST_LIMITS.templates} templates (the most it may have). Scope templates:write.`,
    args: { input: t.arg({ type: TemplateInput, required: true, description: 'The template; name is required.' }) },
    resolve: async (_root, args, ctx) => createTemplate(ctx.deps, await ctx.actor(), args.input),
  }),
  updateTemplate: t.field({
    type: WorkflowTemplateType,
    description:
      "Updates a template of the credential owner's organization; version is incremented when the workflow definition changes. Scope templates:write.",
    args: {
      id: t.arg.id({ required: true, description: 'Template id.' }),
      input: t.arg({ type: TemplateInput, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, args, ctx) => updateTemplate(ctx.deps, await ctx.actor(), String(args.id), args.input),
  }),
  deleteTemplate: t.boolean({
    description:
      "Deletes a template of the credential owner's organization; true when it was deleted (a missing one is NOT_FOUND; CONFLICT, naming them, while bots created from it refer to it). Bots keep workflows imported from it. Scope templates:write.",
    args: { id: t.arg.id({ required: true, description: 'Template id.' }) },
    resolve: async (_root, args, ctx) => (await deleteTemplate(ctx.deps, await ctx.actor(), String(args.id))).deleted,
  }),
}));
