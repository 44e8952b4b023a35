// The workflow definition of spec §2 ("Workflow"), shared by templates (stored as one JSON document)
// and bot workflows (stored as rows): one zod schema for its input and one canonical form for its output.
//
// The canonical form fills in every default, orders steps (and child steps) by `order` and fixes the
// key order, so two definitions are "the same" exactly when their canonical JSON is equal; that is
// what decides a template's version bump.
//
// Limits the specification leaves open (documented in docs/decisions.md §10):
//   workflow/step title 1..255 characters with a non-whitespace character; description and usageContext
//   up to 2000; instructions and templateBody up to 10 000; examples up to 50 strings of up to 1000;
//   action and templateName up to 255; order an integer 0..1 000 000, distinct among siblings and
//   defaulting to the position (1-based); at most 200 steps per workflow, child steps included.
import { z } from 'zod';
import { viewSchema } from '../shared/viewSchema.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { unknownKeysMessage } from '../shared/errors.js';

export const MAX_STEPS_PER_WORKFLOW = 200;
export const MAX_ORDER = 1_000_000;

/** A string field with a length limit; the messages name the reason (the path names the field). */
export function textField(max: number) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });
}

/** 1..max characters with at least one non-whitespace character. */
export function nonBlankField(max: number) {
  return textField(max)
    .min(1, { error: 'must not be empty' })
    .refine((s) => s.trim().length > 0, { error: 'must contain a non-whitespace character' });
}

