// Placing calls (POST /v1/call-requests, createCallRequest), canceling and listing them, on both surfaces (polling: callRequests.test.ts).
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/testApp.js';
import type { Schemas } from '../support/apiTypes.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED } });

const NOW = '2026-03-02T15:00:00Z';

function callBody(t: TestApp, extra: Record<string, unknown> = {}) {
  return { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006', ...extra };
}

async function place(t: TestApp, extra: Record<string, unknown> = {}, token?: string) {
  const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t, extra), ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const CREATE = `mutation($input: CreateCallRequestInput!) {
  createCallRequest(input: $input) { id status to officeHoursOnly expiresAt notBefore metadata { key value } botId phoneNumberId orgId }
}`;

/** Call requests placed by a case (the demo's own left out). */
const placed = (where: { to?: string } = {}) =>
  t.deps.db.callRequest.count({
    where: { ...where, id: { notIn: [...Object.values(t.demo.callRequests.clinic), t.demo.callRequests.other.queued] } },
  });

describe('placing a call', () => {
  it('queues it with the defaults (expires in 24 h) and answers it when polled (REST)', async () => {
    t.clock.set(NOW);
    const data = await place(t, { metadata: { patient: 'P-17', reason: 'recall' } });
    expect(data).toMatchObject({
      status: 'queued',
      orgId: t.demo.organizations.clinic.id,
      botId: t.demo.bots.clinic[0],
      phoneNumberId: t.demo.phoneNumbers.clinic[0],
      to: '+15005550006',
      createdAt: '2026-03-02T15:00:00.000Z',
      expiresAt: '2026-03-03T15:00:00.000Z',
      notBefore: null,
      officeHoursOnly: false,
      metadata: { patient: 'P-17', reason: 'recall' },
      claims: 0,
      attempts: [],
      conversationId: null,
      error: null,
      finishedAt: null,
    });
    const polled = await t.rest('GET', `/v1/call-requests/${data.callRequestId}`);
    expect(polled.body.data).toEqual(data);
  });

  it('queues it on GraphQL with the same rules and answer', async () => {
    t.clock.set(NOW);
    const res = await t.gql(CREATE, {
      input: { ...callBody(t), notAfter: '2026-03-02T18:00:00Z', officeHoursOnly: false, metadata: [{ key: 'patient', value: 'P-17' }] },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createCallRequest).toMatchObject({
      status: 'queued',
      to: '+15005550006',
      expiresAt: '2026-03-02T18:00:00.000Z',
      metadata: [{ key: 'patient', value: 'P-17' }],
      orgId: t.demo.organizations.clinic.id,
    });
  });

  it.each([
    [{ to: '15005550006' }, 'to: must be a phone number in E.164 form'],
    [{ to: '+1500555000' }, 'to: is not a valid phone number'],
    [{ to: '+999123456789' }, 'to: is not a valid phone number'],
    [{ notAfter: '2026-03-02T14:00:00Z' }, 'notAfter: must be in the future'],
    [{ notAfter: '2026-05-02T14:00:00Z' }, 'notAfter: must be at most 30 days ahead'],
    [{ notBefore: '2026-03-02T20:00:00Z', notAfter: '2026-03-02T19:00:00Z' }, 'notBefore: must be before notAfter'],
    [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata: must have at most 20 entries'],
    [{ metadata: { n: 1 } }, 'metadata.n: values must be strings'],
    [{ metadata: { n: 'a\u0000b' } }, 'metadata.n: must not contain NUL characters'],
    [{ metadata: { 'a b': 'x' } }, 'keys are 1 to 64 letters'],
    [{ unknown: 1 }, 'unknown'],
  ])('refuses %j with a 400 naming the field, on both surfaces', async (extra, message) => {
    t.clock.set(NOW);
    const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t, extra) });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    if (!('unknown' in extra) && !('metadata' in extra)) {
      const gql = await t.gql(CREATE, { input: { ...callBody(t), ...extra } });
      expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(gql.body.errors[0].message).toContain(message);
    }
    expect(await placed()).toBe(0);
  });

  it('refuses a number not attached to the bot (400) and a disabled organization (409)', async () => {
    t.clock.set(NOW);
    const unattached = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { phoneNumberId: t.demo.phoneNumbers.clinic[1] }) });
    expect(unattached.status).toBe(400);
    expect(unattached.body.message).toContain('phoneNumberId: is not attached to this bot');
    await t.rest('POST', `/v1/organizations/${t.demo.organizations.clinic.id}/disable`);
    const disabled = await t.rest('POST', '/v1/call-requests', { json: callBody(t) });
    expect(disabled.status).toBe(409);
    expect(disabled.body).toMatchObject({ success: false, data: {} });
    expect(disabled.body.message).toContain('communications disabled');
    const gql = await t.gql(CREATE, { input: callBody(t) });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it("answers 404 for another tenant's bot or number, as for unknown ones", async () => {
    t.clock.set(NOW);
    const foreignBot = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { botId: t.demo.bots.other[0] }) });
    const unknownBot = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { botId: '00000000-0000-4000-8000-000000000000' }) });
    expect(foreignBot.status).toBe(404);
    expect(foreignBot.body).toEqual(unknownBot.body);
    const foreignNumber = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { phoneNumberId: t.demo.phoneNumbers.other[0] }) });
    expect(foreignNumber.status).toBe(404);
    expect(foreignNumber.body.message).toBe('Phone number not found');
  });

  it('answers the first answer again for a repeated Idempotency-Key, placing one call', async () => {
    t.clock.set(NOW);
    const headers = { 'idempotency-key': 'place-call-1' };
    // the demo's requests were created at the real time, after these: the range leaves them out
    const first = await t.rest('POST', '/v1/call-requests', { json: callBody(t), headers });
    const again = await t.rest('POST', '/v1/call-requests', { json: callBody(t), headers });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await placed({ to: '+15005550006' })).toBe(1);
  });

  it('needs call-requests:write: the read-only client is refused', async () => {
    const token = await t.accessToken('clinicReadOnly');
    const res = await t.rest('POST', '/v1/call-requests', { json: callBody(t), token });
    expect(res.status).toBe(403);
  });
});

