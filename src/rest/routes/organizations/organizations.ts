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
import { archiveInput, setArchived } from '../../../domain/organizations/archive.js';
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
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/archive',
    tag: 'Organizations',
    summary: 'Archive a location (or an account without active locations)',
    description:
      "Its calls stop (placing one is a 409; its queued ones are not handed out and expire), it leaves its account's children list and `childCount` (`includeArchived=true` lists it), its data stays and is readable by id. A location is its account's to archive (its own credential gets 403); an account is refused (409) while it has active locations. Archiving an archived organization changes nothing. Event `organization.archived`.",
    errors: {
      403: "The credential lacks `organizations:write`, or is the location's own (its account archives it).",
      409: 'An account with active locations.',
    },
    scope: 'organizations:write',
    body: archiveInput,
    response: organizationResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: (await setArchived(deps, actor, params.orgId!, true, body)).view }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/unarchive',
    tag: 'Organizations',
    summary: 'Bring an archived organization back',
    description:
      'Its calls may be placed and handed out again and it is listed again. A location under an archived account is refused (409: unarchive the account first). Event `organization.unarchived`.',
    errors: {
      403: "The credential lacks `organizations:write`, or is the location's own (its account brings it back).",
      409: "The location's account is archived.",
    },
    scope: 'organizations:write',
    body: archiveInput,
    response: organizationResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: (await setArchived(deps, actor, params.orgId!, false, body)).view }),
  }),
];
