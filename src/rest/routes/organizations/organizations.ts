import {
  CHILDREN_DEFAULT_LIMIT,
  CHILDREN_MAX_LIMIT,
  childrenPageSchema,
  communicationsChangeResponse,
  communicationsInput,
  getOrganization,
  listChildren,
  listChildrenInput,
  organizationResponse,
  setCommunications,
  updateOrganization,
  updateOrganizationInput,
} from '../../../domain/organizations/organizations.js';
import { defineRoute } from '../../route.js';

export const organizationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId',
    tag: 'Organizations',
    summary: 'Get an organization',
    scope: 'organizations:read',
    description:
      "Carries `childCount` (the child organizations within the caller's reach) rather than every child: page through them with GET /v1/organizations/{orgId}/children. `childIds` is deprecated and holds at most the first 100.",
    response: organizationResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getOrganization(deps, actor, params.orgId!) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/organizations/:orgId',
    tag: 'Organizations',
    summary: 'Rename an organization or move it to another time zone',
    description:
      'Body: `name` (trimmed, 1..200 characters) and/or `timezone` (an IANA time zone). A new zone changes what its hours mean at once: availability answers, live streams and the due instants of queued calls timed by its hours follow it. A value it already has changes nothing (no event). Event `organization.updated`, with the old values in `previous`.',
    scope: 'organizations:write',
    body: updateOrganizationInput,
    response: organizationResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: (await updateOrganization(deps, actor, params.orgId!, body)).view }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/children',
    tag: 'Organizations',
    summary: "List an account organization's child organizations, oldest first",
    description: `Query: \`limit\` (1..${CHILDREN_MAX_LIMIT}, default ${CHILDREN_DEFAULT_LIMIT}) and \`cursor\` (the \`pagination.nextCursor\` of the previous page; opaque, tamper-checked and bound to this organization). Order: creation time, ties by id; a page deep in the list costs what the first costs. Only the caller's own account organization has children within its reach: for any other organization within reach the list is empty. Unknown query parameters are a 400.`,
    scope: 'organizations:read',
    query: listChildrenInput,
    response: childrenPageSchema,
    handler: async ({ actor, deps, params, query }) => ({ data: await listChildren(deps, actor, params.orgId!, query) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/disable',
    tag: 'Organizations',
    summary: 'Disable calls, chats and SMS for an organization',
    description: 'Account organizations cannot be disabled (403, unchanged). `changed` is false when it was already disabled.',
    errors: {
      403: 'The credential lacks `organizations:write`, or the organization is an account organization (which cannot be disabled).',
    },
    scope: 'organizations:write',
    body: communicationsInput,
    response: communicationsChangeResponse,
    handler: async ({ actor, deps, params, body }) => {
      const data = await setCommunications(deps, actor, params.orgId!, false, body);
      return { data, message: data.changed ? 'Communications disabled' : 'Communications were already disabled' };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/enable',
    tag: 'Organizations',
    summary: 'Re-enable calls, chats and SMS for an organization',
    scope: 'organizations:write',
    body: communicationsInput,
    response: communicationsChangeResponse,
    handler: async ({ actor, deps, params, body }) => {
      const data = await setCommunications(deps, actor, params.orgId!, true, body);
      return { data, message: data.changed ? 'Communications enabled' : 'Communications were already enabled' };
    },
  }),
];
