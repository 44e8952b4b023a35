// The event log (domain/events/log.ts): every write of both surfaces appends exactly one event, in its own
// transaction, with the right type, subject and actor. The tables below are checked against the route
// registry and the schema's Mutation fields, so a new write without an entry (and an event) fails here.
// Every change a write publishes on its instance is one its event stands for: other instances hear of
// changes only from the log (changes/eventTail.ts), so a change without its event would never reach them.
import { describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { allRoutes } from '../../src/rest/routes/index.js';
import { schema } from '../../src/graphql/schema/index.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { createApiKey, createOAuthClient } from '../../src/auth/provisioning.js';
import { hashSecret } from '../../src/crypto/secrets.js';
import { changesOfEvent } from '../../src/changes/eventTail.js';
import { deliveryRow } from '../support/webhooks.js';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

const t = useTestApp();

interface Write {
  /** Performs one write that changes something; answers the status (REST) or errors (GraphQL) to check. */
  run(t: TestApp, token: string): Promise<void>;
  type: string;
  /** The organization and subject the event is about. */
  orgId(t: TestApp): string | Promise<string>;
  subjectId(t: TestApp): string | Promise<string>;
  /** GraphQL: act with the clinic's API key instead of its OAuth client (credentials:write needs every scope). */
  withApiKey?: boolean;
  /** Act with the account's API key (a write only an account may make: a new location). */
  asAccount?: boolean;
}

const closureBody = {
  description: 'Training',
  startAt: '2026-03-10T13:00:00Z',
  endAt: '2026-03-10T17:00:00Z',
  chatGreeting: null,
  phoneGreeting: null,
};
const clinic = (t: TestApp) => t.demo.organizations.clinic.id;

async function restOk(t: TestApp, token: string, method: string, path: string, json?: unknown) {
  const res = await t.rest(method, path, { token, ...(json === undefined ? {} : { json }) });
  // 202: accepted for a durable job (a replay)
  expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
  return res.body.data;
}

async function gqlOk(t: TestApp, token: string, query: string, variables: Record<string, unknown>) {
  const res = await t.gql(query, variables, { token });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
}

/** A closure made before the write under test (its own event is left out of the count). */
async function seedClosure(t: TestApp): Promise<string> {
  const res = await t.rest('POST', `/v1/organizations/${clinic(t)}/closures`, { json: closureBody });
  return res.body.data.id;
}

const specialBody = { date: '2026-03-10', description: 'Short day', isClosed: false, open: '09:00', close: '12:00' };
/** Special hours made before the write under test. */
async function seedSpecialHours(t: TestApp): Promise<string> {
  const res = await t.rest('POST', `/v1/organizations/${clinic(t)}/special-hours`, { json: specialBody });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id;
}
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const week = (open: string) => ({
  officeHours: DAYS.map((dayOfWeek, i) => (i < 5 ? { dayOfWeek, isClosed: false, open, close: '17:00' } : { dayOfWeek, isClosed: true })),
});

let seeded = '';
const seededClosure = () => seeded;

/** A webhook endpoint of the clinic made before the write under test (stored directly: no event of its own). */
let endpointId = '';
let deliveryId = '';
async function seedEndpoint(t: TestApp): Promise<void> {
  endpointId = (
    await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: clinic(t),
      url: 'https://hooks.example.com/x',
      eventTypes: ['template.*'],
    })
  ).id;
}
async function seedFailedDelivery(t: TestApp): Promise<void> {
  await seedEndpoint(t);
  const written = await t.rest('POST', '/v1/templates', { json: { name: 'Seeded' } });
  expect(written.status).toBe(200);
  const event = await t.deps.db.event.findFirstOrThrow({ where: { type: 'template.created' } });
  deliveryId = await deliveryRow(t.deps.db, { endpointId, eventId: event.id, status: 'failed', attempts: 8 });
}
const webhookWrites = (kind: 'rest' | 'gql'): Record<string, Write & { before?: (t: TestApp) => Promise<void> }> => {
  const run =
    (rest: (t: TestApp, token: string) => Promise<unknown>, gql: (t: TestApp, token: string) => Promise<unknown>) =>
    async (t: TestApp, token: string) =>
      void (await (kind === 'rest' ? rest : gql)(t, token));
  const base = '/v1/webhook-endpoints';
  return {
    create: {
      run: run(
        (t, token) => restOk(t, token, 'POST', base, { url: 'https://hooks.example.com/new', eventTypes: ['closure.*'] }),
        (t, token) =>
          gqlOk(t, token, 'mutation { createWebhookEndpoint(input: {url: "https://hooks.example.com/new"}) { id secret } }', {}),
      ),
      type: 'webhook_endpoint.created',
      orgId: clinic,
      subjectId: async (t) => (await t.deps.db.webhookEndpoint.findFirstOrThrow({ where: { url: 'https://hooks.example.com/new' } })).id,
    },
    update: {
      before: seedEndpoint,
      run: run(
        (t, token) => restOk(t, token, 'PATCH', `${base}/${endpointId}`, { description: 'Changed' }),
        (t, token) =>
          gqlOk(t, token, 'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {description: "Changed"}) { id } }', {
            id: endpointId,
          }),
      ),
      type: 'webhook_endpoint.updated',
      orgId: clinic,
      subjectId: () => endpointId,
    },
    delete: {
      before: seedEndpoint,
      run: run(
        (t, token) => restOk(t, token, 'DELETE', `${base}/${endpointId}`),
        (t, token) => gqlOk(t, token, 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: endpointId }),
      ),
      type: 'webhook_endpoint.deleted',
      orgId: clinic,
      subjectId: () => endpointId,
    },
    rotate: {
      before: seedEndpoint,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${endpointId}/rotate-secret`),
        (t, token) => gqlOk(t, token, 'mutation($id: ID!) { rotateWebhookSecret(id: $id) { id secret } }', { id: endpointId }),
      ),
      type: 'webhook_endpoint.secret_rotated',
      orgId: clinic,
      subjectId: () => endpointId,
    },
    test: {
      before: seedEndpoint,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${endpointId}/test`),
        (t, token) => gqlOk(t, token, 'mutation($id: ID!) { testWebhookEndpoint(id: $id) { id } }', { id: endpointId }),
      ),
      type: 'webhook.test',
      orgId: clinic,
      subjectId: () => endpointId,
    },
    retry: {
      before: seedFailedDelivery,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${endpointId}/deliveries/${deliveryId}/retry`),
        (t, token) =>
          gqlOk(t, token, 'mutation($e: ID!, $d: ID!) { retryWebhookDelivery(endpointId: $e, deliveryId: $d) { id } }', {
            e: endpointId,
            d: deliveryId,
          }),
      ),
      type: 'webhook_delivery.retried',
      orgId: clinic,
      subjectId: () => deliveryId,
    },
    replay: {
      before: seedEndpoint,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${endpointId}/replays`, { from: '2020-01-01T00:00:00Z' }),
        (t, token) =>
          gqlOk(t, token, 'mutation($e: ID!) { replayWebhookDeliveries(endpointId: $e, from: "2020-01-01T00:00:00Z") { id } }', {
            e: endpointId,
          }),
      ),
      type: 'webhook_endpoint.replayed',
      orgId: clinic,
      subjectId: () => endpointId,
    },
  };
};

