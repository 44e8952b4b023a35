import { describe, expect, it } from 'vitest';
import { DatabaseGate } from '../../src/db/gate.js';
import { useTestApp } from '../support/testApp.js';
import { createApp } from '../../src/app.js';

const t = useTestApp();

describe('envelope and routing', () => {
  it('answers an organization in the envelope', async () => {
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ id: t.demo.organizations.clinic.id, timezone: 'America/New_York', isAccount: false });
  });

  it('answers 404 in the envelope for an unknown route', async () => {
    const res = await t.rest('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, data: {}, code: 'not_found', message: expect.stringContaining('/v1/nothing-here') });
  });

  it('answers / with the links a newcomer starts from: a page for a browser, JSON otherwise', async () => {
    const page = await t.rest('GET', '/', { token: null, headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const href of ['/v1/docs', '/v1/openapi.json', '/graphql', '/portal', '/healthz']) expect(page.body).toContain(`href="${href}"`);
    const json = await t.rest('GET', '/', { token: null });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({
      name: 'Office Communications Service',
      links: { docs: '/v1/docs', openapi: '/v1/openapi.json', graphql: '/graphql', portal: '/portal', health: '/healthz' },
    });
    const post = await t.rest('POST', '/', { token: null });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const res = await t.rest('DELETE', `/v1/organizations/${t.demo.organizations.clinic.id}/disable`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.success).toBe(false);
  });
});

describe('request bodies on a write route', () => {
  const path = () => `/v1/organizations/${t.demo.organizations.clinic.id}/disable`;

  it('answers 415 in the envelope for an unsupported content type', async () => {
    const res = await t.rest('POST', path(), { raw: { body: '<x/>', contentType: 'application/xml' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      success: false,
      data: {},
      code: 'unsupported_media_type',
      message: expect.stringContaining('application/xml'),
    });
  });

  it('answers 400 in the envelope for malformed JSON, and changes nothing', async () => {
    const res = await t.rest('POST', path(), { raw: { body: '{"oops":', contentType: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, data: {}, code: 'malformed_request', message: 'The body is not valid JSON' });
    const org = await t.db.prisma.organization.findUniqueOrThrow({ where: { id: t.demo.organizations.clinic.id } });
    expect(org.communicationsEnabled).toBe(true);
  });

  it('says to send Content-Type: application/json when JSON comes as a form (curl -d), and changes nothing', async () => {
    const closures = `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
    const body = JSON.stringify({ description: 'Staff training', startAt: '2026-12-01T09:00:00Z', endAt: '2026-12-01T12:00:00Z' });
    const before = await t.db.prisma.closure.count();
    const res = await t.rest('POST', closures, { raw: { body, contentType: 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false, code: 'unsupported_media_type' });
    expect(res.body.message).toContain('send the header Content-Type: application/json');
    expect(await t.db.prisma.closure.count()).toBe(before);
    // a form is still a form
    const form = await t.rest('POST', path(), { form: {} });
    expect(form.status).toBe(200);
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/enable`);
  });

  it('answers 413 in the envelope over 1 MiB', async () => {
    const res = await t.rest('POST', path(), {
      raw: { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }), contentType: 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
  });

  it('authenticates before it reads the body', async () => {
    const res = await t.rest('POST', path(), { token: null, raw: { body: '<x/>', contentType: 'application/xml' } });
    expect(res.status).toBe(401);
  });
});

// found by the fuzzer: graphql-yoga answered these two with an empty body
describe('GraphQL requests it cannot read or answer', () => {
  it('answers 415 with a GraphQL error for an unsupported content type', async () => {
    const res = await t.rest('POST', '/graphql', {
      raw: { body: '{"query":"{ viewer { scopes } }"}', contentType: 'application/octet-stream' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      errors: [
        {
          message: expect.stringContaining('application/octet-stream'),
          extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', requestId: res.headers.get('x-request-id') },
        },
      ],
    });
  });

  it('answers 406 with a GraphQL error when no accepted media type can be produced', async () => {
    const res = await t.rest('POST', '/graphql', { json: { query: '{ viewer { scopes } }' }, headers: { accept: 'application/xml' } });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({
      errors: [
        {
          message: expect.stringContaining('application/xml'),
          extensions: { code: 'NOT_ACCEPTABLE', requestId: res.headers.get('x-request-id') },
        },
      ],
    });
  });
});

describe('health and keys', () => {
  it('answers /healthz without credentials', async () => {
    const res = await t.rest('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok', redis: 'not configured' });
  });

  it('answers /healthz 503 naming the database when it does not answer', async () => {
    // a database that has not answered lately and does not answer the ping
    const gate = new DatabaseGate({ maxConcurrent: 1, maxWaiting: 1, queueTimeoutMs: 100, breakerMs: 1_000 });
    const app = createApp({
      ...t.deps,
      database: { ...t.deps.database, gate, ping: () => Promise.reject(new Error('connection refused')) },
    });
    const res = await app.fetch(new Request('http://127.0.0.1:4000/healthz'));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', database: 'unavailable', redis: 'not configured' });
  });
});
