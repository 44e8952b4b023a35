// Errors a program can read (issue 22 item 4): each kind of error the app answers carries the catalogue's
// code (src/domain/shared/errorCodes.ts) in the REST envelope, and its GraphQL counterpart in `extensions.code`.
// One row per code: how to provoke it on each surface. The raw HTTP refusals (408, 414, 431, a request
// without Host) are answered before the app and are checked by test/e2e/hostileClients.test.ts; the
// masked 500 by test/api/requestIds.test.ts.
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type RestErrorCode } from '../../src/domain/shared/errorCodes.js';
import { IN_FLIGHT_LEASE_MS } from '../../src/idempotency/idempotentRequests.js';
import { useTestApp, type TestApp, type TestResponse } from '../support/testApp.js';

const t = useTestApp();

const MISSING = '00000000-0000-4000-8000-000000000000';
const closure = {
  description: 'Staff training',
  chatGreeting: null,
  phoneGreeting: 'We are in training.',
  startAt: '2026-03-10T14:00:00Z',
  endAt: '2026-03-10T18:00:00Z',
};
const callBody = (extra: Record<string, unknown> = {}) => ({
  botId: t.demo.bots.clinic[0],
  phoneNumberId: t.demo.phoneNumbers.clinic[0],
  to: '+15005550006',
  ...extra,
});
const CREATE_CALL = 'mutation($input: CreateCallRequestInput!) { createCallRequest(input: $input) { id } }';
/** At 12:00 UTC it is 21:00 in Tokyo, where the default calling window (08:00–21:00) has just closed. */
const tokyoTonight = { calleeTimezone: 'Asia/Tokyo', notAfter: '2026-03-09T20:00:00Z' };
/** A call placed and claimed at 20:55 in New York, started at 21:00:30, after its window closed. */
async function startedTooLate(): Promise<{ id: string; leaseId: string }> {
  t.clock.set('2026-03-10T00:55:00Z');
  const placed = await t.rest('POST', '/v1/call-requests', { json: callBody() });
  const claimed = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 1, leaseSeconds: 600 } });
  expect(claimed.body.data.claims, JSON.stringify(claimed.body)).toHaveLength(1);
  t.clock.set('2026-03-10T01:00:30Z');
  return { id: placed.body.data.callRequestId as string, leaseId: claimed.body.data.claims[0].leaseId as string };
}
const specialDay = { date: '2026-12-24', description: 'Christmas Eve', isClosed: true };
const closuresPath = () => `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
const CREATE_CLOSURE = 'mutation($org: ID!, $input: CreateClosureInput!) { createClosure(orgId: $org, input: $input) { id } }';
const CREATE_SPECIAL = 'mutation($org: ID!, $input: SpecialHoursInput!) { createSpecialHours(orgId: $org, input: $input) { id } }';

/** A POST /graphql with a raw body (what the typed client cannot send). */
async function rawGraphQL(body: string, contentType: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const res = await t.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': contentType,
      accept: 'application/graphql-response+json',
      authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
      ...headers,
    },
    body,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Puts the claim of `key` back in flight, as if another instance still answered it. */
async function inFlight(app: TestApp, key: string): Promise<void> {
  await app.db.prisma.idempotencyKey.updateMany({
    where: { key },
    data: { status: null, body: null, requestId: 'elsewhere', lockedUntil: new Date(app.clock.now().getTime() + IN_FLIGHT_LEASE_MS) },
  });
}

interface Row {
  rest: () => Promise<TestResponse>;
  /** The GraphQL counterpart, where GraphQL answers this kind of error. */
  graphql?: () => Promise<TestResponse>;
}

const rows: Partial<Record<RestErrorCode, Row>> = {
  malformed_request: {
    rest: () => t.rest('POST', closuresPath(), { raw: { body: '{"oops":', contentType: 'application/json' } }),
    graphql: () => rawGraphQL('{"query":', 'application/json'),
  },
  validation_failed: {
    rest: () => t.rest('POST', closuresPath(), { json: { ...closure, endAt: '2026-03-10T12:00:00Z' } }),
    graphql: () => t.gql(CREATE_CLOSURE, { org: t.demo.organizations.clinic.id, input: { ...closure, endAt: '2026-03-10T12:00:00Z' } }),
  },
  unauthenticated: {
    rest: () => t.rest('GET', closuresPath(), { token: null }),
    graphql: () => t.gql('{ templates { id } }', {}, { token: null }),
  },
  forbidden: {
    rest: async () => t.rest('POST', closuresPath(), { json: closure, token: await t.accessToken('clinicReadOnly') }),
    graphql: async () =>
      t.gql(CREATE_CLOSURE, { org: t.demo.organizations.clinic.id, input: closure }, { token: await t.accessToken('clinicReadOnly') }),
  },
  not_found: {
    rest: () => t.rest('GET', `/v1/organizations/${MISSING}/closures`),
    graphql: () => t.gql(CREATE_CLOSURE, { org: MISSING, input: closure }),
  },
  method_not_allowed: { rest: () => t.rest('PATCH', '/v1/templates', { json: {} }) },
  conflict: {
    rest: async () => {
      await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/special-hours`, { json: specialDay });
      return t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/special-hours`, { json: specialDay });
    },
    graphql: async () => {
      await t.gql(CREATE_SPECIAL, { org: t.demo.organizations.clinic.id, input: specialDay });
      return t.gql(CREATE_SPECIAL, { org: t.demo.organizations.clinic.id, input: specialDay });
    },
  },
  idempotency_key_in_use: {
    rest: async () => {
      await t.rest('POST', closuresPath(), { json: closure, headers: { 'Idempotency-Key': 'busy' } });
      await inFlight(t, 'busy');
      return t.rest('POST', closuresPath(), { json: closure, headers: { 'Idempotency-Key': 'busy' } });
    },
    graphql: async () => {
      const variables = { org: t.demo.organizations.clinic.id, input: closure };
      await t.gql(CREATE_CLOSURE, variables, { headers: { 'Idempotency-Key': 'gql-busy' } });
      await inFlight(t, 'gql-busy');
      return t.gql(CREATE_CLOSURE, variables, { headers: { 'Idempotency-Key': 'gql-busy' } });
    },
  },
  payload_too_large: {
    rest: () =>
      t.rest('POST', closuresPath(), {
        raw: { body: JSON.stringify({ description: 'x'.repeat(1_100_000) }), contentType: 'application/json' },
      }),
    graphql: () => rawGraphQL(JSON.stringify({ query: `{ templates { id } } #${'x'.repeat(1_100_000)}` }), 'application/json'),
  },
  unsupported_media_type: {
    rest: () => t.rest('POST', closuresPath(), { raw: { body: '<x/>', contentType: 'application/xml' } }),
    graphql: () => rawGraphQL('<x/>', 'application/xml'),
  },
  idempotency_key_reused: {
    rest: async () => {
      await t.rest('POST', closuresPath(), { json: closure, headers: { 'Idempotency-Key': 'once' } });
      return t.rest('POST', closuresPath(), { json: { ...closure, description: 'Another' }, headers: { 'Idempotency-Key': 'once' } });
    },
    graphql: async () => {
      await t.gql(CREATE_CLOSURE, { org: t.demo.organizations.clinic.id, input: closure }, { headers: { 'Idempotency-Key': 'gql-once' } });
      return t.gql(
        CREATE_CLOSURE,
        { org: t.demo.organizations.clinic.id, input: { ...closure, description: 'Another' } },
        { headers: { 'Idempotency-Key': 'gql-once' } },
      );
    },
  },
  outside_call_window: {
    rest: () => t.rest('POST', '/v1/call-requests', { json: callBody(tokyoTonight) }),
    graphql: () => t.gql(CREATE_CALL, { input: callBody(tokyoTonight) }),
  },
  suppressed: {
    rest: async () => {
      await t.rest('POST', '/v1/suppressions', { json: { number: callBody({}).to } });
      return t.rest('POST', '/v1/call-requests', { json: callBody({}) });
    },
    graphql: async () => {
      await t.gql('mutation($n: String!) { addSuppression(number: $n) { number } }', { n: callBody({}).to });
      return t.gql(CREATE_CALL, { input: callBody({}) });
    },
  },
  consent_required: {
    rest: () => t.rest('POST', '/v1/call-requests', { json: callBody({ purpose: 'marketing' }) }),
    graphql: () => t.gql(CREATE_CALL, { input: callBody({ purpose: 'marketing' }) }),
  },
  call_window_closed: {
    rest: async () => {
      const { id, leaseId } = await startedTooLate();
      return t.rest('POST', `/v1/call-requests/${id}/start`, { json: { leaseId } });
    },
    graphql: async () => {
      const { id, leaseId } = await startedTooLate();
      return t.gql('mutation($id: ID!, $leaseId: ID!) { startCallRequest(id: $id, leaseId: $leaseId) { id } }', { id, leaseId });
    },
  },
  rate_limited: {
    // a queued call request polled again within the minimum poll interval (docs/decisions.md, call requests)
    rest: async () => {
      await t.rest('GET', `/v1/call-requests/${t.demo.callRequests.clinic.queued}`);
      return t.rest('GET', `/v1/call-requests/${t.demo.callRequests.clinic.queued}`);
    },
  },
};

