// Idempotency keys (Stripe's semantics) on POST/PUT/PATCH of /v1 and on GraphQL mutations: one run per
// key, the first answer replayed, 422 for a key reused with another request, 409 while in flight.
import { describe, expect, it } from 'vitest';
import { buildSchema, isObjectType } from 'graphql';
import { readFileSync } from 'node:fs';
import { MUTATION_SCOPES } from '../../src/graphql/idempotentOperations.js';
import {
  answerIdempotently,
  type CapturedResponse,
  IDEMPOTENCY_KEY_TTL_MS,
  IN_FLIGHT_LEASE_MS,
  MAX_STORED_BODY_BYTES,
} from '../../src/idempotency/idempotentRequests.js';
import { graphql } from '../generated/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

const closure = {
  description: 'Staff training',
  chatGreeting: null,
  phoneGreeting: 'We are in training.',
  startAt: '2026-03-10T14:00:00Z',
  endAt: '2026-03-10T18:00:00Z',
};
const closuresPath = () => `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
const closureCount = () => t.db.prisma.closure.count({ where: { orgId: t.demo.organizations.clinic.id } });
const keyed = (key: string) => ({ 'Idempotency-Key': key });

const CreateClosure = graphql(`
  mutation IdempotentCreateClosure($orgId: ID!, $description: String!) {
    createClosure(
      orgId: $orgId
      input: { description: $description, annualDate: { month: 7, day: 4 }, chatGreeting: null, phoneGreeting: null }
    ) {
      id
      description
    }
  }
`);

const Viewer = graphql(`
  query IdempotencyViewer {
    viewer {
      scopes
    }
  }
