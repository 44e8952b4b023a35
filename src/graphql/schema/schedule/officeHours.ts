// Office hours on GraphQL: OfficeHours/OfficeBreak, Organization.officeHours(dayOfWeek) and setOfficeHours.
import {
  getOfficeHours,
  type OfficeBreakView,
  type OfficeHoursView,
  setOfficeHours,
  setOfficeHoursSchema,
  setWeeklyHours,
  setWeeklyHoursSchema,
} from '../../../domain/schedule/officeHours.js';
import { createLocation } from '../../../domain/schedule/locations.js';
import { builder } from '../../builder.js';
import { DayOfWeekEnum } from '../enums.js';
import { OrganizationPayload, OrganizationRef } from '../organizations/organization.js';

export const OfficeBreakRef = builder.objectRef<OfficeBreakView>('OfficeBreak').implement({
  description:
    "A recurring break within a day, in the organization's timezone. During a break inbound phone calls treat the office as closed, and the break's greeting overrides the closed greeting.",
  fields: (t) => ({
    start: t.exposeString('start', { description: 'Start, local `HH:mm` (inclusive).' }),
    end: t.exposeString('end', { description: 'End, local `HH:mm` (exclusive).' }),
    reason: t.exposeString('reason', { description: 'Why the office pauses.' }),
    greeting: t.exposeString('greeting', { description: 'Greeting callers hear during the break.' }),
  }),
});

const OfficeHoursRef = builder.objectRef<OfficeHoursView>('OfficeHours').implement({
  description: 'Office hours of one day of the week. Days without configured hours are reported as closed.',
  fields: (t) => ({
    dayOfWeek: t.expose('dayOfWeek', { type: DayOfWeekEnum, description: 'The day.' }),
    isClosed: t.exposeBoolean('isClosed', { description: 'True = closed all day.' }),
    open: t.exposeString('open', { nullable: true, description: 'Opening time, local `HH:mm`; null on a closed day.' }),
    close: t.exposeString('close', { nullable: true, description: 'Closing time, local `HH:mm`; null on a closed day.' }),
    breaks: t.expose('breaks', { type: [OfficeBreakRef], description: 'Breaks within the day, sorted by start.' }),
  }),
});

export const OfficeBreakInput = builder.inputType('OfficeBreakInput', {
  description: 'A break: start, end, reason and greeting are all required.',
  fields: (t) => ({
    start: t.string({ description: 'Start, `H:mm` or `HH:mm`; before end.' }),
    end: t.string({ description: 'End, `H:mm` or `HH:mm`.' }),
    reason: t.string({ description: '1 to 500 characters with a non-whitespace character.' }),
    greeting: t.string({ description: '1 to 500 characters with a non-whitespace character.' }),
  }),
});

const SetOfficeHoursInput = builder.inputType('SetOfficeHoursInput', {
  description: 'The office hours of one day (create or update).',
  fields: (t) => ({
    dayOfWeek: t.field({ type: DayOfWeekEnum, description: 'Required: the day to set.' }),
    isClosed: t.boolean({ description: 'Required: true = closed all day (then breaks must be empty or omitted on a day without breaks).' }),
    open: t.string({ description: 'Opening time `H:mm` or `HH:mm`; required when isClosed is false; stored as null on a closed day.' }),
    close: t.string({ description: 'Closing time, after open (no overnight spans); required when isClosed is false.' }),
    breaks: t.field({
      type: [OfficeBreakInput],
      description: 'Breaks inside [open, close], not overlapping (adjacent allowed). Omit to keep the existing breaks; [] clears them.',
    }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  officeHours: t.field({
    type: [OfficeHoursRef],
    description: 'Office hours of every day, Monday to Sunday, or of one day; unconfigured days as closed. Scope office-hours:read.',
    args: { dayOfWeek: t.arg({ type: DayOfWeekEnum, description: 'Only this day.' }) },
    resolve: async (org, args, ctx) => {
      const { officeHours } = await getOfficeHours(
        ctx.deps,
        await ctx.actor(),
        org.id,
        args.dayOfWeek ? { dayOfWeek: args.dayOfWeek } : {},
      );
      return officeHours;
    },
  }),
}));

const SetWeeklyHoursInput = builder.inputType('SetWeeklyHoursInput', {
  description: 'The whole week: all seven days, each once.',
  fields: (t) => ({
    officeHours: t.field({
      type: [SetOfficeHoursInput],
      description: "Required: the seven days; a day's omitted breaks mean none (the week is replaced).",
    }),
  }),
});

const CreateLocationInput = builder.inputType('CreateLocationInput', {
  description: 'A new location of an account. Checked by the same rules as POST /v1/organizations/{orgId}/children.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The name, trimmed; 1..200 characters.' }),
    timezone: t.string({ required: true, description: 'An IANA time zone, e.g. America/New_York.' }),
    officeHours: t.field({
      type: [SetOfficeHoursInput],
      description: 'Optional: its week, the seven days each once (needs office-hours:write); made with the location or not at all.',
    }),
  }),
});

builder.mutationFields((t) => ({
  createLocation: t.field({
    type: OrganizationPayload,
    description:
      'Creates a location of an account, with its week when given (both or neither; a week also needs office-hours:write); CONFLICT under a location. Scope organizations:write.',
    args: {
      accountId: t.arg.id({ required: true, description: 'The account organization (UUID).' }),
      input: t.arg({ type: CreateLocationInput, required: true, description: 'The location.' }),
    },
    resolve: async (_root, args, ctx) => ({
      organization: (
        await createLocation(ctx.deps, await ctx.actor(), String(args.accountId), {
          name: args.input.name,
          timezone: args.input.timezone,
          ...(args.input.officeHours == null ? {} : { officeHours: args.input.officeHours }),
        })
      ).record,
    }),
  }),
  setWeeklyHours: t.field({
    type: [OfficeHoursRef],
    description: 'Sets all seven days in one write, atomically (one change, one event); answers Monday..Sunday. Scope office-hours:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({
        type: SetWeeklyHoursInput,
        required: true,
        description: 'The week; checked by the same rules as PUT /v1/organizations/{orgId}/office-hours.',
        validate: { schema: setWeeklyHoursSchema },
      }),
    },
    resolve: async (_root, args, ctx) => (await setWeeklyHours(ctx.deps, await ctx.actor(), String(args.orgId), args.input)).officeHours,
  }),
  setOfficeHours: t.field({
    type: OfficeHoursRef,
    description: 'Sets the office hours of one day (create or update), with its breaks. Scope office-hours:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({
        type: SetOfficeHoursInput,
        required: true,
        description: 'The day; checked by the same rules as POST /v1/organizations/{orgId}/office-hours.',
        validate: { schema: setOfficeHoursSchema },
      }),
    },
    resolve: async (_root, args, ctx) => setOfficeHours(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
}));
