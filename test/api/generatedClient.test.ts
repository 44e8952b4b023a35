// A client generated from GET /v1/openapi.json drives the integrator flow of docs/rest.md against a running
// server (a real socket on 127.0.0.1, on a free port): openapi-typescript generates the types into
// test/generated/openapi.ts (`npm run openapi:types`, run by `npm install` and `npm run typecheck`) and
// openapi-fetch sends the requests. `npm run typecheck` checks every call below against the document: a
// path, parameter, body field or answer field that the document does not have breaks the build.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../generated/openapi.js';
import { OpenApiValidator } from '../support/openApiValidator.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

let server: Server;
let baseUrl: string;
let documented: Middleware;

beforeAll(async () => {
  // the harness's app (its database, demo data and fake clock) behind a real HTTP server
  await t.app.ready();
  server = createServer((request, response) => t.app.listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // every answer the client gets is also checked against the document the server serves
  const validator = new OpenApiValidator((await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Record<string, unknown>);
  documented = {
    async onResponse({ request, response }) {
      const text = await response.clone().text();
      const { pathname } = new URL(request.url);
      const problems = validator.check({
        method: request.method,
        path: pathname,
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: text ? JSON.parse(text) : undefined,
      });
      if (problems.length > 0) throw new Error(`The answer does not match the OpenAPI document:\n${problems.join('\n')}`);
    },
  };
});

/** A client for the running server, its answers checked against the document. */
function client(headers: Record<string, string> = {}): Client<paths> {
  const api = createClient<paths>({ baseUrl, headers });
  api.use(documented);
  return api;
}

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
});

/** Step 1 of docs/rest.md: an access token for the clinic's OAuth client, then a client that sends it. */
async function authorizedClient(): Promise<Client<paths>> {
  const anonymous = client();
  const { clientId, clientSecret } = t.demo.oauthClients.clinic;
  const { data, error } = await anonymous.POST('/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: t.demo.oauthAudience },
  });
  expect(error).toBeUndefined();
  expect(data!.token_type).toBe('Bearer');
  expect(data!.scope.split(' ')).toContain('closures:write');
  return client({ Authorization: `Bearer ${data!.access_token}` });
}

