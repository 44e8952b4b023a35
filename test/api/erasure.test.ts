// Erasure on request (issue 36 §4, domain/calls/erasure.ts, docs/decisions.md §14): a phone number, a conversation or
// a call request, erased within the caller's reach by a durable job in bounded batches (the fake clock and a queue
// of the test's own drive it). After it the number is nowhere in the organization's rows, its call requests keep
// status and times, its suppression still refuses a new call, and another tenant's rows are untouched.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ERASURE_JOB, erasureJobHandlers, runErasure } from '../../src/domain/calls/erasure.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp, type TestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

const NUMBER = '+14155552671';
const DIGITS = '4155552671';
const WORDS = 'I need to move my colonoscopy to next week';

/** A queue with the erasure job only, in batches of 2 (so every phase takes several). */
function erasureQueue(t: TestApp): JobQueue {
  const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
  for (const [kind, handler] of Object.entries(erasureJobHandlers(t.deps, { batchSize: 2, batchesPerRun: 3 }))) queue.handle(kind, handler);
  return queue;
}

/** Runs the erasure jobs until none is due. */
async function runErasures(t: TestApp): Promise<void> {
  const queue = erasureQueue(t);
  for (let i = 0; i < 100 && (await queue.runDue()) > 0; i++);
  expect(await t.db.prisma.job.findMany({ where: { kind: ERASURE_JOB } })).toEqual([]);
}

const callBody = (t: TestApp, extra: Record<string, unknown> = {}) => ({
  botId: t.demo.bots.clinic[0],
  phoneNumberId: t.demo.phoneNumbers.clinic[0],
  to: NUMBER,
  ...extra,
});

