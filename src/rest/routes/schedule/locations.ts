import { createLocation, createLocationInput } from '../../../domain/schedule/locations.js';
import { organizationResponse } from '../../../domain/organizations/organizations.js';
import { defineRoute } from '../../route.js';

export const locationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/children',
    tag: 'Organizations',
    summary: 'Create a location of an account',
    description:
      "Body: `name` (trimmed, 1..200 characters), `timezone` (an IANA time zone) and optionally `officeHours`, the seven days as `PUT /v1/organizations/{orgId}/office-hours` takes them (then `office-hours:write` too): the location and its week are made together or not at all. `orgId` is the account (a location has no locations: 409). The answer is the new organization, which the account's credentials reach at once. Events `organization.created` and, with a week, `office_hours.updated`.",
    errors: { 409: 'The organization named is a location, not an account: locations have no locations.' },
    scope: 'organizations:write',
    body: createLocationInput,
    response: organizationResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: (await createLocation(deps, actor, params.orgId!, body)).view }),
  }),
];
