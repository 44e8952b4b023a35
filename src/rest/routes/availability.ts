import { availabilityQuerySchema, getAvailability } from '../../domain/availabilityQuery.js';
import { defineRoute } from '../route.js';

export const availabilityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/availability',
    tag: 'Availability',
    summary: 'State, greeting, usable templates and next change at an instant',
    description: '`medium` is required; `at` is an ISO-8601 instant (default now); `phoneNumberId` picks the greetings of one of the organization\'s phone numbers.',
    scope: 'office-hours:read',
    query: availabilityQuerySchema,
    // without `at` every answer echoes a new instant: a poller's 304 means the state, greeting and next change stand
    etagOmits: ['at', 'localTime'],
    handler: async ({ actor, deps, params, query }) => ({ data: await getAvailability(deps, actor, params.orgId!, query) }),
  }),
];
