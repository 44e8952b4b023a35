import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
// Office closures on GraphQL: the Closure type, Organization.closures and the three mutations.
// Input fields are permissive (strings, nullable) so that the domain's zod schema decides, with the
// same verdict and message as on REST.
import {
  type ClosureView,
  createClosure,
  createClosureSchema,
  deleteClosure,
  listClosures,
  updateClosure,
  updateClosureSchema,
} from '../../../domain/schedule/closures.js';
import { builder } from '../../builder.js';
import { OrganizationRef } from '../organizations/organization.js';

const AnnualDate = builder.objectRef<{ month: number; day: number }>('AnnualDate').implement({
  description: "A date that repeats every year, for the whole day in the organization's timezone. 29 February applies only in leap years.",
  fields: (t) => ({
    month: t.exposeInt('month', { description: 'Month, 1..12.' }),
    day: t.exposeInt('day', { description: 'Day of month, 1..31; month and day form a valid date.' }),
  }),
});

export const ClosureRef = builder.objectRef<ClosureView>('Closure').implement({
  description:
    'An office closure: either timed (startAt and endAt) or annual (annualDate), never both. It overrides regular office hours and breaks; a custom greeting replaces the corresponding closed greeting.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Closure id (UUID).' }),
    description: t.exposeString('description', { description: 'Name or reason shared with callers and visitors; 1 to 255 characters.' }),
    chatGreeting: t.exposeString('chatGreeting', {
      nullable: true,
      description: 'Greeting for chats during the closure; null means not configured.',
    }),
    phoneGreeting: t.exposeString('phoneGreeting', {
      nullable: true,
      description: 'Greeting for phone calls during the closure; null means not configured.',
    }),
    startAt: t.string({
      nullable: true,
      description: 'Inclusive start of a timed closure, UTC, `YYYY-MM-DDTHH:mm:00Z`; null for an annual closure.',
      resolve: (c) => ('startAt' in c ? c.startAt : null),
    }),
    endAt: t.string({
      nullable: true,
      description: 'Exclusive end of a timed closure, UTC, `YYYY-MM-DDTHH:mm:00Z`; null for an annual closure.',
      resolve: (c) => ('endAt' in c ? c.endAt : null),
    }),
    annualDate: t.field({
      type: AnnualDate,
      nullable: true,
      description: 'The yearly date of an annual closure; null for a timed closure.',
      resolve: (c) => ('annualDate' in c ? c.annualDate : null),
    }),
  }),
});

const AnnualDateInput = builder.inputType('AnnualDateInput', {
  description: 'A yearly date: month 1..12 and day 1..31 forming a valid date (29 February allowed).',
  fields: (t) => ({
    month: t.int({ description: 'Month, 1..12.' }),
    day: t.int({ description: 'Day of month, 1..31.' }),
  }),
});

const closureFormFields = (t: PothosInputFieldBuilder) => ({
  startAt: t.string({
    description: 'Inclusive start, UTC, `YYYY-MM-DDTHH:mm:00Z` (seconds zero, no fraction); with endAt, instead of annualDate.',
  }),
  endAt: t.string({ description: 'Exclusive end, same format; must be after startAt.' }),
  annualDate: t.field({ type: AnnualDateInput, description: 'For an annual closure, instead of startAt/endAt.' }),
});
type PothosInputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const CreateClosureInput = builder.inputType('CreateClosureInput', {
  description: 'A new closure: description, both greetings (null = not configured), and exactly one of annualDate or startAt with endAt.',
  fields: (t) => ({
    description: t.string({ description: '1 to 255 characters with a non-whitespace character.' }),
    chatGreeting: t.string({
      description: 'Required; null means not configured; else 1 to 500 characters with a non-whitespace character.',
    }),
    phoneGreeting: t.string({
      description: 'Required; null means not configured; else 1 to 500 characters with a non-whitespace character.',
    }),
    ...closureFormFields(t),
  }),
});

const UpdateClosureInput = builder.inputType('UpdateClosureInput', {
  description: 'A closure update: description and exactly one of annualDate or startAt with endAt; omitted greetings are kept.',
  fields: (t) => ({
    description: t.string({ description: 'Required; 1 to 255 characters with a non-whitespace character.' }),
    chatGreeting: t.string({ description: 'Omit to keep; cannot be null or blank.' }),
    phoneGreeting: t.string({ description: 'Omit to keep; cannot be null or blank.' }),
    ...closureFormFields(t),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  closures: t.field({
    type: [ClosureRef],
    description: 'Office closures, newest first. Scope closures:read.',
    resolve: async (org, _args, ctx) => listClosures(ctx.deps, await ctx.actor(), org.id),
  }),
}));

builder.mutationFields((t) => ({
  createClosure: t.field({
    type: ClosureRef,
    description: `Creates a timed or annual closure; CONFLICT when the organization already has ${LIST_LIMITS.closures} closures (the most it may have). Scope closures:write.`,
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({
        type: CreateClosureInput,
        required: true,
        description: 'The closure; checked by the same rules as POST /v1/organizations/{orgId}/closures.',
        validate: { schema: createClosureSchema },
      }),
    },
    resolve: async (_root, args, ctx) => createClosure(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
  updateClosure: t.field({
    type: ClosureRef,
    description: 'Updates a closure; it may switch between timed and annual. Omitted greetings are kept. Scope closures:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      closureId: t.arg.id({ required: true, description: 'Closure id.' }),
      input: t.arg({
        type: UpdateClosureInput,
        required: true,
        description: 'The new description and form, and any greetings to replace.',
        validate: { schema: updateClosureSchema },
      }),
    },
    resolve: async (_root, args, ctx) => updateClosure(ctx.deps, await ctx.actor(), String(args.orgId), String(args.closureId), args.input),
  }),
  deleteClosure: t.boolean({
    description: 'Deletes a closure; true when it was deleted (a missing one is NOT_FOUND). Scope closures:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      closureId: t.arg.id({ required: true, description: 'Closure id.' }),
    },
    resolve: async (_root, args, ctx) =>
      (await deleteClosure(ctx.deps, await ctx.actor(), String(args.orgId), String(args.closureId))).deleted,
  }),
}));