/** An API key of the clinic made before the write under test (stored directly: no event of its own). */
let seededKeyId = '';
async function seedApiKey(t: TestApp): Promise<void> {
  seededKeyId = (await createApiKey(t.deps.db, clinic(t), 'Seeded')).id;
}
const apiKeyWrites = (kind: 'rest' | 'gql'): Record<string, Write & { before?: (t: TestApp) => Promise<void> }> => {
  const run =
    (rest: (t: TestApp, token: string) => Promise<unknown>, gql: (t: TestApp, token: string) => Promise<unknown>) =>
    async (t: TestApp, token: string) =>
      void (await (kind === 'rest' ? rest : gql)(t, token));
  return {
    create: {
      run: run(
        (t, token) => restOk(t, token, 'POST', '/v1/api-keys', { name: 'CI', scopes: ['closures:read'] }),
        (t, token) => gqlOk(t, token, 'mutation { createApiKey(input: {name: "CI", scopes: ["closures:read"]}) { id apiKey } }', {}),
      ),
      type: 'api_key.created',
      orgId: clinic,
      subjectId: async (t) => (await t.deps.db.apiKey.findFirstOrThrow({ where: { name: 'CI' } })).id,
      withApiKey: true,
    },
    roll: {
      before: seedApiKey,
      run: run(
        (t, token) => restOk(t, token, 'POST', `/v1/api-keys/${seededKeyId}/roll`, { expiresAt: '2026-03-03T15:00:00Z' }),
        (t, token) =>
          gqlOk(t, token, 'mutation($id: ID!) { rollApiKey(id: $id, expiresAt: "2026-03-03T15:00:00Z") { id apiKey } }', {
            id: seededKeyId,
          }),
      ),
      type: 'api_key.rolled',
      orgId: clinic,
      subjectId: () => seededKeyId,
      withApiKey: true,
    },
    revoke: {
      before: seedApiKey,
      run: run(
        (t, token) => restOk(t, token, 'POST', `/v1/api-keys/${seededKeyId}/revoke`),
        (t, token) => gqlOk(t, token, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: seededKeyId }),
      ),
      type: 'api_key.revoked',
      orgId: clinic,
      subjectId: () => seededKeyId,
      withApiKey: true,
    },
  };
};

