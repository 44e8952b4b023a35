// The tenant matrix's table: for every REST route of the registry and every GraphQL root field and
// Organization field of the schema, which ids the operation takes (a path parameter, a query
// parameter, a body field or an argument, each with the kind of object it names) and a request that
// would succeed on the caller's own objects, so that only reach can refuse it. tenantMatrix.test.ts
// fails when the registry or the schema has an operation this table lacks (or one it no longer has).

/** The kinds of object an id can name. */
export type Kind =
  | 'org'
  | 'closure'
  | 'special'
  | 'bot'
  | 'phone'
  | 'insurance'
  | 'template'
  | 'callRequest'
  | 'event'
  | 'webhookEndpoint'
  | 'webhookDelivery'
  | 'webhookReplay'
  | 'conversation'
  | 'apiKey'
  | 'oauthClient'
  /** A suppression list entry, named by its suppressionId (DELETE /v1/suppressions/{number} takes either). */
  | 'suppression'
  | 'erasureRequest'
  | 'callBatch';
export type Ids = Record<string, string>;

export interface RestCase {
  /** Every id slot: each `:param` of the path by its name, plus ids sent in the query or the body. */
  ids: Record<string, Kind>;
  query?: (ids: Ids) => Record<string, string>;
  /** A body that is valid on the caller's own objects. */
  body?: (ids: Ids) => unknown;
}

export interface GraphQLCase {
  ids: Record<string, Kind>;
  /** The operation; every id is a variable named after its slot. */
  query: string;
  /** Further variables (inputs valid on the caller's own objects). */
  variables?: Record<string, unknown>;
}

/** A lease id no claim answered: the runtime's steps are refused by reach before the lease is looked at. */
const LEASE = '5d1c2f0e-7a8b-4c9d-8e1f-0a1b2c3d4e5f';

const workflow = { title: 'Matrix workflow', steps: [{ title: 'Greet', order: 1 }] };

/** A number no test has registered yet (registration is once across the service). */
let numbers = 0;
const nextNumber = () => `+1415555${String(2000 + (numbers++ % 7000)).padStart(4, '0')}`;