/** A placed call to NUMBER, started (its conversation opened), a turn said, completed with notes naming the number. */
async function completedCall(t: TestApp): Promise<{ id: string; conversationId: string }> {
  const placed = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { metadata: { callback: NUMBER } }) });
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  const id = placed.body.data.callRequestId as string;
  const claim = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50, leaseSeconds: 600 } });
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  const leaseId = claim.body.data.claims.find((c: { callRequest: { callRequestId: string } }) => c.callRequest.callRequestId === id)
    ?.leaseId as string;
  expect(leaseId).toBeDefined();
  const started = await t.rest('POST', `/v1/call-requests/${id}/start`, { json: { leaseId } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const conversationId = started.body.data.conversationId as string;
  expect((await t.rest('POST', `/v1/conversations/${conversationId}/messages`, { json: { role: 'caller', text: WORDS } })).status).toBe(
    200,
  );
  const done = await t.rest('POST', `/v1/call-requests/${id}/complete`, {
    json: { leaseId, disposition: 'information_given', notes: `Patient asked to be reached on ${NUMBER}` },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return { id, conversationId };
}

/** An inbound call from the number (written in national punctuation) with a turn, in `orgId` with `token`. */
async function inboundCall(t: TestApp, token: string, botId: string, fromNumber = '(415) 555-2671'): Promise<string> {
  const res = await t.rest('POST', '/v1/conversations', { token, json: { botId, medium: 'PHONE', fromNumber } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const id = res.body.data.conversationId as string;
  expect((await t.rest('POST', `/v1/conversations/${id}/messages`, { token, json: { role: 'caller', text: WORDS } })).status).toBe(200);
  return id;
}

/** Every row of `table` of the organizations `orgIds` (Event, CallRequest, Conversation, Suppression, IdempotencyKey …) as text. */
async function rowsText(t: TestApp, orgIds: string[]): Promise<string> {
  const ids = `(${orgIds.map((id) => `'${id}'`).join(',')})`;
  const queries = [
    `SELECT row_to_json(x)::text AS row FROM "CallRequest" x WHERE "orgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "Event" x WHERE "orgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "Conversation" x WHERE "orgId" IN ${ids}`,
    `SELECT row_to_json(m)::text AS row FROM "ConversationMessage" m JOIN "Conversation" c ON c."id" = m."conversationId" WHERE c."orgId" IN ${ids}`,
    `SELECT row_to_json(d)::text AS row FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w."id" = d."endpointId" WHERE w."orgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "Suppression" x WHERE "orgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "IdempotencyKey" x WHERE "ownerOrgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "ErasureRequest" x WHERE "orgId" IN ${ids}`,
    `SELECT row_to_json(x)::text AS row FROM "Job" x`,
  ];
  let text = '';
  for (const sql of queries) text += (await t.db.prisma.$queryRawUnsafe<{ row: string }[]>(sql)).map((r) => r.row).join('\n') + '\n';
  return text;
}

/** A stored webhook answer echoing the number, for the organization `orgId`. */
async function deliveryEchoing(t: TestApp, orgId: string): Promise<string> {
  const endpoint = await createEndpointRecord(t.db.prisma, t.deps.tokens.key, t.clock.now(), {
    orgId,
    url: `https://hooks.example.com/${orgId}`,
    eventTypes: ['*'],
  });
  const event = await t.db.prisma.event.findFirstOrThrow({ where: { orgId }, select: { id: true, type: true } });
  const delivery = await t.db.prisma.webhookDelivery.create({
    data: {
      id: randomUUID(),
      endpointId: endpoint.id,
      eventId: event.id,
      eventType: event.type,
      status: 'failed',
      attempts: 1,
      statusCode: 500,
      response: `{"error":"unknown callee ${NUMBER}"}`,
      attemptLog: [
        {
          at: t.clock.now().toISOString(),
          statusCode: 500,
          latencyMs: 12,
          errorClass: null,
          response: `{"error":"unknown callee ${NUMBER}"}`,
        },
      ],
      createdAt: t.clock.now(),
    },
  });
  return delivery.id;
}

const ZERO = { conversations: 0, messages: 0, callRequests: 0, events: 0, webhookDeliveries: 0, suppressions: 0, idempotentAnswers: 0 };

describe('erasing a phone number', () => {
  it('deletes its conversations, hashes its calls and suppression, scrubs events, deliveries and replays; leaves another tenant alone', async () => {
    t.clock.set('2026-03-09T15:00:00Z'); // a Monday, 10:00 in New York
    const clinic = t.demo.organizations.clinic;
    const other = t.demo.organizations.other;
    const call = await completedCall(t);
    const inbound = await inboundCall(t, clinic.apiKey, t.demo.bots.clinic[0]!);
    // a request answered with the number, stored for a replay
    const keyed = await t.rest('POST', '/v1/call-requests', {
      json: callBody(t, { notBefore: '2026-03-09T16:00:00Z' }),
      headers: { 'Idempotency-Key': 'call-2' },
    });
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    const queuedId = keyed.body.data.callRequestId as string;
    // a call to a relative that names the patient's number as a callback
    const relative = await t.rest('POST', '/v1/call-requests', {
      json: callBody(t, { to: '+12025550143', notBefore: '2026-03-09T16:00:00Z', metadata: { callback: NUMBER } }),
    });
    expect(relative.status, JSON.stringify(relative.body)).toBe(200);
    expect((await t.rest('POST', '/v1/suppressions', { json: { number: NUMBER, reason: 'Asked not to be called' } })).status).toBe(200);
    const delivery = await deliveryEchoing(t, clinic.id);
    // the other tenant: the same number, its own conversation
    const theirs = await inboundCall(t, other.apiKey, t.demo.bots.other[0]!, NUMBER);
    expect(await rowsText(t, [clinic.id])).toContain(NUMBER);

    const asked = await t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: '+1 (415) 555-2671' } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body.data).toMatchObject({ kind: 'phoneNumber', subjectId: null, status: 'pending', counts: ZERO, orgId: clinic.id });
    expect(JSON.stringify(asked.body)).not.toContain(DIGITS);
    const id = asked.body.data.erasureRequestId as string;
    expect((await t.rest('GET', `/v1/erasure-requests/${id}`)).body.data.status).toBe('pending');

    // one run spends its batches and leaves the request running, counted so far
    expect(await erasureQueue(t).runDue()).toBe(1);
    const midway = (await t.rest('GET', `/v1/erasure-requests/${id}`)).body.data;
    expect(midway.status).toBe('running');
    expect(midway.startedAt).not.toBeNull();

    t.clock.advance(1_000);
    await runErasures(t);
    const done = await t.rest('GET', `/v1/erasure-requests/${id}`);
    expect(done.body.data).toMatchObject({ status: 'completed', completedAt: '2026-03-09T15:00:01.000Z' });
    const counts = done.body.data.counts;
    expect(counts).toMatchObject({
      conversations: 2,
      messages: 2,
      callRequests: 3, // two to the number, one naming it
      webhookDeliveries: 1,
      suppressions: 1,
      idempotentAnswers: 1,
    });
    expect(counts.events).toBeGreaterThanOrEqual(8);

    // the number (in any form) is nowhere in the organization's rows; the words went with the conversations
    const after = await rowsText(t, [clinic.id, t.demo.organizations.account.id]);
    expect(after).not.toContain(DIGITS);
    expect(after).not.toContain(WORDS);
    expect(await t.db.prisma.conversation.count({ where: { id: { in: [call.conversationId, inbound] } } })).toBe(0);
    expect(await t.db.prisma.event.count({ where: { subjectId: inbound } })).toBeGreaterThan(0); // kept, without data
    expect((await t.db.prisma.event.findFirstOrThrow({ where: { subjectId: inbound } })).data).toEqual({ erased: true });
    const scrubbed = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery } });
    expect(scrubbed.response).toContain('[erased]');
    // each attempt's kept answer too
    expect(JSON.stringify(scrubbed.attemptLog)).toContain('[erased]');
    expect(JSON.stringify(scrubbed.attemptLog)).not.toContain(NUMBER);

    // the call keeps its status and times, with the keyed hash for a number; the queued one could not be placed
    const kept = await t.db.prisma.callRequest.findUniqueOrThrow({ where: { id: call.id } });
    expect(kept).toMatchObject({ status: 'completed', disposition: 'information_given' });
    expect(kept.to).toMatch(/^erased:[A-Za-z0-9_-]{43}$/);
    expect(kept.startedAt).not.toBeNull();
    expect(kept.finishedAt).not.toBeNull();
    // the relative's call keeps its own number, without the patient's
    const relativeRow = await t.db.prisma.callRequest.findUniqueOrThrow({ where: { id: relative.body.data.callRequestId } });
    expect(relativeRow).toMatchObject({ to: '+12025550143', status: 'queued', metadata: { callback: '[erased]' } });
    const queued = await t.db.prisma.callRequest.findUniqueOrThrow({ where: { id: queuedId } });
    expect(queued.to).toBe(kept.to);
    expect(queued.status).toBe('failed');
    // the replay of the keyed request answers the number no more
    const replay = await t.rest('POST', '/v1/call-requests', {
      json: callBody(t, { notBefore: '2026-03-09T16:00:00Z' }),
      headers: { 'Idempotency-Key': 'call-2' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(replay.body)).not.toContain(DIGITS);

    // the suppression still holds: a new call to the number is refused, without the number being said back
    const refused = await t.rest('POST', '/v1/call-requests', { json: callBody(t) });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('suppressed');
    expect(JSON.stringify(refused.body)).not.toContain(DIGITS);
    const gqlRefused = await t.gql(`mutation($input: CreateCallRequestInput!) { createCallRequest(input: $input) { id } }`, {
      input: callBody(t),
    });
    expect(gqlRefused.body.errors[0].extensions.code).toBe('SUPPRESSED');

    // erasure.completed names the counts, never the number
    const completed = await t.db.prisma.event.findFirstOrThrow({ where: { type: 'erasure.completed', subjectId: id } });
    expect(completed.data).toMatchObject({ erasureRequestId: id, kind: 'phoneNumber', counts });
    expect(completed.actorKind).toBe('apiKey');

    // another tenant's rows are untouched
    expect(await t.db.prisma.conversation.count({ where: { id: theirs } })).toBe(1);
    expect(await rowsText(t, [other.id])).toContain(NUMBER);

    // idempotent: the job run again counts nothing more; a second erasure of the number finds nothing
    await runErasure(t.deps, id);
    expect((await t.rest('GET', `/v1/erasure-requests/${id}`)).body.data.counts).toEqual(counts);
    const again = await t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: NUMBER } });
    await runErasures(t);
    const second = await t.rest('GET', `/v1/erasure-requests/${again.body.data.erasureRequestId}`);
    expect(second.body.data).toMatchObject({ status: 'completed', counts: ZERO });

    // the kept entry is found and removed by the number, as before it was erased (then the number may be called)
    const listed = await t.rest('GET', `/v1/suppressions?number=${encodeURIComponent(NUMBER)}`);
    expect(listed.body.data.suppressions).toEqual([expect.objectContaining({ number: kept.to, reason: 'Asked not to be called' })]);
    expect((await t.rest('DELETE', `/v1/suppressions/${encodeURIComponent(NUMBER)}`)).status).toBe(200);
    expect((await t.rest('POST', '/v1/call-requests', { json: callBody(t) })).status).toBe(200);
  });

  it("an account's request covers its locations; a location's does not reach its sibling", async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const { account, clinic, clinic2 } = t.demo.organizations;
    const a = await inboundCall(t, clinic.apiKey, t.demo.bots.clinic[0]!);
    const b = await inboundCall(t, clinic2.apiKey, t.demo.bots.clinic2[0]!);
    const byClinic = await t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: NUMBER } });
    await runErasures(t);
    expect((await t.rest('GET', `/v1/erasure-requests/${byClinic.body.data.erasureRequestId}`)).body.data.counts).toMatchObject({
      conversations: 1,
    });
    expect(await t.db.prisma.conversation.count({ where: { id: { in: [a, b] } } })).toBe(1);
    // the sibling cannot read the clinic's request; the account can
    const path = `/v1/erasure-requests/${byClinic.body.data.erasureRequestId}`;
    expect((await t.rest('GET', path, { token: clinic2.apiKey })).status).toBe(404);
    expect((await t.rest('GET', path, { token: t.demo.organizations.other.apiKey })).status).toBe(404);
    expect((await t.rest('GET', path, { token: account.apiKey })).status).toBe(200);
    const byAccount = await t.rest('POST', '/v1/erasure-requests', { token: account.apiKey, json: { phoneNumber: NUMBER } });
    expect(byAccount.status).toBe(202);
    await runErasures(t);
    expect(await t.db.prisma.conversation.count({ where: { id: b } })).toBe(0);
    expect(await rowsText(t, [account.id, clinic.id, clinic2.id])).not.toContain(DIGITS);
  });
});

