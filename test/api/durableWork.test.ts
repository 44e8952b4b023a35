// Work ends with its subject (issue 39 §1, docs/decisions.md "Work ends with its subject"): a call request's
// expiry and its lease's end are deleted in the transaction that brings it to a final state, and an endpoint's
// pending deliveries go with it, so that the queue's depth (what ocs_jobs_pending shows) counts only work
// that can still matter. Time moves on the fake clock.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { callRequestJobHandlers } from '../../src/domain/calls/callDispatch.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { useTestApp, type TestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const UNLIMITED = '1000000000';
const t = useTestApp({
  env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
});
const receiver = useWebhookReceiver();

const NOW = '2026-03-02T15:00:00Z';

/** The service's queue as the runtime builds it: the calls' jobs and the webhook deliveries' lane. */
function serviceQueue(t: TestApp): JobQueue {
  const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt });
  for (const [kind, handler] of Object.entries(callRequestJobHandlers(t.deps))) queue.handle(kind, handler);
  return handleWebhookDeliveries(queue, t.deps);
}

/** What ocs_jobs_pending shows (metrics read JobQueue.depth). */
const pending = async (queue: JobQueue) => (await queue.depth()).pending;

async function place(t: TestApp, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.rest('POST', '/v1/call-requests', {
    json: { botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006', ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.callRequestId;
}

async function claimAll(t: TestApp): Promise<Map<string, string>> {
  const res = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 50, leaseSeconds: 60 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map(
    res.body.data.claims.map((c: { leaseId: string; callRequest: { callRequestId: string } }) => [c.callRequest.callRequestId, c.leaseId]),
  );
}

const step = async (t: TestApp, id: string, what: string, json?: unknown) => {
  const res = await t.rest('POST', `/v1/call-requests/${id}/${what}`, json === undefined ? {} : { json });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('the work of a call request ends with it', () => {
  it('after calls are completed, failed and canceled (both surfaces), the pending work is back to what it was', async () => {
    t.clock.set(NOW);
    const queue = serviceQueue(t);
    await queue.runDue(); // the events of earlier cases are handed out: only this case's work counts below
    const before = await pending(queue);

    const ids = await Promise.all([0, 1, 2, 3, 4, 5].map(() => place(t)));
    await queue.runDue(); // their events handed out (no endpoint)
    expect(await pending(queue)).toBe(before + 6); // one expiry each
    const [queuedCanceledRest, queuedCanceledGql, ...claimedIds] = ids as [string, string, ...string[]];
    await step(t, queuedCanceledRest, 'cancel');
    const gqlCancel = await t.gql('mutation($id: ID!) { cancelCallRequest(id: $id) { status } }', { id: queuedCanceledGql });
    expect(gqlCancel.body.data).toEqual({ cancelCallRequest: { status: 'canceled' } });

    const leases = await claimAll(t);
    expect([...leases.keys()].sort()).toEqual([...claimedIds].sort());
    await queue.runDue();
    expect(await pending(queue)).toBe(before + 8); // 4 expiries, 4 lease ends

    const [completedRest, completedGql, failed, canceledClaimed] = claimedIds as [string, string, string, string];
    t.clock.advance(5_000);
    await step(t, completedRest, 'start', { leaseId: leases.get(completedRest) });
    await step(t, completedRest, 'complete', { leaseId: leases.get(completedRest) });
    await step(t, completedGql, 'start', { leaseId: leases.get(completedGql) });
    const gqlComplete = await t.gql('mutation($id: ID!, $l: ID!) { completeCallRequest(id: $id, leaseId: $l) { status } }', {
      id: completedGql,
      l: leases.get(completedGql),
    });
    expect(gqlComplete.body.data).toEqual({ completeCallRequest: { status: 'completed' } });
    await step(t, failed, 'fail', { leaseId: leases.get(failed), error: { code: 'busy', message: 'Busy' } });
    await step(t, canceledClaimed, 'cancel');
    await queue.runDue();
    expect(await pending(queue)).toBe(before);
    const left = await t.deps.db.job.findMany({ select: { payload: true } });
    expect(left.filter((job) => ids.includes((job.payload as { callRequestId?: string }).callRequestId ?? ''))).toEqual([]);
  });

  it('a queued call still expires at its notAfter, and its work goes with it', async () => {
    t.clock.set(NOW);
    const queue = serviceQueue(t);
    await queue.runDue();
    const before = await pending(queue);
    const id = await place(t, { notAfter: '2026-03-02T16:00:00Z' });
    await queue.runDue();
    expect(await pending(queue)).toBe(before + 1);

    t.clock.set('2026-03-02T15:59:59.999Z');
    await queue.runDue();
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } })).status).toBe('queued');
    t.clock.set('2026-03-02T16:00:00Z');
    await queue.runDue();
    expect(await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'expired',
      finishedAt: new Date('2026-03-02T16:00:00Z'),
    });
    const expired = await t.deps.db.event.findMany({ where: { subjectId: id, type: 'call_request.expired' } });
    expect(expired.map((e) => e.actorKind)).toEqual(['system']);
    await queue.runDue(); // the expired event handed out
    expect(await pending(queue)).toBe(before);
  });

  it("a claimed call whose runtime vanished is re-queued at its extended lease's end; its cancel then leaves nothing", async () => {
    t.clock.set(NOW);
    const queue = serviceQueue(t);
    await queue.runDue();
    const before = await pending(queue);
    const id = await place(t);
    const leaseId = (await claimAll(t)).get(id)!;
    t.clock.advance(30_000);
    await step(t, id, 'heartbeat', { leaseId, leaseSeconds: 60 });
    // the lease's first end came while it was extended: the job waits for the new end
    t.clock.advance(30_000);
    await queue.runDue();
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } })).status).toBe('in_progress');
    t.clock.advance(30_000);
    await queue.runDue();
    expect((await t.deps.db.callRequest.findUniqueOrThrow({ where: { id } })).status).toBe('queued');
    await queue.runDue();
    expect(await pending(queue)).toBe(before + 1); // its expiry only
    await step(t, id, 'cancel');
    await queue.runDue();
    expect(await pending(queue)).toBe(before);
  });
});