describe('error codes: each kind of error carries its catalogue code on REST and GraphQL', () => {
  const entries = ERROR_CATALOGUE.filter((e) => e.rest !== null && Object.hasOwn(rows, e.rest));

  it.each(entries.map((e) => [e.rest!, e] as const))('%s', async (code, entry) => {
    t.clock.set('2026-03-09T12:00:00Z');
    const row = rows[code]!;
    const rest = await row.rest();
    expect(rest.status, JSON.stringify(rest.body)).toBe(entry.status);
    expect(rest.body).toMatchObject({ success: false, data: {}, message: expect.any(String), code });
    if (!row.graphql) return;
    expect(entry.graphql, `${code} has a GraphQL row but no GraphQL code in the catalogue`).not.toBeNull();
    const graphql = await row.graphql();
    expect(graphql.body.errors?.[0]?.extensions?.code, JSON.stringify(graphql.body)).toBe(entry.graphql);
  });

  it('covers every REST code the app itself answers (the rest are refused before it, tested elsewhere)', () => {
    const elsewhere = new Set(['request_timeout', 'uri_too_long', 'header_fields_too_large', 'internal_error', 'unavailable']);
    const uncovered = ERROR_CATALOGUE.flatMap((e) =>
      e.rest !== null && !Object.hasOwn(rows, e.rest) && !elsewhere.has(e.rest) ? [e.rest] : [],
    );
    expect(uncovered).toEqual([]);
  });
});