describe('two erasures of one number at once', () => {
  it('count each row once between them, and leave nothing behind', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const clinic = t.demo.organizations.clinic;
    for (let i = 0; i < 5; i++) await inboundCall(t, clinic.apiKey, t.demo.bots.clinic[0]!);
    for (let i = 0; i < 3; i++)
      expect((await t.rest('POST', '/v1/call-requests', { json: callBody(t, { notBefore: '2026-03-09T16:00:00Z' }) })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++)
      ids.push((await t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: NUMBER } })).body.data.erasureRequestId);
    // two instances, each with its own queue, working at the same time
    const [a, b] = [erasureQueue(t), erasureQueue(t)];
    for (let i = 0; i < 50; i++) {
      const [ran, ranToo] = await Promise.all([a.runDue(), b.runDue()]);
      if (ran + ranToo === 0) break;
    }
    const views = await Promise.all(ids.map(async (id) => (await t.rest('GET', `/v1/erasure-requests/${id}`)).body.data));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed']);
    const total = (field: string) => views.reduce((sum, v) => sum + v.counts[field], 0);
    expect([total('conversations'), total('messages'), total('callRequests')]).toEqual([5, 5, 3]);
    expect(await rowsText(t, [clinic.id])).not.toContain(DIGITS);
  });
});

