import { communicationsChangeResponse, communicationsInput, getOrganization, organizationResponse, setCommunications } from '../../domain/organizations.js';
import { defineRoute } from '../route.js';

export const organizationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId',
    tag: 'Organizations',
    summary: 'Get an organization',
    scope: 'organizations:read',
    response: organizationResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getOrganization(deps, actor, params.orgId!) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/disable',
    tag: 'Organizations',
    summary: 'Disable calls, chats and SMS for an organization',
    description: 'Account organizations cannot be disabled (403, unchanged). `changed` is false when it was already disabled.',
    errors: { 403: 'The credential lacks `organizations:write`, or the organization is an account organization (which cannot be disabled).' },
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
