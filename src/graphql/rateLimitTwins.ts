// Each GraphQL field with a REST twin counts against that twin's budget (docs/decisions.md §5, the route table),
// so the two surfaces cannot be played against each other. Root fields always count: a root field
// without a twin gets its own pattern "QUERY <field>" / "MUTATION <field>" (e.g. "QUERY viewer") with
// the per-minute default. A nested field counts once per resolved occurrence (per alias and per parent
// object), because REST needs one request per organization (or bot) for the same data.
import { CALL_REQUEST_POLLS } from '../ratelimit/http.js';
import type { Budget } from '../ratelimit/limiter.js';

export const GRAPHQL_TWINS: Readonly<Record<string, string>> = {
  'Query.organization': 'GET /v1/organizations/:orgId',
  'Query.templates': 'GET /v1/templates',
  'Query.template': 'GET /v1/templates/:templateId',
  'Query.bot': 'GET /v1/bots/:botId',
  'Query.conversations': 'GET /v1/conversations',
  'Query.conversationsConnection': 'GET /v1/conversations',
  'Query.events': 'GET /v1/events',
  'Query.event': 'GET /v1/events/:eventId',
  'Query.accessLog': 'GET /v1/access-log',
  'Query.accessLogVerification': 'GET /v1/access-log/verify',
  'Query.erasureRequest': 'GET /v1/erasure-requests/:erasureRequestId',
  'Query.webhookEndpoints': 'GET /v1/webhook-endpoints',
  'Query.webhookEndpoint': 'GET /v1/webhook-endpoints/:endpointId',
  'Query.webhookDeliveries': 'GET /v1/webhook-endpoints/:endpointId/deliveries',
  'Mutation.createWebhookEndpoint': 'POST /v1/webhook-endpoints',
  'Mutation.updateWebhookEndpoint': 'PATCH /v1/webhook-endpoints/:endpointId',
  'Mutation.deleteWebhookEndpoint': 'DELETE /v1/webhook-endpoints/:endpointId',
  'Mutation.rotateWebhookSecret': 'POST /v1/webhook-endpoints/:endpointId/rotate-secret',
  'Mutation.testWebhookEndpoint': 'POST /v1/webhook-endpoints/:endpointId/test',
  'Mutation.retryWebhookDelivery': 'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry',
  'Query.webhookDeliveryPage': 'GET /v1/webhook-endpoints/:endpointId/deliveries',
  'Query.webhookDelivery': 'GET /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId',
  'Query.webhookReplay': 'GET /v1/webhook-endpoints/:endpointId/replays/:replayId',
  'Mutation.replayWebhookDeliveries': 'POST /v1/webhook-endpoints/:endpointId/replays',
  'Query.callRequests': 'GET /v1/call-requests',
  'Query.conversation': 'GET /v1/conversations/:conversationId',
  'Mutation.createConversation': 'POST /v1/conversations',
  'Mutation.addConversationMessage': 'POST /v1/conversations/:conversationId/messages',
  'Mutation.endConversation': 'POST /v1/conversations/:conversationId/end',
  'Mutation.createCallRequest': 'POST /v1/call-requests',
  'Mutation.cancelCallRequest': 'POST /v1/call-requests/:callRequestId/cancel',
  'Mutation.claimCallRequests': 'POST /v1/dispatch/claim',
  'Mutation.claimCalls': 'POST /v1/dispatch/claim',
  'Query.callingPolicy': 'GET /v1/organizations/:orgId/calling-policy',
  'Mutation.setCallingPolicy': 'PUT /v1/organizations/:orgId/calling-policy',
  'Query.retention': 'GET /v1/organizations/:orgId/retention',
  'Mutation.setRetention': 'PUT /v1/organizations/:orgId/retention',
  'Query.redactionPolicy': 'GET /v1/organizations/:orgId/redaction',
  'Mutation.setRedactionPolicy': 'PUT /v1/organizations/:orgId/redaction',
  'Query.callCapacity': 'GET /v1/organizations/:orgId/call-capacity',
  'Query.suppressions': 'GET /v1/suppressions',
  'Mutation.addSuppression': 'POST /v1/suppressions',
  'Mutation.addSuppressions': 'POST /v1/suppressions/bulk',
  'Query.callBatch': 'GET /v1/call-batches/:callBatchId',
  'Query.callBatches': 'GET /v1/call-batches',
  'Mutation.createCallBatch': 'POST /v1/call-batches',
  'Mutation.cancelCallBatch': 'POST /v1/call-batches/:callBatchId/cancel',
  'Mutation.removeSuppression': 'DELETE /v1/suppressions/:number',
  'Mutation.createErasureRequest': 'POST /v1/erasure-requests',
  'Mutation.heartbeatCallRequest': 'POST /v1/call-requests/:callRequestId/heartbeat',
  'Mutation.startCallRequest': 'POST /v1/call-requests/:callRequestId/start',
  'Mutation.completeCallRequest': 'POST /v1/call-requests/:callRequestId/complete',
  'Mutation.failCallRequest': 'POST /v1/call-requests/:callRequestId/fail',
  'Mutation.setWeeklyHours': 'PUT /v1/organizations/:orgId/office-hours',
  'Mutation.createSpecialHours': 'POST /v1/organizations/:orgId/special-hours',
  'Mutation.updateSpecialHours': 'POST /v1/organizations/:orgId/special-hours/:specialHoursId',
  'Mutation.deleteSpecialHours': 'DELETE /v1/organizations/:orgId/special-hours/:specialHoursId',
  'Query.apiKeys': 'GET /v1/api-keys',
  'Mutation.createApiKey': 'POST /v1/api-keys',
  'Mutation.rollApiKey': 'POST /v1/api-keys/:keyId/roll',
  'Mutation.revokeApiKey': 'POST /v1/api-keys/:keyId/revoke',
  'Query.oauthClients': 'GET /v1/oauth-clients',
  'Mutation.createOAuthClient': 'POST /v1/oauth-clients',
  'Mutation.rotateOAuthClientSecret': 'POST /v1/oauth-clients/:id/rotate-secret',
  'Mutation.setOAuthClientScopes': 'PUT /v1/oauth-clients/:id/scopes',
  'Mutation.revokeOAuthClient': 'POST /v1/oauth-clients/:id/revoke',
  'Mutation.updateOrganization': 'PATCH /v1/organizations/:orgId',
  'Mutation.createLocation': 'POST /v1/organizations/:orgId/children',
  'Mutation.disableOrganization': 'POST /v1/organizations/:orgId/disable',
  'Mutation.archiveOrganization': 'POST /v1/organizations/:orgId/archive',
  'Mutation.unarchiveOrganization': 'POST /v1/organizations/:orgId/unarchive',
  'Mutation.enableOrganization': 'POST /v1/organizations/:orgId/enable',
  'Mutation.createClosure': 'POST /v1/organizations/:orgId/closures',
  'Mutation.updateClosure': 'POST /v1/organizations/:orgId/closures/:closureId',
  'Mutation.deleteClosure': 'DELETE /v1/organizations/:orgId/closures/:closureId',
  'Mutation.setOfficeHours': 'POST /v1/organizations/:orgId/office-hours',
  'Mutation.createTemplate': 'POST /v1/templates',
  'Mutation.updateTemplate': 'PUT /v1/templates/:templateId',
  'Mutation.deleteTemplate': 'DELETE /v1/templates/:templateId',
  'Mutation.attachPhoneNumber': 'POST /v1/phone-numbers/:phoneNumberId/attach',
  'Mutation.updatePhoneNumber': 'PATCH /v1/phone-numbers/:phoneNumberId',
  'Mutation.registerPhoneNumber': 'POST /v1/organizations/:orgId/phone-numbers',
  'Mutation.detachPhoneNumber': 'POST /v1/phone-numbers/:phoneNumberId/detach',
  'Mutation.deletePhoneNumber': 'DELETE /v1/phone-numbers/:phoneNumberId',
  'Mutation.createBot': 'POST /v1/organizations/:orgId/bots',
  'Mutation.updateBot': 'PATCH /v1/bots/:botId',
  'Mutation.deleteBot': 'DELETE /v1/bots/:botId',
  'Mutation.importWorkflows': 'POST /v1/bots/:botId/workflows/import',
  'Mutation.replaceBotWorkflows': 'PUT /v1/bots/:botId/workflows',
  'Query.phoneNumber': 'GET /v1/phone-numbers/:phoneNumberId',
  'Mutation.createInsurance': 'POST /v1/organizations/:orgId/insurances',
  'Mutation.updateInsurance': 'PATCH /v1/organizations/:orgId/insurances/:insuranceId',
  'Mutation.deleteInsurance': 'DELETE /v1/organizations/:orgId/insurances/:insuranceId',
  // nested fields: the REST read of the same data for one parent
  'CallBatch.callRequests': 'GET /v1/call-batches/:callBatchId/call-requests',
  'Organization.parent': 'GET /v1/organizations/:orgId',
  'Viewer.organization': 'GET /v1/organizations/:orgId',
  'Organization.childrenConnection': 'GET /v1/organizations/:orgId/children',
  'Organization.officeHours': 'GET /v1/organizations/:orgId/office-hours',
  'Organization.specialHours': 'GET /v1/organizations/:orgId/special-hours',
  'Organization.closures': 'GET /v1/organizations/:orgId/closures',
  'Organization.bots': 'GET /v1/organizations/:orgId/bots',
  'Organization.phoneNumbers': 'GET /v1/organizations/:orgId/phone-numbers',
  'Organization.insurances': 'GET /v1/organizations/:orgId/insurances',
  'Organization.availability': 'GET /v1/organizations/:orgId/availability',
  'Organization.availabilityTimeline': 'GET /v1/organizations/:orgId/availability/timeline',
  'Bot.workflows': 'GET /v1/bots/:botId/workflows',
};

/** Query.callRequest shares the owner's per-second polling budget with GET /v1/call-requests/:callRequestId. */
const POLLING_FIELDS = new Set(['Query.callRequest']);

export interface FieldBudget {
  budget: Exclude<Budget, 'unauthenticated'>;
  pattern: string;
}

export function budgetOfRootField(typeName: string, fieldName: string): FieldBudget {
  const field = `${typeName}.${fieldName}`;
  if (POLLING_FIELDS.has(field)) return { budget: 'callRequestPoll', pattern: CALL_REQUEST_POLLS };
  return { budget: 'perMinute', pattern: GRAPHQL_TWINS[field] ?? `${typeName.toUpperCase()} ${fieldName}` };
}

/** The budget of a field of an object type (not a root type), when it has a REST twin. */
export function budgetOfNestedField(typeName: string, fieldName: string): FieldBudget | undefined {
  const pattern = GRAPHQL_TWINS[`${typeName}.${fieldName}`];
  return pattern ? { budget: 'perMinute', pattern } : undefined;
}