describe('erasing a conversation or a call request', () => {
  it('a conversation (REST): deleted with its turns, its events kept without data; another tenant’s id is a 404', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const mine = await inboundCall(t, t.demo.organizations.clinic.apiKey, t.demo.bots.clinic[0]!);
    const kept = await inboundCall(t, t.demo.organizations.clinic.apiKey, t.demo.bots.clinic[0]!);
    const theirs = await inboundCall(t, t.demo.organizations.other.apiKey, t.demo.bots.other[0]!);
    const foreign = await t.rest('POST', '/v1/erasure-requests', { json: { conversationId: theirs } });
    const missing = await t.rest('POST', '/v1/erasure-requests', { json: { conversationId: randomUUID() } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ ...missing.body, requestId: foreign.body.requestId });
    const asked = await t.rest('POST', '/v1/erasure-requests', { json: { conversationId: mine } });
    expect(asked.status).toBe(202);
    expect(asked.body.data).toMatchObject({ kind: 'conversationId', subjectId: mine, status: 'pending' });
    await runErasures(t);
    const done = (await t.rest('GET', `/v1/erasure-requests/${asked.body.data.erasureRequestId}`)).body.data;
    expect(done).toMatchObject({ status: 'completed', counts: { ...ZERO, conversations: 1, messages: 1, events: 2 } });
    expect(await t.db.prisma.conversation.count({ where: { id: { in: [mine, kept, theirs] } } })).toBe(2);
    const events = await t.db.prisma.event.findMany({ where: { subjectId: mine } });
    expect(events.map((e) => e.data)).toEqual([{ erased: true }, { erased: true }]);
    expect((await t.rest('GET', `/v1/conversations/${mine}`)).status).toBe(404);
  });

  it('a call request (GraphQL): its number becomes the keyed hash, its conversation goes; other calls to the number stay', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const call = await completedCall(t);
    const otherCall = await t.rest('POST', '/v1/call-requests', { json: callBody(t, { notBefore: '2026-03-09T16:00:00Z' }) });
    const CREATE = `mutation($id: ID) { createErasureRequest(callRequestId: $id) { erasureRequestId kind subjectId status counts { callRequests } } }`;
    const foreign = await t.gql(CREATE, { id: t.demo.callRequests.other.queued });
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const asked = await t.gql(CREATE, { id: call.id });
    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data.createErasureRequest).toMatchObject({ kind: 'callRequestId', subjectId: call.id, status: 'pending' });
    await runErasures(t);
    const read = await t.gql(
      `query($id: ID!) { erasureRequest(id: $id) { status counts { conversations messages callRequests events suppressions } } }`,
      { id: asked.body.data.createErasureRequest.erasureRequestId },
    );
    expect(read.body.data.erasureRequest.status).toBe('completed');
    expect(read.body.data.erasureRequest.counts).toMatchObject({ conversations: 1, messages: 1, callRequests: 1, suppressions: 0 });
    const row = await t.db.prisma.callRequest.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.status).toBe('completed');
    expect(row.to).toMatch(/^erased:/);
    expect(JSON.stringify(row)).not.toContain(DIGITS);
    expect(
      JSON.stringify(await t.db.prisma.event.findMany({ where: { subjectId: call.id }, select: { data: true, previous: true } })),
    ).not.toContain(DIGITS);
    expect(await t.db.prisma.conversation.count({ where: { id: call.conversationId } })).toBe(0);
    expect((await t.db.prisma.callRequest.findUniqueOrThrow({ where: { id: otherCall.body.data.callRequestId } })).to).toBe(NUMBER);
  });
});

