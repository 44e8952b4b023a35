// The rule cases of a template's input (spec §2, §4 "Templates"; docs/decisions.md §3), run through REST and
// GraphQL by test/api/templates.test.ts: each input is refused on both surfaces with the same issues.
// `restOnly` marks inputs that GraphQL's closed input types cannot even express (unknown properties, a
// body that is not an object); GraphQL rejects those before execution.

export interface InvalidTemplateCase {
  name: string;
  input: Record<string, unknown>;
  /** The issue paths the answer names (REST `errors[].path`, GraphQL `extensions.issues[].path`). */
  paths: string[];
  restOnly?: boolean;
}

const step = (over: Record<string, unknown> = {}) => ({ title: 'Greet', ...over });
const workflow = (over: Record<string, unknown> = {}) => ({ title: 'Intake', steps: [step()], ...over });

export const invalidTemplateCases: InvalidTemplateCase[] = [
  { name: 'empty name', input: { name: '' }, paths: ['name'] },
  { name: 'blank name', input: { name: '   ' }, paths: ['name'] },
  { name: 'name over 255 characters', input: { name: 'n'.repeat(256) }, paths: ['name'] },
  { name: 'name not a string', input: { name: 5 }, paths: ['name'] },
  { name: 'null name', input: { name: null }, paths: ['name'] },
  // found by the fuzzer: NUL made the database refuse the write (a 500)
  { name: 'name with a NUL character', input: { name: 'Intake\u0000' }, paths: ['name'] },
  {
    name: 'step title with an unpaired surrogate',
    input: { workflow: workflow({ steps: [step({ title: '\uDC00' })] }) },
    paths: ['workflow.steps.0.title'],
  },
  { name: 'description over 2000 characters', input: { description: 'd'.repeat(2001) }, paths: ['description'] },
  { name: 'description not a string', input: { description: 5 }, paths: ['description'] },
  { name: 'variable with an empty name', input: { variables: [{ name: '', description: 'x' }] }, paths: ['variables.0.name'] },
  { name: 'variable without a name', input: { variables: [{ description: 'x' }] }, paths: ['variables.0.name'] },
  { name: 'variable type other than STRING', input: { variables: [{ name: 'a', type: 'NUMBER' }] }, paths: ['variables.0.type'] },
  { name: 'duplicate variable names', input: { variables: [{ name: 'a' }, { name: 'a' }] }, paths: ['variables.1.name'] },
  {
    name: 'variable with an unknown property',
    input: { variables: [{ name: 'a', default: 'x' }] },
    paths: ['variables.0'],
    restOnly: true,
  },
  { name: 'unknown medium', input: { applicableMediums: ['FAX'] }, paths: ['applicableMediums.0'] },
  { name: 'duplicate medium', input: { applicableMediums: ['CHAT', 'CHAT'] }, paths: ['applicableMediums.1'] },
  { name: 'mediums not an array', input: { applicableMediums: 'CHAT' }, paths: ['applicableMediums'] },
  { name: 'unknown office hours availability', input: { officeHoursAvailability: 'SOMETIMES' }, paths: ['officeHoursAvailability'] },
  { name: 'workflow without title', input: { workflow: { steps: [] } }, paths: ['workflow.title'] },
  { name: 'workflow with a blank title', input: { workflow: workflow({ title: ' ' }) }, paths: ['workflow.title'] },
  { name: 'workflow enabled not a boolean', input: { workflow: workflow({ enabled: 'yes' }) }, paths: ['workflow.enabled'] },
  { name: 'workflow order not an integer', input: { workflow: workflow({ order: 1.5 }) }, paths: ['workflow.order'] },
  { name: 'workflow order negative', input: { workflow: workflow({ order: -1 }) }, paths: ['workflow.order'] },
  { name: 'step without title', input: { workflow: workflow({ steps: [{ order: 1 }] }) }, paths: ['workflow.steps.0.title'] },
  {
    name: 'step order not a number',
    input: { workflow: workflow({ steps: [step({ order: 'abc' })] }) },
    paths: ['workflow.steps.0.order'],
  },
  {
    name: 'step examples not an array',
    input: { workflow: workflow({ steps: [step({ examples: 'hello' })] }) },
    paths: ['workflow.steps.0.examples'],
  },
  {
    name: 'step example not a string',
    input: { workflow: workflow({ steps: [step({ examples: [1] })] }) },
    paths: ['workflow.steps.0.examples.0'],
  },
  {
    name: 'step action over 255 characters',
    input: { workflow: workflow({ steps: [step({ action: 'a'.repeat(256) })] }) },
    paths: ['workflow.steps.0.action'],
  },
  {
    name: 'action metadata field not a string',
    input: { workflow: workflow({ steps: [step({ actionMetadata: { templateName: 5, templateBody: 'b' } })] }) },
    paths: ['workflow.steps.0.actionMetadata.templateName'],
  },
  {
    name: 'two steps with the same order',
    input: { workflow: workflow({ steps: [step({ order: 1 }), step({ order: 1 })] }) },
    paths: ['workflow.steps.1.order'],
  },
  {
    name: 'an explicit order colliding with a default one',
    input: { workflow: workflow({ steps: [step(), step({ order: 1 })] }) },
    paths: ['workflow.steps.1.order'],
  },
  {
    name: 'nested child steps',
    input: { workflow: workflow({ steps: [step({ childSteps: [step({ childSteps: [step()] })] })] }) },
    paths: ['workflow.steps.0.childSteps.0.childSteps'],
  },
  {
    name: 'two child steps with the same order',
    input: { workflow: workflow({ steps: [step({ childSteps: [step({ order: 2 }), step({ order: 2 })] })] }) },
    paths: ['workflow.steps.0.childSteps.1.order'],
  },
  {
    name: 'more than 200 steps',
    input: { workflow: workflow({ steps: Array.from({ length: 201 }, (_, i) => step({ order: i + 1 })) }) },
    paths: ['workflow.steps'],
  },
  {
    name: 'more than 200 steps with child steps',
    input: { workflow: workflow({ steps: Array.from({ length: 101 }, (_, i) => step({ order: i + 1, childSteps: [step()] })) }) },
    paths: ['workflow.steps'],
  },
  { name: 'several invalid fields at once', input: { name: '', applicableMediums: ['FAX'] }, paths: ['name', 'applicableMediums.0'] },
  { name: 'unknown top-level property', input: { title: 'x' }, paths: [''], restOnly: true },
  { name: 'unknown workflow property', input: { workflow: workflow({ priority: 1 }) }, paths: ['workflow'], restOnly: true },
  {
    name: 'unknown step property',
    input: { workflow: workflow({ steps: [step({ id: 'x' })] }) },
    paths: ['workflow.steps.0'],
    restOnly: true,
  },
];
