// Availability on GraphQL: Organization.availability(at, medium, phoneNumberId), the same object as
// GET /v1/organizations/{orgId}/availability (docs/decisions.md §4).
import type { Availability, TimelineInterval } from '../../../domain/schedule/availability.js';
import {
  type AvailabilityTimeline,
  getAvailability,
  getAvailabilityTimeline,
  TIMELINE_MAX_DAYS,
} from '../../../domain/schedule/availabilityQuery.js';
import { watchAvailability } from '../../../domain/schedule/availabilityWatch.js';
import { builder, type FieldBuilderOf } from '../../builder.js';
import { openLiveStream } from '../../liveStreams.js';
import { MediumEnum } from '../enums.js';
import { OrganizationRef } from '../organizations/organization.js';

const AvailabilityStateEnum = builder.enumType('AvailabilityState', {
  description: 'CLOSURE: a closure applies; CLOSED: outside office hours; BREAK: in a break (phone only); OPEN: open.',
  values: ['CLOSURE', 'CLOSED', 'BREAK', 'OPEN'] as const,
});

const AvailabilityClosure = builder.objectRef<{ id: string; description: string }>('AvailabilityClosure').implement({
  description: 'The closure that applies.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Closure id.' }),
    description: t.exposeString('description', { description: 'Name or reason of the closure.' }),
  }),
});

const AvailabilitySpecialHours = builder.objectRef<{ id: string; description: string }>('AvailabilitySpecialHours').implement({
  description: "The special hours of the local date that decide the answer (they replace that weekday's office hours).",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Special hours id.' }),
    description: t.exposeString('description', { description: 'Why the day is special.' }),
  }),
});

const AvailabilityBreak = builder.objectRef<{ start: string; end: string; reason: string }>('AvailabilityBreak').implement({
  description: 'The break that applies.',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'Start, local `HH:mm`.' }),
    end: t.exposeString('end', { description: 'End, local `HH:mm`.' }),
    reason: t.exposeString('reason', { description: 'Why the office pauses.' }),
  }),
});

const AvailableTemplate = builder.objectRef<{ id: string; name: string }>('AvailableTemplate').implement({
  description: 'A workflow template usable at that instant for that medium.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Template id.' }),
    name: t.exposeString('name', { description: 'Template name.' }),
  }),
});

/** What holds at an instant, the same on an availability answer and on each interval of a timeline. */
const stateFields = (
  t: FieldBuilderOf<Pick<Availability & TimelineInterval, 'state' | 'closure' | 'specialHours' | 'break' | 'greeting'>>,
) => ({
  state: t.expose('state', { type: AvailabilityStateEnum, description: 'CLOSURE, CLOSED, BREAK or OPEN.' }),
  closure: t.expose('closure', { type: AvailabilityClosure, nullable: true, description: 'The closure that applies, if any.' }),
  specialHours: t.expose('specialHours', {
    type: AvailabilitySpecialHours,
    nullable: true,
    description: 'The special hours of the local date when they decide the answer (no closure applies); null on a day of the weekly hours.',
  }),
  break: t.expose('break', { type: AvailabilityBreak, nullable: true, description: 'The break that applies, if any.' }),
  greeting: t.exposeString('greeting', {
    nullable: true,
    description: 'The greeting for the medium and state; null when none is configured.',
  }),
});