describe('the deliveries of a deleted endpoint go with it', () => {
  const closure = (description: string) => ({ description, annualDate: { month: 12, day: 25 }, chatGreeting: null, phoneGreeting: null });

  for (const surface of ['REST', 'GraphQL'] as const) {
    it(`deleting an endpoint (${surface}) leaves no pending delivery for it, and the pending work is back to what it was`, async () => {
      t.clock.set(NOW);
      const queue = serviceQueue(t);
      await queue.runDue();
      const before = await pending(queue);
      receiver.answer = () => 500;
      const created = await t.rest('POST', '/v1/webhook-endpoints', { json: { url: receiver.url, eventTypes: ['closure.created'] } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const endpointId: string = created.body.data.id;
      const orgId = t.demo.organizations.clinic.id;
      for (const description of ['Christmas', 'Boxing day'])
        expect((await t.rest('POST', `/v1/organizations/${orgId}/closures`, { json: closure(description) })).status).toBe(200);
      await queue.runDue(); // first attempts: 500, each delivery pending a retry
      expect(receiver.received).toHaveLength(2);
      expect(await t.deps.db.webhookDelivery.count({ where: { endpointId, status: 'pending' } })).toBe(2);
      expect(await pending(queue)).toBe(before + 2);

      if (surface === 'REST') expect((await t.rest('DELETE', `/v1/webhook-endpoints/${endpointId}`)).status).toBe(200);
      else
        expect((await t.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: endpointId })).body.data).toEqual({
          deleteWebhookEndpoint: true,
        });
      expect(await t.deps.db.webhookDelivery.count({ where: { endpointId } })).toBe(0);
      // past every retry's due time nothing is sent any more
      t.clock.advance(3 * 86_400_000);
      await queue.runDue();
      expect(receiver.received).toHaveLength(2);
      expect(await pending(queue)).toBe(before);
    });
  }
});

describe('jobs written before work was named by its subject', () => {
  it("the migration deletes those of ended requests and names the others by their subject, so that the request's end drops them", async () => {
    t.clock.set(NOW);
    const queue = serviceQueue(t);
    const ended = await place(t);
    await step(t, ended, 'cancel');
    const waiting = await place(t);
    // as the service wrote them before: random ids
    await t.deps.db.job.deleteMany({ where: { id: { in: [ended, waiting] } } });
    const old = (callRequestId: string) => ({
      id: randomUUID(),
      kind: 'call_request.expire',
      payload: { callRequestId },
      runAt: new Date('2026-03-03T15:00:00Z'),
      createdAt: new Date(NOW),
    });
    await t.deps.db.job.createMany({ data: [old(ended), old(waiting)] });
    await queue.runDue();
    const before = await pending(queue);

    const sql = readFileSync(
      new URL('../../prisma/migrations/20261127235000_work_ends_with_subject/migration.sql', import.meta.url),
      'utf8',
    );
    for (const statement of sql
      .replace(/--.*$/gm, '')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean))
      await t.deps.db.$executeRawUnsafe(statement);
    expect(await pending(queue)).toBe(before - 1);
    expect(
      (await t.deps.db.job.findMany({ where: { kind: 'call_request.expire', id: { in: [ended, waiting] } } })).map((j) => j.id),
    ).toEqual([waiting]);
    await step(t, waiting, 'cancel');
    await queue.runDue(); // the canceled event handed out
    expect(await pending(queue)).toBe(before - 2);
  });
});
