import { availabilityResponse } from '../../../domain/schedule/availability.js';
import {
  availabilityQuerySchema,
  availabilityTimelineQuerySchema,
  availabilityTimelineResponse,
  getAvailability,
  getAvailabilityTimeline,
  TIMELINE_MAX_DAYS,
} from '../../../domain/schedule/availabilityQuery.js';
import { defineRoute } from '../../route.js';

export const availabilityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/availability',
    tag: 'Availability',
    summary: 'State, greeting, usable templates and next change at an instant',
    description:
      "`medium` is required; `at` is an ISO-8601 instant (default now); `phoneNumberId` picks the greetings of one of the organization's phone numbers.",
    scope: 'office-hours:read',
    query: availabilityQuerySchema,
    response: availabilityResponse,
    errors: { 404: "The organization, or the phone number named by `phoneNumberId`, is missing or outside the caller's reach." },
    // without `at` every answer echoes a new instant: a poller's 304 means the state, greeting and next change stand
    etagOmits: ['at', 'localTime'],
    handler: async ({ actor, deps, params, query }) => ({ data: await getAvailability(deps, actor, params.orgId!, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/availability/timeline',
    tag: 'Availability',
    summary: 'The availability intervals covering a range (a week view in one call)',
    description: `\`from\` and \`to\` are ISO-8601 instants (taken to the whole second), \`to\` after \`from\` and at most ${TIMELINE_MAX_DAYS} days later; \`medium\` is required. \`data.intervals\` are consecutive \`{start, end, state, closure, break, greeting}\` in UTC covering [from, to): the answer of GET …/availability at every instant of an interval is that interval's. Exact across daylight-saving changes.`,
    scope: 'office-hours:read',
    query: availabilityTimelineQuerySchema,
    response: availabilityTimelineResponse,
    errors: { 404: "The organization, or the phone number named by `phoneNumberId`, is missing or outside the caller's reach." },
    handler: async ({ actor, deps, params, query }) => ({ data: await getAvailabilityTimeline(deps, actor, params.orgId!, query) }),
  }),
];
