// Examples for the OpenAPI document, taken from the demo data set (src/demo/demoData.ts, docs/decisions.md §6):
// the clinic "Bright Smiles Downtown" of the account "Bright Smiles Dental Group", its bots, phone
// numbers, insurances, templates, call requests and conversations. Ids are fixed here (the demo's are
// fresh on every run). Each example is validated against its schema by the tests and by Redocly's lint.
import { sampleWorkflow } from '../demo/demoData.js';
import { noDispositionCounts } from '../domain/calls/callAttempts.js';
import type { RestErrorCode } from '../domain/shared/errorCodes.js';

const ids = {
  account: '6f1c2a52-8a43-4c1e-9d55-0c1b5e3a7d10',
  clinic: '0b8e9a3c-5d2f-4e61-8a7b-3c9d1e2f4a50',
  clinic2: '9a7d3e21-4b6c-4f8e-a1d2-5e6f7a8b9c30',
  frontDesk: '2c4e6a8b-1d3f-4a5c-8e7b-9d0f1a2b3c41',
  afterHours: '7e9a1c3d-5f2b-4d6e-9a8c-0b1d2e3f4a52',
  workflow: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c63',
  mainLine: '3d5f7a9b-2c4e-4f6a-8b1c-3d5e7f9a1b74',
  deltaDental: '8b0d2f4a-6c8e-4a1b-9d3f-5a7c9e1b3d85',
  bookAppointment: '4f6a8c0e-2b4d-4e6f-8a1c-3e5a7c9e1f96',
  closure: '1e3a5c7e-9b1d-4f3a-8c5e-7a9c1e3b5d07',
  callRequest: 'c2e4a6c8-0d2f-4b4d-8f6a-8c0e2a4c6e18',
  conversation: 'd3f5b7d9-1e3a-4c5e-9a7b-9d1f3b5d7f29',
  annualClosure: 'e4a6c8ea-2f4b-4d6f-8b8c-0e2a4c6e8a3a',
  lease: 'f5b7d9fb-3a5c-4e7a-9c9d-1f3b5d7f9b4b',
  specialHours: 'a3c5e7f9-1b2d-4c6e-8a0b-2d4f6a8c0e1f',
  suppression: 'b4d6f8a0-2c4e-4d7f-9b1d-3f5a7c9e1b5c',
  erasure: 'e3a5c7e9-1b3d-4f5a-8c7e-9a1b3c5d7e9f',
  callBatch: 'c5e7a9b1-3d5f-4e8a-8c2e-4a6b8d0f2c6d',
  batchCall: 'd6f8b0c2-4e6a-4f9b-9d3f-5b7c9e1a3d7e',
  recallBot: 'e7a9c1d3-5f7b-4a0c-8e4a-6c8e0a2b4d8f',
} as const;

const createdAt = '2026-03-02T14:05:11.482Z';

const frontDeskBot = {
  id: ids.frontDesk,
  orgId: ids.clinic,
  name: 'Front desk',
  enabled: true,
  templateId: null,
  templateVersion: null,
  workflowsVersion: 3,
  createdAt,
  updatedAt: createdAt,
};

// the demo data's workflow steps, as the API answers them (a step without child steps has `childSteps: []`)
const [identifyStep, offerStep] = sampleWorkflow('Book an appointment').steps.map((step) => ({
  ...step,
  childSteps: step.childSteps ?? [],
}));

const templateSummary = {
  id: ids.bookAppointment,
  name: 'Book an appointment',
  description: 'Book an appointment template',
  version: 1,
  createdAt,
  variables: [{ name: 'patientName', type: 'STRING', description: 'The patient name' }],
  applicableMediums: [],
  officeHoursAvailability: 'OPEN',
};
const template = {
  ...templateSummary,
  workflow: { ...sampleWorkflow('Book an appointment'), steps: [identifyStep, offerStep] },
};
const workflow = {
  id: ids.workflow,
  title: 'Front desk scheduling',
  description: 'Front desk scheduling for new and returning patients',
  enabled: true,
  usageContext: 'Use when the caller asks to book, move or cancel a visit.',
  steps: [identifyStep, offerStep],
};
const timedClosure = {
  id: ids.closure,
  description: 'Team training',
  chatGreeting: null,
  phoneGreeting: 'We are in training until 1 pm; please call back.',
  startAt: '2026-03-10T13:00:00Z',
  endAt: '2026-03-10T17:00:00Z',
};
const annualClosure = {
  id: ids.annualClosure,
  description: 'Independence Day',
  chatGreeting: 'We are closed for Independence Day and answer on the next business day.',
  phoneGreeting: null,
  annualDate: { month: 7, day: 4 },
};
const monday = {
  dayOfWeek: 'MONDAY',
  isClosed: false,
  open: '09:00',
  close: '17:00',
  breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch until 1 pm.' }],
};
const closureUpdatedEvent = {
  id: 'f5b7d9fb-3a5c-4e7a-9c9d-1f3b5d7f9b4b',
  type: 'closure.updated',
  orgId: ids.clinic,
  occurredAt: '2026-03-02T15:01:00.000Z',
  actor: { kind: 'apiKey', id: 'a6c8eafc-4b6d-4f8b-8dae-2a4c6e8a0c5c', name: 'Back office' },
  subject: { type: 'closure', id: ids.closure },
  data: timedClosure,
  previous: { description: 'Training' },
};
const webhookEndpoint = {
  id: 'b7d9fb1d-5c7e-4a9c-8e1f-3b5d7f9b1d6d',
  orgId: ids.account,
  url: 'https://backoffice.example.com/hooks/ocs',
  description: 'Back office sync',
  eventTypes: ['closure.*', 'office_hours.updated'],
  enabled: true,
  disabledReason: null,
  previousSecretExpiresAt: null,
  createdAt,
  updatedAt: createdAt,
};
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const webhookDelivery = {
  id: 'c8eafc2e-6d8f-4bad-9f2a-4c6e8a0c2e7e',
  endpointId: webhookEndpoint.id,
  eventId: closureUpdatedEvent.id,
  eventType: 'closure.updated',
  status: 'pending',
  attempts: 1,
  lastAttemptAt: '2026-03-02T15:01:00.000Z',
  statusCode: 503,
  latencyMs: 48,
  response: 'Service Unavailable',
  nextAttemptAt: '2026-03-02T15:01:05.000Z',
  createdAt: '2026-03-02T15:01:00.000Z',
};
const webhookReplay = {
  id: 'd2b4f6a8-3c5e-4a7b-9d1f-2e4a6c8e0b1d',
  endpointId: webhookEndpoint.id,
  from: '2026-03-01T00:00:00.000Z',
  to: '2026-03-02T16:00:00.000Z',
  status: 'pending',
  replayed: 0,
  skipped: 0,
  createdAt: '2026-03-02T16:00:00.000Z',
  completedAt: null,
};
const closedDay = (dayOfWeek: string) => ({ dayOfWeek, isClosed: true, open: null, close: null, breaks: [] });
const specialDay = {
  id: ids.specialHours,
  date: '2026-12-24',
  description: 'Christmas Eve: closing at noon',
  isClosed: false,
  open: '08:00',
  close: '12:00',
  breaks: [],
};
const greetingChange = {
  customClosedGreeting: 'Downtown main line is closed for the holidays; we reopen on Monday at 8.',
  speed: 1.1,
};
const phoneNumber = {
  id: ids.mainLine,
  orgId: ids.clinic,
  botId: ids.frontDesk,
  createdAt,
  updatedAt: createdAt,
  number: '+15550101',
  name: 'Downtown main line',
  language: 'ENGLISH',
  outbound: true,
  verifiedCallerId: '+15550101',
  callbackForwardingNumber: '+15550199',
  voiceId: 'FRIENDLY_BRIGHT',
  speed: 1,
  stability: 0.5,
  similarity: 0.75,
  style: 0,
  customGreeting: 'Thanks for calling Downtown main line, how can I help?',
  customClosedGreeting: 'Downtown main line is closed right now; leave a message and we will call you back.',
};
const registeredNumber = {
  ...phoneNumber,
  id: '6a1e4c2b-8d3f-4b7a-9c5e-1f2a3b4c5d6e',
  number: '+14155552671',
  name: 'Downtown after-hours line',
  botId: null,
  verifiedCallerId: '+14155552671',
  customGreeting: '',
  customClosedGreeting: '',
};
const insurance = {
  id: ids.deltaDental,
  orgId: ids.clinic,
  name: 'Delta Dental',
  type: 'PPO',
  status: 'IN_NETWORK',
  notes: 'Delta Dental notes',
  createdAt,
  updatedAt: createdAt,
};
const addedInsurance = {
  ...insurance,
  id: '5d0c3c9e-2f61-4d6b-9a0e-7c1f8b2a4e10',
  name: 'Cigna',
  type: 'EPO',
  status: 'CONDITIONAL',
  notes: 'Referral needed for specialists.',
};

