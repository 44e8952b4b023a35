import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  closureListResponse,
  closureResponse,
  createClosure,
  createClosureSchema,
  deletedClosureResponse,
  deleteClosure,
  getClosure,
  listClosures,
  updateClosure,
  updateClosureSchema,
} from '../../../domain/schedule/closures.js';
import { defineRoute } from '../../route.js';

export const closureRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/closures',
    tag: 'Closures',
    summary: 'Create a closure (timed or annual)',
    errors: { 409: `The organization already has ${LIST_LIMITS.closures} closures, the most it may have: delete past ones first.` },
    description:
      'Either `startAt` and `endAt` (UTC, `YYYY-MM-DDTHH:mm:00Z`) or `annualDate` `{month, day}`. The greeting keys are required; null means not configured.',
    scope: 'closures:write',
    body: createClosureSchema,
    response: closureResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await createClosure(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/closures',
    tag: 'Closures',
    summary: 'List closures, newest first',
    scope: 'closures:read',
    response: closureListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { closures: await listClosures(deps, actor, params.orgId!) } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/closures/:closureId',
    tag: 'Closures',
    summary: 'Get a closure',
    scope: 'closures:read',
    response: closureResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getClosure(deps, actor, params.orgId!, params.closureId!) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/closures/:closureId',
    tag: 'Closures',
    summary: 'Update a closure',
    description:
      '`description` and the form (`annualDate`, or `startAt` and `endAt`) are required; the closure may switch form. Omitted greetings are kept; null or blank ones are refused.',
    scope: 'closures:write',
    body: updateClosureSchema,
    response: closureResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await updateClosure(deps, actor, params.orgId!, params.closureId!, body) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/organizations/:orgId/closures/:closureId',
    tag: 'Closures',
    summary: 'Delete a closure',
    scope: 'closures:write',
    response: deletedClosureResponse,
    handler: async ({ actor, deps, params }) => ({ data: await deleteClosure(deps, actor, params.orgId!, params.closureId!) }),
  }),
];
