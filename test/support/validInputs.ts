// One valid request for every /v1 operation and for every GraphQL field that takes text arguments, on the
// demo data (plus what Fixtures makes through the API, lazily, once per case). Every field a schema
// declares is filled in (a list with one element, a record with one entry), so that a test can change one
// field and know that the field is the request's only problem: test/api/storableText.test.ts puts a NUL or
// an unpaired surrogate into each string of each one in turn. Each request succeeds as it is (the test
// sends it last and expects a 2xx, or the statuses named in `control`).
import { expect } from 'vitest';
import type { TestApp } from './testApp.js';

/** The instant the fake clock is set to before each case (a Monday afternoon in New York). */
export const NOW = '2026-03-02T15:00:00Z';
/** A calling policy with every field (docs/calls.md). */
const RETENTION = { transcriptsDays: 90, conversationsDays: 365, eventsDays: 30 };
const CALLING_POLICY = {
  windows: [{ dayOfWeek: 'MONDAY', start: '09:00', end: '17:00' }],
  blockedDates: ['2026-12-25'],
  maxConcurrentCalls: 5,
  requireConsentFor: ['marketing'],
  retry: { on: ['busy', 'no_answer'], maxAttempts: 2, intervalsMinutes: [30] },
};
/** Every setting of a phone number (docs/rest.md). */
const PHONE_SETTINGS = {
  name: 'Main line',
  language: 'SPANISH',
  voiceId: 'CALM_WARM',
  speed: 1.1,
  stability: 0.4,
  similarity: 0.8,
  style: 0.2,
  customGreeting: 'Thanks for calling',
  customClosedGreeting: 'We are closed',
  outbound: true,
  verifiedCallerId: '+14155552671',
  callbackForwardingNumber: '+14155552672',
};
const hoursAfter = (hours: number) => new Date(Date.parse(NOW) + hours * 3_600_000).toISOString().replace('.000Z', 'Z');

export interface RestRequest {
  /** Path parameters by name (the OpenAPI path's `{name}`). */
  params?: Record<string, string>;
  /** Query parameters: the ones a valid request sends (the test also sends each declared one alone). */
  query?: Record<string, string>;
  body?: unknown;
  /** Defaults to the clinic's API key. */
  token?: string;
  /** The statuses the request itself may answer, when not a 2xx. */
  control?: number[];
}

export interface GraphQLRequest {
  /** A document that selects the field, every text argument of it bound to a variable. */
  query: string;
  variables: Record<string, unknown>;
  token?: string;
  /** Sent as a subscription over Server-Sent Events. */
  subscription?: boolean;
  /** The error codes the request itself may answer, when not a success. */
  control?: string[];
}

/** The `data` of a create's answer: the new object's id (a conversation names its own). */
interface Created {
  id: string;
  conversationId?: string;
  callRequestId?: string;
}

/** What the requests name: the demo data, and objects made through the API the first time one is asked for. */
export class Fixtures {
  private readonly made = new Map<string, Promise<unknown>>();
  constructor(
    private readonly t: TestApp,
    /** Where the endpoints the requests make deliver to (a receiver on 127.0.0.1). */
    readonly webhookUrl: () => string,
  ) {}

  get demo() {
    return this.t.demo;
  }
  get clinic() {
    return this.t.demo.organizations.clinic.id;
  }

  private once<T>(name: string, make: () => Promise<T>): Promise<T> {
    let made = this.made.get(name) as Promise<T> | undefined;
    if (!made) this.made.set(name, (made = make()));
    return made;
  }

  private async create(path: string, body: unknown, pick: (data: Created) => string = (d) => d.id): Promise<string> {
    const res = await this.t.rest('POST', path, { json: body });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return pick(res.body.data);
  }