describe('the integrator flow through a generated client (openapi-typescript + openapi-fetch)', () => {
  it('refuses a wrong secret with the documented OAuth error', async () => {
    const anonymous = client();
    const { data, error, response } = await anonymous.POST('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: t.demo.oauthClients.clinic.clientId,
        client_secret: 'wrong',
        audience: t.demo.oauthAudience,
      },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error!.error).toBe('invalid_client');
  });

  it('creates, updates, lists and deletes a closure', async () => {
    const api = await authorizedClient();
    const orgId = t.demo.organizations.clinic.id;

    const created = await api.POST('/v1/organizations/{orgId}/closures', {
      params: { path: { orgId } },
      body: {
        description: 'Team training',
        startAt: '2026-03-10T13:00:00Z',
        endAt: '2026-03-10T17:00:00Z',
        chatGreeting: null,
        phoneGreeting: 'We are in training until 1 pm; please call back.',
      },
    });
    const closure = created.data!.data;
    expect('startAt' in closure && closure.startAt).toBe('2026-03-10T13:00:00Z');

    const updated = await api.POST('/v1/organizations/{orgId}/closures/{closureId}', {
      params: { path: { orgId, closureId: closure.id } },
      body: { description: 'Independence Day', annualDate: { month: 7, day: 4 } },
    });
    const annual = updated.data!.data;
    expect('annualDate' in annual ? annual.annualDate : null).toEqual({ month: 7, day: 4 });
    expect(annual.phoneGreeting).toBe('We are in training until 1 pm; please call back.'); // omitted greetings are kept

    const listed = await api.GET('/v1/organizations/{orgId}/closures', { params: { path: { orgId } } });
    expect(listed.data!.data.closures.map((c) => c.description)).toEqual(['Independence Day']);

    const deleted = await api.DELETE('/v1/organizations/{orgId}/closures/{closureId}', {
      params: { path: { orgId, closureId: closure.id } },
    });
    expect(deleted.data!.data).toEqual({ id: closure.id, deleted: true });

    const gone = await api.GET('/v1/organizations/{orgId}/closures/{closureId}', { params: { path: { orgId, closureId: closure.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ success: false, data: {}, message: 'Closure not found' });
  });

  it('sets office hours and reads the availability they give', async () => {
    const api = await authorizedClient();
    const orgId = t.demo.organizations.clinic.id;
    const set = await api.POST('/v1/organizations/{orgId}/office-hours', {
      params: { path: { orgId } },
      body: {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
        breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch until 1 pm.' }],
      },
    });
    expect(set.data!.data).toMatchObject({ dayOfWeek: 'MONDAY', open: '09:00', close: '17:00' });

    const monday = await api.GET('/v1/organizations/{orgId}/office-hours', { params: { path: { orgId }, query: { dayOfWeek: 'MONDAY' } } });
    expect(monday.data!.data.officeHours).toEqual([set.data!.data]);

    const phoneNumberId = t.demo.phoneNumbers.clinic[0]!;
    const at = async (instant: string) =>
      (
        await api.GET('/v1/organizations/{orgId}/availability', {
          params: { path: { orgId }, query: { at: instant, medium: 'PHONE', phoneNumberId } },
        })
      ).data!.data;
    const open = await at('2026-03-09T13:30:00Z'); // Monday 09:30 in New York
    expect(open).toMatchObject({ state: 'OPEN', officeOpen: true, localTime: '2026-03-09T09:30', nextChangeAt: '2026-03-09T16:00:00Z' });
    expect(open.greeting).toBe('Thanks for calling Downtown main line, how can I help?');
    const lunch = await at('2026-03-09T16:30:00Z');
    expect(lunch).toMatchObject({
      state: 'BREAK',
      greeting: 'We are at lunch until 1 pm.',
      break: { start: '12:00', end: '13:00', reason: 'Lunch' },
    });
  });

  it('polls a call request within the minimum interval, and reads a failure as data', async () => {
    const api = await authorizedClient();
    t.clock.set(new Date());
    const callRequestId = t.demo.callRequests.clinic.queued;
    const poll = () => api.GET('/v1/call-requests/{callRequestId}', { params: { path: { callRequestId } } });

    const first = await poll();
    expect(first.data!.data).toMatchObject({ callRequestId, status: 'queued', finishedAt: null, error: null });
    const tooSoon = await poll();
    expect(tooSoon.response.status).toBe(429);
    const retryAfter = Number(tooSoon.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(tooSoon.error!.success).toBe(false);
    t.clock.advance(retryAfter * 1000);
    expect((await poll()).data!.data.status).toBe('queued');

    const failed = await api.GET('/v1/call-requests/{callRequestId}', {
      params: { path: { callRequestId: t.demo.callRequests.clinic.failed } },
    });
    expect(failed.data!.data).toMatchObject({ status: 'failed', error: { category: 'request', code: 'target_unavailable' } });
  });

  it('pages through the conversations', async () => {
    const api = await authorizedClient();
    const seen: string[] = [];
    let offset = 0;
    let total = Infinity;
    while (offset < total) {
      const page = await api.GET('/v1/conversations', { params: { query: { offset, limit: 15 } } });
      const { conversations, pagination } = page.data!.data;
      total = pagination.totalCount;
      seen.push(...conversations.map((c) => c.conversationId));
      offset += pagination.limit;
    }
    const { total: all, archived } = t.demo.conversations.clinic;
    expect(seen).toHaveLength(all - archived);
    expect(new Set(seen).size).toBe(seen.length);

    const misspelt = await api.GET('/v1/conversations', { params: { query: { limit: 500 } } });
    expect(misspelt.response.status).toBe(400);
    expect(misspelt.error!.message).toContain('limit');
  });
});