describe('canceling a call', () => {
  it('cancels a queued call once; a finished one is a 409 (REST and GraphQL)', async () => {
    t.clock.set(NOW);
    const { callRequestId } = await place(t);
    const res = await t.rest('POST', `/v1/call-requests/${callRequestId}/cancel`);
    expect(res.body.data).toMatchObject({ status: 'canceled', finishedAt: '2026-03-02T15:00:00.000Z' });
    const again = await t.rest('POST', `/v1/call-requests/${callRequestId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('is canceled');
    const gql = await t.gql('mutation($id: ID!) { cancelCallRequest(id: $id) { status } }', { id: callRequestId });
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    const other = await place(t);
    const gqlOk = await t.gql('mutation($id: ID!) { cancelCallRequest(id: $id) { status finishedAt } }', { id: other.callRequestId });
    expect(gqlOk.body.data.cancelCallRequest.status).toBe('canceled');
  });

  it("answers 404 for another tenant's request", async () => {
    const res = await t.rest('POST', `/v1/call-requests/${t.demo.callRequests.other.queued}/cancel`);
    expect(res.status).toBe(404);
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id: t.demo.callRequests.other.queued } })).status).toBe('queued');
  });
});

describe('listing calls', () => {
  it('pages newest first by cursor, with status, bot and creation-time filters, on both surfaces', async () => {
    const ids: string[] = [];
    // the second bot calls from the second number
    await t.rest('POST', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}/attach`, { json: { botId: t.demo.bots.clinic[1] } });
    for (let i = 0; i < 5; i++) {
      t.clock.set(new Date(Date.parse(NOW) + i * 60_000));
      ids.push(
        (await place(t, i === 4 ? { botId: t.demo.bots.clinic[1], phoneNumberId: t.demo.phoneNumbers.clinic[1] } : {})).callRequestId,
      );
    }
    await t.rest('POST', `/v1/call-requests/${ids[1]}/cancel`);
    const first = await t.rest('GET', '/v1/call-requests?limit=2&createdFrom=2026-03-02T15:00:00Z&createdTo=2026-03-03T00:00:00Z');
    expect(first.body.data.callRequests.map((c: Schemas['CallRequest']) => c.callRequestId)).toEqual([ids[4], ids[3]]);
    const second = await t.rest(
      'GET',
      `/v1/call-requests?limit=2&createdFrom=2026-03-02T15:00:00Z&createdTo=2026-03-03T00:00:00Z&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`,
    );
    expect(second.body.data.callRequests.map((c: Schemas['CallRequest']) => c.callRequestId)).toEqual([ids[2], ids[1]]);
    const canceled = await t.rest('GET', '/v1/call-requests?status=canceled');
    expect(canceled.body.data.callRequests.map((c: Schemas['CallRequest']) => c.callRequestId)).toEqual([ids[1]]);
    const byBot = await t.rest('GET', `/v1/call-requests?botId=${t.demo.bots.clinic[1]}`);
    expect(byBot.body.data.callRequests.map((c: Schemas['CallRequest']) => c.callRequestId)).toEqual([ids[4]]);
    const range = await t.rest('GET', '/v1/call-requests?createdFrom=2026-03-02T15:01:00Z&createdTo=2026-03-02T15:03:00Z');
    expect(range.body.data.callRequests.map((c: Schemas['CallRequest']) => c.callRequestId)).toEqual([ids[2], ids[1]]);
    // a cursor is bound to its filters
    const mixed = await t.rest('GET', `/v1/call-requests?limit=2&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toContain('cursor');
    const gql = await t.gql(
      'query($after: String) { callRequests(first: 2, createdFrom: "2026-03-02T15:00:00Z", createdTo: "2026-03-03T00:00:00Z", after: $after) { items { id } nextCursor } }',
      {
        after: first.body.data.pagination.nextCursor,
      },
    );
    expect(gql.body.data.callRequests.items.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    expect((await t.rest('GET', '/v1/call-requests?status=done')).status).toBe(400);
  });

  it("answers 404 for another tenant's organization", async () => {
    const res = await t.rest('GET', `/v1/call-requests?orgId=${t.demo.organizations.other.id}`);
    expect(res.status).toBe(404);
  });
});

describe('polling a call', () => {
  it('keeps the minimum interval for queued and in_progress requests, none for canceled ones', async () => {
    t.clock.set(NOW);
    const { callRequestId } = await place(t);
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(429);
    t.clock.advance(10_000);
    const claim = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 1 } });
    expect(claim.body.data.claims[0].callRequest.status).toBe('in_progress');
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(429);
    const canceled = await t.rest('POST', `/v1/call-requests/${callRequestId}/cancel`);
    expect(canceled.body.data.status).toBe('canceled');
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(200);
    expect((await t.rest('GET', `/v1/call-requests/${callRequestId}`)).status).toBe(200);
  });
});
