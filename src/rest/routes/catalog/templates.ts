import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  createTemplate,
  createTemplateInputSchema,
  deletedTemplateResponse,
  deleteTemplate,
  getTemplate,
  listTemplates,
  listTemplatesInput,
  templateListResponse,
  templateResponse,
  updateTemplate,
  updateTemplateInputSchema,
} from '../../../domain/catalog/templates.js';
import { defineRoute } from '../../route.js';

export const templateRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/templates',
    tag: 'Templates',
    summary: "List the credential owner organization's workflow templates",
    description:
      'Oldest first. The list items carry no `workflow` (`GET /v1/templates/{templateId}` and GraphQL `templates` include it). `medium` keeps the templates usable on that medium (those naming it and those naming none); `officeHoursAvailability` those usable then (`OPEN` or `CLOSED`, and those for any time).',
    scope: 'templates:read',
    query: listTemplatesInput,
    response: templateListResponse,
    handler: async ({ actor, deps, query }) => ({ data: { templates: await listTemplates(deps, actor, query) } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/templates/:templateId',
    tag: 'Templates',
    summary: 'Get one workflow template, with its workflow',
    description: "A template outside the credential owner's organization is a 404, like a missing one.",
    scope: 'templates:read',
    response: templateResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getTemplate(deps, actor, params.templateId!) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/templates',
    tag: 'Templates',
    summary: 'Create a workflow template',
    errors: { 409: `The organization already has ${LIST_LIMITS.templates} templates, the most it may have.` },
    description: '`name` is required; the answer is the full template with `version` 1. JSON, form-urlencoded or multipart.',
    scope: 'templates:write',
    body: createTemplateInputSchema,
    response: templateResponse,
    handler: async ({ actor, deps, body }) => ({ data: await createTemplate(deps, actor, body) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/templates/:templateId',
    tag: 'Templates',
    summary: 'Update a workflow template',
    description:
      "Every field is optional; an omitted field keeps its value. `version` grows by one when the workflow definition changes. A template outside the credential owner's organization is a 404.",
    scope: 'templates:write',
    body: updateTemplateInputSchema,
    response: templateResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await updateTemplate(deps, actor, params.templateId!, body) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/templates/:templateId',
    tag: 'Templates',
    summary: 'Delete a workflow template',
    description:
      "Refused (409 naming them) while bots created from it refer to it: delete them, or unlink them (`PATCH /v1/bots/{id}` with `templateId: null`), first. Bots keep the workflows they started with or imported (copies of the definition). A template outside the credential owner's organization, or already deleted, is a 404. Event `template.deleted`.",
    errors: { 409: 'Bots created from the template refer to it.' },
    scope: 'templates:write',
    response: deletedTemplateResponse,
    handler: async ({ actor, deps, params }) => ({ data: await deleteTemplate(deps, actor, params.templateId!) }),
  }),
];