/** Keyed like the route registry: "METHOD /v1/path/:param". */
export const REST_CASES: Record<string, RestCase> = {
  'GET /v1/organizations/:orgId': { ids: { orgId: 'org' } },
  'GET /v1/organizations/:orgId/children': { ids: { orgId: 'org' } },
  'PATCH /v1/organizations/:orgId': { ids: { orgId: 'org' }, body: () => ({ name: 'Matrix name' }) },
  'POST /v1/organizations/:orgId/children': { ids: { orgId: 'org' }, body: () => ({ name: 'Matrix location', timezone: 'Europe/Berlin' }) },
  'POST /v1/organizations/:orgId/disable': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/archive': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/unarchive': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/enable': { ids: { orgId: 'org' } },
  'GET /v1/organizations/:orgId/closures': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/closures': {
    ids: { orgId: 'org' },
    body: () => ({ description: 'Matrix closure', annualDate: { month: 5, day: 1 }, chatGreeting: null, phoneGreeting: 'Closed today' }),
  },
  'GET /v1/organizations/:orgId/closures/:closureId': { ids: { orgId: 'org', closureId: 'closure' } },
  'POST /v1/organizations/:orgId/closures/:closureId': {
    ids: { orgId: 'org', closureId: 'closure' },
    body: () => ({ description: 'Matrix update', startAt: '2026-05-01T08:00:00Z', endAt: '2026-05-01T12:00:00Z' }),
  },
  'DELETE /v1/organizations/:orgId/closures/:closureId': { ids: { orgId: 'org', closureId: 'closure' } },
  'POST /v1/organizations/:orgId/office-hours': {
    ids: { orgId: 'org' },
    body: () => ({ dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [] }),
  },
  'GET /v1/organizations/:orgId/calling-policy': { ids: { orgId: 'org' } },
  'PUT /v1/organizations/:orgId/calling-policy': {
    ids: { orgId: 'org' },
    body: () => ({ windows: [{ dayOfWeek: 'MONDAY', start: '09:00', end: '17:00' }], maxConcurrentCalls: 5 }),
  },
  'GET /v1/organizations/:orgId/call-capacity': { ids: { orgId: 'org' } },
  'GET /v1/organizations/:orgId/retention': { ids: { orgId: 'org' } },
  'PUT /v1/organizations/:orgId/retention': { ids: { orgId: 'org' }, body: () => ({ transcriptsDays: 90 }) },
  'GET /v1/organizations/:orgId/redaction': { ids: { orgId: 'org' } },
  'PUT /v1/organizations/:orgId/redaction': { ids: { orgId: 'org' }, body: () => ({ emails: true }) },
  // the list is always the credential owner's: only the removal names an entry
  'POST /v1/suppressions': { ids: {}, body: () => ({ number: '+12025550143' }) },
  'POST /v1/suppressions/bulk': { ids: {}, body: () => ({ numbers: ['+12025550143'] }) },
  'GET /v1/suppressions': { ids: {} },
  'DELETE /v1/suppressions/:number': { ids: { number: 'suppression' } },
  'GET /v1/organizations/:orgId/office-hours': { ids: { orgId: 'org' }, query: () => ({ dayOfWeek: 'MONDAY' }) },
  'PUT /v1/organizations/:orgId/office-hours': {
    ids: { orgId: 'org' },
    body: () => ({
      officeHours: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
        dayOfWeek,
        isClosed: false,
        open: '09:00',
        close: '17:00',
      })),
    }),
  },
  'GET /v1/organizations/:orgId/special-hours': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/special-hours': {
    ids: { orgId: 'org' },
    body: () => ({ date: '2030-07-01', description: 'Matrix day', isClosed: false, open: '09:00', close: '12:00' }),
  },
  'GET /v1/organizations/:orgId/special-hours/:specialHoursId': { ids: { orgId: 'org', specialHoursId: 'special' } },
  'POST /v1/organizations/:orgId/special-hours/:specialHoursId': {
    ids: { orgId: 'org', specialHoursId: 'special' },
    body: () => ({ date: '2030-07-02', description: 'Matrix update', isClosed: true }),
  },
  'DELETE /v1/organizations/:orgId/special-hours/:specialHoursId': { ids: { orgId: 'org', specialHoursId: 'special' } },
  'GET /v1/organizations/:orgId/availability': {
    ids: { orgId: 'org', phoneNumberId: 'phone' },
    query: (ids) => ({ at: '2026-03-09T14:00:00Z', medium: 'PHONE', phoneNumberId: ids.phoneNumberId! }),
  },
  'GET /v1/organizations/:orgId/availability/timeline': {
    ids: { orgId: 'org', phoneNumberId: 'phone' },
    query: (ids) => ({ from: '2026-03-09T00:00:00Z', to: '2026-03-16T00:00:00Z', medium: 'PHONE', phoneNumberId: ids.phoneNumberId! }),
  },
  'GET /v1/organizations/:orgId/bots': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/bots': {
    ids: { orgId: 'org', templateId: 'template' },
    body: (ids) => ({ name: 'Matrix bot', templateId: ids.templateId }),
  },
  'GET /v1/bots/:botId': { ids: { botId: 'bot' } },
  'PATCH /v1/bots/:botId': { ids: { botId: 'bot' }, body: () => ({ name: 'Matrix bot' }) },
  'DELETE /v1/bots/:botId': { ids: { botId: 'bot' }, query: () => ({ force: 'true' }) },
  'GET /v1/bots/:botId/workflows': { ids: { botId: 'bot' } },
  'POST /v1/bots/:botId/workflows/import': { ids: { botId: 'bot' }, body: () => ({ workflows: [workflow] }) },
  'PUT /v1/bots/:botId/workflows': { ids: { botId: 'bot' }, body: () => ({ workflows: [workflow] }) },
  'GET /v1/organizations/:orgId/phone-numbers': { ids: { orgId: 'org' } },
  'POST /v1/phone-numbers/:phoneNumberId/attach': { ids: { phoneNumberId: 'phone', botId: 'bot' }, body: (ids) => ({ botId: ids.botId }) },
  'GET /v1/phone-numbers/:phoneNumberId': { ids: { phoneNumberId: 'phone' } },
  'POST /v1/organizations/:orgId/phone-numbers': { ids: { orgId: 'org' }, body: () => ({ number: nextNumber() }) },
  'POST /v1/phone-numbers/:phoneNumberId/detach': { ids: { phoneNumberId: 'phone' } },
  'DELETE /v1/phone-numbers/:phoneNumberId': { ids: { phoneNumberId: 'phone' } },
  'PATCH /v1/phone-numbers/:phoneNumberId': { ids: { phoneNumberId: 'phone' }, body: () => ({ customGreeting: 'Matrix greeting' }) },
  'GET /v1/organizations/:orgId/insurances': { ids: { orgId: 'org' } },
  'POST /v1/organizations/:orgId/insurances': {
    ids: { orgId: 'org' },
    body: () => ({ name: 'Matrix insurance', type: 'EPO', status: 'ACCEPTED' }),
  },
  'DELETE /v1/organizations/:orgId/insurances/:insuranceId': { ids: { orgId: 'org', insuranceId: 'insurance' } },
  'PATCH /v1/organizations/:orgId/insurances/:insuranceId': {
    ids: { orgId: 'org', insuranceId: 'insurance' },
    body: () => ({ status: 'CONDITIONAL', notes: 'Matrix' }),
  },
  'GET /v1/call-requests/:callRequestId': { ids: { callRequestId: 'callRequest' } },
  'GET /v1/call-requests': { ids: { orgId: 'org', botId: 'bot' }, query: (ids) => ({ orgId: ids.orgId!, botId: ids.botId! }) },
  'POST /v1/call-requests': {
    ids: { botId: 'bot', phoneNumberId: 'phone' },
    body: (ids) => ({ botId: ids.botId, phoneNumberId: ids.phoneNumberId, to: '+15005550006' }),
  },
  'POST /v1/call-requests/:callRequestId/cancel': { ids: { callRequestId: 'callRequest' } },
  'POST /v1/call-batches': {
    ids: { botId: 'bot', phoneNumberId: 'phone' },
    body: (ids) => ({ botId: ids.botId, phoneNumberId: ids.phoneNumberId, recipients: [{ to: '+15005550006' }] }),
  },
  'GET /v1/call-batches': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  'GET /v1/call-batches/:callBatchId': { ids: { callBatchId: 'callBatch' } },
  'GET /v1/call-batches/:callBatchId/call-requests': { ids: { callBatchId: 'callBatch' } },
  'POST /v1/call-batches/:callBatchId/cancel': { ids: { callBatchId: 'callBatch' }, body: () => ({}) },
  // claims hand out requests within reach only: no id names another tenant's
  'POST /v1/dispatch/claim': { ids: {}, body: () => ({ max: 1 }) },
  'POST /v1/call-requests/:callRequestId/heartbeat': { ids: { callRequestId: 'callRequest' }, body: () => ({ leaseId: LEASE }) },
  'POST /v1/call-requests/:callRequestId/start': { ids: { callRequestId: 'callRequest' }, body: () => ({ leaseId: LEASE }) },
  'POST /v1/call-requests/:callRequestId/complete': { ids: { callRequestId: 'callRequest' }, body: () => ({ leaseId: LEASE }) },
  'POST /v1/call-requests/:callRequestId/fail': {
    ids: { callRequestId: 'callRequest' },
    body: () => ({ leaseId: LEASE, error: { code: 'busy', message: 'Busy' } }),
  },
  'POST /v1/conversations': {
    ids: { orgId: 'org', botId: 'bot' },
    body: (ids) => ({ orgId: ids.orgId, botId: ids.botId, medium: 'CHAT' }),
  },
  'GET /v1/conversations/:conversationId': { ids: { conversationId: 'conversation' } },
  'POST /v1/conversations/:conversationId/messages': {
    ids: { conversationId: 'conversation' },
    body: () => ({ role: 'caller', text: 'Hello' }),
  },
  'POST /v1/conversations/:conversationId/end': {
    ids: { conversationId: 'conversation' },
    body: () => ({ summary: 'Matrix', duration: 5 }),
  },
  'GET /v1/conversations': {
    ids: { orgId: 'org', botId: 'bot' },
    query: (ids) => ({ orgId: ids.orgId!, botId: ids.botId!, includeArchived: 'true' }),
  },
  // subjectId is a filter, not a reference: a foreign subject's id answers an empty list, as an unknown one does
  'GET /v1/events': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId!, type: 'closure.*' }) },
  'GET /v1/events/:eventId': { ids: { eventId: 'event' } },
  // conversationId and credentialId are filters, not references: a foreign one answers an empty list, as an unknown one does
  'POST /v1/erasure-requests': { ids: { conversationId: 'conversation' }, body: (ids) => ({ conversationId: ids.conversationId }) },
  'GET /v1/erasure-requests/:erasureRequestId': { ids: { erasureRequestId: 'erasureRequest' } },
  'GET /v1/access-log': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  'GET /v1/access-log/verify': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  'GET /v1/access-log/export': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  // webhook endpoints belong to the credential owner's organization, like templates
  'POST /v1/webhook-endpoints': { ids: {}, body: () => ({ url: 'https://hooks.example.com/matrix', eventTypes: ['closure.*'] }) },
  'GET /v1/webhook-endpoints': { ids: {} },
  // API keys: of the caller's organization, or (for an account) of a child named by orgId
  'POST /v1/api-keys': { ids: { orgId: 'org' }, body: (ids) => ({ name: 'Matrix key', scopes: ['closures:read'], orgId: ids.orgId }) },
  'GET /v1/api-keys': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  'POST /v1/api-keys/:keyId/roll': { ids: { keyId: 'apiKey' }, body: () => ({}) },
  'POST /v1/api-keys/:keyId/revoke': { ids: { keyId: 'apiKey' } },
  'POST /v1/oauth-clients': {
    ids: { orgId: 'org' },
    body: (ids) => ({ name: 'Matrix client', scopes: ['closures:read'], orgId: ids.orgId }),
  },
  'GET /v1/oauth-clients': { ids: { orgId: 'org' }, query: (ids) => ({ orgId: ids.orgId! }) },
  'POST /v1/oauth-clients/:id/rotate-secret': { ids: { id: 'oauthClient' }, body: () => ({}) },
  'PUT /v1/oauth-clients/:id/scopes': { ids: { id: 'oauthClient' }, body: () => ({ scopes: ['closures:read', 'closures:write'] }) },
  'POST /v1/oauth-clients/:id/revoke': { ids: { id: 'oauthClient' } },
  'GET /v1/webhook-endpoints/:endpointId': { ids: { endpointId: 'webhookEndpoint' } },
  'PATCH /v1/webhook-endpoints/:endpointId': { ids: { endpointId: 'webhookEndpoint' }, body: () => ({ description: 'Matrix' }) },
  'DELETE /v1/webhook-endpoints/:endpointId': { ids: { endpointId: 'webhookEndpoint' } },
  'POST /v1/webhook-endpoints/:endpointId/rotate-secret': { ids: { endpointId: 'webhookEndpoint' } },
  'POST /v1/webhook-endpoints/:endpointId/test': { ids: { endpointId: 'webhookEndpoint' } },
  'GET /v1/webhook-endpoints/:endpointId/deliveries': { ids: { endpointId: 'webhookEndpoint' } },
  'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry': {
    ids: { endpointId: 'webhookEndpoint', deliveryId: 'webhookDelivery' },
  },
  'GET /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId': { ids: { endpointId: 'webhookEndpoint', deliveryId: 'webhookDelivery' } },
  'POST /v1/webhook-endpoints/:endpointId/replays': {
    ids: { endpointId: 'webhookEndpoint' },
    body: () => ({ from: '2020-01-01T00:00:00Z' }),
  },
  'GET /v1/webhook-endpoints/:endpointId/replays/:replayId': { ids: { endpointId: 'webhookEndpoint', replayId: 'webhookReplay' } },
  // templates belong to the credential owner's organization: no id names another tenant's list
  'GET /v1/templates': { ids: {} },
  'POST /v1/templates': { ids: {}, body: () => ({ name: 'Matrix template' }) },
  'PUT /v1/templates/:templateId': { ids: { templateId: 'template' }, body: () => ({ description: 'Matrix description', workflow }) },
  'GET /v1/templates/:templateId': { ids: { templateId: 'template' } },
  'DELETE /v1/templates/:templateId': { ids: { templateId: 'template' } },
};