`);

describe('Idempotency-Key on /v1', () => {
  it('runs the first request once and replays its answer (status, body) to the same request', async () => {
    const first = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('create-closure-1') });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('create-closure-1') });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request')).toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await closureCount()).toBe(1);
  });

  it('treats the same fields as the same request, whatever their order or the body encoding', async () => {
    const first = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('form-or-json') });
    const reordered = Object.fromEntries(
      Object.entries(closure)
        .reverse()
        .map(([k, v]) => [k, v ?? '']),
    );
    const again = await t.rest('POST', closuresPath(), { form: reordered as Record<string, string>, headers: keyed('form-or-json') });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await closureCount()).toBe(1);
  });

  it('answers 422 naming the key when it comes back with another body or path, and changes nothing', async () => {
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('reused-key') });
    const otherBody = await t.rest('POST', closuresPath(), { json: { ...closure, description: 'Other' }, headers: keyed('reused-key') });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.success).toBe(false);
    expect(otherBody.body.message).toContain('Idempotency-Key "reused-key"');
    expect(otherBody.body.message).toContain('POST /v1/organizations/');
    const otherPath = await t.rest('POST', '/v1/templates', { json: { name: 'x' }, headers: keyed('reused-key') });
    expect(otherPath.status).toBe(422);
    expect(await closureCount()).toBe(1);
    expect(await t.db.prisma.workflowTemplate.count({ where: { name: 'x' } })).toBe(0);
  });

  it('replays a 4xx answer too (the same request would fail the same way)', async () => {
    const first = await t.rest('POST', closuresPath(), {
      json: { ...closure, endAt: '2026-03-10T13:00:00Z' },
      headers: keyed('bad-closure'),
    });
    expect(first.status).toBe(400);
    const again = await t.rest('POST', closuresPath(), {
      json: { ...closure, endAt: '2026-03-10T13:00:00Z' },
      headers: keyed('bad-closure'),
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a malformed key with a 400 naming the header, before anything runs', async () => {
    for (const key of ['', '   ', 'with space', 'x'.repeat(256), 'naïve', 'tab\there']) {
      const res = await t.rest('POST', closuresPath(), { json: closure, headers: keyed(key) });
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.message).toMatch(/^Idempotency-Key: must be 1 to 255 visible ASCII characters/);
      expect(res.body.errors).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
    }
    expect((await t.rest('POST', closuresPath(), { json: closure, headers: keyed('x'.repeat(255)) })).status).toBe(200);
    expect(await closureCount()).toBe(1);
  });

  it('applies to PUT and PATCH, and ignores a key on GET and DELETE', async () => {
    const templateId = t.demo.templates.clinic[0]!;
    const put1 = await t.rest('PUT', `/v1/templates/${templateId}`, { json: { description: 'v2' }, headers: keyed('put-1') });
    const put2 = await t.rest('PUT', `/v1/templates/${templateId}`, { json: { description: 'v2' }, headers: keyed('put-1') });
    expect(put2.headers.get('idempotent-replayed')).toBe('true');
    expect(put2.body).toEqual(put1.body);
    const insurancePath = `/v1/organizations/${t.demo.organizations.clinic.id}/insurances/${t.demo.insurances.clinic[0]}`;
    await t.rest('PATCH', insurancePath, { json: { notes: 'a' }, headers: keyed('patch-1') });
    expect((await t.rest('PATCH', insurancePath, { json: { notes: 'b' }, headers: keyed('patch-1') })).status).toBe(422);
    const get1 = await t.rest('GET', closuresPath(), { headers: keyed('get-1') });
    const get2 = await t.rest('GET', closuresPath(), { headers: keyed('get-1') });
    expect([get1.status, get2.status]).toEqual([200, 200]);
    expect(get2.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys to the credential owner: two organizations may use the same key', async () => {
    const mine = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('shared-name') });
    const theirs = await t.rest('POST', `/v1/organizations/${t.demo.organizations.other.id}/closures`, {
      json: closure,
      token: t.demo.organizations.other.apiKey,
      headers: keyed('shared-name'),
    });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('answers 409 while the first request is in flight, and lets a retry take over a claim whose holder died', async () => {
    t.clock.set('2026-03-09T12:00:00Z');
    // a claim held by a request on another instance, still running: made by a real request, then put back in flight
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('in-flight') });
    await t.db.prisma.closure.deleteMany({});
    await t.db.prisma.idempotencyKey.updateMany({
      where: { key: 'in-flight' },
      data: { status: null, body: null, requestId: 'elsewhere', lockedUntil: new Date(t.clock.now().getTime() + IN_FLIGHT_LEASE_MS) },
    });
    const busy = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('in-flight') });
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body.message).toContain('Idempotency-Key "in-flight": a request with this key is still in progress');
    expect(await closureCount()).toBe(0);
    // the holder never finishes: after its lease, a retry runs the request
    t.clock.advance(IN_FLIGHT_LEASE_MS + 1);
    const retried = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('in-flight') });
    expect(retried.status).toBe(200);
    expect(await closureCount()).toBe(1);
    const replay = await t.rest('POST', closuresPath(), { json: closure, headers: keyed('in-flight') });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('forgets a key after 24 hours, and purges expired keys', async () => {
    t.clock.set('2026-03-09T12:00:00Z');
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('day-old') });
    t.clock.advance(IDEMPOTENCY_KEY_TTL_MS - 60_000);
    expect((await t.rest('POST', closuresPath(), { json: { ...closure, description: 'Other' }, headers: keyed('day-old') })).status).toBe(
      422,
    );
    t.clock.advance(120_000);
    const fresh = await t.rest('POST', closuresPath(), { json: { ...closure, description: 'Other' }, headers: keyed('day-old') });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('another') });
    // a day later, any keyed request purges what expired
    t.clock.advance(IDEMPOTENCY_KEY_TTL_MS + 60_000);
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('later') });
    expect((await t.db.prisma.idempotencyKey.findMany({ select: { key: true } })).map((r) => r.key)).toEqual(['later']);
  });

  it('20 concurrent POSTs with one key create exactly one closure; the others are replays or 409s, never a 5xx', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.rest('POST', closuresPath(), { json: closure, headers: keyed('stampede') })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const ran = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    const replayed = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === 'true');
    const busy = answers.filter((a) => a.status === 409);
    expect(ran).toHaveLength(1);
    expect(replayed.length + busy.length).toBe(19);
    for (const r of replayed) expect(r.body).toEqual(ran[0]!.body);
    expect(await closureCount()).toBe(1);
  });
});

describe('Idempotency-Key on GraphQL mutations', () => {
  const vars = () => ({ orgId: t.demo.organizations.clinic.id, description: 'Independence Day' });

  it('runs a keyed mutation once and replays its answer', async () => {
    const first = await t.gql(CreateClosure, vars(), { headers: keyed('gql-1') });
    expect(first.status).toBe(200);
    expect(first.body.data.createClosure.description).toBe('Independence Day');
    const again = await t.gql(CreateClosure, vars(), { headers: keyed('gql-1') });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request')).toBe(first.headers.get('x-request-id'));
    expect(await closureCount()).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for other variables, and for a key first used on /v1', async () => {
    await t.gql(CreateClosure, vars(), { headers: keyed('gql-reused') });
    const res = await t.gql(CreateClosure, { ...vars(), description: 'Other' }, { headers: keyed('gql-reused') });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].extensions).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED', requestId: res.headers.get('x-request-id') });
    expect(res.body.errors[0].message).toContain('Idempotency-Key "gql-reused"');
    await t.rest('POST', closuresPath(), { json: closure, headers: keyed('cross-surface') });
    expect((await t.gql(CreateClosure, vars(), { headers: keyed('cross-surface') })).status).toBe(422);
    expect(await closureCount()).toBe(2);
  });

  it('refuses a malformed key with BAD_USER_INPUT naming the header', async () => {
    const res = await t.gql(CreateClosure, vars(), { headers: keyed('with space') });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.issues).toEqual([{ path: 'Idempotency-Key', message: expect.stringContaining('visible ASCII') }]);
    expect(await closureCount()).toBe(0);
  });

  it('ignores a key on a query; an unauthenticated keyed mutation is a 401 and claims nothing', async () => {
    const q1 = await t.gql(Viewer, {}, { headers: keyed('query-key') });
    const q2 = await t.gql(Viewer, {}, { headers: keyed('query-key') });
    expect(q2.headers.get('idempotent-replayed')).toBeNull();
    expect(q2.body.data).toEqual(q1.body.data);
    // it ran again: it drew once more on its budget
    expect(q2.body.extensions.rateLimit.budgets[0].remaining).toBe(q1.body.extensions.rateLimit.budgets[0].remaining - 1);
    const anonymous = await t.gql(CreateClosure, vars(), { token: null, headers: keyed('anon') });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
  });

  it('20 concurrent keyed mutations create exactly one closure, never a 5xx', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.gql(CreateClosure, vars(), { headers: keyed('gql-stampede') })));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const ran = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    const others = answers.filter((a) => a !== ran[0]);
    for (const a of others) {
      if (a.status === 200) expect(a.body).toEqual(ran[0]!.body);
      else expect([a.status, a.body.errors[0].extensions.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    }
    expect(await closureCount()).toBe(1);
  });
});

describe('answers that are not worth replaying', () => {
  const request = () => ({
    ownerOrgId: t.demo.organizations.clinic.id,
    credential: 'apiKey:test',
    key: 'flaky',
    fingerprint: 'f',
    request: 'POST /v1/x',
    forReplay: (r: CapturedResponse) => r,
    tooLargeToStore: (r: { status: number }) => ({ status: r.status, body: '{"replaced":true}', contentType: 'application/json' }),
  });

  it('releases the key after a 5xx or a 429, so that a retry runs again; keeps a 4xx', async () => {
    let runs = 0;
    const answer = (status: number) => () => {
      runs++;
      return Promise.resolve({ status, body: `{"status":${status}}`, contentType: 'application/json' });
    };
    for (const status of [500, 503, 429, 401, 403]) {
      const outcome = await answerIdempotently(t.deps, request(), answer(status));
      expect(outcome).toEqual({ replayed: false, response: expect.objectContaining({ status }) });
      expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
    }
    await answerIdempotently(t.deps, request(), answer(404));
    const replay = await answerIdempotently(t.deps, request(), answer(200));
    expect(replay).toMatchObject({ replayed: true, response: { status: 404, body: '{"status":404}' } });
    expect(runs).toBe(6);
  });

  it('bounds what it stores: a large error releases the key, a large success is stored as a short replacement', async () => {
    const big = 'x'.repeat(MAX_STORED_BODY_BYTES + 1);
    await answerIdempotently(t.deps, request(), () => Promise.resolve({ status: 400, body: big, contentType: 'application/json' }));
    expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
    const first = await answerIdempotently(t.deps, request(), () =>
      Promise.resolve({ status: 201, body: big, contentType: 'application/json' }),
    );
    expect(first.response.body).toBe(big); // the first answer goes out whole
    const replay = await answerIdempotently(t.deps, request(), () =>
      Promise.resolve({ status: 500, body: '', contentType: 'application/json' }),
    );
    expect(replay).toMatchObject({ replayed: true, response: { status: 201, body: '{"replaced":true}' } });
  });

  it('releases the key when the request throws, and a GraphQL answer made only of retryable errors', async () => {
    await expect(answerIdempotently(t.deps, request(), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
    const limited = JSON.stringify({
      errors: [{ message: 'limited', extensions: { code: 'RATE_LIMITED' } }],
      data: { createClosure: null },
    });
    const { onlyRetryableErrors } = await import('../../src/graphql/idempotentOperations.js');
    expect(onlyRetryableErrors(limited)).toBe(true);
    expect(
      onlyRetryableErrors(
        JSON.stringify({ errors: [{ message: 'limited', extensions: { code: 'RATE_LIMITED' } }], data: { a: null, b: { id: 1 } } }),
      ),
    ).toBe(false);
    expect(onlyRetryableErrors(JSON.stringify({ errors: [{ message: 'nope', extensions: { code: 'NOT_FOUND' } }], data: null }))).toBe(
      false,
    );
  });
});

describe('a key is answered only to a credential that may make the request', () => {
  const template = { name: 'Scoped', description: 'd' };

  it('REST: a refusal for a missing scope is not stored, and a stored answer is not replayed to a weaker credential', async () => {
    const readOnly = await t.accessToken('clinicReadOnly');
    const full = await t.accessToken('clinic');
    const refused = await t.rest('POST', '/v1/templates', { token: readOnly, json: template, headers: keyed('K1') });
    expect(refused.status).toBe(403);
    expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
    const created = await t.rest('POST', '/v1/templates', { token: full, json: template, headers: keyed('K1') });
    expect(created.status).toBe(200);
    expect(created.headers.get('idempotent-replayed')).toBeNull();

    const again = await t.rest('POST', '/v1/templates', { token: readOnly, json: template, headers: keyed('K1') });
    expect(again.status).toBe(403);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(again.body)).not.toContain(created.body.data.id);
    // the credential that may is replayed to
    const replay = await t.rest('POST', '/v1/templates', { token: full, json: template, headers: keyed('K1') });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.data.id]).toEqual([200, 'true', created.body.data.id]);
  });

  it('GraphQL: the scopes of the mutation fields are checked before the key is claimed or replayed', async () => {
    const readOnly = await t.accessToken('clinicReadOnly');
    const variables = { orgId: t.demo.organizations.clinic.id, description: 'Scoped' };
    const before = await closureCount();
    const refused = await t.gql(CreateClosure, variables, { token: readOnly, headers: keyed('G1') });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await t.db.prisma.idempotencyKey.count()).toBe(0);
    const created = await t.gql(CreateClosure, variables, { headers: keyed('G1') });
    expect(created.body.data.createClosure.description).toBe('Scoped');
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    const again = await t.gql(CreateClosure, variables, { token: readOnly, headers: keyed('G1') });
    expect(again.status).toBe(403);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(again.body)).not.toContain(created.body.data.createClosure.id);
    expect(await closureCount()).toBe(before + 1);
  });

  it('every Mutation field has its scope in MUTATION_SCOPES, the one its description names', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const mutation = schema.getMutationType();
    expect(isObjectType(mutation)).toBe(true);
    const declared = Object.fromEntries(
      Object.values(mutation!.getFields()).map((f) => [f.name, /Scope ([a-z-]+:[a-z]+)\./.exec(f.description ?? '')?.[1]]),
    );
    expect(MUTATION_SCOPES).toEqual(declared);
  });
});

describe('what a key stores is bounded', () => {
  it('a success larger than a replay keeps is replayed as a short answer naming the request', async () => {
    const variables = Array.from({ length: 100 }, (_, i) => ({ name: `v${i}`, description: 'd'.repeat(1_000) }));
    const first = await t.rest('POST', '/v1/templates', { json: { name: 'Large', variables }, headers: keyed('L1') });
    expect(first.status).toBe(200);
    expect(first.body.data.variables).toHaveLength(100);
    const stored = await t.db.prisma.idempotencyKey.findFirstOrThrow();
    expect(stored.body!.length).toBeLessThan(1_000);
    const replay = await t.fetch('/v1/templates', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json', ...keyed('L1') },
      body: JSON.stringify({ name: 'Large', variables }),
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const body = await replay.json();
    expect(body.message).toContain(first.headers.get('x-request-id'));
    expect(await t.db.prisma.workflowTemplate.count({ where: { name: 'Large' } })).toBe(1);
  });
});
