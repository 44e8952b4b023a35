// availability.changed (domain/schedule/availabilityEvents.ts): one event per real change of an organization's
// availability state, per medium, after the writes that change it (on both surfaces) and when the
// app's clock crosses a nextChangeAt; never for a write that leaves the state as it was; exactly once
// when several looks run at once (two instances); delivered to a subscribed endpoint with the
// availability answer as `data`.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { AvailabilityEvents } from '../../src/domain/schedule/availabilityEvents.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { loadSchedules } from '../../src/readmodel/loaders.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();

function looks() {
  return new AvailabilityEvents({
    db: t.deps.db,
    clock: t.clock.now,
    loadSchedules: (tx, ids, from) => loadSchedules(tx as unknown as Db, ids, from),
  });
}

function queue(availability = looks()) {
  return handleWebhookDeliveries(new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }), t.deps).alsoRun(() =>
    availability.runDue(),
  );
}

async function changes() {
  const rows = await t.deps.db.event.findMany({ where: { type: 'availability.changed' }, orderBy: { seq: 'asc' } });
  return rows.map((e) => {
    const data = e.data as { medium: string; state: string; at: string };
    return `${data.medium} ${(e.previous as { state: string }).state}→${data.state} at ${data.at}`;
  });
}

const monday = {
  dayOfWeek: 'MONDAY',
  isClosed: false,
  open: '09:00',
  close: '17:00',
  breaks: [{ start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'Back at one' }],
};

describe('availability.changed', () => {
  it('is recorded once per change of state and medium: after a write, when the clock crosses nextChangeAt, and not for a write that changes no state', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York; the clinic has no hours: CLOSED
    const q = queue();
    await q.runDue(); // the first look records what it answers, without an event
    expect(await changes()).toEqual([]);

    expect((await t.rest('POST', `/v1/organizations/${org}/office-hours`, { json: monday })).status).toBe(200);
    await q.runDue();
    expect(await changes()).toEqual([
      'CHAT CLOSED→OPEN at 2026-03-09T15:30:00Z',
      'PHONE CLOSED→OPEN at 2026-03-09T15:30:00Z',
      'GHL CLOSED→OPEN at 2026-03-09T15:30:00Z',
      'SMS CLOSED→OPEN at 2026-03-09T15:30:00Z',
    ]);
    // data is the availability answer of the medium, as GET …/availability answers it
    const phone = await t.deps.db.event.findFirstOrThrow({
      where: { type: 'availability.changed', data: { path: ['medium'], equals: 'PHONE' } },
    });
    const answer = (await t.rest('GET', `/v1/organizations/${org}/availability?medium=PHONE`)).body.data;
    expect(phone).toMatchObject({
      orgId: org,
      actorKind: 'system',
      subjectType: 'organization',
      subjectId: org,
      data: { medium: 'PHONE', ...answer },
    });
    expect(answer.nextChangeAt).toBe('2026-03-09T16:00:00Z');

    // looking again, or a write that leaves every state as it is, records nothing
    await q.runDue();
    await t.rest('POST', `/v1/organizations/${org}/closures`, {
      json: { description: 'Next year', annualDate: { month: 1, day: 1 }, chatGreeting: null, phoneGreeting: null },
    });
    await q.runDue();
    expect(await changes()).toHaveLength(4);

    // the clock crosses nextChangeAt: the lunch break is PHONE's only; then 13:00 and 17:00
    t.clock.set('2026-03-09T15:59:59Z');
    await q.runDue();
    expect(await changes()).toHaveLength(4);
    t.clock.set('2026-03-09T16:00:00Z');
    await q.runDue();
    t.clock.set('2026-03-09T17:00:00Z');
    await q.runDue();
    t.clock.set('2026-03-09T21:00:00Z');
    await q.runDue();
    expect((await changes()).slice(4)).toEqual([
      'PHONE OPEN→BREAK at 2026-03-09T16:00:00Z',
      'PHONE BREAK→OPEN at 2026-03-09T17:00:00Z',
      'CHAT OPEN→CLOSED at 2026-03-09T21:00:00Z',
      'PHONE OPEN→CLOSED at 2026-03-09T21:00:00Z',
      'GHL OPEN→CLOSED at 2026-03-09T21:00:00Z',
      'SMS OPEN→CLOSED at 2026-03-09T21:00:00Z',
    ]);
    // what was said last, durable: the state per medium and the start of its interval
    const status = await t.deps.db.availabilityStatus.findUniqueOrThrow({ where: { orgId: org } });
    expect(status.states).toMatchObject({
      PHONE: { state: 'CLOSED', since: '2026-03-09T21:00:00.000Z' },
      CHAT: { state: 'CLOSED', since: '2026-03-09T21:00:00.000Z' },
    });
    expect(status.nextCheckAt).toEqual(new Date('2026-03-16T13:00:00Z')); // the next change: next Monday 09:00 in New York
  });

  it('follows a GraphQL write too, and is delivered to a subscribed endpoint, signed, with the answer as data', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z');
    const { secret } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: receiver.url,
      eventTypes: ['availability.changed'],
    });
    const q = queue();
    await q.runDue();
    const res = await t.gql(`mutation($org: ID!, $input: CreateClosureInput!) { createClosure(orgId: $org, input: $input) { id } }`, {
      org,
      input: {
        description: 'Flood',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T20:00:00Z',
        chatGreeting: 'Closed: flood',
        phoneGreeting: null,
      },
    });
    expect(res.body.errors).toBeUndefined();
    await q.runDue();
    expect(receiver.received).toHaveLength(4); // CLOSED→CLOSURE on each medium
    vi.useFakeTimers({ toFake: ['Date'], now: t.clock.now() });
    let payloads: { type: string; data: { medium: string } }[];
    try {
      payloads = receiver.received.map(
        (r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as (typeof payloads)[number],
      );
    } finally {
      vi.useRealTimers();
    }
    const chat = payloads.find((p) => p.data.medium === 'CHAT');
    const answer = (await t.rest('GET', `/v1/organizations/${org}/availability?medium=CHAT`)).body.data;
    expect(chat).toMatchObject({
      type: 'availability.changed',
      orgId: org,
      data: { medium: 'CHAT', ...answer, state: 'CLOSURE', greeting: 'Closed: flood' },
    });
  });

  it('is recorded exactly once when two instances look at the same time', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z');
    const a = queue();
    const b = queue();
    await Promise.all([a.runDue(), b.runDue()]);
    await t.rest('POST', `/v1/organizations/${org}/office-hours`, { json: monday });
    await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    for (const at of ['2026-03-09T16:00:00Z', '2026-03-09T17:00:00Z', '2026-03-09T21:00:00Z']) {
      t.clock.set(at);
      await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    }
    expect(await changes()).toHaveLength(10);
  });
});