  /** An erasure request of the clinic's (answered 202; pending: no queue runs in these tests). */
  erasureRequestId = () =>
    this.once('erasureRequest', async () => {
      const res = await this.t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: '+1 (202) 555-0143' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.data.erasureRequestId as string;
    });
  closureId = () => this.once('closure', () => this.create(`/v1/organizations/${this.clinic}/closures`, CLOSURE));
  specialHoursId = () => this.once('specialHours', () => this.create(`/v1/organizations/${this.clinic}/special-hours`, SPECIAL_HOURS));
  endpointId = () =>
    this.once('endpoint', () => this.create('/v1/webhook-endpoints', { url: this.webhookUrl(), eventTypes: ['webhook.test'] }));
  /** An endpoint of its own for each call (one replay of an endpoint runs at a time, and none runs in these tests). */
  freshEndpointId = () => this.create('/v1/webhook-endpoints', { url: this.webhookUrl(), eventTypes: ['webhook.test'] });
  /** A replay (answered 202; pending: no queue runs in these tests), on an endpoint of its own. */
  replay = () =>
    this.once('replay', async () => {
      const endpointId = await this.freshEndpointId();
      const res = await this.t.rest('POST', `/v1/webhook-endpoints/${endpointId}/replays`, { json: { from: '2020-01-01T00:00:00Z' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return { endpointId, replayId: res.body.data.id as string };
    });
  /** A delivery that failed (only a finished delivery may be retried). */
  deliveryId = () =>
    this.once('delivery', async () => {
      const id = await this.create(`/v1/webhook-endpoints/${await this.endpointId()}/test`, {});
      await this.t.deps.db.webhookDelivery.update({ where: { id }, data: { status: 'failed', attempts: 1, nextAttemptAt: null } });
      return id;
    });
  conversationId = () =>
    this.once('conversation', () =>
      this.create('/v1/conversations', { botId: this.demo.bots.clinic[0], medium: 'PHONE' }, (d) => d.conversationId!),
    );
  apiKeyId = () => this.once('apiKey', () => this.create('/v1/api-keys', { name: 'Fixture', scopes: ['closures:read'] }));
  oauthClientId = () => this.once('oauthClient', () => this.create('/v1/oauth-clients', { name: 'Fixture', scopes: ['closures:read'] }));
  eventId = () =>
    this.once('event', async () => {
      await this.closureId();
      const res = await this.t.rest('GET', '/v1/events?limit=1');
      expect(res.status).toBe(200);
      return res.body.data.events[0].id as string;
    });
  /** A call batch of two recipients, in progress. */
  callBatchId = () =>
    this.once('callBatch', async () => {
      const res = await this.t.rest('POST', '/v1/call-batches', {
        json: {
          botId: this.demo.bots.clinic[0],
          phoneNumberId: this.demo.phoneNumbers.clinic[0],
          recipients: [{ to: '+14155552671' }, { to: '+12025550143' }],
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.callBatchId as string;
    });
  /** A call request claimed by the clinic's key: its id and the lease. */
  lease = () =>
    this.once('lease', async () => {
      const callRequestId = await this.create(
        '/v1/call-requests',
        { botId: this.demo.bots.clinic[0], phoneNumberId: this.demo.phoneNumbers.clinic[0], to: '+15005550006' },
        (d) => d.callRequestId!,
      );
      const res = await this.t.rest('POST', '/v1/dispatch/claim', { json: { max: 1 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const claim = (res.body.data.claims as { leaseId: string; callRequest: { callRequestId: string } }[]).find(
        (c) => c.callRequest.callRequestId === callRequestId,
      )!;
      return { callRequestId, leaseId: claim.leaseId };
    });
}

const BREAK = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch; back at one.' };
const OPEN_DAY = { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00', breaks: [BREAK] };
const WEEK = [
  OPEN_DAY,
  ...['TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'].map((dayOfWeek) => ({ dayOfWeek, isClosed: true })),
];
const CLOSURE = {
  description: 'Holidays',
  chatGreeting: 'Closed for the holidays',
  phoneGreeting: 'We are closed',
  startAt: '2026-12-24T00:00:00Z',
  endAt: '2026-12-26T00:00:00Z',
};
const SPECIAL_HOURS = {
  date: '2026-12-31',
  description: "New Year's Eve",
  isClosed: false,
  open: '09:00',
  close: '14:00',
  breaks: [BREAK],
};
const STEP = {
  title: 'Identify the patient',
  description: 'Ask for name and date of birth.',
  instructions: 'Confirm the spelling of the last name.',
  order: 1,
  examples: ['May I have your full name?'],
  action: 'COLLECT_INFO',
  actionMetadata: { templateName: 'identify', templateBody: 'Name: {{name}}' },
};
const WORKFLOW = {
  title: 'Booking',
  description: 'Book a visit',
  enabled: true,
  usageContext: 'When the caller asks for a visit.',
  steps: [{ ...STEP, childSteps: [{ ...STEP, title: 'New patient' }] }],
};
const TEMPLATE = {
  name: 'Callback',
  description: 'Call the patient back',
  variables: [{ name: 'when', description: 'When to call', type: 'STRING' }],
  applicableMediums: ['PHONE'],
  officeHoursAvailability: 'OPEN',
  workflow: { ...WORKFLOW, order: 1 },
};
const CONVERSATION = {
  medium: 'PHONE',
  fromNumber: '+15005550006',
  toNumber: '+15005550007',
  startTime: '2026-03-02T14:00:00Z',
  tags: ['new-patient'],
};
const END_CONVERSATION = { status: 'CLOSED', summary: 'Booked a visit', topic: 'Booking', tags: ['booked'], duration: 60 };

/** Every /v1 operation, by its OpenAPI method and path. */
export const REST_REQUESTS: Record<string, (f: Fixtures) => RestRequest | Promise<RestRequest>> = {
  'GET /v1/templates': () => ({ query: { medium: 'PHONE', officeHoursAvailability: 'OPEN' } }),
  'GET /v1/templates/{templateId}': (f) => ({ params: { templateId: f.demo.templates.clinic[0]! } }),
  'DELETE /v1/templates/{templateId}': (f) => ({ params: { templateId: f.demo.templates.clinic[0]! } }),
  'POST /v1/templates': () => ({ body: TEMPLATE }),
  'PUT /v1/templates/{templateId}': (f) => ({ params: { templateId: f.demo.templates.clinic[0]! }, body: TEMPLATE }),
  'GET /v1/bots/{botId}/workflows': (f) => ({ params: { botId: f.demo.bots.clinic[0]! } }),
  'POST /v1/bots/{botId}/workflows/import': (f) => ({
    params: { botId: f.demo.bots.clinic[0]! },
    body: { workflows: [{ id: 'exported-1', ...WORKFLOW }] },
  }),
  'PUT /v1/bots/{botId}/workflows': (f) => ({
    params: { botId: f.demo.bots.clinic[0]! },
    body: { workflows: [{ id: 'exported-1', ...WORKFLOW }] },
  }),
  'GET /v1/organizations/{orgId}': (f) => ({ params: { orgId: f.clinic } }),
  'POST /v1/organizations/{orgId}/children': (f) => ({
    params: { orgId: f.demo.organizations.account.id },
    body: { name: 'Uptown', timezone: 'America/Chicago', officeHours: WEEK },
    token: f.demo.organizations.account.apiKey,
  }),
  'PATCH /v1/organizations/{orgId}': (f) => ({ params: { orgId: f.clinic }, body: { name: 'Main Street', timezone: 'America/Chicago' } }),
  'GET /v1/organizations/{orgId}/children': (f) => ({
    params: { orgId: f.demo.organizations.account.id },
    query: { limit: '10' },
    token: f.demo.organizations.account.apiKey,
  }),
  'POST /v1/organizations/{orgId}/disable': (f) => ({ params: { orgId: f.clinic }, body: {} }),
  'POST /v1/organizations/{orgId}/archive': (f) => ({ params: { orgId: f.clinic }, body: {}, token: f.demo.organizations.account.apiKey }),
  'POST /v1/organizations/{orgId}/unarchive': (f) => ({
    params: { orgId: f.clinic },
    body: {},
    token: f.demo.organizations.account.apiKey,
  }),
  'POST /v1/organizations/{orgId}/enable': (f) => ({ params: { orgId: f.clinic }, body: {} }),
  'GET /v1/organizations/{orgId}/phone-numbers': (f) => ({ params: { orgId: f.clinic } }),
  'POST /v1/organizations/{orgId}/bots': (f) => ({
    params: { orgId: f.clinic },
    body: { name: 'Recall caller', enabled: true, templateId: f.demo.templates.clinic[0] },
  }),
  'GET /v1/organizations/{orgId}/bots': (f) => ({
    params: { orgId: f.clinic },
    query: { enabled: 'true', templateId: f.demo.templates.clinic[0]! },
  }),
  'GET /v1/bots/{botId}': (f) => ({ params: { botId: f.demo.bots.clinic[0]! } }),
  'PATCH /v1/bots/{botId}': (f) => ({
    params: { botId: f.demo.bots.clinic[0]! },
    body: { name: 'Front desk', enabled: true, templateId: null },
  }),
  'DELETE /v1/bots/{botId}': (f) => ({ params: { botId: f.demo.bots.clinic[0]! }, query: { force: 'true' } }),
  'POST /v1/organizations/{orgId}/phone-numbers': (f) => ({
    params: { orgId: f.clinic },
    body: { number: '+14155552671', botId: f.demo.bots.clinic[0], ...PHONE_SETTINGS },
  }),
  'POST /v1/phone-numbers/{phoneNumberId}/detach': (f) => ({ params: { phoneNumberId: f.demo.phoneNumbers.clinic[0]! } }),
  // the billing line: no call uses it as caller id (the demo's calls use the main line)
  'DELETE /v1/phone-numbers/{phoneNumberId}': (f) => ({ params: { phoneNumberId: f.demo.phoneNumbers.clinic[1]! } }),
  'GET /v1/phone-numbers/{phoneNumberId}': (f) => ({ params: { phoneNumberId: f.demo.phoneNumbers.clinic[0]! } }),
  'PATCH /v1/phone-numbers/{phoneNumberId}': (f) => ({ params: { phoneNumberId: f.demo.phoneNumbers.clinic[0]! }, body: PHONE_SETTINGS }),
  'POST /v1/phone-numbers/{phoneNumberId}/attach': (f) => ({
    params: { phoneNumberId: f.demo.phoneNumbers.clinic[0]! },
    body: { botId: f.demo.bots.clinic[0] },
  }),
  'GET /v1/organizations/{orgId}/insurances': (f) => ({ params: { orgId: f.clinic }, query: { type: 'PPO', status: 'IN_NETWORK' } }),
  'POST /v1/organizations/{orgId}/insurances': (f) => ({
    params: { orgId: f.clinic },
    body: { name: 'Cigna', type: 'EPO', status: 'CONDITIONAL', notes: 'Referral needed' },
  }),
  'DELETE /v1/organizations/{orgId}/insurances/{insuranceId}': (f) => ({
    params: { orgId: f.clinic, insuranceId: f.demo.insurances.clinic[0]! },
  }),
  'PATCH /v1/organizations/{orgId}/insurances/{insuranceId}': (f) => ({
    params: { orgId: f.clinic, insuranceId: f.demo.insurances.clinic[0]! },
    body: { type: 'PPO', status: 'IN_NETWORK', notes: 'Verify the member id' },
  }),
  'POST /v1/call-requests': (f) => ({
    body: {
      botId: f.demo.bots.clinic[0],
      phoneNumberId: f.demo.phoneNumbers.clinic[0],
      to: '+15005550006',
      notBefore: hoursAfter(1),
      notAfter: hoursAfter(5),
      officeHoursOnly: false,
      metadata: { patientRef: 'A-1001' },
      consent: { basis: 'express_written', obtainedAt: hoursAfter(-24), source: 'Intake form' },
      retry: { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 3, intervalsMinutes: [10, 120, 1440] },
    },
  }),
  'GET /v1/call-requests': (f) => ({
    query: {
      limit: '10',
      orgId: f.clinic,
      status: 'queued',
      botId: f.demo.bots.clinic[0]!,
      createdFrom: '2026-01-01T00:00:00Z',
      createdTo: hoursAfter(1),
    },
  }),
  'GET /v1/call-requests/{callRequestId}': (f) => ({ params: { callRequestId: f.demo.callRequests.clinic.queued } }),
  'POST /v1/call-requests/{callRequestId}/cancel': (f) => ({
    params: { callRequestId: f.demo.callRequests.clinic.queued },
    body: {},
  }),
  'POST /v1/call-batches': (f) => ({
    body: {
      botId: f.demo.bots.clinic[0],
      phoneNumberId: f.demo.phoneNumbers.clinic[0],
      purpose: 'marketing',
      consent: { basis: 'express_written', obtainedAt: hoursAfter(-24), source: 'Intake form' },
      notBefore: hoursAfter(1),
      notAfter: hoursAfter(5),
      officeHoursOnly: false,
      retry: { on: ['busy', 'no_answer', 'voicemail'], maxAttempts: 3, intervalsMinutes: [10, 120, 1440] },
      metadata: { campaign: 'Spring recall' },
      recipients: [
        {
          to: '+15005550006',
          calleeTimezone: 'America/New_York',
          metadata: { patientRef: 'A-1001' },
          consent: { basis: 'express', obtainedAt: hoursAfter(-48), source: 'Phone call' },
          notBefore: hoursAfter(2),
        },
      ],
    },
  }),
  'GET /v1/call-batches': async (f) => {
    await f.callBatchId();
    return {
      query: { limit: '10', orgId: f.clinic, status: 'in_progress', createdFrom: '2026-01-01T00:00:00Z', createdTo: hoursAfter(1) },
    };
  },
  'GET /v1/call-batches/{callBatchId}': async (f) => ({ params: { callBatchId: await f.callBatchId() } }),
  'GET /v1/call-batches/{callBatchId}/call-requests': async (f) => ({
    params: { callBatchId: await f.callBatchId() },
    query: { limit: '10', status: 'queued' },
  }),
  'POST /v1/call-batches/{callBatchId}/cancel': async (f) => ({ params: { callBatchId: await f.callBatchId() }, body: {} }),
  'POST /v1/dispatch/claim': () => ({ body: { max: 1, leaseSeconds: 30 } }),
  'POST /v1/call-requests/{callRequestId}/heartbeat': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return { params: { callRequestId }, body: { leaseId, leaseSeconds: 30 } };
  },
  'POST /v1/call-requests/{callRequestId}/start': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return { params: { callRequestId }, body: { leaseId } };
  },
  'POST /v1/call-requests/{callRequestId}/complete': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    // completing a call that never started is refused by its state, not by its input
    return {
      params: { callRequestId },
      body: { leaseId, disposition: 'booked', notes: 'Booked the recall', data: { slot: hoursAfter(48) } },
      control: [409],
    };
  },
  'POST /v1/call-requests/{callRequestId}/fail': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return { params: { callRequestId }, body: { leaseId, error: { category: 'request', code: 'busy', message: 'The line was busy' } } };
  },
  'GET /v1/conversations': (f) => ({
    query: {
      offset: '0',
      limit: '10',
      orgId: f.clinic,
      botId: f.demo.bots.clinic[0]!,
      includeArchived: 'true',
      includeChildren: 'false',
      medium: 'PHONE',
      status: 'CLOSED',
      startedFrom: '2026-01-01T00:00:00Z',
      startedTo: NOW,
    },
  }),
  'POST /v1/conversations': (f) => ({ body: { orgId: f.clinic, botId: f.demo.bots.clinic[0], ...CONVERSATION } }),
  'GET /v1/conversations/{conversationId}': async (f) => ({ params: { conversationId: await f.conversationId() }, query: { limit: '10' } }),
  'POST /v1/conversations/{conversationId}/messages': async (f) => ({
    params: { conversationId: await f.conversationId() },
    body: { role: 'caller', text: 'Hello', at: NOW },
  }),
  'POST /v1/conversations/{conversationId}/end': async (f) => ({
    params: { conversationId: await f.conversationId() },
    body: END_CONVERSATION,
  }),
  'POST /v1/organizations/{orgId}/closures': (f) => ({ params: { orgId: f.clinic }, body: CLOSURE }),
  'GET /v1/organizations/{orgId}/closures': (f) => ({ params: { orgId: f.clinic } }),
  'GET /v1/organizations/{orgId}/closures/{closureId}': async (f) => ({ params: { orgId: f.clinic, closureId: await f.closureId() } }),
  'POST /v1/organizations/{orgId}/closures/{closureId}': async (f) => ({
    params: { orgId: f.clinic, closureId: await f.closureId() },
    body: CLOSURE,
  }),
  'DELETE /v1/organizations/{orgId}/closures/{closureId}': async (f) => ({ params: { orgId: f.clinic, closureId: await f.closureId() } }),
  'POST /v1/organizations/{orgId}/office-hours': (f) => ({ params: { orgId: f.clinic }, body: OPEN_DAY }),
  'GET /v1/organizations/{orgId}/calling-policy': (f) => ({ params: { orgId: f.clinic } }),
  'PUT /v1/organizations/{orgId}/calling-policy': (f) => ({ params: { orgId: f.clinic }, body: CALLING_POLICY }),
  'GET /v1/organizations/{orgId}/call-capacity': (f) => ({ params: { orgId: f.clinic } }),
  'GET /v1/organizations/{orgId}/retention': (f) => ({ params: { orgId: f.clinic } }),
  'PUT /v1/organizations/{orgId}/retention': (f) => ({ params: { orgId: f.clinic }, body: RETENTION }),
  'GET /v1/organizations/{orgId}/redaction': (f) => ({ params: { orgId: f.clinic } }),
  'PUT /v1/organizations/{orgId}/redaction': (f) => ({ params: { orgId: f.clinic }, body: { emails: true, keepOriginals: true } }),
  'POST /v1/suppressions': () => ({ body: { number: '+1 (202) 555-0143', reason: 'Asked by letter' } }),
  'POST /v1/suppressions/bulk': () => ({ body: { numbers: ['+12025550143', '+14155552671'], reason: 'Imported' } }),
  'GET /v1/suppressions': () => ({ query: { limit: '10', number: '+12025550143' } }),
  // nothing on the list yet: the valid removal answers 404, refused by the list, not by its input
  'DELETE /v1/suppressions/{number}': () => ({ params: { number: '+12025550143' }, control: [404] }),
  'GET /v1/organizations/{orgId}/office-hours': (f) => ({ params: { orgId: f.clinic }, query: { dayOfWeek: 'MONDAY' } }),
  'PUT /v1/organizations/{orgId}/office-hours': (f) => ({ params: { orgId: f.clinic }, body: { officeHours: WEEK } }),
  'POST /v1/organizations/{orgId}/special-hours': (f) => ({
    params: { orgId: f.clinic },
    body: { ...SPECIAL_HOURS, date: '2026-12-30' },
  }),
  'GET /v1/organizations/{orgId}/special-hours': (f) => ({ params: { orgId: f.clinic } }),
  'GET /v1/organizations/{orgId}/special-hours/{specialHoursId}': async (f) => ({
    params: { orgId: f.clinic, specialHoursId: await f.specialHoursId() },
  }),
  'POST /v1/organizations/{orgId}/special-hours/{specialHoursId}': async (f) => ({
    params: { orgId: f.clinic, specialHoursId: await f.specialHoursId() },
    body: SPECIAL_HOURS,
  }),
  'DELETE /v1/organizations/{orgId}/special-hours/{specialHoursId}': async (f) => ({
    params: { orgId: f.clinic, specialHoursId: await f.specialHoursId() },
  }),
  'GET /v1/organizations/{orgId}/availability': (f) => ({
    params: { orgId: f.clinic },
    query: { at: NOW, medium: 'PHONE', phoneNumberId: f.demo.phoneNumbers.clinic[0]! },
  }),
  'GET /v1/organizations/{orgId}/availability/timeline': (f) => ({
    params: { orgId: f.clinic },
    query: { from: NOW, to: hoursAfter(24), medium: 'PHONE', phoneNumberId: f.demo.phoneNumbers.clinic[0]! },
  }),
  'GET /v1/events': async (f) => ({
    query: {
      limit: '10',
      type: 'closure.*',
      orgId: f.clinic,
      subjectId: await f.closureId(),
      from: '2026-01-01T00:00:00Z',
      to: hoursAfter(1),
    },
  }),
  'GET /v1/events/{eventId}': async (f) => ({ params: { eventId: await f.eventId() } }),
  'GET /v1/access-log': async (f) => ({
    query: {
      limit: '10',
      orgId: f.clinic,
      conversationId: await f.conversationId(),
      credentialId: 'c0ffee00-0000-4000-8000-000000000000',
      from: '2026-01-01T00:00:00Z',
      to: hoursAfter(1),
    },
  }),
  // one identifier at a time: the phone number (the ids are checked by the tenant matrix)
  'POST /v1/erasure-requests': () => ({ body: { phoneNumber: '+1 (202) 555-0143' } }),
  'GET /v1/erasure-requests/{erasureRequestId}': async (f) => ({ params: { erasureRequestId: await f.erasureRequestId() } }),
  'GET /v1/access-log/export': (f) => ({ query: { orgId: f.clinic, from: '2026-01-01T00:00:00Z', to: hoursAfter(1) } }),
  'GET /v1/access-log/verify': (f) => ({ query: { orgId: f.clinic, from: '2026-01-01T00:00:00Z', to: hoursAfter(1) } }),
  'POST /v1/webhook-endpoints': (f) => ({
    body: { url: `${f.webhookUrl()}/new`, description: 'Front desk', eventTypes: ['closure.*'], enabled: true },
  }),
  'GET /v1/webhook-endpoints': () => ({}),
  'GET /v1/webhook-endpoints/{endpointId}': async (f) => ({ params: { endpointId: await f.endpointId() } }),
  'PATCH /v1/webhook-endpoints/{endpointId}': async (f) => ({
    params: { endpointId: await f.endpointId() },
    body: { url: `${f.webhookUrl()}/moved`, description: 'Front desk', eventTypes: ['closure.*'], enabled: true },
  }),
  'DELETE /v1/webhook-endpoints/{endpointId}': async (f) => ({ params: { endpointId: await f.endpointId() } }),
  'POST /v1/webhook-endpoints/{endpointId}/rotate-secret': async (f) => ({ params: { endpointId: await f.endpointId() }, body: {} }),
  'POST /v1/webhook-endpoints/{endpointId}/test': async (f) => ({ params: { endpointId: await f.endpointId() }, body: {} }),
  'GET /v1/webhook-endpoints/{endpointId}/deliveries': async (f) => ({
    params: { endpointId: await f.endpointId() },
    query: { limit: '10', status: 'failed', eventType: 'webhook.test,closure.*', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' },
  }),
  'GET /v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}': async (f) => ({
    params: { endpointId: await f.endpointId(), deliveryId: await f.deliveryId() },
  }),
  'POST /v1/webhook-endpoints/{endpointId}/replays': async (f) => ({
    params: { endpointId: await f.freshEndpointId() },
    body: { from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' },
  }),
  'GET /v1/webhook-endpoints/{endpointId}/replays/{replayId}': async (f) => {
    const { endpointId, replayId } = await f.replay();
    return { params: { endpointId, replayId } };
  },
  'POST /v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': async (f) => ({
    params: { endpointId: await f.endpointId(), deliveryId: await f.deliveryId() },
    body: {},
  }),
  'POST /v1/api-keys': (f) => ({
    body: { name: 'Reporting', scopes: ['closures:read'], expiresAt: hoursAfter(24 * 30), orgId: f.clinic },
  }),
  'GET /v1/api-keys': (f) => ({ query: { orgId: f.clinic } }),
  'POST /v1/api-keys/{keyId}/roll': async (f) => ({ params: { keyId: await f.apiKeyId() }, body: { expiresAt: hoursAfter(1) } }),
  'POST /v1/api-keys/{keyId}/revoke': async (f) => ({ params: { keyId: await f.apiKeyId() }, body: {} }),
  'POST /v1/oauth-clients': (f) => ({ body: { name: 'Reporting', scopes: ['closures:read'], orgId: f.clinic } }),
  'GET /v1/oauth-clients': (f) => ({ query: { orgId: f.clinic } }),
  'POST /v1/oauth-clients/{id}/rotate-secret': async (f) => ({
    params: { id: await f.oauthClientId() },
    body: { expiresAt: hoursAfter(1) },
  }),
  'PUT /v1/oauth-clients/{id}/scopes': async (f) => ({
    params: { id: await f.oauthClientId() },
    body: { scopes: ['closures:read', 'closures:write'] },
  }),
  'POST /v1/oauth-clients/{id}/revoke': async (f) => ({ params: { id: await f.oauthClientId() }, body: {} }),
};

const GRAPHQL_TEMPLATE = { ...TEMPLATE };
/** A GraphQL document of one field: `args` as written (variables bound), `selection` of its type. */
const mutation = (vars: string, call: string, selection = '{ __typename }') => `mutation(${vars}) { ${call} ${selection} }`;
const query = (vars: string, call: string, selection = '{ __typename }') => `query(${vars}) { ${call} ${selection} }`;

/** Every field that takes text arguments (String, ID or JSON, at any depth), by its schema coordinate. */
export const GRAPHQL_REQUESTS: Record<string, (f: Fixtures) => GraphQLRequest | Promise<GraphQLRequest>> = {
  'Mutation.addConversationMessage': async (f) => ({
    query: mutation('$id: ID!, $text: String!, $at: String', 'addConversationMessage(id: $id, role: caller, text: $text, at: $at)'),
    variables: { id: await f.conversationId(), text: 'Hello', at: NOW },
  }),
  'Mutation.registerPhoneNumber': (f) => ({
    query: mutation('$orgId: ID!, $input: RegisterPhoneNumberInput!', 'registerPhoneNumber(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { number: '+14155552671', botId: f.demo.bots.clinic[0], ...PHONE_SETTINGS } },
  }),
  'Mutation.createBot': (f) => ({
    query: mutation('$orgId: ID!, $input: CreateBotInput!', 'createBot(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { name: 'Recall caller', enabled: true, templateId: f.demo.templates.clinic[0] } },
  }),
  'Mutation.updateBot': (f) => ({
    query: mutation('$botId: ID!, $input: UpdateBotInput!', 'updateBot(botId: $botId, input: $input)'),
    variables: { botId: f.demo.bots.clinic[0], input: { name: 'Front desk', enabled: true } },
  }),
  'Mutation.deleteBot': (f) => ({
    query: mutation('$botId: ID!', 'deleteBot(botId: $botId, force: true)', '{ id }'),
    variables: { botId: f.demo.bots.clinic[0] },
  }),
  'Mutation.importWorkflows': (f) => ({
    query: mutation(
      '$botId: ID!, $workflows: [BotWorkflowInput!]!',
      'importWorkflows(botId: $botId, workflows: $workflows)',
      '{ version }',
    ),
    variables: { botId: f.demo.bots.clinic[0], workflows: [{ id: 'exported-1', ...WORKFLOW }] },
  }),
  'Mutation.replaceBotWorkflows': (f) => ({
    query: mutation(
      '$botId: ID!, $workflows: [BotWorkflowInput!]!',
      'replaceBotWorkflows(botId: $botId, workflows: $workflows)',
      '{ version changed }',
    ),
    variables: { botId: f.demo.bots.clinic[0], workflows: [{ id: 'exported-1', ...WORKFLOW }] },
  }),
  'Organization.bots': (f) => ({
    query: query('$id: ID!, $template: ID', 'organization(id: $id)', '{ bots(enabled: true, templateId: $template) { id } }'),
    variables: { id: f.clinic, template: f.demo.templates.clinic[0] },
  }),
  'Mutation.detachPhoneNumber': (f) => ({
    query: mutation('$phoneNumberId: ID!', 'detachPhoneNumber(phoneNumberId: $phoneNumberId)'),
    variables: { phoneNumberId: f.demo.phoneNumbers.clinic[0] },
  }),
  'Mutation.deletePhoneNumber': (f) => ({
    query: mutation('$phoneNumberId: ID!', 'deletePhoneNumber(phoneNumberId: $phoneNumberId)', ''),
    variables: { phoneNumberId: f.demo.phoneNumbers.clinic[1] },
  }),
  'Mutation.updatePhoneNumber': (f) => ({
    query: mutation(
      '$phoneNumberId: ID!, $input: UpdatePhoneNumberInput!',
      'updatePhoneNumber(phoneNumberId: $phoneNumberId, input: $input)',
    ),
    variables: { phoneNumberId: f.demo.phoneNumbers.clinic[0], input: PHONE_SETTINGS },
  }),
  'Mutation.attachPhoneNumber': (f) => ({
    query: mutation('$botId: ID!, $phoneNumberId: ID!', 'attachPhoneNumber(botId: $botId, phoneNumberId: $phoneNumberId)'),
    variables: { botId: f.demo.bots.clinic[0], phoneNumberId: f.demo.phoneNumbers.clinic[0] },
  }),
  'Mutation.cancelCallRequest': (f) => ({
    query: mutation('$id: ID!', 'cancelCallRequest(id: $id)'),
    variables: { id: f.demo.callRequests.clinic.queued },
  }),
  'Mutation.completeCallRequest': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return {
      query: mutation(
        '$id: ID!, $leaseId: ID!, $notes: String, $data: JSON, $callbackAt: String',
        'completeCallRequest(id: $id, leaseId: $leaseId, disposition: callback_requested, notes: $notes, data: $data, callbackAt: $callbackAt)',
      ),
      variables: { id: callRequestId, leaseId, notes: 'Call back after two', data: { reason: 'at work' }, callbackAt: hoursAfter(2) },
      control: ['CONFLICT'],
    };
  },
  'Mutation.createApiKey': (f) => ({
    query: mutation('$input: CreateApiKeyInput!', 'createApiKey(input: $input)'),
    variables: { input: { name: 'Reporting', scopes: ['closures:read'], expiresAt: hoursAfter(24), orgId: f.clinic } },
  }),
  'Mutation.createCallRequest': (f) => ({
    query: mutation('$input: CreateCallRequestInput!', 'createCallRequest(input: $input)'),
    variables: {
      input: {
        botId: f.demo.bots.clinic[0],
        phoneNumberId: f.demo.phoneNumbers.clinic[0],
        to: '+15005550006',
        notBefore: hoursAfter(1),
        notAfter: hoursAfter(5),
        metadata: [{ key: 'patientRef', value: 'A-1001' }],
        consent: { basis: 'express_written', obtainedAt: hoursAfter(-24), source: 'Intake form' },
      },
    },
  }),
  'Mutation.setCallingPolicy': (f) => ({
    query: mutation('$orgId: ID!, $input: CallingPolicyInput!', 'setCallingPolicy(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: CALLING_POLICY },
  }),
  'Mutation.setRetention': (f) => ({
    query: mutation('$orgId: ID!, $input: RetentionInput!', 'setRetention(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: RETENTION },
  }),
  'Mutation.setRedactionPolicy': (f) => ({
    query: mutation('$orgId: ID!, $input: RedactionPolicyInput!', 'setRedactionPolicy(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { emails: true, keepOriginals: true } },
  }),
  'Mutation.createClosure': (f) => ({
    query: mutation('$orgId: ID!, $input: CreateClosureInput!', 'createClosure(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: CLOSURE },
  }),
  'Mutation.createConversation': (f) => ({
    query: mutation('$input: CreateConversationInput!', 'createConversation(input: $input)'),
    variables: { input: { orgId: f.clinic, botId: f.demo.bots.clinic[0], ...CONVERSATION } },
  }),
  'Mutation.createOAuthClient': (f) => ({
    query: mutation('$input: CreateOAuthClientInput!', 'createOAuthClient(input: $input)'),
    variables: { input: { name: 'Reporting', scopes: ['closures:read'], orgId: f.clinic } },
  }),
  'Mutation.createSpecialHours': (f) => ({
    query: mutation('$orgId: ID!, $input: SpecialHoursInput!', 'createSpecialHours(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { ...SPECIAL_HOURS, date: '2026-12-30' } },
  }),
  'Mutation.createTemplate': () => ({
    query: mutation('$input: TemplateInput!', 'createTemplate(input: $input)'),
    variables: { input: GRAPHQL_TEMPLATE },
  }),
  'Mutation.createWebhookEndpoint': (f) => ({
    query: mutation('$input: CreateWebhookEndpointInput!', 'createWebhookEndpoint(input: $input)'),
    variables: { input: { url: `${f.webhookUrl()}/new`, description: 'Front desk', eventTypes: ['closure.*'], enabled: true } },
  }),
  'Mutation.deleteClosure': async (f) => ({
    query: mutation('$orgId: ID!, $closureId: ID!', 'deleteClosure(orgId: $orgId, closureId: $closureId)', ''),
    variables: { orgId: f.clinic, closureId: await f.closureId() },
  }),
  'Mutation.deleteTemplate': (f) => ({
    query: mutation('$id: ID!', 'deleteTemplate(id: $id)', ''),
    variables: { id: f.demo.templates.clinic[0] },
  }),
  'Mutation.deleteInsurance': (f) => ({
    query: mutation('$orgId: ID!, $insuranceId: ID!', 'deleteInsurance(orgId: $orgId, insuranceId: $insuranceId)', ''),
    variables: { orgId: f.clinic, insuranceId: f.demo.insurances.clinic[0] },
  }),
  'Mutation.deleteSpecialHours': async (f) => ({
    query: mutation('$orgId: ID!, $specialHoursId: ID!', 'deleteSpecialHours(orgId: $orgId, specialHoursId: $specialHoursId)', ''),
    variables: { orgId: f.clinic, specialHoursId: await f.specialHoursId() },
  }),
  'Mutation.deleteWebhookEndpoint': async (f) => ({
    query: mutation('$id: ID!', 'deleteWebhookEndpoint(id: $id)', ''),
    variables: { id: await f.endpointId() },
  }),
  'Mutation.createLocation': (f) => ({
    query: mutation('$accountId: ID!, $input: CreateLocationInput!', 'createLocation(accountId: $accountId, input: $input)'),
    variables: { accountId: f.demo.organizations.account.id, input: { name: 'Uptown', timezone: 'America/Chicago', officeHours: WEEK } },
    token: f.demo.organizations.account.apiKey,
  }),
  'Mutation.updateOrganization': (f) => ({
    query: mutation('$orgId: ID!, $input: UpdateOrganizationInput!', 'updateOrganization(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { name: 'Main Street', timezone: 'America/Chicago' } },
  }),
  'Mutation.archiveOrganization': (f) => ({
    query: mutation('$orgId: ID!', 'archiveOrganization(orgId: $orgId)'),
    variables: { orgId: f.clinic },
    token: f.demo.organizations.account.apiKey,
  }),
  'Mutation.unarchiveOrganization': (f) => ({
    query: mutation('$orgId: ID!', 'unarchiveOrganization(orgId: $orgId)'),
    variables: { orgId: f.clinic },
    token: f.demo.organizations.account.apiKey,
  }),
  'Mutation.disableOrganization': (f) => ({
    query: mutation('$orgId: ID!', 'disableOrganization(orgId: $orgId)'),
    variables: { orgId: f.clinic },
  }),
  'Mutation.enableOrganization': (f) => ({
    query: mutation('$orgId: ID!', 'enableOrganization(orgId: $orgId)'),
    variables: { orgId: f.clinic },
  }),
  'Mutation.endConversation': async (f) => ({
    query: mutation('$id: ID!, $input: EndConversationInput!', 'endConversation(id: $id, input: $input)'),
    variables: { id: await f.conversationId(), input: { summary: 'Booked a visit', topic: 'Booking', tags: ['booked'], duration: 60 } },
  }),
  'Mutation.failCallRequest': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return {
      query: mutation('$id: ID!, $leaseId: ID!, $error: CallFailureInput!', 'failCallRequest(id: $id, leaseId: $leaseId, error: $error)'),
      variables: { id: callRequestId, leaseId, error: { category: 'request', code: 'busy', message: 'The line was busy' } },
    };
  },
  'Mutation.heartbeatCallRequest': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return {
      query: mutation('$id: ID!, $leaseId: ID!', 'heartbeatCallRequest(id: $id, leaseId: $leaseId, leaseSeconds: 30)'),
      variables: { id: callRequestId, leaseId },
    };
  },
  'Mutation.replayWebhookDeliveries': async (f) => ({
    query: mutation(
      '$endpointId: ID!, $from: String!, $to: String',
      'replayWebhookDeliveries(endpointId: $endpointId, from: $from, to: $to)',
    ),
    variables: { endpointId: await f.freshEndpointId(), from: '2020-01-01T00:00:00Z', to: hoursAfter(1) },
  }),
  'Mutation.retryWebhookDelivery': async (f) => ({
    query: mutation('$endpointId: ID!, $deliveryId: ID!', 'retryWebhookDelivery(endpointId: $endpointId, deliveryId: $deliveryId)'),
    variables: { endpointId: await f.endpointId(), deliveryId: await f.deliveryId() },
  }),
  'Mutation.revokeApiKey': async (f) => ({ query: mutation('$id: ID!', 'revokeApiKey(id: $id)'), variables: { id: await f.apiKeyId() } }),
  'Mutation.revokeOAuthClient': async (f) => ({
    query: mutation('$id: ID!', 'revokeOAuthClient(id: $id)'),
    variables: { id: await f.oauthClientId() },
  }),
  'Mutation.rollApiKey': async (f) => ({
    query: mutation('$id: ID!, $expiresAt: String', 'rollApiKey(id: $id, expiresAt: $expiresAt)'),
    variables: { id: await f.apiKeyId(), expiresAt: hoursAfter(1) },
  }),
  'Mutation.rotateOAuthClientSecret': async (f) => ({
    query: mutation('$id: ID!, $expiresAt: String', 'rotateOAuthClientSecret(id: $id, expiresAt: $expiresAt)'),
    variables: { id: await f.oauthClientId(), expiresAt: hoursAfter(1) },
  }),
  'Mutation.rotateWebhookSecret': async (f) => ({
    query: mutation('$id: ID!', 'rotateWebhookSecret(id: $id)'),
    variables: { id: await f.endpointId() },
  }),
  'Mutation.setOAuthClientScopes': async (f) => ({
    query: mutation('$id: ID!, $scopes: [String!]!', 'setOAuthClientScopes(id: $id, scopes: $scopes)'),
    variables: { id: await f.oauthClientId(), scopes: ['closures:read', 'closures:write'] },
  }),
  'Mutation.setOfficeHours': (f) => ({
    query: mutation('$orgId: ID!, $input: SetOfficeHoursInput!', 'setOfficeHours(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: OPEN_DAY },
  }),
  'Mutation.setWeeklyHours': (f) => ({
    query: mutation('$orgId: ID!, $input: SetWeeklyHoursInput!', 'setWeeklyHours(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { officeHours: WEEK } },
  }),
  'Mutation.startCallRequest': async (f) => {
    const { callRequestId, leaseId } = await f.lease();
    return {
      query: mutation('$id: ID!, $leaseId: ID!', 'startCallRequest(id: $id, leaseId: $leaseId)'),
      variables: { id: callRequestId, leaseId },
    };
  },
  'Mutation.testWebhookEndpoint': async (f) => ({
    query: mutation('$id: ID!', 'testWebhookEndpoint(id: $id)'),
    variables: { id: await f.endpointId() },
  }),
  'Mutation.updateClosure': async (f) => ({
    query: mutation(
      '$orgId: ID!, $closureId: ID!, $input: UpdateClosureInput!',
      'updateClosure(orgId: $orgId, closureId: $closureId, input: $input)',
    ),
    variables: { orgId: f.clinic, closureId: await f.closureId(), input: CLOSURE },
  }),
  'Mutation.createInsurance': (f) => ({
    query: mutation('$orgId: ID!, $input: CreateInsuranceInput!', 'createInsurance(orgId: $orgId, input: $input)'),
    variables: { orgId: f.clinic, input: { name: 'Cigna', type: 'EPO', status: 'CONDITIONAL', notes: 'Referral needed' } },
  }),
  'Mutation.updateInsurance': (f) => ({
    query: mutation(
      '$orgId: ID!, $insuranceId: ID!, $input: UpdateInsuranceInput!',
      'updateInsurance(orgId: $orgId, insuranceId: $insuranceId, input: $input)',
    ),
    variables: {
      orgId: f.clinic,
      insuranceId: f.demo.insurances.clinic[0],
      input: { type: 'PPO', status: 'IN_NETWORK', notes: 'Verify the member id' },
    },
  }),
  'Mutation.updateSpecialHours': async (f) => ({
    query: mutation(
      '$orgId: ID!, $specialHoursId: ID!, $input: SpecialHoursInput!',
      'updateSpecialHours(orgId: $orgId, specialHoursId: $specialHoursId, input: $input)',
    ),
    variables: { orgId: f.clinic, specialHoursId: await f.specialHoursId(), input: SPECIAL_HOURS },
  }),
  'Mutation.updateTemplate': (f) => ({
    query: mutation('$id: ID!, $input: TemplateInput!', 'updateTemplate(id: $id, input: $input)'),
    variables: { id: f.demo.templates.clinic[0], input: GRAPHQL_TEMPLATE },
  }),
  'Mutation.updateWebhookEndpoint': async (f) => ({
    query: mutation('$id: ID!, $input: UpdateWebhookEndpointInput!', 'updateWebhookEndpoint(id: $id, input: $input)'),
    variables: {
      id: await f.endpointId(),
      input: { url: `${f.webhookUrl()}/moved`, description: 'Front desk', eventTypes: ['closure.*'], enabled: true },
    },
  }),
  'Organization.availability': (f) => ({
    query: query(
      '$id: ID!, $phone: ID',
      'organization(id: $id)',
      '{ availability(at: "2026-03-02T15:00:00Z", medium: PHONE, phoneNumberId: $phone) { state } }',
    ),
    variables: { id: f.clinic, phone: f.demo.phoneNumbers.clinic[0] },
  }),
  'Organization.availabilityTimeline': (f) => ({
    query: query(
      '$id: ID!, $phone: ID',
      'organization(id: $id)',
      '{ availabilityTimeline(from: "2026-03-02T15:00:00Z", to: "2026-03-03T15:00:00Z", medium: PHONE, phoneNumberId: $phone) { timezone } }',
    ),
    variables: { id: f.clinic, phone: f.demo.phoneNumbers.clinic[0] },
  }),
  'Organization.childrenConnection': (f) => ({
    query: query('$id: ID!, $after: String', 'organization(id: $id)', '{ childrenConnection(first: 10, after: $after) { totalCount } }'),
    variables: { id: f.demo.organizations.account.id },
    token: f.demo.organizations.account.apiKey,
  }),
  'Query.apiKeys': (f) => ({ query: query('$orgId: ID', 'apiKeys(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.callingPolicy': (f) => ({ query: query('$orgId: ID!', 'callingPolicy(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.retention': (f) => ({ query: query('$orgId: ID!', 'retention(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.redactionPolicy': (f) => ({ query: query('$orgId: ID!', 'redactionPolicy(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.suppressions': () => ({
    query: query('$after: String, $number: String', 'suppressions(first: 10, after: $after, number: $number)', '{ nextCursor }'),
    variables: { number: '+12025550143' },
  }),
  'Mutation.addSuppression': () => ({
    query: mutation('$number: String!, $reason: String', 'addSuppression(number: $number, reason: $reason)'),
    variables: { number: '+1 (202) 555-0143', reason: 'Asked by letter' },
  }),
  'Mutation.addSuppressions': () => ({
    query: mutation('$numbers: [String!]!, $reason: String', 'addSuppressions(numbers: $numbers, reason: $reason)'),
    variables: { numbers: ['+12025550143', '+14155552671'], reason: 'Imported' },
  }),
  'Mutation.removeSuppression': () => ({
    query: mutation('$number: String!', 'removeSuppression(number: $number)'),
    variables: { number: '+12025550143' },
    control: ['NOT_FOUND'],
  }),
  'Mutation.createCallBatch': (f) => ({
    query: mutation('$input: CreateCallBatchInput!', 'createCallBatch(input: $input)'),
    variables: {
      input: {
        botId: f.demo.bots.clinic[0],
        phoneNumberId: f.demo.phoneNumbers.clinic[0],
        consent: { basis: 'express_written', obtainedAt: hoursAfter(-24), source: 'Intake form' },
        notBefore: hoursAfter(1),
        notAfter: hoursAfter(5),
        metadata: [{ key: 'campaign', value: 'Spring recall' }],
        recipients: [
          {
            to: '+15005550006',
            calleeTimezone: 'America/New_York',
            metadata: [{ key: 'patientRef', value: 'A-1001' }],
            consent: { basis: 'express', obtainedAt: hoursAfter(-48), source: 'Phone call' },
            notBefore: hoursAfter(2),
          },
        ],
      },
    },
  }),
  'Mutation.cancelCallBatch': async (f) => ({
    query: mutation('$id: ID!', 'cancelCallBatch(id: $id)', '{ canceledAt }'),
    variables: { id: await f.callBatchId() },
  }),
  'Query.callBatches': async (f) => {
    await f.callBatchId();
    return {
      query: query(
        '$after: String, $orgId: ID, $createdFrom: String, $createdTo: String',
        'callBatches(first: 10, after: $after, orgId: $orgId, status: in_progress, createdFrom: $createdFrom, createdTo: $createdTo)',
        '{ items { id } nextCursor }',
      ),
      variables: { orgId: f.clinic, createdFrom: '2026-01-01T00:00:00Z', createdTo: hoursAfter(1) },
    };
  },
  'Query.callBatch': async (f) => ({ query: query('$id: ID!', 'callBatch(id: $id)', '{ id }'), variables: { id: await f.callBatchId() } }),
  'CallBatch.callRequests': async (f) => ({
    query: query(
      '$id: ID!, $after: String',
      'callBatch(id: $id)',
      '{ callRequests(first: 10, after: $after, status: queued) { nextCursor } }',
    ),
    variables: { id: await f.callBatchId() },
  }),
  'Query.callCapacity': (f) => ({ query: query('$orgId: ID!', 'callCapacity(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.phoneNumber': (f) => ({ query: query('$id: ID!', 'phoneNumber(id: $id)'), variables: { id: f.demo.phoneNumbers.clinic[0] } }),
  'Query.template': (f) => ({ query: query('$id: ID!', 'template(id: $id)'), variables: { id: f.demo.templates.clinic[0] } }),
  'Query.node': (f) => ({ query: query('$id: ID!', 'node(id: $id)'), variables: { id: f.demo.bots.clinic[0] } }),
  'Query.nodes': (f) => ({
    query: query('$ids: [ID!]!', 'nodes(ids: $ids)'),
    variables: { ids: [f.demo.bots.clinic[0], f.demo.phoneNumbers.clinic[0]] },
  }),
  'Query.bot': (f) => ({ query: query('$id: ID!', 'bot(id: $id)'), variables: { id: f.demo.bots.clinic[0] } }),
  'Query.callRequest': (f) => ({
    query: query('$id: ID!', 'callRequest(id: $id)'),
    variables: { id: f.demo.callRequests.clinic.queued },
  }),
  'Query.callRequests': async (f) => ({
    query: query(
      '$after: String, $botId: ID, $batchId: ID, $createdFrom: String, $createdTo: String, $orgId: ID',
      'callRequests(first: 10, after: $after, botId: $botId, batchId: $batchId, createdFrom: $createdFrom, createdTo: $createdTo, orgId: $orgId, status: queued)',
    ),
    variables: {
      botId: f.demo.bots.clinic[0],
      batchId: await f.callBatchId(),
      createdFrom: '2026-01-01T00:00:00Z',
      createdTo: hoursAfter(1),
      orgId: f.clinic,
    },
  }),
  'Query.conversation': async (f) => ({
    query: query('$id: ID!, $after: String', 'conversation(id: $id, first: 10, after: $after)'),
    variables: { id: await f.conversationId() },
  }),
  'Query.conversations': (f) => ({
    query: query(
      '$botId: ID, $orgId: ID, $startedFrom: String, $startedTo: String',
      'conversations(botId: $botId, orgId: $orgId, startedFrom: $startedFrom, startedTo: $startedTo, includeArchived: true, limit: 10, offset: 0)',
    ),
    variables: { botId: f.demo.bots.clinic[0], orgId: f.clinic, startedFrom: '2026-01-01T00:00:00Z', startedTo: NOW },
  }),
  'Query.conversationsConnection': (f) => ({
    query: query(
      '$after: String, $botId: ID, $orgId: ID, $startedFrom: String, $startedTo: String',
      'conversationsConnection(first: 10, after: $after, botId: $botId, orgId: $orgId, startedFrom: $startedFrom, startedTo: $startedTo)',
    ),
    variables: { botId: f.demo.bots.clinic[0], orgId: f.clinic, startedFrom: '2026-01-01T00:00:00Z', startedTo: NOW },
  }),
  'Query.accessLog': async (f) => ({
    query: query(
      '$after: String, $orgId: ID, $conversationId: ID, $credentialId: ID',
      'accessLog(first: 10, after: $after, orgId: $orgId, conversationId: $conversationId, credentialId: $credentialId)',
    ),
    variables: { orgId: f.clinic, conversationId: await f.conversationId(), credentialId: 'c0ffee00-0000-4000-8000-000000000000' },
  }),
  'Query.erasureRequest': async (f) => ({
    query: query('$id: ID!', 'erasureRequest(id: $id)'),
    variables: { id: await f.erasureRequestId() },
  }),
  'Mutation.createErasureRequest': () => ({
    // one identifier at a time: the others are bound, and null
    query: mutation(
      '$phoneNumber: String, $conversationId: ID, $callRequestId: ID',
      'createErasureRequest(phoneNumber: $phoneNumber, conversationId: $conversationId, callRequestId: $callRequestId)',
    ),
    variables: { phoneNumber: '+1 (202) 555-0143', conversationId: null, callRequestId: null },
  }),
  'Query.accessLogVerification': (f) => ({
    query: query('$orgId: ID', 'accessLogVerification(orgId: $orgId)'),
    variables: { orgId: f.clinic },
  }),
  'Query.event': async (f) => ({ query: query('$id: ID!', 'event(id: $id)'), variables: { id: await f.eventId() } }),
  'Query.events': async (f) => ({
    query: query('$after: String, $filter: EventFilter', 'events(first: 10, after: $after, filter: $filter)'),
    variables: {
      filter: { type: ['closure.*'], orgId: f.clinic, subjectId: await f.closureId(), from: '2026-01-01T00:00:00Z', to: hoursAfter(1) },
    },
  }),
  'Query.oauthClients': (f) => ({ query: query('$orgId: ID', 'oauthClients(orgId: $orgId)'), variables: { orgId: f.clinic } }),
  'Query.organization': (f) => ({ query: query('$id: ID!', 'organization(id: $id)'), variables: { id: f.clinic } }),
  'Query.webhookDeliveries': async (f) => ({
    query: query('$endpointId: ID!', 'webhookDeliveries(endpointId: $endpointId)'),
    variables: { endpointId: await f.endpointId() },
  }),
  'Query.webhookDeliveryPage': async (f) => ({
    query: query(
      '$endpointId: ID!, $after: String, $eventType: String, $from: String, $to: String',
      'webhookDeliveryPage(endpointId: $endpointId, first: 10, after: $after, status: failed, eventType: $eventType, from: $from, to: $to)',
      '{ items { id } nextCursor }',
    ),
    variables: { endpointId: await f.endpointId(), eventType: 'webhook.test,closure.*', from: '2020-01-01T00:00:00Z', to: hoursAfter(1) },
  }),
  'Query.webhookDelivery': async (f) => ({
    query: query('$endpointId: ID!, $id: ID!', 'webhookDelivery(endpointId: $endpointId, id: $id)'),
    variables: { endpointId: await f.endpointId(), id: await f.deliveryId() },
  }),
  'Query.webhookReplay': async (f) => {
    const { endpointId, replayId } = await f.replay();
    return {
      query: query('$endpointId: ID!, $id: ID!', 'webhookReplay(endpointId: $endpointId, id: $id)'),
      variables: { endpointId, id: replayId },
    };
  },
  'Query.webhookEndpoint': async (f) => ({ query: query('$id: ID!', 'webhookEndpoint(id: $id)'), variables: { id: await f.endpointId() } }),
  'Subscription.callRequestChanged': (f) => ({
    query: 'subscription($orgId: ID!) { callRequestChanged(orgId: $orgId) { type } }',
    variables: { orgId: f.clinic },
    subscription: true,
  }),
  'Subscription.availabilityChanged': (f) => ({
    query: 'subscription($orgId: ID!, $phone: ID) { availabilityChanged(orgId: $orgId, medium: PHONE, phoneNumberId: $phone) { state } }',
    variables: { orgId: f.clinic, phone: f.demo.phoneNumbers.clinic[0] },
    subscription: true,
  }),
};
