// Two instances of the service in one process on one database, each with its own change feed, read
// model and job queue (which also runs the availability looks), deliver every event exactly once to a
// receiver that answers 2xx, counted by webhook-id and verified with `standardwebhooks`. On the
// embedded database both share the PGlite instance; with TEST_DATABASE_URL they share PostgreSQL, and
// with TEST_REDIS_URL their changes travel over Redis (else over NOTIFY).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { ChangeFeed } from '../../src/changes/feed.js';
import { PostgresTransport } from '../../src/changes/postgresTransport.js';
import { RedisTransport } from '../../src/changes/redisTransport.js';
import { type ChangeTransport, LocalTransport } from '../../src/changes/transport.js';
import type { Db } from '../../src/db/client.js';
import type { AppDeps } from '../../src/deps.js';
import { AvailabilityEvents } from '../../src/domain/schedule/availabilityEvents.js';
import { recordEndpointDisabled } from '../../src/domain/events/webhookEndpoints.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { loadSchedules } from '../../src/readmodel/loaders.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { handleWebhookDeliveries } from '../../src/domain/events/webhooks/delivery.js';
import { createEndpointRecord } from '../../src/domain/events/webhooks/endpoints.js';
import { useTestApp } from '../support/testApp.js';
import { useWebhookReceiver } from '../support/webhookReceiver.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const receiver = useWebhookReceiver();
const REDIS = process.env.TEST_REDIS_URL;
const onPostgres = process.env.TEST_DB === 'postgres';

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

function transport(channel: string): ChangeTransport {
  if (REDIS) return new RedisTransport(REDIS, channel);
  if (onPostgres) return new PostgresTransport(t.db.url, channel);
  return new LocalTransport();
}

async function instance(channel: string): Promise<{ app: App; jobs: JobQueue }> {
  const feed = new ChangeFeed(transport(channel), t.deps.logger);
  const readModel = new ReadModel(t.db.prisma, { maxEntries: 1_000, maxAgeMs: 3_600_000, clock: t.clock.now });
  feed.subscribe(readModel);
  await feed.start(3_000);
  opened.push(() => feed.close());
  const deps: AppDeps = { ...t.deps, readModel, changes: feed, liveStreams: new LiveStreams(10) };
  const looks = new AvailabilityEvents({
    db: t.db.prisma,
    clock: t.clock.now,
    loadSchedules: (tx, ids, from) => loadSchedules(tx as unknown as Db, ids, from),
  });
  const jobs = handleWebhookDeliveries(new JobQueue({ db: t.db.prisma, clock: t.clock.now, wakeAt: t.clock.wakeAt }), deps, {
    onDisabled: (tx, endpoint) => recordEndpointDisabled(tx, deps, endpoint),
  }).alsoRun(() => looks.runDue());
  return { app: createApp(deps), jobs };
}

async function post(app: App, path: string, body: unknown) {
  const res = await app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/** Both instances look for due work at the same time, again and again, until neither finds any. */
async function runBoth(a: JobQueue, b: JobQueue): Promise<void> {
  for (;;) {
    const ran = await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    if (ran.every((n) => n === 0)) return;
  }
}

describe('two instances', () => {
  it('deliver each event exactly once to a receiver that answers 2xx', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York
    const channel = `ocs_events_${randomBytes(6).toString('hex')}`;
    const a = await instance(channel);
    const b = await instance(channel);
    const { secret } = await createEndpointRecord(t.deps.db, t.deps.tokens.key, t.clock.now(), {
      orgId: org,
      url: receiver.url,
      eventTypes: ['*'],
    });
    await runBoth(a.jobs, b.jobs); // the first availability look, without an event

    // writes on both instances, each looked for by both queues at once
    for (let n = 0; n < 12; n++) {
      const on = n % 2 === 0 ? a : b;
      await post(on.app, `/v1/organizations/${org}/closures`, {
        description: `Closure ${n}`,
        annualDate: { month: 12, day: n + 1 },
        chatGreeting: null,
        phoneGreeting: null,
      });
      if (n % 3 === 2) await runBoth(a.jobs, b.jobs);
    }
    // a change of availability (CLOSED→OPEN on four media), then the clock crossing nextChangeAt (17:00)
    await post(b.app, `/v1/organizations/${org}/office-hours`, { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00' });
    await runBoth(a.jobs, b.jobs);
    t.clock.set('2026-03-09T21:00:00Z');
    await runBoth(a.jobs, b.jobs);

    const events = await t.deps.db.event.findMany({ select: { id: true, type: true } });
    expect(events.filter((e) => e.type === 'closure.created')).toHaveLength(12);
    expect(events.filter((e) => e.type === 'availability.changed')).toHaveLength(8);
    const times = new Map<string, number>();
    for (const message of receiver.received) {
      const id = message.headers['webhook-id'] as string;
      times.set(id, (times.get(id) ?? 0) + 1);
    }
    expect([...times.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect([...times.values()].every((n) => n === 1)).toBe(true);
    // verified as a receiver would on receipt (the library checks the timestamp against its clock)
    for (const message of receiver.received) {
      vi.useFakeTimers({ toFake: ['Date'], now: Number(message.headers['webhook-timestamp']) * 1000 });
      try {
        expect(() => new Webhook(secret).verify(message.body, message.headers as Record<string, string>)).not.toThrow();
      } finally {
        vi.useRealTimers();
      }
    }
    expect(await t.deps.db.webhookDelivery.count({ where: { status: 'delivered', attempts: 1 } })).toBe(events.length);
  });
});
