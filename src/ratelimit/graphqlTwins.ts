// Each GraphQL root field counts against the budget of its REST twin (CONTRACT §5, the route table),
// so the two surfaces cannot be played against each other. A root field without a twin gets its own
// pattern "QUERY <field>" / "MUTATION <field>" (e.g. "QUERY viewer") with the per-minute default.
import { CALL_REQUEST_POLLS } from './http.js';
import type { Budget } from './limiter.js';

export const GRAPHQL_TWINS: Readonly<Record<string, string>> = {
  'Query.organization': 'GET /v1/organizations/:orgId',
  'Query.templates': 'GET /v1/templates',
  'Query.bot': 'GET /v1/bots/:botId/workflows',
  'Query.conversations': 'GET /v1/conversations',
  'Query.conversationsConnection': 'GET /v1/conversations',
  'Query.events': 'GET /v1/events',
  'Query.event': 'GET /v1/events/:eventId',
  'Query.webhookEndpoints': 'GET /v1/webhook-endpoints',
  'Query.webhookEndpoint': 'GET /v1/webhook-endpoints/:endpointId',
  'Query.webhookDeliveries': 'GET /v1/webhook-endpoints/:endpointId/deliveries',
  'Mutation.createWebhookEndpoint': 'POST /v1/webhook-endpoints',
  'Mutation.updateWebhookEndpoint': 'PATCH /v1/webhook-endpoints/:endpointId',
  'Mutation.deleteWebhookEndpoint': 'DELETE /v1/webhook-endpoints/:endpointId',
  'Mutation.rotateWebhookSecret': 'POST /v1/webhook-endpoints/:endpointId/rotate-secret',
  'Mutation.testWebhookEndpoint': 'POST /v1/webhook-endpoints/:endpointId/test',
  'Mutation.retryWebhookDelivery': 'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry',
  'Query.apiKeys': 'GET /v1/api-keys',
  'Mutation.createApiKey': 'POST /v1/api-keys',
  'Mutation.rollApiKey': 'POST /v1/api-keys/:keyId/roll',
  'Mutation.revokeApiKey': 'POST /v1/api-keys/:keyId/revoke',
  'Query.oauthClients': 'GET /v1/oauth-clients',
  'Mutation.createOAuthClient': 'POST /v1/oauth-clients',
  'Mutation.rotateOAuthClientSecret': 'POST /v1/oauth-clients/:id/rotate-secret',
  'Mutation.setOAuthClientScopes': 'PUT /v1/oauth-clients/:id/scopes',
  'Mutation.revokeOAuthClient': 'POST /v1/oauth-clients/:id/revoke',
  'Mutation.disableOrganization': 'POST /v1/organizations/:orgId/disable',
  'Mutation.enableOrganization': 'POST /v1/organizations/:orgId/enable',
  'Mutation.createClosure': 'POST /v1/organizations/:orgId/closures',
  'Mutation.updateClosure': 'POST /v1/organizations/:orgId/closures/:closureId',
  'Mutation.deleteClosure': 'DELETE /v1/organizations/:orgId/closures/:closureId',
  'Mutation.setOfficeHours': 'POST /v1/organizations/:orgId/office-hours',
  'Mutation.createTemplate': 'POST /v1/templates',
  'Mutation.updateTemplate': 'PUT /v1/templates/:templateId',
  'Mutation.attachPhoneNumber': 'POST /v1/phone-numbers/:phoneNumberId/attach',
  'Mutation.updateInsurance': 'PATCH /v1/organizations/:orgId/insurances/:insuranceId',
};

/** Query.callRequest shares the owner's per-second polling budget with GET /v1/call-requests/:callRequestId. */
const POLLING_FIELDS = new Set(['Query.callRequest']);

export function budgetOfRootField(typeName: string, fieldName: string): { budget: Exclude<Budget, 'unauthenticated'>; pattern: string } {
  const field = `${typeName}.${fieldName}`;
  if (POLLING_FIELDS.has(field)) return { budget: 'callRequestPoll', pattern: CALL_REQUEST_POLLS };
  return { budget: 'perMinute', pattern: GRAPHQL_TWINS[field] ?? `${typeName.toUpperCase()} ${fieldName}` };
}
