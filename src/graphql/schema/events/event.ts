import { type EventConnection, type EventView, eventsConnection, getEvent } from '../../../domain/events/queries.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { PageInfoRef } from '../calls/conversation.js';

const EventActorKindEnum = builder.enumType('EventActorKind', {
  description: 'What made a change: an API key, an OAuth client, an administrator, or the service itself.',
  values: ['apiKey', 'oauthClient', 'admin', 'system'] as const,
});

const EventActorRef = builder.objectRef<EventView['actor']>('EventActor').implement({
  description: 'Who made a change.',
  fields: (t) => ({
    kind: t.expose('kind', { type: EventActorKindEnum, description: 'The kind of credential.' }),
    id: t.exposeID('id', { nullable: true, description: 'The API key or OAuth client id; null for the service itself.' }),
    name: t.exposeString('name', { nullable: true, description: "The credential's name." }),
  }),
});

const EventSubjectRef = builder.objectRef<EventView['subject']>('EventSubject').implement({
  description: 'What changed.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'closure, template, organization, …' }),
    id: t.exposeID('id', { description: 'Its id.' }),
  }),
});

export const EventRef = builder.objectRef<EventView>('Event').implement({
  interfaces: [NodeRef],
  description:
    'One change, recorded in the transaction of the change: who changed what, when (the event log and audit trail; docs/rest.md "Event catalogue").',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id (UUID).' }),
    type: t.exposeString('type', { description: 'The event type, e.g. closure.created.' }),
    orgId: t.exposeID('orgId', { description: 'The organization the change belongs to.' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the change was made.' }),
    actor: t.expose('actor', { type: EventActorRef, description: 'Who made the change.' }),
    subject: t.expose('subject', { type: EventSubjectRef, description: 'What changed.' }),
    data: t.expose('data', { type: 'JSON', description: 'The resource as answered after the change (for a deletion: as it was).' }),
    previous: t.expose('previous', { type: 'JSON', nullable: true, description: "Updates: the changed fields' values before the change." }),
  }),
});

const EventEdgeRef = builder.objectRef<EventConnection['edges'][number]>('EventEdge').implement({
  description: 'An event and the cursor of its position in the list.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque; pass as `after` to continue after this event (with the same filter).' }),
    node: t.expose('node', { type: EventRef, description: 'The event.' }),
  }),
});

const EventConnectionRef = builder.objectRef<EventConnection>('EventConnection').implement({
  description: 'Events, newest first, one page at a time by cursor (a Relay connection).',
  fields: (t) => ({
    edges: t.expose('edges', { type: [EventEdgeRef], description: 'The events of this page with their cursors.' }),
    pageInfo: t.expose('pageInfo', { type: PageInfoRef, description: 'hasNextPage, endCursor and the rest.' }),
  }),
});

const EventFilterInput = builder.inputType('EventFilter', {
  description: 'Which events to list; every field optional.',
  fields: (t) => ({
    type: t.stringList({ description: 'Event types; a family such as `closure.*` selects all of its types.' }),
    orgId: t.id({
      description: "Only this organization's events (outside the caller's reach NOT_FOUND); by default every organization within reach.",
    }),
    subjectId: t.id({ description: 'Only the events of this subject.' }),
    from: t.field({ type: 'DateTime', description: 'Events that occurred at or after this instant.' }),
    to: t.field({ type: 'DateTime', description: 'Events that occurred before this instant.' }),
  }),
});

builder.queryFields((t) => ({
  events: t.field({
    type: EventConnectionRef,
    description:
      "The event log (the audit trail): every change within the caller's reach, newest first, `first` after the cursor `after` (REST's nextCursor). Kept EVENT_RETENTION_DAYS (30 by default). Scope events:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'Continue after this cursor (pageInfo.endCursor of the previous page).' }),
      filter: t.arg({ type: EventFilterInput, description: 'Filters.' }),
    },
    resolve: async (_root, args, ctx) => {
      const f = args.filter;
      return eventsConnection(ctx.deps, await ctx.actor(), {
        first: args.first,
        after: args.after,
        // the REST query's form: types comma-separated, instants as ISO strings
        type: f?.type == null ? undefined : f.type.join(','),
        orgId: f?.orgId ?? undefined,
        subjectId: f?.subjectId ?? undefined,
        from: f?.from?.toISOString(),
        to: f?.to?.toISOString(),
      });
    },
  }),
  event: t.field({
    type: EventRef,
    description: "One event; an event outside the caller's reach (or past retention) is NOT_FOUND like a missing one. Scope events:read.",
    args: { id: t.arg.id({ required: true, description: 'Event id (UUID).' }) },
    resolve: async (_root, args, ctx) => getEvent(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));
