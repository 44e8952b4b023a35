import {
  createSpecialHours,
  deletedSpecialHoursResponse,
  deleteSpecialHours,
  getSpecialHours,
  listSpecialHours,
  specialHoursListResponse,
  specialHoursResponse,
  specialHoursSchema,
  updateSpecialHours,
} from '../../../domain/schedule/specialHours.js';
import { defineRoute } from '../../route.js';

export const specialHoursRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/special-hours',
    tag: 'Office hours',
    summary: 'Create the special hours of a date',
    description:
      "`date` is the organization's local date `YYYY-MM-DD`, today or later; the other fields follow the rules of a day of office hours. At most one per date (409 CONFLICT) and 366 from today on. On that date they replace the weekday's office hours; a closure still wins.",
    scope: 'office-hours:write',
    body: specialHoursSchema,
    response: specialHoursResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await createSpecialHours(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/special-hours',
    tag: 'Office hours',
    summary: 'List special hours by date (past ones included)',
    scope: 'office-hours:read',
    response: specialHoursListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { specialHours: await listSpecialHours(deps, actor, params.orgId!) } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/special-hours/:specialHoursId',
    tag: 'Office hours',
    summary: 'Get the special hours of a date',
    scope: 'office-hours:read',
    response: specialHoursResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getSpecialHours(deps, actor, params.orgId!, params.specialHoursId!) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/special-hours/:specialHoursId',
    tag: 'Office hours',
    summary: 'Update special hours',
    description: 'The same body as create; omitting `breaks` keeps the existing breaks, `[]` clears them.',
    scope: 'office-hours:write',
    body: specialHoursSchema,
    response: specialHoursResponse,
    handler: async ({ actor, deps, params, body }) => ({
      data: await updateSpecialHours(deps, actor, params.orgId!, params.specialHoursId!, body),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/organizations/:orgId/special-hours/:specialHoursId',
    tag: 'Office hours',
    summary: 'Delete special hours',
    scope: 'office-hours:write',
    response: deletedSpecialHoursResponse,
    handler: async ({ actor, deps, params }) => ({ data: await deleteSpecialHours(deps, actor, params.orgId!, params.specialHoursId!) }),
  }),
];
