// Special hours on GraphQL: SpecialHours, Organization.specialHours and the three mutations; the input is
// checked by the same zod schema as POST /v1/organizations/{orgId}/special-hours.
import {
  createSpecialHours,
  deleteSpecialHours,
  listSpecialHours,
  specialHoursSchema,
  type SpecialHoursView,
  updateSpecialHours,
} from '../../../domain/schedule/specialHours.js';
import { builder } from '../../builder.js';
import { OfficeBreakInput, OfficeBreakRef } from './officeHours.js';
import { OrganizationRef } from '../organizations/organization.js';

const SpecialHoursRef = builder.objectRef<SpecialHoursView>('SpecialHours').implement({
  description: "The hours of one local date, replacing that weekday's office hours (a closure still wins).",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Special hours id (UUID).' }),
    date: t.exposeString('date', { description: "The organization's local date, `YYYY-MM-DD`." }),
    description: t.exposeString('description', { description: 'Why the day is special; 1 to 255 characters.' }),
    isClosed: t.exposeBoolean('isClosed', { description: 'True = closed all day.' }),
    open: t.exposeString('open', { nullable: true, description: 'Opening time, local `HH:mm`; null on a closed day.' }),
    close: t.exposeString('close', { nullable: true, description: 'Closing time, local `HH:mm`; null on a closed day.' }),
    breaks: t.expose('breaks', { type: [OfficeBreakRef], description: 'Breaks within the day, sorted by start.' }),
  }),
});

const SpecialHoursInput = builder.inputType('SpecialHoursInput', {
  description: 'The special hours of a date (create, or replace on update).',
  fields: (t) => ({
    date: t.string({ description: "Required: the organization's local date `YYYY-MM-DD`, today or later; one per date." }),
    description: t.string({ description: 'Required: 1 to 255 characters with a non-whitespace character.' }),
    isClosed: t.boolean({ description: 'Required: true = closed all day.' }),
    open: t.string({ description: 'Opening time `H:mm` or `HH:mm`; required when isClosed is false.' }),
    close: t.string({ description: 'Closing time, after open (no overnight spans); required when isClosed is false.' }),
    breaks: t.field({
      type: [OfficeBreakInput],
      description: 'Breaks inside [open, close], not overlapping. On update, omit to keep the breaks; [] clears them.',
    }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  specialHours: t.field({
    type: [SpecialHoursRef],
    description: 'Special hours by date, past ones included. Scope office-hours:read.',
    resolve: async (org, _args, ctx) => listSpecialHours(ctx.deps, await ctx.actor(), org.id),
  }),
}));

builder.mutationFields((t) => ({
  createSpecialHours: t.field({
    type: SpecialHoursRef,
    description: 'Creates the special hours of a date (a second one for the same date is CONFLICT). Scope office-hours:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({
        type: SpecialHoursInput,
        required: true,
        description: 'The day; checked by the same rules as POST /v1/organizations/{orgId}/special-hours.',
        validate: { schema: specialHoursSchema },
      }),
    },
    resolve: async (_root, args, ctx) => createSpecialHours(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
  updateSpecialHours: t.field({
    type: SpecialHoursRef,
    description: 'Replaces special hours (omitted breaks are kept). Scope office-hours:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      specialHoursId: t.arg.id({ required: true, description: 'Special hours id.' }),
      input: t.arg({ type: SpecialHoursInput, required: true, description: 'The day.', validate: { schema: specialHoursSchema } }),
    },
    resolve: async (_root, args, ctx) =>
      updateSpecialHours(ctx.deps, await ctx.actor(), String(args.orgId), String(args.specialHoursId), args.input),
  }),
  deleteSpecialHours: t.boolean({
    description: 'Deletes special hours; true when deleted (a missing one is NOT_FOUND). Scope office-hours:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      specialHoursId: t.arg.id({ required: true, description: 'Special hours id.' }),
    },
    resolve: async (_root, args, ctx) =>
      (await deleteSpecialHours(ctx.deps, await ctx.actor(), String(args.orgId), String(args.specialHoursId))).deleted,
  }),
}));