/** Root fields as "Query.field" / "Mutation.field" / "Subscription.field", Organization's fields as "Organization.field". */
export const GRAPHQL_CASES: Record<string, GraphQLCase> = {
  'Query.organization': { ids: { id: 'org' }, query: 'query($id: ID!) { organization(id: $id) { id name timezone isAccount } }' },
  'Query.node': { ids: { id: 'bot' }, query: 'query($id: ID!) { node(id: $id) { __typename id ... on Bot { name } } }' },
  'Query.nodes': {
    ids: { phone: 'phone', insurance: 'insurance' },
    query: 'query($phone: ID!, $insurance: ID!) { nodes(ids: [$phone, $insurance]) { __typename id } }',
  },
  'Query.bot': { ids: { id: 'bot' }, query: 'query($id: ID!) { bot(id: $id) { id name workflows { id title } } }' },
  'Query.callRequest': { ids: { id: 'callRequest' }, query: 'query($id: ID!) { callRequest(id: $id) { id status error { code } } }' },
  'Query.callRequests': {
    ids: { orgId: 'org', botId: 'bot' },
    query: 'query($orgId: ID, $botId: ID) { callRequests(orgId: $orgId, botId: $botId) { items { id orgId } nextCursor } }',
  },
  'Mutation.createCallRequest': {
    ids: { botId: 'bot', phoneNumberId: 'phone' },
    query:
      'mutation($botId: ID!, $phoneNumberId: ID!) { createCallRequest(input: {botId: $botId, phoneNumberId: $phoneNumberId, to: "+15005550006"}) { id } }',
  },
  'Mutation.createCallBatch': {
    ids: { botId: 'bot', phoneNumberId: 'phone' },
    query:
      'mutation($botId: ID!, $phoneNumberId: ID!) { createCallBatch(input: {botId: $botId, phoneNumberId: $phoneNumberId, recipients: [{to: "+15005550006"}]}) { id placed } }',
  },
  'Query.callBatch': {
    ids: { id: 'callBatch' },
    query: 'query($id: ID!) { callBatch(id: $id) { id placed callRequests { items { id } } } }',
  },
  'Query.callBatches': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID) { callBatches(orgId: $orgId) { items { id orgId counts { total } } nextCursor } }',
  },
  'Mutation.cancelCallBatch': { ids: { id: 'callBatch' }, query: 'mutation($id: ID!) { cancelCallBatch(id: $id) { id canceledAt } }' },
  'Query.callingPolicy': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID!) { callingPolicy(orgId: $orgId) { maxConcurrentCalls inheritedFrom } }',
  },
  'Query.retention': { ids: { orgId: 'org' }, query: 'query($orgId: ID!) { retention(orgId: $orgId) { transcriptsDays inheritedFrom } }' },
  'Mutation.setRetention': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { setRetention(orgId: $orgId, input: {transcriptsDays: 90}) { transcriptsDays } }',
  },
  'Query.redactionPolicy': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID!) { redactionPolicy(orgId: $orgId) { emails inheritedFrom } }',
  },
  'Mutation.setRedactionPolicy': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { setRedactionPolicy(orgId: $orgId, input: {emails: true}) { emails } }',
  },
  'Query.callCapacity': { ids: { orgId: 'org' }, query: 'query($orgId: ID!) { callCapacity(orgId: $orgId) { limit inProgress } }' },
  'Query.suppressions': { ids: {}, query: '{ suppressions { items { number orgId } nextCursor } }' },
  'Mutation.addSuppression': { ids: {}, query: 'mutation { addSuppression(number: "+12025550143") { number } }' },
  'Mutation.addSuppressions': { ids: {}, query: 'mutation { addSuppressions(numbers: ["+12025550143"]) { added } }' },
  'Mutation.removeSuppression': {
    ids: { number: 'suppression' },
    query: 'mutation($number: String!) { removeSuppression(number: $number) { number } }',
  },
  'Mutation.setCallingPolicy': {
    ids: { orgId: 'org' },
    query:
      'mutation($orgId: ID!) { setCallingPolicy(orgId: $orgId, input: {windows: [{dayOfWeek: MONDAY, start: "09:00", end: "17:00"}], maxConcurrentCalls: 5}) { maxConcurrentCalls } }',
  },
  'Mutation.cancelCallRequest': { ids: { id: 'callRequest' }, query: 'mutation($id: ID!) { cancelCallRequest(id: $id) { id status } }' },
  'Mutation.claimCallRequests': { ids: {}, query: 'mutation { claimCallRequests(max: 1) { leaseId callRequest { id } } }' },
  'Mutation.claimCalls': {
    ids: {},
    query: 'mutation { claimCalls(max: 1) { claims { leaseId callRequest { id } } capacity { limit inProgress } } }',
  },
  'Mutation.heartbeatCallRequest': {
    ids: { id: 'callRequest' },
    query: `mutation($id: ID!) { heartbeatCallRequest(id: $id, leaseId: "${LEASE}") { id } }`,
  },
  'Mutation.startCallRequest': {
    ids: { id: 'callRequest' },
    query: `mutation($id: ID!) { startCallRequest(id: $id, leaseId: "${LEASE}") { id } }`,
  },
  'Mutation.completeCallRequest': {
    ids: { id: 'callRequest' },
    query: `mutation($id: ID!) { completeCallRequest(id: $id, leaseId: "${LEASE}") { id } }`,
  },
  'Mutation.failCallRequest': {
    ids: { id: 'callRequest' },
    query: `mutation($id: ID!) { failCallRequest(id: $id, leaseId: "${LEASE}", error: {code: busy, message: "Busy"}) { id } }`,
  },
  'Query.conversation': {
    ids: { id: 'conversation' },
    query: 'query($id: ID!) { conversation(id: $id) { conversation { id orgId } transcript { messages { text } } } }',
  },
  'Mutation.createConversation': {
    ids: { orgId: 'org', botId: 'bot' },
    query: 'mutation($orgId: ID, $botId: ID) { createConversation(input: {orgId: $orgId, botId: $botId, medium: CHAT}) { id } }',
  },
  'Mutation.addConversationMessage': {
    ids: { id: 'conversation' },
    query: 'mutation($id: ID!) { addConversationMessage(id: $id, role: caller, text: "Hello") { seq } }',
  },
  'Mutation.endConversation': {
    ids: { id: 'conversation' },
    query: 'mutation($id: ID!) { endConversation(id: $id, input: {summary: "Matrix", duration: 5}) { id status } }',
  },
  'Query.conversations': {
    ids: { orgId: 'org', botId: 'bot' },
    query:
      'query($orgId: ID, $botId: ID) { conversations(orgId: $orgId, botId: $botId, includeArchived: true) { items { conversationId orgId } pagination { totalCount } } }',
  },
  'Query.conversationsConnection': {
    ids: { orgId: 'org', botId: 'bot' },
    query:
      'query($orgId: ID, $botId: ID) { conversationsConnection(first: 5, orgId: $orgId, botId: $botId, includeArchived: true) { totalCount edges { cursor node { conversationId orgId } } } }',
  },
  'Query.templates': { ids: {}, query: '{ templates { id name } }' },
  'Query.template': { ids: { id: 'template' }, query: 'query($id: ID!) { template(id: $id) { id name workflow { title } } }' },
  'Query.erasureRequest': {
    ids: { id: 'erasureRequest' },
    query: 'query($id: ID!) { erasureRequest(id: $id) { erasureRequestId status } }',
  },
  'Mutation.createErasureRequest': {
    ids: { conversationId: 'conversation' },
    query: 'mutation($conversationId: ID) { createErasureRequest(conversationId: $conversationId) { erasureRequestId } }',
  },
  'Query.accessLog': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID) { accessLog(first: 5, orgId: $orgId) { edges { node { id orgId } } } }',
  },
  'Query.accessLogVerification': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID) { accessLogVerification(orgId: $orgId) { ok entries } }',
  },
  'Query.events': {
    ids: { orgId: 'org' },
    query: 'query($orgId: ID) { events(first: 5, filter: {orgId: $orgId, type: ["closure.*"]}) { edges { node { id orgId type } } } }',
  },
  'Query.event': { ids: { id: 'event' }, query: 'query($id: ID!) { event(id: $id) { id orgId type } }' },
  'Query.webhookEndpoints': { ids: {}, query: '{ webhookEndpoints { id url } }' },
  'Query.webhookEndpoint': { ids: { id: 'webhookEndpoint' }, query: 'query($id: ID!) { webhookEndpoint(id: $id) { id url } }' },
  'Query.webhookDeliveries': {
    ids: { endpointId: 'webhookEndpoint' },
    query: 'query($endpointId: ID!) { webhookDeliveries(endpointId: $endpointId) { id status } }',
  },
  'Query.apiKeys': { ids: { orgId: 'org' }, query: 'query($orgId: ID) { apiKeys(orgId: $orgId) { id masked } }' },
  'Mutation.createApiKey': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID) { createApiKey(input: {name: "Matrix key", orgId: $orgId}) { id apiKey } }',
  },
  'Mutation.rollApiKey': { ids: { id: 'apiKey' }, query: 'mutation($id: ID!) { rollApiKey(id: $id) { id apiKey } }' },
  'Mutation.revokeApiKey': { ids: { id: 'apiKey' }, query: 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }' },
  'Query.oauthClients': { ids: { orgId: 'org' }, query: 'query($orgId: ID) { oauthClients(orgId: $orgId) { id clientId } }' },
  'Mutation.createOAuthClient': {
    ids: { orgId: 'org' },
    query:
      'mutation($orgId: ID) { createOAuthClient(input: {name: "Matrix client", scopes: ["closures:read"], orgId: $orgId}) { id clientSecret } }',
  },
  'Mutation.rotateOAuthClientSecret': {
    ids: { id: 'oauthClient' },
    query: 'mutation($id: ID!) { rotateOAuthClientSecret(id: $id) { id clientSecret } }',
  },
  'Mutation.setOAuthClientScopes': {
    ids: { id: 'oauthClient' },
    query: 'mutation($id: ID!) { setOAuthClientScopes(id: $id, scopes: ["closures:read", "closures:write"]) { id } }',
  },
  'Mutation.revokeOAuthClient': { ids: { id: 'oauthClient' }, query: 'mutation($id: ID!) { revokeOAuthClient(id: $id) { id } }' },
  'Mutation.createWebhookEndpoint': {
    ids: {},
    query: 'mutation { createWebhookEndpoint(input: {url: "https://hooks.example.com/matrix"}) { id secret } }',
  },
  'Mutation.updateWebhookEndpoint': {
    ids: { id: 'webhookEndpoint' },
    query: 'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {description: "Matrix"}) { id } }',
  },
  'Mutation.deleteWebhookEndpoint': { ids: { id: 'webhookEndpoint' }, query: 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }' },
  'Mutation.rotateWebhookSecret': {
    ids: { id: 'webhookEndpoint' },
    query: 'mutation($id: ID!) { rotateWebhookSecret(id: $id) { id secret } }',
  },
  'Mutation.testWebhookEndpoint': {
    ids: { id: 'webhookEndpoint' },
    query: 'mutation($id: ID!) { testWebhookEndpoint(id: $id) { id status } }',
  },
  'Mutation.retryWebhookDelivery': {
    ids: { endpointId: 'webhookEndpoint', deliveryId: 'webhookDelivery' },
    query:
      'mutation($endpointId: ID!, $deliveryId: ID!) { retryWebhookDelivery(endpointId: $endpointId, deliveryId: $deliveryId) { id status } }',
  },
  'Query.webhookDeliveryPage': {
    ids: { endpointId: 'webhookEndpoint' },
    query: 'query($endpointId: ID!) { webhookDeliveryPage(endpointId: $endpointId) { items { id attemptLog { at } } nextCursor } }',
  },
  'Query.webhookDelivery': {
    ids: { endpointId: 'webhookEndpoint', id: 'webhookDelivery' },
    query: 'query($endpointId: ID!, $id: ID!) { webhookDelivery(endpointId: $endpointId, id: $id) { id attemptLog { at errorClass } } }',
  },
  'Query.webhookReplay': {
    ids: { endpointId: 'webhookEndpoint', id: 'webhookReplay' },
    query: 'query($endpointId: ID!, $id: ID!) { webhookReplay(endpointId: $endpointId, id: $id) { id status replayed } }',
  },
  'Mutation.replayWebhookDeliveries': {
    ids: { endpointId: 'webhookEndpoint' },
    query: 'mutation($endpointId: ID!, $from: String!) { replayWebhookDeliveries(endpointId: $endpointId, from: $from) { id status } }',
    variables: { from: '2020-01-01T00:00:00Z' },
  },
  'Subscription.availabilityChanged': {
    ids: { orgId: 'org', phoneNumberId: 'phone' },
    query:
      'subscription($orgId: ID!, $phoneNumberId: ID) { availabilityChanged(orgId: $orgId, medium: PHONE, phoneNumberId: $phoneNumberId) { state greeting } }',
  },
  'Subscription.callRequestChanged': {
    ids: { orgId: 'org' },
    query: 'subscription($orgId: ID!) { callRequestChanged(orgId: $orgId) { type callRequest { id status } } }',
  },
  'Query.viewer': { ids: {}, query: '{ viewer { scopes organization { id children { id } parent { id } } } }' },

  'Mutation.createLocation': {
    ids: { accountId: 'org' },
    query:
      'mutation($accountId: ID!) { createLocation(accountId: $accountId, input: {name: "Matrix location", timezone: "Europe/Berlin"}) { organization { id } } }',
  },
  'Mutation.updateOrganization': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { updateOrganization(orgId: $orgId, input: {name: "Matrix name"}) { organization { id name } } }',
  },
  'Mutation.archiveOrganization': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { archiveOrganization(orgId: $orgId) { organization { id archivedAt } } }',
  },
  'Mutation.unarchiveOrganization': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { unarchiveOrganization(orgId: $orgId) { organization { id archivedAt } } }',
  },
  'Mutation.disableOrganization': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { disableOrganization(orgId: $orgId) { status changed } }',
  },
  'Mutation.enableOrganization': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!) { enableOrganization(orgId: $orgId) { status changed } }',
  },
  'Mutation.createClosure': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }',
    variables: { input: { description: 'Matrix closure', annualDate: { month: 5, day: 1 }, chatGreeting: null, phoneGreeting: null } },
  },
  'Mutation.updateClosure': {
    ids: { orgId: 'org', closureId: 'closure' },
    query:
      'mutation($orgId: ID!, $closureId: ID!, $input: UpdateClosureInput!) { updateClosure(orgId: $orgId, closureId: $closureId, input: $input) { id } }',
    variables: { input: { description: 'Matrix update', annualDate: { month: 6, day: 1 } } },
  },
  'Mutation.deleteClosure': {
    ids: { orgId: 'org', closureId: 'closure' },
    query: 'mutation($orgId: ID!, $closureId: ID!) { deleteClosure(orgId: $orgId, closureId: $closureId) }',
  },
  'Mutation.setOfficeHours': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: SetOfficeHoursInput!) { setOfficeHours(orgId: $orgId, input: $input) { dayOfWeek } }',
    variables: { input: { dayOfWeek: 'TUESDAY', isClosed: false, open: '08:00', close: '16:00' } },
  },
  'Mutation.setWeeklyHours': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: SetWeeklyHoursInput!) { setWeeklyHours(orgId: $orgId, input: $input) { dayOfWeek } }',
    variables: {
      input: {
        officeHours: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({
          dayOfWeek,
          isClosed: false,
          open: '09:00',
          close: '17:00',
        })),
      },
    },
  },
  'Mutation.createSpecialHours': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: SpecialHoursInput!) { createSpecialHours(orgId: $orgId, input: $input) { id } }',
    variables: { input: { date: '2030-07-01', description: 'Matrix day', isClosed: true } },
  },
  'Mutation.updateSpecialHours': {
    ids: { orgId: 'org', specialHoursId: 'special' },
    query:
      'mutation($orgId: ID!, $specialHoursId: ID!, $input: SpecialHoursInput!) { updateSpecialHours(orgId: $orgId, specialHoursId: $specialHoursId, input: $input) { id } }',
    variables: { input: { date: '2030-07-02', description: 'Matrix update', isClosed: true } },
  },
  'Mutation.deleteSpecialHours': {
    ids: { orgId: 'org', specialHoursId: 'special' },
    query: 'mutation($orgId: ID!, $specialHoursId: ID!) { deleteSpecialHours(orgId: $orgId, specialHoursId: $specialHoursId) }',
  },
  'Mutation.createInsurance': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: CreateInsuranceInput!) { createInsurance(orgId: $orgId, input: $input) { id } }',
    variables: { input: { name: 'Matrix insurance', type: 'EPO', status: 'ACCEPTED' } },
  },
  'Mutation.deleteInsurance': {
    ids: { orgId: 'org', insuranceId: 'insurance' },
    query: 'mutation($orgId: ID!, $insuranceId: ID!) { deleteInsurance(orgId: $orgId, insuranceId: $insuranceId) }',
  },
  'Mutation.updateInsurance': {
    ids: { orgId: 'org', insuranceId: 'insurance' },
    query:
      'mutation($orgId: ID!, $insuranceId: ID!, $input: UpdateInsuranceInput!) { updateInsurance(orgId: $orgId, insuranceId: $insuranceId, input: $input) { id } }',
    variables: { input: { status: 'NOT_ACCEPTED' } },
  },
  'Mutation.registerPhoneNumber': {
    ids: { orgId: 'org' },
    query: 'mutation($orgId: ID!, $input: RegisterPhoneNumberInput!) { registerPhoneNumber(orgId: $orgId, input: $input) { id } }',
    variables: {
      input: {
        get number() {
          return nextNumber();
        },
      },
    },
  },
  'Mutation.detachPhoneNumber': {
    ids: { phoneNumberId: 'phone' },
    query: 'mutation($phoneNumberId: ID!) { detachPhoneNumber(phoneNumberId: $phoneNumberId) { id botId } }',
  },
  'Mutation.deletePhoneNumber': {
    ids: { phoneNumberId: 'phone' },
    query: 'mutation($phoneNumberId: ID!) { deletePhoneNumber(phoneNumberId: $phoneNumberId) }',
  },
  'Mutation.createBot': {
    ids: { orgId: 'org', templateId: 'template' },
    query:
      'mutation($orgId: ID!, $templateId: ID) { createBot(orgId: $orgId, input: {name: "Matrix bot", templateId: $templateId}) { id } }',
  },
  'Mutation.updateBot': {
    ids: { botId: 'bot' },
    query: 'mutation($botId: ID!) { updateBot(botId: $botId, input: {name: "Matrix bot"}) { id name } }',
  },
  'Mutation.importWorkflows': {
    ids: { botId: 'bot' },
    query: 'mutation($botId: ID!) { importWorkflows(botId: $botId, workflows: [{title: "Matrix workflow"}]) { version } }',
  },
  'Mutation.replaceBotWorkflows': {
    ids: { botId: 'bot' },
    query: 'mutation($botId: ID!) { replaceBotWorkflows(botId: $botId, workflows: [{title: "Matrix workflow"}]) { version changed } }',
  },
  'Mutation.deleteBot': {
    ids: { botId: 'bot' },
    query: 'mutation($botId: ID!) { deleteBot(botId: $botId, force: true) { id detachedPhoneNumbers canceledCallRequests } }',
  },
  'Query.phoneNumber': { ids: { id: 'phone' }, query: 'query($id: ID!) { phoneNumber(id: $id) { id number customGreeting } }' },
  'Mutation.updatePhoneNumber': {
    ids: { phoneNumberId: 'phone' },
    query:
      'mutation($phoneNumberId: ID!) { updatePhoneNumber(phoneNumberId: $phoneNumberId, input: {customGreeting: "Matrix greeting"}) { id } }',
  },
  'Mutation.attachPhoneNumber': {
    ids: { phoneNumberId: 'phone', botId: 'bot' },
    query: 'mutation($phoneNumberId: ID!, $botId: ID!) { attachPhoneNumber(phoneNumberId: $phoneNumberId, botId: $botId) { id botId } }',
  },
  'Mutation.createTemplate': {
    ids: {},
    query: 'mutation($input: TemplateInput!) { createTemplate(input: $input) { id } }',
    variables: { input: { name: 'Matrix template' } },
  },
  'Mutation.deleteTemplate': { ids: { id: 'template' }, query: 'mutation($id: ID!) { deleteTemplate(id: $id) }' },
  'Mutation.updateTemplate': {
    ids: { id: 'template' },
    query: 'mutation($id: ID!, $input: TemplateInput!) { updateTemplate(id: $id, input: $input) { id version } }',
    variables: { input: { description: 'Matrix description', workflow } },
  },

  // every field of Organization, reached through organization(id: $org); availability also names a phone number
  ...Object.fromEntries(
    (
      [
        ['id', 'id'],
        ['name', 'name'],
        ['timezone', 'timezone'],
        ['isAccount', 'isAccount'],
        ['communicationsEnabled', 'communicationsEnabled'],
        ['archivedAt', 'archivedAt'],
        ['parent', 'parent { id name }'],
        ['children', 'children { id name }'],
        ['childCount', 'childCount'],
        [
          'childrenConnection',
          'childrenConnection(first: 5) { totalCount edges { cursor node { id name } } pageInfo { hasNextPage endCursor } }',
        ],
        ['bots', 'bots { id workflows { id } }'],
        ['closures', 'closures { id description }'],
        ['insurances', 'insurances { id name }'],
        ['officeHours', 'officeHours { dayOfWeek open close }'],
        ['specialHours', 'specialHours { id date }'],
        ['phoneNumbers', 'phoneNumbers { id botId }'],
      ] as const
    ).map(([field, selection]): [string, GraphQLCase] => [
      `Organization.${field}`,
      { ids: { org: 'org' }, query: `query($org: ID!) { organization(id: $org) { ${selection} } }` },
    ]),
  ),
  'Organization.availabilityTimeline': {
    ids: { org: 'org', phoneNumberId: 'phone' },
    query:
      'query($org: ID!, $phoneNumberId: ID) { organization(id: $org) { availabilityTimeline(medium: PHONE, from: "2026-03-09T00:00:00Z", to: "2026-03-16T00:00:00Z", phoneNumberId: $phoneNumberId) { intervals { start state greeting } } } }',
  },
  'Organization.availability': {
    ids: { org: 'org', phoneNumberId: 'phone' },
    query:
      'query($org: ID!, $phoneNumberId: ID) { organization(id: $org) { availability(medium: PHONE, at: "2026-03-09T14:00:00Z", phoneNumberId: $phoneNumberId) { state greeting } } }',
  },
};