const orderField = z
  .number({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer') })
  .int({ error: 'must be an integer' })
  .min(0, { error: 'must be at least 0' })
  .max(MAX_ORDER, { error: `must be at most ${MAX_ORDER}` });

const booleanField = z.boolean({ error: 'must be a boolean' });

const actionMetadataSchema = z.strictObject(
  {
    templateName: textField(255).optional(),
    templateBody: textField(10_000).optional(),
  },
  objectError('must be an object with templateName and templateBody'),
);

const stepFields = {
  title: nonBlankField(255),
  description: textField(2000).optional(),
  instructions: textField(10_000).optional(),
  order: orderField.optional(),
  examples: z
    .array(textField(1000), { error: 'must be an array of strings' })
    .max(50, { error: 'must have at most 50 examples' })
    .optional(),
  action: textField(255).optional(),
  actionMetadata: actionMetadataSchema.nullable().optional(),
};

/** Object-level messages: unknown properties are named (every schema is closed), anything else is "must be an object". */
export function objectError(what = 'must be an object') {
  return {
    error: (iss: { code: string; keys?: string[] }) => (iss.code === 'unrecognized_keys' ? unknownKeysMessage(iss.keys ?? []) : what),
  };
}

/** Orders must be distinct among siblings, so that "ordered by order" is one order. */
function distinctOrders(steps: { order?: number | undefined }[], ctx: z.RefinementCtx): void {
  const seen = new Map<number, number>();
  steps.forEach((step, index) => {
    const order = step.order ?? index + 1;
    const first = seen.get(order);
    if (first !== undefined) {
      ctx.addIssue({ code: 'custom', path: [index, 'order'], message: `must differ from the order of step ${first} (${order})` });
    } else seen.set(order, index);
  });
}

export const childStepInputSchema = z.strictObject(
  {
    ...stepFields,
    // one level only (spec §2): an empty list is tolerated, anything in it is not
    childSteps: z
      .array(z.unknown(), { error: 'child steps cannot have childSteps (one level only)' })
      .max(0, { error: 'child steps cannot have childSteps (one level only)' })
      .optional(),
  },
  objectError(),
);

export const stepInputSchema = z.strictObject(
  {
    ...stepFields,
    childSteps: z
      .array(childStepInputSchema, { error: 'must be an array of steps' })
      .max(MAX_STEPS_PER_WORKFLOW, { error: `must have at most ${MAX_STEPS_PER_WORKFLOW} steps` })
      .superRefine(distinctOrders)
      .optional(),
  },
  objectError(),
);

const stepsField = z
  .array(stepInputSchema, { error: 'must be an array of steps' })
  .max(MAX_STEPS_PER_WORKFLOW, { error: `must have at most ${MAX_STEPS_PER_WORKFLOW} steps` })
  .superRefine(distinctOrders);

function stepCountWithinLimit(workflow: { steps?: { childSteps?: unknown[] | undefined }[] | undefined }, ctx: z.RefinementCtx): void {
  const total = (workflow.steps ?? []).reduce((n, s) => n + 1 + (s.childSteps?.length ?? 0), 0);
  if (total > MAX_STEPS_PER_WORKFLOW) {
    ctx.addIssue({
      code: 'custom',
      path: ['steps'],
      message: `must have at most ${MAX_STEPS_PER_WORKFLOW} steps in all, child steps included (has ${total})`,
    });
  }
}

const workflowFields = {
  title: nonBlankField(255),
  description: textField(2000).optional(),
  enabled: booleanField.optional(),
  usageContext: textField(2000).optional(),
  steps: stepsField.optional(),
};

/** A template's workflow definition: `{title, description, enabled, usageContext, order, steps}`. */
export const templateWorkflowInputSchema = z
  .strictObject({ ...workflowFields, order: orderField.optional() }, objectError())
  .superRefine(stepCountWithinLimit);

/** A bot workflow in the portable export form: `{id, title, description, enabled, usageContext, steps}`; `id` is ignored on import. */
export const portableWorkflowInputSchema = z
  .strictObject({ ...workflowFields, id: z.string({ error: 'must be a string' }).optional() }, objectError())
  .superRefine(stepCountWithinLimit);

export type StepInput = z.output<typeof stepInputSchema>;
export type TemplateWorkflowInput = z.output<typeof templateWorkflowInputSchema>;
export type PortableWorkflowInput = z.output<typeof portableWorkflowInputSchema>;

// ── canonical (output) form ─────────────────────────────────────────────────────────────────────

export interface ActionMetadata {
  templateName: string;
  templateBody: string;
}

export interface ChildStep {
  title: string;
  description: string;
  instructions: string;
  order: number;
  examples: string[];
  action: string;
  /** Null when the step has no action metadata. */
  actionMetadata: ActionMetadata | null;
}

export interface Step extends ChildStep {
  childSteps: ChildStep[];
}

export interface TemplateWorkflow {
  title: string;
  description: string;
  enabled: boolean;
  usageContext: string;
  order: number;
  steps: Step[];
}

export interface PortableWorkflow {
  title: string;
  description: string;
  enabled: boolean;
  usageContext: string;
  steps: Step[];
}

// the documented answers (the OpenAPI document), checked against the canonical types
export const actionMetadataResponse = viewSchema<ActionMetadata>()(
  z.object({ templateName: z.string(), templateBody: z.string() }).meta({ id: 'ActionMetadata' }),
);
const childStepViewFields = {
  title: z.string(),
  description: z.string(),
  instructions: z.string(),
  order: z.int(),
  examples: z.array(z.string()),
  action: z.string(),
  actionMetadata: actionMetadataResponse.nullable().describe('Null when the step has no action metadata.'),
};
export const childStepResponse = viewSchema<ChildStep>()(z.object(childStepViewFields).meta({ id: 'ChildStep' }));
export const stepResponse = viewSchema<Step>()(
  z
    .object({ ...childStepViewFields, childSteps: z.array(childStepResponse).describe('Ordered by `order`; one level only.') })
    .meta({ id: 'Step' }),
);
const workflowViewFields = {
  title: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  usageContext: z.string(),
  steps: z.array(stepResponse).describe('Ordered by `order`.'),
};
export const templateWorkflowResponse = viewSchema<TemplateWorkflow>()(
  z
    .object({ ...workflowViewFields, order: z.int() })
    .meta({ id: 'TemplateWorkflow', description: "A template's workflow definition, in canonical form." }),
);
export const portableWorkflowFields = workflowViewFields;

type ChildStepInput = z.output<typeof childStepInputSchema>;

function canonicalChildStep(step: ChildStepInput, index: number): ChildStep {
  return {
    title: step.title,
    description: step.description ?? '',
    instructions: step.instructions ?? '',
    order: step.order ?? index + 1,
    examples: step.examples ?? [],
    action: step.action ?? '',
    actionMetadata: step.actionMetadata
      ? { templateName: step.actionMetadata.templateName ?? '', templateBody: step.actionMetadata.templateBody ?? '' }
      : null,
  };
}

const byOrder = (a: { order: number }, b: { order: number }) => a.order - b.order;

export function canonicalSteps(steps: StepInput[] | undefined): Step[] {
  return (steps ?? [])
    .map((step, index) => ({
      ...canonicalChildStep(step, index),
      childSteps: (step.childSteps ?? []).map(canonicalChildStep).sort(byOrder),
    }))
    .sort(byOrder);
}

export function canonicalTemplateWorkflow(input: TemplateWorkflowInput): TemplateWorkflow {
  return {
    title: input.title,
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    usageContext: input.usageContext ?? '',
    order: input.order ?? 0,
    steps: canonicalSteps(input.steps),
  };
}

export function canonicalPortableWorkflow(input: PortableWorkflowInput): PortableWorkflow {
  return {
    title: input.title,
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    usageContext: input.usageContext ?? '',
    steps: canonicalSteps(input.steps),
  };
}
