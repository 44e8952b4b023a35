import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  createInsurance,
  createInsuranceInput,
  deletedInsuranceResponse,
  deleteInsurance,
  insuranceListResponse,
  listInsurancesInput,
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
    description:
      '`data` = `{insurances: [insurance]}`, by name. `type` and `status` (one value each) keep only the insurances that have it; an unknown value is a 400 naming the allowed ones.',
    scope: 'insurances:read',
    query: listInsurancesInput,
    response: insuranceListResponse,
    handler: async ({ actor, deps, params, query }) => ({ data: { insurances: await listInsurances(deps, actor, params.orgId!, query) } }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/organizations/:orgId/insurances',
    tag: 'Insurances',
    summary: 'Add an insurance acceptance setting',
    description:
      'Body: `name` (required, trimmed, 1..200 characters), `type` and `status` (required), `notes` (optional, at most 2000 characters). An organization has one insurance per name and type: a second is a 409 naming the first. Event `insurance.created`.',
    errors: {
      409: `The organization already has an insurance of this name and type, or has ${LIST_LIMITS.insurances}, the most it may have.`,
    },
    scope: 'insurances:write',
    body: createInsuranceInput,
    response: insuranceSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await createInsurance(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/organizations/:orgId/insurances/:insuranceId',
    tag: 'Insurances',
    summary: 'Update an insurance (only the provided fields)',
    description:
      'Body: any of `type`, `status`, `notes` (at most 2000 characters; `""` clears). A body naming no field is a 400 ("nothing to update"); unknown properties are a 400. A `type` another insurance of the same name already has is a 409. An insurance of another organization is a 404 under this `orgId`.',
    scope: 'insurances:write',
    body: updateInsuranceInput,
    response: insuranceSchema,
    handler: async ({ actor, deps, params, body }) => ({
      data: await updateInsurance(deps, actor, params.orgId!, params.insuranceId!, body),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/organizations/:orgId/insurances/:insuranceId',
    tag: 'Insurances',
    summary: 'Delete an insurance acceptance setting',
    description: 'An insurance of another organization is a 404 under this `orgId`; a second delete is a 404. Event `insurance.deleted`.',
    scope: 'insurances:write',
    response: deletedInsuranceResponse,
    handler: async ({ actor, deps, params }) => ({ data: await deleteInsurance(deps, actor, params.orgId!, params.insuranceId!) }),
  }),
];