const failedCall = {
  callRequestId: ids.callRequest,
  orgId: ids.clinic,
  botId: ids.frontDesk,
  phoneNumberId: ids.mainLine,
  to: '+15005550001',
  status: 'failed',
  officeHoursOnly: false,
  metadata: {},
  createdAt: '2026-03-09T13:30:00.000Z',
  notBefore: null,
  expiresAt: '2026-03-09T14:30:00.000Z',
  startedAt: null,
  finishedAt: '2026-03-09T13:30:00.000Z',
  claims: 1,
  attempts: [
    {
      n: 1,
      claimedAt: '2026-03-09T13:30:00.000Z',
      startedAt: null,
      endedAt: '2026-03-09T13:30:00.000Z',
      outcome: 'target_unavailable',
      error: { category: 'request', code: 'target_unavailable', message: 'The number called did not answer.' },
      conversationId: null,
    },
  ],
  conversationId: null,
  error: { category: 'request', code: 'target_unavailable', message: 'The number called did not answer.' },
  dueAt: '2026-03-09T13:30:00.000Z',
  calleeTimezone: 'America/New_York',
  purpose: 'informational',
  consent: null,
  retry: null,
  disposition: null,
  notes: null,
  data: null,
  followUpOf: null,
  followUpId: null,
  batchId: null,
  batchIndex: null,
};
const recallRetry = { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 3, intervalsMinutes: [10, 120, 1440] };
const queuedCall = {
  ...failedCall,
  to: '+15005550006',
  status: 'queued',
  officeHoursOnly: true,
  metadata: { patient: 'P-17' },
  expiresAt: '2026-03-10T13:30:00.000Z',
  finishedAt: null,
  claims: 0,
  attempts: [],
  error: null,
  retry: recallRetry,
};
const accessLogEntry = {
  id: '0c2e4a6c-8e0a-4c2e-9a4c-6e8a0c2e4a61',
  orgId: ids.clinic,
  seq: 2,
  at: '2026-03-02T15:04:12.318Z',
  credential: { kind: 'apiKey', id: '1d3f5b7d-9f1b-4d3f-8b5d-7f9b1d3f5b72', name: 'Front desk integration' },
  conversationId: ids.conversation,
  surface: 'rest',
  requestId: '5b7d9f1b-3d5f-4b7d-9f1b-3d5f7b9d1f83',
  clientAddress: '203.0.113.7',
  unredacted: false,
  prevHash: '9f2b6c1e4d8a3f7b0c5e9a2d6f1b4c8e3a7d0f5b9c2e6a1d4f8b3c7e0a5d9f2b',
  hash: '3e8a1f6c0b5d9e2a7f4c8b1d6e0a3f9c5b2e7d1a4f8c0b6e3d9a2f7c5b1e4d8a',
};
const redactionPolicy = {
  orgId: ids.clinic,
  emails: true,
  phones: true,
  keepOriginals: false,
  sources: { emails: 'own', phones: 'account', keepOriginals: 'default' },
  inheritedFrom: ids.account,
  updatedAt: '2026-11-28T09:00:00.000Z',
};
const retention = {
  orgId: ids.clinic,
  transcriptsDays: 90,
  conversationsDays: 365,
  callRequestsDays: 730,
  eventsDays: 30,
  webhookDeliveriesDays: 30,
  requestLogsDays: 30,
  sources: {
    transcriptsDays: 'account',
    conversationsDays: 'account',
    callRequestsDays: 'default',
    eventsDays: 'default',
    webhookDeliveriesDays: 'default',
    requestLogsDays: 'default',
  },
  inheritedFrom: ids.account,
  updatedAt: null,
};
const callingPolicy = {
  orgId: ids.clinic,
  windows: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((dayOfWeek) => ({ dayOfWeek, start: '08:00', end: '21:00' })),
  blockedDates: ['2026-12-25'],
  maxConcurrentCalls: 10,
  requireConsentFor: ['marketing'],
  retry: recallRetry,
  inheritedFrom: ids.account,
  isDefault: false,
};
const suppression = {
  suppressionId: ids.suppression,
  orgId: ids.clinic,
  number: '+12025550143',
  reason: 'Asked by letter not to be called',
  source: 'api',
  callRequestId: null,
  createdAt,
};
const claimedCall = { ...queuedCall, status: 'in_progress', claims: 1 };
const startedCall = {
  ...claimedCall,
  startedAt: '2026-03-09T13:30:10.000Z',
  conversationId: ids.conversation,
  attempts: [
    {
      n: 1,
      claimedAt: '2026-03-09T13:30:00.000Z',
      startedAt: '2026-03-09T13:30:10.000Z',
      endedAt: null,
      outcome: null,
      error: null,
      conversationId: ids.conversation,
    },
  ],
};
const bookedSlot = { slotStart: '2026-03-17T14:00:00Z', provider: 'Dr. Reyes', appointmentType: 'recall' };
const callConversation = {
  conversationId: ids.conversation,
  orgId: ids.clinic,
  botId: ids.frontDesk,
  conversationTags: [],
  medium: 'PHONE',
  toNumber: '+15005550006',
  fromNumber: '+15550101',
  summary: '',
  topic: '',
  duration: 0,
  startTime: '2026-03-09T13:30:10.000Z',
  endTime: null,
  status: 'OPEN',
};
const endedConversation = {
  ...callConversation,
  conversationTags: ['confirmation'],
  summary: 'Confirmed the appointment on Tuesday at ten.',
  topic: 'Appointment confirmation',
  duration: 16,
  endTime: '2026-03-09T13:31:40.000Z',
  status: 'CLOSED',
};
const apiKey = {
  id: '5b0c9d7e-3f1a-4c2b-9e8d-7a6b5c4d3e2f',
  orgId: '3f1a9c2e-8b7d-4e6f-a5c4-1b2d3e4f5a6b',
  name: 'Reporting',
  masked: 'svc-sk-v2-Q7fK…9m3X',
  scopes: ['closures:read', 'office-hours:read'],
  restricted: true,
  createdAt: '2026-03-02T15:00:00.000Z',
  lastUsedAt: null,
  expiresAt: '2026-06-01T00:00:00.000Z',
  revokedAt: null,
};
const oauthClient = {
  id: '6c1d8e9f-4a2b-4d3c-8e9f-0a1b2c3d4e5f',
  orgId: '3f1a9c2e-8b7d-4e6f-a5c4-1b2d3e4f5a6b',
  name: 'Dashboard',
  clientId: 'cli_Hn4Rt8Wq2Lz6Xc0Vb3Nm7Kp1',
  scopes: ['closures:read', 'office-hours:read'],
  createdAt: '2026-03-02T15:00:00.000Z',
  previousSecretExpiresAt: null,
  revokedAt: null,
};
const oauthSecret = 'Tq8Lw3Zx7Kc1Vn5Bm9Hr2Jd6Fs0Gp4Ya8Ue3Oi7Ct1Xe5Nw';