/** An OAuth client of the clinic made before the write under test (stored directly: no event of its own). */
let seededClientId = '';
async function seedClient(t: TestApp): Promise<void> {
  seededClientId = (await createOAuthClient(t.deps.db, clinic(t), ['closures:read'], 'Seeded client')).id;
}
const oauthClientWrites = (kind: 'rest' | 'gql'): Record<string, Write & { before?: (t: TestApp) => Promise<void> }> => {
  const run =
    (rest: (t: TestApp, token: string) => Promise<unknown>, gql: (t: TestApp, token: string) => Promise<unknown>) =>
    async (t: TestApp, token: string) =>
      void (await (kind === 'rest' ? rest : gql)(t, token));
  const base = '/v1/oauth-clients';
  return {
    create: {
      run: run(
        (t, token) => restOk(t, token, 'POST', base, { name: 'Board', scopes: ['closures:read'] }),
        (t, token) =>
          gqlOk(t, token, 'mutation { createOAuthClient(input: {name: "Board", scopes: ["closures:read"]}) { id clientSecret } }', {}),
      ),
      type: 'oauth_client.created',
      orgId: clinic,
      subjectId: async (t) => (await t.deps.db.oAuthClient.findFirstOrThrow({ where: { name: 'Board' } })).id,
    },
    rotate: {
      before: seedClient,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${seededClientId}/rotate-secret`, { expiresAt: '2026-03-03T15:00:00Z' }),
        (t, token) =>
          gqlOk(t, token, 'mutation($id: ID!) { rotateOAuthClientSecret(id: $id) { id clientSecret } }', { id: seededClientId }),
      ),
      type: 'oauth_client.secret_rotated',
      orgId: clinic,
      subjectId: () => seededClientId,
    },
    scopes: {
      before: seedClient,
      run: run(
        (t, token) => restOk(t, token, 'PUT', `${base}/${seededClientId}/scopes`, { scopes: ['closures:read', 'closures:write'] }),
        (t, token) =>
          gqlOk(t, token, 'mutation($id: ID!) { setOAuthClientScopes(id: $id, scopes: ["closures:read", "closures:write"]) { id } }', {
            id: seededClientId,
          }),
      ),
      type: 'oauth_client.scopes_changed',
      orgId: clinic,
      subjectId: () => seededClientId,
    },
    revoke: {
      before: seedClient,
      run: run(
        (t, token) => restOk(t, token, 'POST', `${base}/${seededClientId}/revoke`),
        (t, token) => gqlOk(t, token, 'mutation($id: ID!) { revokeOAuthClient(id: $id) { id } }', { id: seededClientId }),
      ),
      type: 'oauth_client.revoked',
      orgId: clinic,
      subjectId: () => seededClientId,
    },
  };
};

const restApiKeys = apiKeyWrites('rest');
const restClients = oauthClientWrites('rest');
const restWebhooks = webhookWrites('rest');
/** A call placed (and claimed, and started) before the write under test. */
const call = { id: '', leaseId: '' };
async function placeCall(t: TestApp): Promise<void> {
  const res = await t.rest('POST', '/v1/call-requests', {
    json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  call.id = res.body.data.callRequestId;
}
async function claimCall(t: TestApp): Promise<void> {
  await placeCall(t);
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 1 } });
  expect(res.body.data.claims.map((c: Schemas['CallClaim']) => c.callRequest.callRequestId)).toEqual([call.id]);
  call.leaseId = res.body.data.claims[0].leaseId;
}
async function startCall(t: TestApp): Promise<void> {
  await claimCall(t);
  expect((await t.rest('POST', `/v1/call-requests/${call.id}/start`, { json: { leaseId: call.leaseId } })).status).toBe(200);
}
const callId = () => call.id;
/** A conversation recorded before the write under test. */
let conversationId = '';
async function openConversation(t: TestApp): Promise<void> {
  const res = await t.rest('POST', '/v1/conversations', { json: { botId: t.demo.bots.clinic[0], medium: 'CHAT' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  conversationId = res.body.data.conversationId;
}
const openedConversation = () => conversationId;
const conversationOfCall = async (t: TestApp) =>
  (await t.deps.db.callRequest.findUniqueOrThrow({ where: { id: call.id } })).conversationId!;

/** A suppression list entry made before the write under test (written directly: no event of its own). */
const suppression = { id: '' };
const SUPPRESSED = '+12025550143';
async function suppressNumber(t: TestApp): Promise<void> {
  suppression.id = (
    await t.deps.db.suppression.create({ data: { orgId: clinic(t), number: SUPPRESSED, source: 'api', createdAt: new Date() } })
  ).id;
}
const suppressionOf = async (t: TestApp) =>
  (await t.deps.db.suppression.findFirstOrThrow({ where: { orgId: clinic(t), number: SUPPRESSED } })).id;

/** A call batch placed before the write under test, its one call claimed and started (a cancel then leaves it in progress). */
const batch = { id: '' };
async function placeBatch(t: TestApp): Promise<void> {
  const res = await t.rest('POST', '/v1/call-batches', {
    json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], recipients: [{ to: '+15005550006' }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  batch.id = res.body.data.callBatchId;
}
async function startBatchCall(t: TestApp): Promise<void> {
  await placeBatch(t);
  const claim = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 1 } });
  const [only] = claim.body.data.claims;
  expect(
    (await t.rest('POST', `/v1/call-requests/${only.callRequest.callRequestId}/start`, { json: { leaseId: only.leaseId } })).status,
  ).toBe(200);
}
const batchId = () => batch.id;

/** A calling policy other than the default (the change the write must record). */
const mondayOnly = { windows: [{ dayOfWeek: 'MONDAY', start: '09:00', end: '17:00' }], maxConcurrentCalls: 5 };

/** The erasure request just made (its id is the event's subject). */
const erasureOf = async (t: TestApp) => (await t.deps.db.erasureRequest.findFirstOrThrow({ where: { orgId: clinic(t) } })).id;

const REST_WRITES: Record<string, Write & { before?: (t: TestApp) => Promise<void> }> = {
  'POST /v1/erasure-requests': {
    run: async (t, token) => {
      const res = await t.rest('POST', '/v1/erasure-requests', { token, json: { phoneNumber: '+1 (202) 555-0143' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    },
    type: 'erasure.requested',
    orgId: clinic,
    subjectId: erasureOf,
    withApiKey: true,
  },
  'PUT /v1/organizations/:orgId/calling-policy': {
    run: async (t, token) => void (await restOk(t, token, 'PUT', `/v1/organizations/${clinic(t)}/calling-policy`, mondayOnly)),
    type: 'calling_policy.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  'PUT /v1/organizations/:orgId/retention': {
    run: async (t, token) => void (await restOk(t, token, 'PUT', `/v1/organizations/${clinic(t)}/retention`, { transcriptsDays: 90 })),
    type: 'retention.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  'PUT /v1/organizations/:orgId/redaction': {
    run: async (t, token) => void (await restOk(t, token, 'PUT', `/v1/organizations/${clinic(t)}/redaction`, { emails: true })),
    type: 'redaction_policy.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/suppressions': {
    run: async (t, token) => void (await restOk(t, token, 'POST', '/v1/suppressions', { number: '+1 (202) 555-0143' })),
    type: 'suppression.added',
    orgId: clinic,
    subjectId: suppressionOf,
  },
  'POST /v1/suppressions/bulk': {
    run: async (t, token) => void (await restOk(t, token, 'POST', '/v1/suppressions/bulk', { numbers: [SUPPRESSED, '+14155552671'] })),
    type: 'suppression.added',
    orgId: clinic,
    subjectId: clinic,
  },
  'DELETE /v1/suppressions/:number': {
    before: suppressNumber,
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/suppressions/${encodeURIComponent(SUPPRESSED)}`)),
    type: 'suppression.removed',
    orgId: clinic,
    subjectId: () => suppression.id,
  },
  'POST /v1/api-keys': restApiKeys.create!,
  'POST /v1/api-keys/:keyId/roll': restApiKeys.roll!,
  'POST /v1/api-keys/:keyId/revoke': restApiKeys.revoke!,
  'POST /v1/oauth-clients': restClients.create!,
  'POST /v1/oauth-clients/:id/rotate-secret': restClients.rotate!,
  'PUT /v1/oauth-clients/:id/scopes': restClients.scopes!,
  'POST /v1/oauth-clients/:id/revoke': restClients.revoke!,
  'POST /v1/webhook-endpoints': restWebhooks.create!,
  'PATCH /v1/webhook-endpoints/:endpointId': restWebhooks.update!,
  'DELETE /v1/webhook-endpoints/:endpointId': restWebhooks.delete!,
  'POST /v1/webhook-endpoints/:endpointId/rotate-secret': restWebhooks.rotate!,
  'POST /v1/webhook-endpoints/:endpointId/test': restWebhooks.test!,
  'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry': restWebhooks.retry!,
  'POST /v1/webhook-endpoints/:endpointId/replays': restWebhooks.replay!,
  'POST /v1/organizations/:orgId/closures': {
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/closures`, closureBody)),
    type: 'closure.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.closure.findFirstOrThrow({ where: { orgId: clinic(t) } })).id,
  },
  'POST /v1/organizations/:orgId/closures/:closureId': {
    before: async (t) => void (seeded = await seedClosure(t)),
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/closures/${seededClosure()}`, {
        description: 'Moved',
        annualDate: { month: 7, day: 4 },
      })),
    type: 'closure.updated',
    orgId: clinic,
    subjectId: seededClosure,
  },
  'DELETE /v1/organizations/:orgId/closures/:closureId': {
    before: async (t) => void (seeded = await seedClosure(t)),
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/organizations/${clinic(t)}/closures/${seededClosure()}`)),
    type: 'closure.deleted',
    orgId: clinic,
    subjectId: seededClosure,
  },
  'POST /v1/organizations/:orgId/office-hours': {
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/office-hours`, {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
      })),
    type: 'office_hours.updated',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.officeHours.findFirstOrThrow({ where: { orgId: clinic(t), dayOfWeek: 'MONDAY' } })).id,
  },
  'PUT /v1/organizations/:orgId/office-hours': {
    run: async (t, token) => void (await restOk(t, token, 'PUT', `/v1/organizations/${clinic(t)}/office-hours`, week('08:00'))),
    type: 'office_hours.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/organizations/:orgId/special-hours': {
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/special-hours`, specialBody)),
    type: 'special_hours.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.specialHours.findFirstOrThrow({ where: { orgId: clinic(t) } })).id,
  },
  'POST /v1/organizations/:orgId/special-hours/:specialHoursId': {
    before: async (t) => void (seeded = await seedSpecialHours(t)),
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/special-hours/${seededClosure()}`, {
        ...specialBody,
        close: '13:00',
      })),
    type: 'special_hours.updated',
    orgId: clinic,
    subjectId: seededClosure,
  },
  'DELETE /v1/organizations/:orgId/special-hours/:specialHoursId': {
    before: async (t) => void (seeded = await seedSpecialHours(t)),
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/organizations/${clinic(t)}/special-hours/${seededClosure()}`)),
    type: 'special_hours.deleted',
    orgId: clinic,
    subjectId: seededClosure,
  },
  'POST /v1/organizations/:orgId/children': {
    asAccount: true,
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${t.demo.organizations.account.id}/children`, {
        name: 'Uptown',
        timezone: 'America/Chicago',
      })),
    type: 'organization.created',
    orgId: async (t) => (await t.deps.db.organization.findFirstOrThrow({ where: { name: 'Uptown' } })).id,
    subjectId: async (t) => (await t.deps.db.organization.findFirstOrThrow({ where: { name: 'Uptown' } })).id,
  },
  'PATCH /v1/organizations/:orgId': {
    run: async (t, token) => void (await restOk(t, token, 'PATCH', `/v1/organizations/${clinic(t)}`, { timezone: 'America/Chicago' })),
    type: 'organization.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/organizations/:orgId/archive': {
    asAccount: true,
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/archive`)),
    type: 'organization.archived',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/organizations/:orgId/unarchive': {
    asAccount: true,
    before: async (t) =>
      void (await t.rest('POST', `/v1/organizations/${clinic(t)}/archive`, { token: t.demo.organizations.account.apiKey })),
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/unarchive`)),
    type: 'organization.unarchived',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/organizations/:orgId/disable': {
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/disable`)),
    type: 'organization.disabled',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/organizations/:orgId/enable': {
    before: async (t) => void (await t.rest('POST', `/v1/organizations/${clinic(t)}/disable`)),
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/enable`)),
    type: 'organization.enabled',
    orgId: clinic,
    subjectId: clinic,
  },
  'POST /v1/templates': {
    run: async (t, token) => void (await restOk(t, token, 'POST', '/v1/templates', { name: 'After hours' })),
    type: 'template.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.workflowTemplate.findFirstOrThrow({ where: { orgId: clinic(t), name: 'After hours' } })).id,
  },
  'DELETE /v1/templates/:templateId': {
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/templates/${t.demo.templates.clinic[0]}`)),
    type: 'template.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.templates.clinic[0]!,
  },
  'PUT /v1/templates/:templateId': {
    run: async (t, token) =>
      void (await restOk(t, token, 'PUT', `/v1/templates/${t.demo.templates.clinic[0]}`, { description: 'Changed' })),
    type: 'template.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.templates.clinic[0]!,
  },
  'POST /v1/organizations/:orgId/bots': {
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/bots`, { name: 'Recall caller' })),
    type: 'bot.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.bot.findFirstOrThrow({ where: { orgId: clinic(t), name: 'Recall caller' } })).id,
  },
  'PATCH /v1/bots/:botId': {
    run: async (t, token) => void (await restOk(t, token, 'PATCH', `/v1/bots/${t.demo.bots.clinic[0]}`, { enabled: false })),
    type: 'bot.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[0]!,
  },
  'DELETE /v1/bots/:botId': {
    // the bot without numbers or calls: nothing else is written
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/bots/${t.demo.bots.clinic[1]}`)),
    type: 'bot.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  'POST /v1/organizations/:orgId/phone-numbers': {
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/phone-numbers`, { number: '+14155552671' })),
    type: 'phone_number.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.phoneNumber.findFirstOrThrow({ where: { number: '+14155552671' } })).id,
  },
  'POST /v1/phone-numbers/:phoneNumberId/detach': {
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[0]}/detach`)),
    type: 'phone_number.detached',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[0]!,
  },
  'DELETE /v1/phone-numbers/:phoneNumberId': {
    run: async (t, token) => void (await restOk(t, token, 'DELETE', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}`)),
    type: 'phone_number.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[1]!,
  },
  'PATCH /v1/phone-numbers/:phoneNumberId': {
    run: async (t, token) =>
      void (await restOk(t, token, 'PATCH', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[0]}`, { customGreeting: 'Hello again' })),
    type: 'phone_number.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[0]!,
  },
  'POST /v1/phone-numbers/:phoneNumberId/attach': {
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}/attach`, { botId: t.demo.bots.clinic[0] })),
    type: 'phone_number.attached',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[1]!,
  },
  'POST /v1/organizations/:orgId/insurances': {
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/organizations/${clinic(t)}/insurances`, {
        name: 'Cigna',
        type: 'EPO',
        status: 'ACCEPTED',
      })),
    type: 'insurance.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.insurance.findFirstOrThrow({ where: { orgId: clinic(t), name: 'Cigna' } })).id,
  },
  'DELETE /v1/organizations/:orgId/insurances/:insuranceId': {
    run: async (t, token) =>
      void (await restOk(t, token, 'DELETE', `/v1/organizations/${clinic(t)}/insurances/${t.demo.insurances.clinic[0]}`)),
    type: 'insurance.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.insurances.clinic[0]!,
  },
  'PATCH /v1/organizations/:orgId/insurances/:insuranceId': {
    run: async (t, token) =>
      void (await restOk(t, token, 'PATCH', `/v1/organizations/${clinic(t)}/insurances/${t.demo.insurances.clinic[0]}`, {
        notes: 'Checked',
      })),
    type: 'insurance.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.insurances.clinic[0]!,
  },
  'POST /v1/bots/:botId/workflows/import': {
    run: async (t, token) => {
      const exported = (await t.rest('GET', `/v1/bots/${t.demo.bots.clinic[0]}/workflows`)).body.data;
      await restOk(t, token, 'POST', `/v1/bots/${t.demo.bots.clinic[1]}/workflows/import`, exported);
    },
    type: 'workflows.imported',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  'PUT /v1/bots/:botId/workflows': {
    run: async (t, token) => void (await restOk(t, token, 'PUT', `/v1/bots/${t.demo.bots.clinic[1]}/workflows`, { workflows: [] })),
    type: 'workflows.replaced',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  'POST /v1/conversations': {
    run: async (t) => void (await openConversation(t)),
    type: 'conversation.started',
    orgId: clinic,
    subjectId: openedConversation,
  },
  'POST /v1/conversations/:conversationId/messages': {
    before: openConversation,
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/conversations/${conversationId}/messages`, { role: 'caller', text: 'Hello' })),
    type: 'conversation.message_added',
    orgId: clinic,
    subjectId: openedConversation,
  },
  'POST /v1/conversations/:conversationId/end': {
    before: openConversation,
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/conversations/${conversationId}/end`, { summary: 'Done', duration: 30 })),
    type: 'conversation.ended',
    orgId: clinic,
    subjectId: openedConversation,
  },
  'POST /v1/call-requests': {
    run: async (t) => void (await placeCall(t)),
    type: 'call_request.queued',
    orgId: clinic,
    subjectId: callId,
  },
  'POST /v1/call-batches': {
    run: async (t) => void (await placeBatch(t)),
    type: 'call_batch.created',
    orgId: clinic,
    subjectId: batchId,
  },
  'POST /v1/call-batches/:callBatchId/cancel': {
    before: startBatchCall,
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/call-batches/${batch.id}/cancel`)),
    type: 'call_batch.canceled',
    orgId: clinic,
    subjectId: batchId,
  },
  'POST /v1/call-requests/:callRequestId/cancel': {
    before: placeCall,
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/call-requests/${call.id}/cancel`)),
    type: 'call_request.canceled',
    orgId: clinic,
    subjectId: callId,
  },
  'POST /v1/dispatch/claim': {
    before: placeCall,
    run: async (t, token) => expect((await restOk(t, token, 'POST', '/v1/dispatch/claim', { max: 5 })).claims).toHaveLength(1),
    type: 'call_request.started',
    orgId: clinic,
    subjectId: callId,
  },
  'POST /v1/call-requests/:callRequestId/heartbeat': {
    before: claimCall,
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/call-requests/${call.id}/heartbeat`, { leaseId: call.leaseId, leaseSeconds: 120 })),
    type: 'call_request.lease_extended',
    orgId: clinic,
    subjectId: callId,
  },
  'POST /v1/call-requests/:callRequestId/start': {
    before: claimCall,
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/call-requests/${call.id}/start`, { leaseId: call.leaseId })),
    type: 'conversation.started',
    orgId: clinic,
    subjectId: conversationOfCall,
  },
  'POST /v1/call-requests/:callRequestId/complete': {
    before: startCall,
    run: async (t, token) => void (await restOk(t, token, 'POST', `/v1/call-requests/${call.id}/complete`, { leaseId: call.leaseId })),
    type: 'call_request.completed',
    orgId: clinic,
    subjectId: callId,
  },
  'POST /v1/call-requests/:callRequestId/fail': {
    before: claimCall,
    run: async (t, token) =>
      void (await restOk(t, token, 'POST', `/v1/call-requests/${call.id}/fail`, {
        leaseId: call.leaseId,
        error: { code: 'busy', message: 'Busy' },
      })),
    type: 'call_request.failed',
    orgId: clinic,
    subjectId: callId,
  },
};

const gqlWebhooks = webhookWrites('gql');
const gqlApiKeys = apiKeyWrites('gql');
const gqlClients = oauthClientWrites('gql');
const GRAPHQL_WRITES: Record<string, Write & { before?: (t: TestApp) => Promise<void> }> = {
  setCallingPolicy: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!) { setCallingPolicy(orgId: $id, input: {windows: [{dayOfWeek: MONDAY, start: "09:00", end: "17:00"}], maxConcurrentCalls: 5}) { maxConcurrentCalls } }',
        { id: clinic(t) },
      )),
    type: 'calling_policy.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  createErasureRequest: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation { createErasureRequest(phoneNumber: "+1 202 555 0143") { erasureRequestId } }', {})),
    type: 'erasure.requested',
    orgId: clinic,
    subjectId: erasureOf,
    withApiKey: true,
  },
  setRetention: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { setRetention(orgId: $id, input: {transcriptsDays: 90}) { transcriptsDays } }', {
        id: clinic(t),
      })),
    type: 'retention.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  setRedactionPolicy: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { setRedactionPolicy(orgId: $id, input: {emails: true}) { emails } }', {
        id: clinic(t),
      })),
    type: 'redaction_policy.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  addSuppression: {
    run: async (t, token) => void (await gqlOk(t, token, 'mutation { addSuppression(number: "+1 202 555 0143") { number } }', {})),
    type: 'suppression.added',
    orgId: clinic,
    subjectId: suppressionOf,
  },
  addSuppressions: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation { addSuppressions(numbers: ["+12025550143", "+14155552671"]) { added } }', {})),
    type: 'suppression.added',
    orgId: clinic,
    subjectId: clinic,
  },
  removeSuppression: {
    before: suppressNumber,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($n: String!) { removeSuppression(number: $n) { number } }', { n: SUPPRESSED })),
    type: 'suppression.removed',
    orgId: clinic,
    subjectId: () => suppression.id,
  },
  createApiKey: gqlApiKeys.create!,
  rollApiKey: gqlApiKeys.roll!,
  revokeApiKey: gqlApiKeys.revoke!,
  createOAuthClient: gqlClients.create!,
  rotateOAuthClientSecret: gqlClients.rotate!,
  setOAuthClientScopes: gqlClients.scopes!,
  revokeOAuthClient: gqlClients.revoke!,
  createWebhookEndpoint: gqlWebhooks.create!,
  updateWebhookEndpoint: gqlWebhooks.update!,
  deleteWebhookEndpoint: gqlWebhooks.delete!,
  rotateWebhookSecret: gqlWebhooks.rotate!,
  testWebhookEndpoint: gqlWebhooks.test!,
  retryWebhookDelivery: gqlWebhooks.retry!,
  replayWebhookDeliveries: gqlWebhooks.replay!,
  createClosure: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!) { createClosure(orgId: $id, input: {description: "Holiday", annualDate: {month: 12, day: 25}, chatGreeting: null, phoneGreeting: null}) { id } }',
        { id: clinic(t) },
      )),
    type: 'closure.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.closure.findFirstOrThrow({ where: { orgId: clinic(t) } })).id,
  },
  updateClosure: {
    before: async (t) => void (seeded = await seedClosure(t)),
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($o: ID!, $c: ID!) { updateClosure(orgId: $o, closureId: $c, input: {description: "Moved", annualDate: {month: 7, day: 4}}) { id } }',
        {
          o: clinic(t),
          c: seededClosure(),
        },
      )),
    type: 'closure.updated',
    orgId: clinic,
    subjectId: seededClosure,
  },
  deleteClosure: {
    before: async (t) => void (seeded = await seedClosure(t)),
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($o: ID!, $c: ID!) { deleteClosure(orgId: $o, closureId: $c) }', {
        o: clinic(t),
        c: seededClosure(),
      })),
    type: 'closure.deleted',
    orgId: clinic,
    subjectId: seededClosure,
  },
  setOfficeHours: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!) { setOfficeHours(orgId: $id, input: {dayOfWeek: TUESDAY, isClosed: false, open: "08:00", close: "16:00"}) { dayOfWeek } }',
        {
          id: clinic(t),
        },
      )),
    type: 'office_hours.updated',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.officeHours.findFirstOrThrow({ where: { orgId: clinic(t), dayOfWeek: 'TUESDAY' } })).id,
  },
  setWeeklyHours: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!, $input: SetWeeklyHoursInput!) { setWeeklyHours(orgId: $id, input: $input) { dayOfWeek } }',
        {
          id: clinic(t),
          input: week('07:30'),
        },
      )),
    type: 'office_hours.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  createSpecialHours: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!, $input: SpecialHoursInput!) { createSpecialHours(orgId: $id, input: $input) { id } }',
        { id: clinic(t), input: specialBody },
      )),
    type: 'special_hours.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.specialHours.findFirstOrThrow({ where: { orgId: clinic(t) } })).id,
  },
  updateSpecialHours: {
    before: async (t) => void (seeded = await seedSpecialHours(t)),
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($o: ID!, $s: ID!, $input: SpecialHoursInput!) { updateSpecialHours(orgId: $o, specialHoursId: $s, input: $input) { id } }',
        {
          o: clinic(t),
          s: seededClosure(),
          input: { ...specialBody, isClosed: true },
        },
      )),
    type: 'special_hours.updated',
    orgId: clinic,
    subjectId: seededClosure,
  },
  deleteSpecialHours: {
    before: async (t) => void (seeded = await seedSpecialHours(t)),
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($o: ID!, $s: ID!) { deleteSpecialHours(orgId: $o, specialHoursId: $s) }', {
        o: clinic(t),
        s: seededClosure(),
      })),
    type: 'special_hours.deleted',
    orgId: clinic,
    subjectId: seededClosure,
  },
  createLocation: {
    asAccount: true,
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($a: ID!) { createLocation(accountId: $a, input: {name: "Uptown", timezone: "America/Chicago"}) { organization { id } } }',
        {
          a: t.demo.organizations.account.id,
        },
      )),
    type: 'organization.created',
    orgId: async (t) => (await t.deps.db.organization.findFirstOrThrow({ where: { name: 'Uptown' } })).id,
    subjectId: async (t) => (await t.deps.db.organization.findFirstOrThrow({ where: { name: 'Uptown' } })).id,
  },
  updateOrganization: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!) { updateOrganization(orgId: $id, input: {name: "Renamed"}) { organization { id } } }',
        {
          id: clinic(t),
        },
      )),
    type: 'organization.updated',
    orgId: clinic,
    subjectId: clinic,
  },
  archiveOrganization: {
    asAccount: true,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { archiveOrganization(orgId: $id) { organization { archivedAt } } }', {
        id: clinic(t),
      })),
    type: 'organization.archived',
    orgId: clinic,
    subjectId: clinic,
  },
  unarchiveOrganization: {
    asAccount: true,
    before: async (t) =>
      void (await t.rest('POST', `/v1/organizations/${clinic(t)}/archive`, { token: t.demo.organizations.account.apiKey })),
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { unarchiveOrganization(orgId: $id) { organization { archivedAt } } }', {
        id: clinic(t),
      })),
    type: 'organization.unarchived',
    orgId: clinic,
    subjectId: clinic,
  },
  disableOrganization: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { disableOrganization(orgId: $id) { status changed } }', { id: clinic(t) })),
    type: 'organization.disabled',
    orgId: clinic,
    subjectId: clinic,
  },
  enableOrganization: {
    before: async (t) => void (await t.rest('POST', `/v1/organizations/${clinic(t)}/disable`)),
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { enableOrganization(orgId: $id) { status changed } }', { id: clinic(t) })),
    type: 'organization.enabled',
    orgId: clinic,
    subjectId: clinic,
  },
  createTemplate: {
    run: async (t, token) => void (await gqlOk(t, token, 'mutation { createTemplate(input: {name: "After hours"}) { id } }', {})),
    type: 'template.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.workflowTemplate.findFirstOrThrow({ where: { orgId: clinic(t), name: 'After hours' } })).id,
  },
  deleteTemplate: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { deleteTemplate(id: $id) }', { id: t.demo.templates.clinic[0] })),
    type: 'template.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.templates.clinic[0]!,
  },
  updateTemplate: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { updateTemplate(id: $id, input: {description: "Changed"}) { id } }', {
        id: t.demo.templates.clinic[0],
      })),
    type: 'template.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.templates.clinic[0]!,
  },
  registerPhoneNumber: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($o: ID!) { registerPhoneNumber(orgId: $o, input: {number: "+14155552671"}) { id } }', {
        o: clinic(t),
      })),
    type: 'phone_number.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.phoneNumber.findFirstOrThrow({ where: { number: '+14155552671' } })).id,
  },
  detachPhoneNumber: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($p: ID!) { detachPhoneNumber(phoneNumberId: $p) { id } }', {
        p: t.demo.phoneNumbers.clinic[0],
      })),
    type: 'phone_number.detached',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[0]!,
  },
  createBot: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($o: ID!) { createBot(orgId: $o, input: {name: "Recall caller"}) { id } }', { o: clinic(t) })),
    type: 'bot.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.bot.findFirstOrThrow({ where: { orgId: clinic(t), name: 'Recall caller' } })).id,
  },
  updateBot: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($b: ID!) { updateBot(botId: $b, input: {name: "Reception"}) { id } }', {
        b: t.demo.bots.clinic[0],
      })),
    type: 'bot.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[0]!,
  },
  importWorkflows: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($b: ID!) { importWorkflows(botId: $b, workflows: [{title: "Recall"}]) { version } }', {
        b: t.demo.bots.clinic[1],
      })),
    type: 'workflows.imported',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  replaceBotWorkflows: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($b: ID!) { replaceBotWorkflows(botId: $b, workflows: []) { version } }', {
        b: t.demo.bots.clinic[1],
      })),
    type: 'workflows.replaced',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  deleteBot: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($b: ID!) { deleteBot(botId: $b) { id } }', { b: t.demo.bots.clinic[1] })),
    type: 'bot.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.bots.clinic[1]!,
  },
  deletePhoneNumber: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($p: ID!) { deletePhoneNumber(phoneNumberId: $p) }', { p: t.demo.phoneNumbers.clinic[1] })),
    type: 'phone_number.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[1]!,
  },
  updatePhoneNumber: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($p: ID!) { updatePhoneNumber(phoneNumberId: $p, input: {speed: 1.2}) { id } }', {
        p: t.demo.phoneNumbers.clinic[0],
      })),
    type: 'phone_number.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[0]!,
  },
  attachPhoneNumber: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($p: ID!, $b: ID!) { attachPhoneNumber(phoneNumberId: $p, botId: $b) { id } }', {
        p: t.demo.phoneNumbers.clinic[1],
        b: t.demo.bots.clinic[0],
      })),
    type: 'phone_number.attached',
    orgId: clinic,
    subjectId: (t) => t.demo.phoneNumbers.clinic[1]!,
  },
  createInsurance: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($o: ID!) { createInsurance(orgId: $o, input: {name: "Cigna", type: EPO, status: ACCEPTED}) { id } }',
        {
          o: clinic(t),
        },
      )),
    type: 'insurance.created',
    orgId: clinic,
    subjectId: async (t) => (await t.deps.db.insurance.findFirstOrThrow({ where: { orgId: clinic(t), name: 'Cigna' } })).id,
  },
  deleteInsurance: {
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($o: ID!, $i: ID!) { deleteInsurance(orgId: $o, insuranceId: $i) }', {
        o: clinic(t),
        i: t.demo.insurances.clinic[0],
      })),
    type: 'insurance.deleted',
    orgId: clinic,
    subjectId: (t) => t.demo.insurances.clinic[0]!,
  },
  updateInsurance: {
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($o: ID!, $i: ID!) { updateInsurance(orgId: $o, insuranceId: $i, input: {notes: "Checked"}) { id } }',
        {
          o: clinic(t),
          i: t.demo.insurances.clinic[0],
        },
      )),
    type: 'insurance.updated',
    orgId: clinic,
    subjectId: (t) => t.demo.insurances.clinic[0]!,
  },
  createConversation: {
    run: async (t, token) => {
      const data = await gqlOk(t, token, 'mutation($b: ID) { createConversation(input: {botId: $b, medium: SMS}) { id } }', {
        b: t.demo.bots.clinic[0],
      });
      conversationId = data.createConversation.id;
    },
    type: 'conversation.started',
    orgId: clinic,
    subjectId: openedConversation,
  },
  addConversationMessage: {
    before: openConversation,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { addConversationMessage(id: $id, role: agent, text: "Hi") { seq } }', {
        id: conversationId,
      })),
    type: 'conversation.message_added',
    orgId: clinic,
    subjectId: openedConversation,
  },
  endConversation: {
    before: openConversation,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { endConversation(id: $id, input: {summary: "Done"}) { status } }', {
        id: conversationId,
      })),
    type: 'conversation.ended',
    orgId: clinic,
    subjectId: openedConversation,
  },
  createCallRequest: {
    run: async (t, token) => {
      const data = await gqlOk(
        t,
        token,
        'mutation($b: ID!, $p: ID!) { createCallRequest(input: {botId: $b, phoneNumberId: $p, to: "+15005550006"}) { id } }',
        {
          b: t.demo.bots.clinic[0],
          p: t.demo.phoneNumbers.clinic[0],
        },
      );
      call.id = data.createCallRequest.id;
    },
    type: 'call_request.queued',
    orgId: clinic,
    subjectId: callId,
  },
  createCallBatch: {
    run: async (t, token) => {
      const data = await gqlOk(
        t,
        token,
        'mutation($b: ID!, $p: ID!) { createCallBatch(input: {botId: $b, phoneNumberId: $p, recipients: [{to: "+15005550006"}]}) { id } }',
        { b: t.demo.bots.clinic[0], p: t.demo.phoneNumbers.clinic[0] },
      );
      batch.id = data.createCallBatch.id;
    },
    type: 'call_batch.created',
    orgId: clinic,
    subjectId: batchId,
  },
  cancelCallBatch: {
    before: startBatchCall,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!) { cancelCallBatch(id: $id) { canceledAt } }', { id: batch.id })),
    type: 'call_batch.canceled',
    orgId: clinic,
    subjectId: batchId,
  },
  cancelCallRequest: {
    before: placeCall,
    run: async (t, token) => void (await gqlOk(t, token, 'mutation($id: ID!) { cancelCallRequest(id: $id) { status } }', { id: call.id })),
    type: 'call_request.canceled',
    orgId: clinic,
    subjectId: callId,
  },
  claimCallRequests: {
    before: placeCall,
    run: async (t, token) =>
      expect((await gqlOk(t, token, 'mutation { claimCallRequests(max: 5) { leaseId } }', {})).claimCallRequests).toHaveLength(1),
    type: 'call_request.started',
    orgId: clinic,
    subjectId: callId,
  },
  claimCalls: {
    before: placeCall,
    run: async (t, token) =>
      expect((await gqlOk(t, token, 'mutation { claimCalls(max: 5) { claims { leaseId } } }', {})).claimCalls.claims).toHaveLength(1),
    type: 'call_request.started',
    orgId: clinic,
    subjectId: callId,
  },
  heartbeatCallRequest: {
    before: claimCall,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!, $l: ID!) { heartbeatCallRequest(id: $id, leaseId: $l) { id } }', {
        id: call.id,
        l: call.leaseId,
      })),
    type: 'call_request.lease_extended',
    orgId: clinic,
    subjectId: callId,
  },
  startCallRequest: {
    before: claimCall,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!, $l: ID!) { startCallRequest(id: $id, leaseId: $l) { conversationId } }', {
        id: call.id,
        l: call.leaseId,
      })),
    type: 'conversation.started',
    orgId: clinic,
    subjectId: conversationOfCall,
  },
  completeCallRequest: {
    before: startCall,
    run: async (t, token) =>
      void (await gqlOk(t, token, 'mutation($id: ID!, $l: ID!) { completeCallRequest(id: $id, leaseId: $l) { status } }', {
        id: call.id,
        l: call.leaseId,
      })),
    type: 'call_request.completed',
    orgId: clinic,
    subjectId: callId,
  },
  failCallRequest: {
    before: claimCall,
    run: async (t, token) =>
      void (await gqlOk(
        t,
        token,
        'mutation($id: ID!, $l: ID!) { failCallRequest(id: $id, leaseId: $l, error: {code: no_answer, message: "No answer"}) { status } }',
        {
          id: call.id,
          l: call.leaseId,
        },
      )),
    type: 'call_request.failed',
    orgId: clinic,
    subjectId: callId,
  },
};

async function lastSeq(t: TestApp): Promise<bigint> {
  const last = await t.deps.db.event.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } });
  return last?.seq ?? 0n;
}

async function eventsAfter(t: TestApp, seq: bigint) {
  return t.deps.db.event.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: 'asc' } });
}

/** The changes `work` publishes on this instance, `kind orgId`. */
async function publishedBy(t: TestApp, work: () => Promise<unknown>): Promise<string[]> {
  const published: string[] = [];
  const unsubscribe = t.deps.changes.subscribe({ onChange: (change, local) => local && published.push(`${change.kind} ${change.orgId}`) });
  try {
    await work();
  } finally {
    unsubscribe();
  }
  return published;
}

/** The changes other instances hear from these events. */
function heardFromLog(events: { type: string; orgId: string; data: unknown }[]): string[] {
  return events.flatMap((e) =>
    changesOfEvent({ type: e.type, orgId: e.orgId, parentId: (e.data as { parentId?: string } | null)?.parentId ?? null }).map(
      (c) => `${c.kind} ${c.orgId}`,
    ),
  );
}

async function expectOneEvent(t: TestApp, write: Write, token: string, credential: { kind: string; id: string; name: string }) {
  const before = await lastSeq(t);
  const published = await publishedBy(t, () => write.run(t, token));
  const events = await eventsAfter(t, before);
  expect(events.map((e) => e.type)).toEqual([write.type]);
  const heard = heardFromLog(events);
  for (const change of published) expect(heard, `${change} is published but its event does not stand for it`).toContain(change);
  const event = events[0]!;
  expect(event.orgId).toBe(await write.orgId(t));
  expect(event.subjectId).toBe(await write.subjectId(t));
  expect({ kind: event.actorKind, id: event.actorId, name: event.actorName }).toEqual(credential);
  expect(event.occurredAt.toISOString()).toBe(t.clock.now().toISOString());
  return event;
}

async function apiKeyActor(t: TestApp, who: 'clinic' | 'account' = 'clinic') {
  const key = await t.deps.db.apiKey.findFirstOrThrow({ where: { hash: hashSecret(t.demo.organizations[who].apiKey) } });
  return { kind: 'apiKey', id: key.id, name: key.name };
}

async function oauthActor(t: TestApp) {
  const client = await t.deps.db.oAuthClient.findFirstOrThrow({ where: { clientId: t.demo.oauthClients.clinic.clientId } });
  return { kind: 'oauthClient', id: client.id, name: client.name };
}

describe('the event log', () => {
  it('has an entry for every REST write route and every GraphQL mutation (a new write must record an event)', () => {
    const writeRoutes = allRoutes.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
    expect(writeRoutes.sort()).toEqual(Object.keys(REST_WRITES).sort());
    const mutation = schema.getMutationType();
    expect(mutation && isObjectType(mutation)).toBe(true);
    expect(Object.keys(mutation!.getFields()).sort()).toEqual(Object.keys(GRAPHQL_WRITES).sort());
  });

  describe.each(Object.entries(REST_WRITES))('REST %s', (_name, write) => {
    it('appends exactly one event with its type, subject and the API key as actor', async () => {
      t.clock.set('2026-03-02T15:00:00Z');
      await write.before?.(t);
      if (write.asAccount) await expectOneEvent(t, write, t.demo.organizations.account.apiKey, await apiKeyActor(t, 'account'));
      else await expectOneEvent(t, write, t.demo.organizations.clinic.apiKey, await apiKeyActor(t));
    });
  });

  describe.each(Object.entries(GRAPHQL_WRITES))('GraphQL %s', (_name, write) => {
    it('appends exactly one event with its type, subject and the OAuth client (or API key) as actor', async () => {
      t.clock.set('2026-03-02T15:00:00Z');
      await write.before?.(t);
      if (write.asAccount) await expectOneEvent(t, write, t.demo.organizations.account.apiKey, await apiKeyActor(t, 'account'));
      else if (write.withApiKey) await expectOneEvent(t, write, t.demo.organizations.clinic.apiKey, await apiKeyActor(t));
      else await expectOneEvent(t, write, await t.accessToken('clinic'), await oauthActor(t));
    });
  });

  it('records the resource as answered after the change, and the changed fields before it', async () => {
    const org = clinic(t);
    const created = await t.rest('POST', `/v1/organizations/${org}/closures`, { json: closureBody });
    const before = await lastSeq(t);
    const updated = await t.rest('POST', `/v1/organizations/${org}/closures/${created.body.data.id}`, {
      json: { description: 'Moved', annualDate: { month: 7, day: 4 } },
    });
    const [event] = await eventsAfter(t, before);
    expect(event!.data).toEqual(updated.body.data);
    expect(event!.previous).toEqual({
      description: 'Training',
      startAt: '2026-03-10T13:00:00Z',
      endAt: '2026-03-10T17:00:00Z',
      annualDate: null,
    });
    expect(event!.subjectType).toBe('closure');
  });

  it('appends nothing, and publishes no change, for a write that changes nothing, nor for a refused one', async () => {
    const org = clinic(t);
    await t.rest('POST', `/v1/organizations/${org}/disable`);
    const attach = () =>
      t.rest('POST', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}/attach`, { json: { botId: t.demo.bots.clinic[0] } });
    expect((await attach()).status).toBe(200);
    const readOnly = await t.deps.db.oAuthClient.findFirstOrThrow({ where: { clientId: t.demo.oauthClients.clinicReadOnly.clientId } });
    const before = await lastSeq(t);
    const published = await publishedBy(t, async () => {
      expect((await t.rest('POST', `/v1/organizations/${org}/disable`)).body.data.changed).toBe(false);
      await t.rest('PATCH', `/v1/organizations/${org}/insurances/${t.demo.insurances.clinic[0]}`, { json: { notes: 'Checked' } });
      const afterFirst = await lastSeq(t);
      await t.rest('PATCH', `/v1/organizations/${org}/insurances/${t.demo.insurances.clinic[0]}`, { json: { notes: 'Checked' } });
      expect(await lastSeq(t)).toBe(afterFirst);
      await t.rest('PUT', `/v1/templates/${t.demo.templates.clinic[0]}`, { json: {} });
      expect((await attach()).status).toBe(200);
      expect((await t.rest('PUT', `/v1/oauth-clients/${readOnly.id}/scopes`, { json: { scopes: readOnly.scopes } })).status).toBe(200);
      // refused: a break outside the hours rolls the whole write back, the event with it
      const refused = await t.rest('POST', `/v1/organizations/${org}/office-hours`, {
        json: {
          dayOfWeek: 'MONDAY',
          isClosed: false,
          open: '09:00',
          close: '17:00',
          breaks: [{ start: '18:00', end: '19:00', reason: 'Late', greeting: 'Late' }],
        },
      });
      expect(refused.status).toBe(400);
    });
    expect((await eventsAfter(t, before)).map((e) => e.type)).toEqual(['insurance.updated']);
    expect(published).toEqual([]);
  });

  it("records an account key's write to its child under the child organization, with the account's key as actor", async () => {
    const before = await lastSeq(t);
    await t.rest('POST', `/v1/organizations/${clinic(t)}/closures`, { token: t.demo.organizations.account.apiKey, json: closureBody });
    const [event] = await eventsAfter(t, before);
    const key = await t.deps.db.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.account.id } });
    expect(event).toMatchObject({ orgId: clinic(t), actorKind: 'apiKey', actorId: key.id, actorName: 'Demo key' });
  });
});
