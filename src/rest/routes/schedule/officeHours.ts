import {
  getOfficeHours,
  officeHoursListResponse,
  officeHoursQuerySchema,
  officeHoursResponse,
  setOfficeHours,
  setOfficeHoursSchema,
  setWeeklyHours,
  setWeeklyHoursSchema,
} from '../../../domain/schedule/officeHours.js';
import { defineRoute } from '../../route.js';

export const officeHoursRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/office-hours',
    tag: 'Office hours',
    summary: 'Set the office hours of one day (create or update)',
    description: 'Omitting `breaks` keeps the existing breaks; `[]` clears them. Times are `H:mm` or `HH:mm`, returned as `HH:mm`.',
    scope: 'office-hours:write',
    body: setOfficeHoursSchema,
    response: officeHoursResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await setOfficeHours(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/office-hours',
    tag: 'Office hours',
    summary: 'Office hours of every day (Monday..Sunday), or of one day',
    scope: 'office-hours:read',
    query: officeHoursQuerySchema,
    response: officeHoursListResponse,
    handler: async ({ actor, deps, params, query }) => ({ data: await getOfficeHours(deps, actor, params.orgId!, query) }),
  }),

  defineRoute({
    method: 'PUT',
    path: '/v1/organizations/:orgId/office-hours',
    tag: 'Office hours',
    summary: 'Set the whole week in one write',
    description:
      "`{officeHours: [...]}` with all seven days, each once, each by the rules of the per-day POST (a day's omitted `breaks` means none: a PUT replaces). Checked as a whole (every issue named by its path) and applied atomically: one change, one `office_hours.updated` event.",
    scope: 'office-hours:write',
    body: setWeeklyHoursSchema,
    response: officeHoursListResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await setWeeklyHours(deps, actor, params.orgId!, body) }),
  }),
];