export const AvailabilityRef = builder.objectRef<Availability>('Availability').implement({
  description:
    'Which state an organization is in at an instant, which greeting a caller hears, which templates may be used, and when the state next changes.',
  fields: (t) => ({
    at: t.exposeString('at', { description: 'The instant, UTC (`YYYY-MM-DDTHH:mm:ssZ`).' }),
    timezone: t.exposeString('timezone', { description: "The organization's IANA timezone." }),
    localTime: t.exposeString('localTime', { description: 'Local wall time at the instant, `YYYY-MM-DDTHH:mm`.' }),
    ...stateFields(t),
    officeOpen: t.exposeBoolean('officeOpen', { description: 'True only for OPEN.' }),
    availableTemplates: t.expose('availableTemplates', {
      type: [AvailableTemplate],
      description: "The organization's templates usable for the medium in this state.",
    }),
    nextChangeAt: t.exposeString('nextChangeAt', {
      nullable: true,
      description: 'The next instant at which the state changes, looking ahead at most 8 days; null if none.',
    }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  availability: t.field({
    type: AvailabilityRef,
    description:
      'Availability at an instant (default now) for a medium, with the greetings of one of its phone numbers. Scope office-hours:read.',
    args: {
      at: t.arg({ type: 'DateTime', description: 'The instant; default now.' }),
      medium: t.arg({ type: MediumEnum, required: true, description: 'The conversation type.' }),
      phoneNumberId: t.arg.id({ description: "One of the organization's phone numbers, for its greetings." }),
    },
    resolve: async (org, args, ctx) =>
      getAvailability(ctx.deps, await ctx.actor(), org.id, {
        at: args.at ?? undefined,
        medium: args.medium,
        phoneNumberId: args.phoneNumberId == null ? undefined : String(args.phoneNumberId),
      }),
  }),
}));

const TimelineIntervalRef = builder.objectRef<TimelineInterval>('AvailabilityInterval').implement({
  description: 'An interval of a timeline: from start (inclusive) to end (exclusive) the state, closure, break and greeting are these.',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'Start, UTC (`YYYY-MM-DDTHH:mm:ssZ`), inclusive.' }),
    end: t.exposeString('end', { description: 'End, UTC, exclusive.' }),
    ...stateFields(t),
  }),
});

const AvailabilityTimelineRef = builder.objectRef<AvailabilityTimeline>('AvailabilityTimeline').implement({
  description: 'Consecutive availability intervals covering [from, to).',
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: "The organization's IANA timezone." }),
    medium: t.expose('medium', { type: MediumEnum, description: 'The conversation type the timeline is for.' }),
    from: t.exposeString('from', { description: 'Start of the range, UTC.' }),
    to: t.exposeString('to', { description: 'End of the range, UTC (exclusive).' }),
    intervals: t.expose('intervals', {
      type: [TimelineIntervalRef],
      description: 'The intervals, in order, covering [from, to) without gaps.',
    }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  availabilityTimeline: t.field({
    type: AvailabilityTimelineRef,
    description: `The availability intervals covering [from, to), at most ${TIMELINE_MAX_DAYS} days (a week view in one call). Scope office-hours:read.`,
    args: {
      from: t.arg({ type: 'DateTime', required: true, description: 'Start of the range (inclusive).' }),
      to: t.arg({
        type: 'DateTime',
        required: true,
        description: `End of the range (exclusive), at most ${TIMELINE_MAX_DAYS} days after from.`,
      }),
      medium: t.arg({ type: MediumEnum, required: true, description: 'The conversation type.' }),
      phoneNumberId: t.arg.id({ description: "One of the organization's phone numbers, for its greetings." }),
    },
    resolve: async (org, args, ctx) =>
      getAvailabilityTimeline(ctx.deps, await ctx.actor(), org.id, {
        from: args.from,
        to: args.to,
        medium: args.medium,
        phoneNumberId: args.phoneNumberId == null ? undefined : String(args.phoneNumberId),
      }),
  }),
}));

builder.subscriptionType({
  description:
    'Live updates, over Server-Sent Events (GraphQL over SSE: send the operation with `Accept: text/event-stream`). Every field requires a bearer credential.',
});

builder.subscriptionField('availabilityChanged', (t) =>
  t.field({
    type: AvailabilityRef,
    description:
      "An organization's availability now, then again whenever it changes: when the clock reaches a change of its state, closure, break or greeting (a break can follow another without the state changing) and after every write that changes it (office hours, breaks, closures, templates, phone numbers, enabling and disabling), on any instance. A revoked credential, a lost scope or a lost reach ends the stream. At most SUBSCRIPTIONS_PER_CREDENTIAL streams per credential. Scope office-hours:read.",
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      medium: t.arg({ type: MediumEnum, required: true, description: 'The conversation type.' }),
      phoneNumberId: t.arg.id({ description: "One of the organization's phone numbers, for its greetings." }),
    },
    subscribe: async (_root, args, ctx) => {
      const actor = await ctx.actor();
      const stream = await watchAvailability(
        ctx.deps,
        actor,
        String(args.orgId),
        { medium: args.medium, phoneNumberId: args.phoneNumberId == null ? undefined : String(args.phoneNumberId) },
        { reauthenticate: () => ctx.reauthenticate() },
      );
      return openLiveStream(ctx, actor.credential.id, stream);
    },
    resolve: (answer: Availability) => answer,
  }),
);
