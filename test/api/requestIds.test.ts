// Request ids: X-Request-Id on every answer (a sane incoming one kept), in every log line of the
// request (also from code that is not handed the id), in GraphQL errors, and in the message of a 500.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An app whose log lines are kept, and (optionally) whose database fails on conversations, as a bug would. */
function instrumentedApp(options: { brokenConversations?: boolean } = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  const db = options.brokenConversations
    ? new Proxy(t.deps.db, {
        get: (target, prop, receiver) =>
          prop === 'conversation'
            ? new Proxy(
                {},
                {
                  get: () => () => {
                    throw new TypeError("Cannot read properties of undefined (reading 'startTime')");
                  },
                },
              )
            : Reflect.get(target, prop, receiver),
      })
    : t.deps.db;
  const app = createApp({ ...t.deps, db, logger });
  const call = (path: string, init: RequestInit = {}) =>
    Promise.resolve(
      app.fetch(
        new Request(`http://127.0.0.1${path}`, {
          ...init,
          headers: {
            authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
            'content-type': 'application/json',
            ...(init.headers as Record<string, string>),
          },
        }),
      ),
    );
  return { lines, call };
}

describe('X-Request-Id', () => {
  it('is on every answer: success, errors, unknown routes, GraphQL, OAuth, health', async () => {
    const answers = [
      await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`),
      await t.rest('GET', `/v1/organizations/${t.demo.organizations.other.id}`),
      await t.rest('GET', '/v1/organizations', { token: null }),
      await t.rest('GET', '/v1/nowhere'),
      await t.rest('PUT', '/v1/conversations'),
      await t.rest('POST', '/v1/templates', { raw: { body: '{', contentType: 'application/json' } }),
      await t.rest('GET', '/healthz', { token: null }),
      await t.rest('POST', '/oauth/token', { token: null, json: {} }),
      await t.gql('{ viewer { scopes } }'),
      await t.rest('POST', '/graphql', { raw: { body: '{', contentType: 'application/json' } }),
    ];
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps a sane incoming id and replaces anything else', async () => {
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    for (const sane of ['req_0123456789abcdef', '01HZY3W6V8M4Q0J5K6N7P8R9ST', 'lb-1.2:trace-9', 'x'.repeat(128)]) {
      expect((await t.rest('GET', path, { headers: { 'X-Request-Id': sane } })).headers.get('x-request-id')).toBe(sane);
    }
    for (const insane of ['x'.repeat(129), 'two words', '"quoted"', 'a,b', '{"level":"error"}', 'naïve', '']) {
      const id = (await t.rest('GET', path, { headers: { 'X-Request-Id': insane } })).headers.get('x-request-id');
      expect(id, insane).toMatch(UUID);
    }
  });

  it('is in every log line of the request, also those written by code it was not handed to', async () => {
    const { lines, call } = instrumentedApp();
    // an expired idempotency key: the keyed request purges it, and the purge logs (at debug) from deep below the router
    await t.db.prisma.idempotencyKey.create({
      data: {
        ownerOrgId: t.demo.organizations.clinic.id,
        key: 'old',
        fingerprint: 'f',
        request: 'POST /v1/templates',
        requestId: 'r',
        status: 200,
        createdAt: new Date(0),
        expiresAt: new Date(1),
      },
    });
    const res = await call('/v1/templates', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'new', 'X-Request-Id': 'trace-42' },
      body: JSON.stringify({ name: 'Logged' }),
    });
    expect(res.status).toBe(200);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['expired idempotency keys purged', 'request']));
    for (const line of lines) expect(line.requestId, JSON.stringify(line)).toBe('trace-42');
  });
});

describe('request ids in errors', () => {
  it('puts the id in extensions.requestId of every GraphQL error', async () => {
    const cases = [
      await t.gql('{ nope }'), // validation
      await t.gql('{ viewer { '), // syntax
      await t.gql('query($id: ID!) { organization(id: $id) { id } }', { id: t.demo.organizations.other.id }), // domain: NOT_FOUND
      await t.gql('{ viewer { scopes } }', {}, { token: null }), // UNAUTHENTICATED
      await t.gql('{ conversations(limit: 0) { items { topic } } }'), // BAD_USER_INPUT
    ];
    for (const res of cases) {
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const error of res.body.errors) expect(error.extensions.requestId, JSON.stringify(error)).toBe(res.headers.get('x-request-id'));
    }
  });

  it('names the id in the message of a 500, on both surfaces, and logs the cause with it', async () => {
    const { lines, call } = instrumentedApp({ brokenConversations: true });
    const rest = await call('/v1/conversations', { headers: { 'X-Request-Id': 'ticket-7' } });
    expect(rest.status).toBe(500);
    expect(await rest.json()).toEqual({
      success: false,
      data: {},
      code: 'internal_error',
      message: 'Internal server error; quote request id ticket-7 when reporting it',
    });
    const gql = await call('/graphql', {
      method: 'POST',
      headers: { 'X-Request-Id': 'ticket-8' },
      body: JSON.stringify({ query: '{ conversations { items { topic } } }' }),
    });
    const body = (await gql.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors[0]).toMatchObject({
      message: 'Internal server error; quote request id ticket-8 when reporting it',
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'ticket-8' },
    });
    // the cause is in the log, under the id the caller was told (the message never shows it)
    for (const id of ['ticket-7', 'ticket-8']) {
      expect(lines.some((l) => l.requestId === id && l.level === 'error' && String(l.error).includes("reading 'startTime'"))).toBe(true);
    }
    expect(JSON.stringify(body)).not.toContain('startTime');
  });
});
