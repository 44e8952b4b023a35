import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  createTemplate,
  createTemplateInputSchema,
  listTemplates,
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
    description: 'Oldest first. The list items carry no `workflow`; GraphQL `templates` includes it.',
    scope: 'templates:read',
    response: templateListResponse,
    handler: async ({ actor, deps }) => ({ data: { templates: await listTemplates(deps, actor) } }),
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
];