/** The `data` of each route's successful answer, by `METHOD path` of the route registry. */
const erasureCounts = {
  conversations: 0,
  messages: 0,
  callRequests: 0,
  events: 0,
  webhookDeliveries: 0,
  suppressions: 0,
  idempotentAnswers: 0,
};
const erasureRequest = {
  erasureRequestId: ids.erasure,
  orgId: ids.clinic,
  kind: 'phoneNumber',
  subjectId: null,
  status: 'pending',
  counts: erasureCounts,
  createdAt: '2026-03-09T15:00:00.000Z',
  startedAt: null,
  completedAt: null,
};
const noDispositions = noDispositionCounts();
const callBatch = {
  callBatchId: ids.callBatch,
  orgId: ids.clinic,
  botId: ids.frontDesk,
  phoneNumberId: ids.mainLine,
  purpose: 'informational',
  officeHoursOnly: false,
  notBefore: null,
  notAfter: '2026-03-13T22:00:00.000Z',
  metadata: { campaign: 'Spring recall' },
  retry: { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 3, intervalsMinutes: [10, 120, 1440] },
  recipients: 2_000,
  placed: 1_996,
  skipped: [
    { index: 17, reason: 'suppressed' },
    { index: 402, reason: 'duplicate' },
    { index: 1_311, reason: 'suppressed' },
    { index: 1_999, reason: 'duplicate' },
  ],
  counts: {
    total: 1_996,
    byStatus: { queued: 1_996, in_progress: 0, completed: 0, failed: 0, canceled: 0, expired: 0 },
    byDisposition: noDispositions,
  },
  createdAt: '2026-03-09T13:30:00.000Z',
  canceledAt: null,
  completedAt: null,
};
const callBatchInProgress = {
  ...callBatch,
  counts: {
    total: 1_996,
    byStatus: { queued: 1_182, in_progress: 8, completed: 702, failed: 104, canceled: 0, expired: 0 },
    byDisposition: { ...noDispositions, booked: 311, information_given: 244, declined: 97, voicemail_left: 38, opt_out: 12 },
  },
};

/** The demo's Downtown clinic as GET /v1/organizations/{id} answers it. */
const clinicOrganization = {
  id: ids.clinic,
  name: 'Bright Smiles Downtown',
  timezone: 'America/New_York',
  isAccount: false,
  communicationsEnabled: true,
  archivedAt: null,
  parentId: ids.account,
  childCount: 0,
  childIds: [],
  createdAt,
  updatedAt: createdAt,
};