describe('what an erasure request must be', () => {
  it('exactly one identifier, a number with its country code: 400 naming the field on both surfaces, nothing stored', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /^phoneNumber: exactly one of/],
      [{ phoneNumber: NUMBER, conversationId: randomUUID() }, /^conversationId: give exactly one/],
      [{ conversationId: randomUUID(), callRequestId: randomUUID() }, /^callRequestId: give exactly one/],
      [{ phoneNumber: '555-2671' }, /^phoneNumber: must be a phone number with its country code/],
      [{ conversationId: 'nope' }, /^conversationId: must be a UUID/],
      [{ phoneNumber: NUMBER, extra: 1 }, /"extra"/],
    ];
    for (const [json, message] of cases) {
      const res = await t.rest('POST', '/v1/erasure-requests', { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.message, JSON.stringify(json)).toMatch(message);
    }
    const gql = await t.gql(`mutation { createErasureRequest(phoneNumber: "12") { erasureRequestId } }`);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'phoneNumber' }] });
    const none = await t.gql(`mutation { createErasureRequest { erasureRequestId } }`);
    expect(none.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'phoneNumber' }] });
    expect(await t.db.prisma.erasureRequest.count()).toBe(0);
    expect((await t.rest('GET', '/v1/erasure-requests/nope')).status).toBe(400);
    expect((await t.rest('GET', `/v1/erasure-requests/${randomUUID()}`)).status).toBe(404);
  });

  it('needs erasure:write, to ask and to read', async () => {
    const readOnly = await t.accessToken('clinicReadOnly');
    expect((await t.rest('POST', '/v1/erasure-requests', { token: readOnly, json: { phoneNumber: NUMBER } })).status).toBe(403);
    const asked = await t.rest('POST', '/v1/erasure-requests', { json: { phoneNumber: NUMBER } });
    expect((await t.rest('GET', `/v1/erasure-requests/${asked.body.data.erasureRequestId}`, { token: readOnly })).status).toBe(403);
  });
});
