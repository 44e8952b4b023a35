import { eventPageResponse, eventResponse, getEvent, listEvents, listEventsInput } from '../../../domain/events/queries.js';
import { defineRoute } from '../../route.js';

export const eventRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/events',
    tag: 'Events',
    summary: 'List events (the change log and audit trail), newest first',
    description:
      "Every change made through the API, recorded in the transaction of the change: who (the credential's kind, id and name) changed what, when, with the resource after the change and, for updates, the changed fields' previous values. Query: `limit` (1..100, default 20), `cursor`, `type` (comma-separated names, or families such as `closure.*`), `orgId`, `subjectId`, `from`, `to` (ISO 8601 instants; `to` exclusive). Without `orgId`: every organization within the caller's reach (an account's key sees its children's events). Kept `EVENT_RETENTION_DAYS` (30 by default).",
    scope: 'events:read',
    query: listEventsInput,
    response: eventPageResponse,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listEvents(deps, actor, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/events/:eventId',
    tag: 'Events',
    summary: 'Get an event',
    scope: 'events:read',
    response: eventResponse,
    errors: { 404: "The event is missing, past retention, or of an organization outside the caller's reach." },
    handler: async ({ actor, deps, params }) => ({ data: await getEvent(deps, actor, params.eventId!) }),
  }),
];