export const SUCCESS_EXAMPLES: Record<string, unknown> = {
  'POST /v1/erasure-requests': erasureRequest,
  'GET /v1/erasure-requests/:erasureRequestId': {
    ...erasureRequest,
    status: 'completed',
    counts: { ...erasureCounts, conversations: 2, messages: 14, callRequests: 1, events: 9, suppressions: 1 },
    startedAt: '2026-03-09T15:00:01.000Z',
    completedAt: '2026-03-09T15:00:02.000Z',
  },
  'GET /v1/events': {
    events: [closureUpdatedEvent],
    pagination: { limit: 1, nextCursor: 'eyJwIjp7InMiOiI0MiJ9LCJmIjoiM2YxYTljMmUifQ.k2f9c1' },
  },
  'GET /v1/events/:eventId': closureUpdatedEvent,
  'GET /v1/access-log': {
    entries: [accessLogEntry],
    pagination: { limit: 1, nextCursor: 'eyJwIjp7InQiOjE3NzI0NjM4NTIzMTh9LCJmIjoiYTFiMmMzZDQifQ.m3d8a1' },
  },
  'GET /v1/access-log/verify': { ok: true, entries: 2, firstBroken: null },
  'GET /v1/access-log/export': accessLogEntry,

  'POST /v1/webhook-endpoints': { ...webhookEndpoint, secret: webhookSecret, secretShownOnce: false },
  'GET /v1/webhook-endpoints': { webhookEndpoints: [webhookEndpoint] },
  'GET /v1/webhook-endpoints/:endpointId': webhookEndpoint,
  'PATCH /v1/webhook-endpoints/:endpointId': { ...webhookEndpoint, eventTypes: ['*'] },
  'DELETE /v1/webhook-endpoints/:endpointId': { id: webhookEndpoint.id, deleted: true },
  'POST /v1/webhook-endpoints/:endpointId/rotate-secret': {
    ...webhookEndpoint,
    secret: 'whsec_Zq3hL0f9c2vYtN8sW4kP7mR1xB6dE5aU',
    secretShownOnce: false,
    previousSecretExpiresAt: '2026-03-03T15:00:00.000Z',
  },
  'POST /v1/webhook-endpoints/:endpointId/test': {
    ...webhookDelivery,
    eventType: 'webhook.test',
    status: 'pending',
    attempts: 0,
    lastAttemptAt: null,
    statusCode: null,
    latencyMs: null,
    response: null,
    nextAttemptAt: '2026-03-02T15:01:00.000Z',
  },
  'GET /v1/webhook-endpoints/:endpointId/deliveries': {
    deliveries: [webhookDelivery],
    pagination: { limit: 50, nextCursor: 'eyJwIjp7InQiOjE3NzI0NjM2NjAwMDB9LCJmIjoiN2MyZSJ9.w4e8b2' },
  },
  'GET /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId': {
    ...webhookDelivery,
    attempts: 2,
    lastAttemptAt: '2026-03-02T15:01:05.000Z',
    nextAttemptAt: '2026-03-02T15:06:05.000Z',
    attemptLog: [
      { at: '2026-03-02T15:01:00.000Z', statusCode: null, latencyMs: 10000, errorClass: 'timeout', response: null },
      { at: '2026-03-02T15:01:05.000Z', statusCode: 503, latencyMs: 48, errorClass: null, response: 'Service Unavailable' },
    ],
  },
  'POST /v1/webhook-endpoints/:endpointId/replays': webhookReplay,
  'GET /v1/webhook-endpoints/:endpointId/replays/:replayId': {
    ...webhookReplay,
    status: 'completed',
    replayed: 37,
    skipped: 2,
    completedAt: '2026-03-02T16:00:01.000Z',
  },
  'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry': {
    ...webhookDelivery,
    attempts: 0,
    nextAttemptAt: '2026-03-02T16:00:00.000Z',
  },
  'POST /v1/api-keys': { ...apiKey, apiKey: 'svc-sk-v2-Q7fKp2Lw9dRt4Yb8Nc1Vx6Hj0Sg5Ua3Ze7Mo2Ei9m3X', secretShownOnce: false },
  'GET /v1/api-keys': { apiKeys: [{ ...apiKey, lastUsedAt: '2026-03-02T15:04:00.000Z' }] },
  'POST /v1/api-keys/:keyId/roll': {
    ...apiKey,
    id: '8e2d4c6b-1a3f-4b5d-8c7e-9f0a1b2c3d4e',
    masked: 'svc-sk-v2-Wd3R…p8Qa',
    apiKey: 'svc-sk-v2-Wd3Rk8Tn2Vb6Xm9Lc4Fz1Hq7Js0Pg5Ye3Ou8Ai2p8Qa',
    secretShownOnce: false,
    createdAt: '2026-03-03T09:00:00.000Z',
  },
  'POST /v1/api-keys/:keyId/revoke': { ...apiKey, revokedAt: '2026-03-03T09:00:00.000Z' },
  'POST /v1/oauth-clients': { ...oauthClient, clientSecret: oauthSecret, secretShownOnce: false },
  'GET /v1/oauth-clients': { oauthClients: [oauthClient] },
  'POST /v1/oauth-clients/:id/rotate-secret': {
    ...oauthClient,
    previousSecretExpiresAt: '2026-03-04T09:00:00.000Z',
    clientSecret: 'Mx2Pd7Qs1Rf6Tg0Yh4Uj8Ik3Ol5Az9Sx2Dc7Fv1Gb6Hn0Jm4',
    secretShownOnce: false,
  },
  'PUT /v1/oauth-clients/:id/scopes': { ...oauthClient, scopes: ['closures:read', 'closures:write', 'office-hours:read'] },
  'POST /v1/oauth-clients/:id/revoke': { ...oauthClient, revokedAt: '2026-03-03T09:00:00.000Z' },
  'GET /v1/templates': { templates: [templateSummary] },
  'POST /v1/templates': { ...template, id: ids.bookAppointment },
  'GET /v1/templates/:templateId': template,
  'PUT /v1/templates/:templateId': { ...template, version: 2 },
  'DELETE /v1/templates/:templateId': { id: template.id, deleted: true },
  'GET /v1/organizations/:orgId/bots': { bots: [frontDeskBot, { ...frontDeskBot, id: ids.afterHours, name: 'After hours' }] },
  'POST /v1/organizations/:orgId/bots': {
    ...frontDeskBot,
    id: ids.recallBot,
    name: 'Recall caller',
    templateId: ids.bookAppointment,
    templateVersion: 1,
    workflowsVersion: 1,
  },
  'GET /v1/bots/:botId': frontDeskBot,
  'PATCH /v1/bots/:botId': { ...frontDeskBot, enabled: false, updatedAt: '2026-03-03T09:00:00.000Z' },
  'DELETE /v1/bots/:botId': {
    id: ids.afterHours,
    deleted: true,
    detachedPhoneNumbers: [ids.mainLine],
    canceledCallRequests: [ids.callRequest],
  },
  'GET /v1/bots/:botId/workflows': { version: 3, workflows: [workflow] },
  'POST /v1/bots/:botId/workflows/import': { version: 4, workflows: [{ ...workflow, id: '6b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d74' }] },
  'PUT /v1/bots/:botId/workflows': {
    version: 4,
    changed: true,
    workflows: [{ ...workflow, id: '6b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d75', usageContext: 'When a caller wants to book or move a visit' }],
  },
  'GET /v1/organizations/:orgId': clinicOrganization,
  'POST /v1/organizations/:orgId/children': {
    ...clinicOrganization,
    id: '7c3e5a1b-9d2f-4e6a-8b0c-2d4f6a8c0e13',
    name: 'Bright Smiles Uptown',
  },
  'PATCH /v1/organizations/:orgId': { ...clinicOrganization, name: 'Bright Smiles Downtown (Main Street)', timezone: 'America/Chicago' },
  'GET /v1/organizations/:orgId/children': {
    children: [clinicOrganization],
    pagination: { limit: 1, totalCount: 2, nextCursor: 'eyJwIjp7InQiOjE3NzI0NjAzMTE0ODIsImkiOiIxIn0sImYiOiJ4In0.c2FtcGxlLWN1cnNvcg' },
  },
  'POST /v1/organizations/:orgId/disable': { status: 'disabled', changed: true },
  'POST /v1/organizations/:orgId/archive': {
    ...clinicOrganization,
    archivedAt: '2026-03-03T09:00:00.000Z',
    updatedAt: '2026-03-03T09:00:00.000Z',
  },
  'POST /v1/organizations/:orgId/unarchive': { ...clinicOrganization, updatedAt: '2026-03-04T09:00:00.000Z' },
  'POST /v1/organizations/:orgId/enable': { status: 'enabled', changed: true },
  'GET /v1/organizations/:orgId/phone-numbers': { phoneNumbers: [phoneNumber] },
  'POST /v1/phone-numbers/:phoneNumberId/attach': { ...phoneNumber, botId: ids.afterHours },
  'GET /v1/phone-numbers/:phoneNumberId': phoneNumber,
  'POST /v1/organizations/:orgId/phone-numbers': registeredNumber,
  'POST /v1/phone-numbers/:phoneNumberId/detach': { ...phoneNumber, botId: null },
  'DELETE /v1/phone-numbers/:phoneNumberId': { id: ids.mainLine, deleted: true },
  'PATCH /v1/phone-numbers/:phoneNumberId': { ...phoneNumber, ...greetingChange },
  'GET /v1/organizations/:orgId/insurances': { insurances: [insurance] },
  'POST /v1/organizations/:orgId/insurances': addedInsurance,
  'DELETE /v1/organizations/:orgId/insurances/:insuranceId': { id: ids.deltaDental, deleted: true },
  'PATCH /v1/organizations/:orgId/insurances/:insuranceId': { ...insurance, status: 'CONDITIONAL', notes: 'Pre-authorization required' },
  'GET /v1/call-requests/:callRequestId': failedCall,
  'GET /v1/call-requests': {
    callRequests: [failedCall],
    pagination: { limit: 1, nextCursor: 'eyJwIjp7InQiOjE3NzMwNjMwMDAwMDB9LCJmIjoiOWQyYSJ9.k2f9c1' },
  },
  'POST /v1/call-requests': queuedCall,
  'POST /v1/call-requests/:callRequestId/cancel': { ...queuedCall, status: 'canceled', finishedAt: '2026-03-09T13:31:00.000Z' },
  'GET /v1/organizations/:orgId/calling-policy': callingPolicy,
  'PUT /v1/organizations/:orgId/calling-policy': { ...callingPolicy, inheritedFrom: null, orgId: ids.clinic },
  'GET /v1/organizations/:orgId/retention': retention,
  'GET /v1/organizations/:orgId/redaction': redactionPolicy,
  'PUT /v1/organizations/:orgId/redaction': redactionPolicy,
  'PUT /v1/organizations/:orgId/retention': { ...retention, sources: { ...retention.sources, transcriptsDays: 'own' } },
  'GET /v1/organizations/:orgId/call-capacity': { limit: 10, inProgress: 3, queuedDue: 12 },
  'POST /v1/call-batches': { ...callBatch, callRequests: [{ index: 0, callRequestId: ids.batchCall }] },
  'GET /v1/call-batches': {
    callBatches: [callBatchInProgress],
    pagination: { limit: 1, nextCursor: 'eyJwIjp7InQiOjE3NzMwNjI2MDAwMDB9LCJmIjoiM2IxYyJ9.p7d2e4' },
  },
  'GET /v1/call-batches/:callBatchId': callBatchInProgress,
  'GET /v1/call-batches/:callBatchId/call-requests': {
    callRequests: [{ ...queuedCall, callRequestId: ids.batchCall, batchId: ids.callBatch, batchIndex: 0, retry: null }],
    pagination: { limit: 20, nextCursor: null },
  },
  'POST /v1/call-batches/:callBatchId/cancel': {
    ...callBatchInProgress,
    canceledAt: '2026-03-09T16:00:00.000Z',
    counts: {
      ...callBatchInProgress.counts,
      byStatus: { ...callBatchInProgress.counts.byStatus, queued: 0, canceled: 1_182 },
    },
  },
  'POST /v1/suppressions': suppression,
  'POST /v1/suppressions/bulk': { added: 9_998, unchanged: 2 },
  'GET /v1/suppressions': { suppressions: [suppression], pagination: { limit: 20, nextCursor: null } },
  'DELETE /v1/suppressions/:number': suppression,
  'POST /v1/dispatch/claim': {
    capacity: { limit: 10, inProgress: 4 },
    claims: [
      {
        leaseId: ids.lease,
        leaseUntil: '2026-03-09T13:31:00.000Z',
        callRequest: claimedCall,
        availability: {
          at: '2026-03-09T13:30:00Z',
          timezone: 'America/New_York',
          localTime: '2026-03-09T09:30',
          state: 'OPEN',
          officeOpen: true,
          closure: null,
          specialHours: null,
          break: null,
          greeting: 'Thanks for calling Downtown main line, how can I help?',
          availableTemplates: [{ id: ids.bookAppointment, name: 'Book an appointment' }],
          nextChangeAt: '2026-03-09T16:00:00Z',
        },
      },
    ],
  },
  'POST /v1/call-requests/:callRequestId/heartbeat': { ...claimedCall, leaseUntil: '2026-03-09T13:32:00.000Z' },
  'POST /v1/call-requests/:callRequestId/start': startedCall,
  'POST /v1/call-requests/:callRequestId/complete': {
    ...startedCall,
    status: 'completed',
    finishedAt: '2026-03-09T13:31:40.000Z',
    attempts: [{ ...startedCall.attempts[0], endedAt: '2026-03-09T13:31:40.000Z', outcome: 'completed' }],
    disposition: 'booked',
    notes: 'Booked the six-month recall with Dr. Reyes.',
    data: bookedSlot,
  },
  'POST /v1/call-requests/:callRequestId/fail': {
    ...claimedCall,
    // busy, with attempts left: queued again at the first allowed instant 10 minutes on
    status: 'queued',
    dueAt: '2026-03-09T13:40:30.000Z',
    attempts: [
      {
        n: 1,
        claimedAt: '2026-03-09T13:30:00.000Z',
        startedAt: null,
        endedAt: '2026-03-09T13:30:30.000Z',
        outcome: 'busy',
        error: { category: 'request', code: 'busy', message: 'The line was busy.' },
        conversationId: null,
      },
    ],
  },
  'POST /v1/conversations': { ...callConversation, medium: 'CHAT', toNumber: '', fromNumber: '' },
  'GET /v1/conversations/:conversationId': {
    conversation: endedConversation,
    transcript: {
      messages: [
        { seq: 1, role: 'agent', text: 'Thanks for calling Downtown main line, how can I help?', at: '2026-03-09T13:30:12.000Z' },
        { seq: 2, role: 'caller', text: 'Hi, yes, this is about my appointment?', at: '2026-03-09T13:30:16.000Z' },
      ],
      nextCursor: 'eyJwIjp7InMiOjJ9LCJmIjoiN2MxZSJ9.k2f9c1',
    },
  },
  'POST /v1/conversations/:conversationId/messages': {
    seq: 3,
    role: 'agent',
    text: 'We wanted to confirm your visit on Tuesday at ten.',
    at: '2026-03-09T13:30:20.000Z',
    textWithheld: false,
  },
  'POST /v1/conversations/:conversationId/end': endedConversation,
  'GET /v1/conversations': {
    conversations: [
      {
        conversationId: ids.conversation,
        orgId: ids.clinic,
        botId: ids.frontDesk,
        conversationTags: ['appointment'],
        medium: 'CHAT',
        toNumber: '+15550100',
        fromNumber: '+155502000',
        summary: 'Conversation 1',
        topic: 'Billing',
        duration: 30,
        startTime: '2026-10-01T15:00:00.000Z',
        endTime: '2026-10-01T15:00:30.000Z',
        status: 'OPEN',
      },
    ],
    pagination: { offset: 0, limit: 1, totalCount: 40, nextCursor: 'eyJwIjpbIjIwMjYtMDMtMDlUMTQ6MDI6MDAuMDAwWiIsIjNmMWE5YzJlIl19.k2f9c1' },
  },
  'POST /v1/organizations/:orgId/closures': timedClosure,
  'GET /v1/organizations/:orgId/closures': { closures: [annualClosure, timedClosure] },
  'GET /v1/organizations/:orgId/closures/:closureId': timedClosure,
  'POST /v1/organizations/:orgId/closures/:closureId': annualClosure,
  'DELETE /v1/organizations/:orgId/closures/:closureId': { id: ids.closure, deleted: true },
  'POST /v1/organizations/:orgId/office-hours': monday,
  'GET /v1/organizations/:orgId/office-hours': {
    officeHours: [monday, ...['TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map(closedDay)],
  },
  'PUT /v1/organizations/:orgId/office-hours': {
    officeHours: [monday, ...['TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map(closedDay)],
  },
  'POST /v1/organizations/:orgId/special-hours': specialDay,
  'GET /v1/organizations/:orgId/special-hours': { specialHours: [specialDay] },
  'GET /v1/organizations/:orgId/special-hours/:specialHoursId': specialDay,
  'POST /v1/organizations/:orgId/special-hours/:specialHoursId': specialDay,
  'DELETE /v1/organizations/:orgId/special-hours/:specialHoursId': { id: ids.specialHours, deleted: true },
  'GET /v1/organizations/:orgId/availability': {
    at: '2026-03-09T13:30:00Z',
    timezone: 'America/New_York',
    localTime: '2026-03-09T09:30',
    state: 'OPEN',
    officeOpen: true,
    closure: null,
    specialHours: null,
    break: null,
    greeting: 'Thanks for calling Downtown main line, how can I help?',
    availableTemplates: [{ id: ids.bookAppointment, name: 'Book an appointment' }],
    nextChangeAt: '2026-03-09T16:00:00Z',
  },
  'GET /v1/organizations/:orgId/availability/timeline': {
    timezone: 'America/New_York',
    medium: 'PHONE',
    from: '2026-03-09T12:00:00Z',
    to: '2026-03-10T00:00:00Z',
    intervals: [
      {
        start: '2026-03-09T12:00:00Z',
        end: '2026-03-09T13:00:00Z',
        state: 'CLOSED',
        closure: null,
        specialHours: null,
        break: null,
        greeting: 'We are closed right now; please call back during office hours.',
      },
      {
        start: '2026-03-09T13:00:00Z',
        end: '2026-03-09T16:00:00Z',
        state: 'OPEN',
        closure: null,
        specialHours: null,
        break: null,
        greeting: 'Thanks for calling Downtown main line, how can I help?',
      },
      {
        start: '2026-03-09T16:00:00Z',
        end: '2026-03-09T17:00:00Z',
        state: 'BREAK',
        closure: null,
        specialHours: null,
        break: { start: '12:00', end: '13:00', reason: 'Lunch' },
        greeting: 'We are at lunch until 1 pm.',
      },
      {
        start: '2026-03-09T17:00:00Z',
        end: '2026-03-09T21:00:00Z',
        state: 'OPEN',
        closure: null,
        specialHours: null,
        break: null,
        greeting: 'Thanks for calling Downtown main line, how can I help?',
      },
      {
        start: '2026-03-09T21:00:00Z',
        end: '2026-03-10T00:00:00Z',
        state: 'CLOSED',
        closure: null,
        specialHours: null,
        break: null,
        greeting: 'We are closed right now; please call back during office hours.',
      },
    ],
  },
};

/** The `message` that accompanies a success, where the route sends one. */
export const SUCCESS_MESSAGES: Record<string, string> = {
  'POST /v1/organizations/:orgId/disable': 'Communications disabled',
  'POST /v1/organizations/:orgId/enable': 'Communications enabled',
  'POST /v1/phone-numbers/:phoneNumberId/attach': 'Phone number attached',
};

const templateInput = {
  name: template.name,
  description: template.description,
  variables: template.variables,
  officeHoursAvailability: 'OPEN',
  workflow: sampleWorkflow('Book an appointment'),
};
const breaksInput = monday.breaks;
const leaseId = ids.lease;

/**
 * The body of each route that takes one, by `METHOD path` (the `example` of its request body): the demo
 * data's clinic, bots and schedule. Each is checked against the route's zod schema by test/api/openapi.test.ts.
 */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  'POST /v1/erasure-requests': { phoneNumber: '+1 (202) 555-0143' },
  'POST /v1/templates': templateInput,
  'PUT /v1/templates/:templateId': { ...templateInput, description: 'Book, move or cancel an appointment' },
  'POST /v1/bots/:botId/workflows/import': {
    workflows: [
      {
        title: workflow.title,
        description: workflow.description,
        enabled: true,
        usageContext: workflow.usageContext,
        steps: sampleWorkflow(workflow.title).steps,
      },
    ],
  },
  'PUT /v1/bots/:botId/workflows': {
    version: 3,
    workflows: [
      {
        title: workflow.title,
        description: workflow.description,
        enabled: true,
        usageContext: 'When a caller wants to book or move a visit',
        steps: sampleWorkflow(workflow.title).steps,
      },
    ],
  },
  'PATCH /v1/organizations/:orgId': { name: 'Bright Smiles Downtown (Main Street)', timezone: 'America/Chicago' },
  'POST /v1/organizations/:orgId/disable': {},
  'POST /v1/organizations/:orgId/archive': {},
  'POST /v1/organizations/:orgId/unarchive': {},
  'POST /v1/organizations/:orgId/enable': {},
  'POST /v1/phone-numbers/:phoneNumberId/attach': { botId: ids.frontDesk },
  'PATCH /v1/phone-numbers/:phoneNumberId': greetingChange,
  'POST /v1/organizations/:orgId/bots': { name: 'Recall caller', templateId: ids.bookAppointment },
  'PATCH /v1/bots/:botId': { enabled: false },
  'POST /v1/organizations/:orgId/phone-numbers': {
    number: registeredNumber.number,
    name: registeredNumber.name,
    verifiedCallerId: registeredNumber.verifiedCallerId,
  },
  'POST /v1/organizations/:orgId/insurances': {
    name: addedInsurance.name,
    type: addedInsurance.type,
    status: addedInsurance.status,
    notes: addedInsurance.notes,
  },
  'PATCH /v1/organizations/:orgId/insurances/:insuranceId': {
    status: 'CONDITIONAL',
    notes: 'In network for cleanings; implants need a pre-authorization.',
  },
  'POST /v1/call-requests': {
    botId: ids.frontDesk,
    phoneNumberId: ids.mainLine,
    to: queuedCall.to,
    officeHoursOnly: true,
    metadata: queuedCall.metadata,
    retry: recallRetry,
  },
  'POST /v1/call-requests/:callRequestId/cancel': {},
  'POST /v1/call-batches': {
    botId: ids.frontDesk,
    phoneNumberId: ids.mainLine,
    notAfter: '2026-03-13T22:00:00Z',
    retry: { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 3, intervalsMinutes: [10, 120, 1440] },
    metadata: { campaign: 'Spring recall' },
    recipients: [
      { to: '+15005550006', calleeTimezone: 'America/New_York', metadata: { patientRef: 'A-1001' } },
      { to: '+15005550007', calleeTimezone: 'America/Chicago', metadata: { patientRef: 'A-1002' } },
    ],
  },
  'POST /v1/call-batches/:callBatchId/cancel': {},
  'POST /v1/dispatch/claim': { max: 5, leaseSeconds: 120 },
  'POST /v1/call-requests/:callRequestId/heartbeat': { leaseId, leaseSeconds: 120 },
  'POST /v1/call-requests/:callRequestId/start': { leaseId },
  'POST /v1/call-requests/:callRequestId/complete': {
    leaseId,
    disposition: 'booked',
    notes: 'Booked the six-month recall with Dr. Reyes.',
    data: bookedSlot,
  },
  'POST /v1/call-requests/:callRequestId/fail': { leaseId, error: failedCall.error },
  'POST /v1/conversations': {
    botId: ids.frontDesk,
    medium: 'PHONE',
    fromNumber: '+15005550006',
    toNumber: phoneNumber.number,
    tags: ['new-patient'],
  },
  'POST /v1/conversations/:conversationId/messages': { role: 'caller', text: 'Hi, I would like to confirm my appointment on Tuesday.' },
  'POST /v1/conversations/:conversationId/end': {
    summary: endedConversation.summary,
    topic: endedConversation.topic,
    tags: endedConversation.conversationTags,
    duration: endedConversation.duration,
  },
  'POST /v1/organizations/:orgId/closures': {
    description: timedClosure.description,
    chatGreeting: null,
    phoneGreeting: timedClosure.phoneGreeting,
    startAt: timedClosure.startAt,
    endAt: timedClosure.endAt,
  },
  'POST /v1/organizations/:orgId/closures/:closureId': {
    description: 'Team training (extended)',
    startAt: timedClosure.startAt,
    endAt: '2026-03-10T18:00:00Z',
  },
  'POST /v1/organizations/:orgId/office-hours': {
    dayOfWeek: monday.dayOfWeek,
    isClosed: false,
    open: monday.open,
    close: monday.close,
    breaks: breaksInput,
  },
  'POST /v1/suppressions': { number: '+1 (202) 555-0143', reason: 'Asked by letter not to be called' },
  'POST /v1/suppressions/bulk': { numbers: ['+12025550143', '+1 415 555 2671'], reason: 'Imported from the old system' },
  'PUT /v1/organizations/:orgId/retention': { transcriptsDays: 90 },
  'PUT /v1/organizations/:orgId/redaction': { emails: true },
  'PUT /v1/organizations/:orgId/calling-policy': {
    windows: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((dayOfWeek) => ({ dayOfWeek, start: '08:00', end: '21:00' })),
    blockedDates: ['2026-12-25'],
    maxConcurrentCalls: 10,
    requireConsentFor: ['marketing'],
    retry: recallRetry,
  },
  'POST /v1/organizations/:orgId/children': {
    name: 'Bright Smiles Uptown',
    timezone: 'America/New_York',
    officeHours: [
      ...['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((dayOfWeek) => ({
        dayOfWeek,
        isClosed: false,
        open: '08:00',
        close: '18:00',
      })),
      { dayOfWeek: 'SATURDAY', isClosed: true },
      { dayOfWeek: 'SUNDAY', isClosed: true },
    ],
  },
  'PUT /v1/organizations/:orgId/office-hours': {
    officeHours: [
      ...['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((dayOfWeek) => ({
        dayOfWeek,
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: breaksInput,
      })),
      { dayOfWeek: 'SATURDAY', isClosed: false, open: '09:00', close: '12:00', breaks: [] },
      { dayOfWeek: 'SUNDAY', isClosed: true },
    ],
  },
  'POST /v1/organizations/:orgId/special-hours': {
    date: specialDay.date,
    description: specialDay.description,
    isClosed: false,
    open: specialDay.open,
    close: specialDay.close,
    breaks: [],
  },
  'POST /v1/organizations/:orgId/special-hours/:specialHoursId': {
    date: specialDay.date,
    description: 'Christmas Eve: closing at one',
    isClosed: false,
    open: '08:00',
    close: '13:00',
    breaks: [],
  },
  'POST /v1/webhook-endpoints': {
    url: webhookEndpoint.url,
    description: webhookEndpoint.description,
    eventTypes: webhookEndpoint.eventTypes,
  },
  'PATCH /v1/webhook-endpoints/:endpointId': { eventTypes: ['*'] },
  'POST /v1/webhook-endpoints/:endpointId/rotate-secret': {},
  'POST /v1/webhook-endpoints/:endpointId/test': {},
  'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry': {},
  'POST /v1/webhook-endpoints/:endpointId/replays': { from: '2026-03-01T00:00:00Z' },
  'POST /v1/api-keys': { name: apiKey.name, scopes: apiKey.scopes, expiresAt: apiKey.expiresAt },
  'POST /v1/api-keys/:keyId/roll': { expiresAt: '2026-03-04T09:00:00.000Z' },
  'POST /v1/api-keys/:keyId/revoke': {},
  'POST /v1/oauth-clients': { name: oauthClient.name, scopes: oauthClient.scopes },
  'POST /v1/oauth-clients/:id/rotate-secret': { expiresAt: '2026-03-04T09:00:00.000Z' },
  'PUT /v1/oauth-clients/:id/scopes': { scopes: ['closures:read', 'closures:write', 'office-hours:read'] },
  'POST /v1/oauth-clients/:id/revoke': {},
};

