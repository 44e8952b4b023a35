import {
  insuranceListResponse,
  insuranceSchema,
  listInsurances,
  updateInsurance,
  updateInsuranceInput,
} from '../../../domain/catalog/insurances.js';
import { defineRoute } from '../../route.js';

export const insuranceRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/insurances',
    tag: 'Insurances',
    summary: "List an organization's insurance acceptance settings",
    description: '`data` = `{insurances: [insurance]}`, by name.',
    scope: 'insurances:read',
    response: insuranceListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { insurances: await listInsurances(deps, actor, params.orgId!) } }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/organizations/:orgId/insurances/:insuranceId',
    tag: 'Insurances',
    summary: 'Update an insurance (only the provided fields)',
    description:
      'Body: any of `type`, `status`, `notes` (at most 2000 characters; `""` clears). A body naming no field is a 400 ("nothing to update"); unknown properties are a 400. An insurance of another organization is a 404 under this `orgId`.',
    scope: 'insurances:write',
    body: updateInsuranceInput,
    response: insuranceSchema,
    handler: async ({ actor, deps, params, body }) => ({
      data: await updateInsurance(deps, actor, params.orgId!, params.insuranceId!, body),
    }),
  }),
];