/** One example error envelope per status. */
export const ERROR_EXAMPLES: Record<string, { message: string; code: RestErrorCode; errors?: { path: string; message: string }[] }> = {
  '400': {
    message: 'endAt: must be after startAt',
    code: 'validation_failed',
    errors: [{ path: 'endAt', message: 'must be after startAt' }],
  },
  '401': { message: 'Missing credentials: send Authorization: Bearer <API key or access token>', code: 'unauthenticated' },
  '403': { message: 'This credential lacks the scope closures:write', code: 'forbidden' },
  '404': { message: 'Organization not found', code: 'not_found' },
  '413': { message: 'The body exceeds 1048576 bytes', code: 'payload_too_large' },
  '415': {
    message: 'Unsupported content type "text/plain"; send application/json, application/x-www-form-urlencoded or multipart/form-data',
    code: 'unsupported_media_type',
  },
  '429': { message: 'Rate limit exceeded; retry after 42 s', code: 'rate_limited' },
  '409': {
    message: 'Idempotency-Key "retry-7f3a" is in use by a request that is still being answered; retry after 1 s',
    code: 'idempotency_key_in_use',
  },
  '422': { message: 'Idempotency-Key "retry-7f3a" was already used with a different request', code: 'idempotency_key_reused' },
  '500': {
    message: 'Internal server error; quote request id 6f1c2a9e-3b7d-4e52-9a41-0c8d5e2f7b13 when reporting it',
    code: 'internal_error',
  },
  '503': { message: 'The service is overloaded; retry shortly', code: 'unavailable' },
};

/** The demo OAuth client's token exchange (the secret is a placeholder: the demo's are fresh). */
export const DEMO = {
  tokenRequest: {
    grant_type: 'client_credentials',
    client_id: 'cli_7Hq2LmX9pR4sV8nB3kD6fJ1w',
    client_secret: '<the client secret: 48 base62 characters>',
    audience: 'http://127.0.0.1:4000/v1',
  },
  tokenResponse: {
    access_token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImRlbW8ifQ.eyJvcmciOiIwYjhlOWEzYyJ9.c2lnbmF0dXJl',
    token_type: 'Bearer',
    expires_in: 86400,
    scope: 'organizations:read closures:read closures:write office-hours:read',
  },
};
