// subscription callRequestChanged over Server-Sent Events: every transition of an organization's call requests,
// each once, in order, with the request as it was then — from REST and GraphQL writes, the runtime's steps and the
// service's own jobs; nothing of another organization; a lost scope or a revoked credential ends the stream; and
// across two instances on one database, a transition made on one reaches a subscriber of the other within a second.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { revokeApiKey, setOAuthClientScopes } from '../../src/auth/provisioning.js';
import { EventTail } from '../../src/changes/eventTail.js';
import { ChangeFeed } from '../../src/changes/feed.js';
import { LiveEventReader } from '../../src/changes/liveEvents.js';
import { PostgresTransport } from '../../src/changes/postgresTransport.js';
import { RedisTransport } from '../../src/changes/redisTransport.js';
import type { ChangeTransport } from '../../src/changes/transport.js';
import type { AppDeps } from '../../src/deps.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { subscribe, type Subscription } from '../support/sse.js';
import { useTestApp } from '../support/testApp.js';

const UNLIMITED = '1000000000';
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: UNLIMITED, CALL_REQUEST_READS_PER_SECOND: UNLIMITED } });

const WATCH = `subscription($org: ID!) {
  callRequestChanged(orgId: $org) { eventId type occurredAt callRequest { id status to claims disposition startedAt finishedAt } }
}`;

const open: Subscription[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const close of closers.splice(0).reverse()) await close();
});

async function watch(org = t.demo.organizations.clinic.id, token: string | null = t.demo.organizations.clinic.apiKey, app = t.app) {
  const s = await subscribe(app, WATCH, { org }, token);
  open.push(s);
  return s;
}

async function place(org: 'clinic' | 'other' = 'clinic'): Promise<string> {
  const res = await t.rest('POST', '/v1/call-requests', {
    token: t.demo.organizations[org].apiKey,
    json: { botId: t.demo.bots[org][0], phoneNumberId: t.demo.phoneNumbers[org][0], to: '+15005550006' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.callRequestId;
}

/** The transitions a stream received so far, as `type status`. */
const seen = (s: Subscription) =>
  s.received
    .filter((e) => e.event === 'next')
    .map((e) => `${e.data.data.callRequestChanged.type} ${e.data.data.callRequestChanged.callRequest.status}`);

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('subscription callRequestChanged', () => {
  it('delivers each transition once, in order, with the request as it was then; nothing at first', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const s = await watch();
    expect(s.status).toBe(200);
    await settle();
    expect(s.received).toEqual([]); // nothing before a transition

    const id = await place();
    const queued = (await s.next()).data.data.callRequestChanged;
    expect(queued).toMatchObject({ type: 'call_request.queued', callRequest: { id, status: 'queued', to: '+15005550006', claims: 0 } });
    const event = await t.deps.db.event.findFirstOrThrow({ where: { subjectId: id, type: 'call_request.queued' } });
    expect(queued.eventId).toBe(event.id);
    expect(queued.occurredAt).toBe('2026-03-02T15:00:00.000Z');

    // the runtime's steps, one right after the other: each is its own transition
    const claim = await t.rest('POST', '/v1/dispatch/claim', { json: { max: 1 } });
    const leaseId = claim.body.data.claims[0].leaseId;
    t.clock.set('2026-03-02T15:00:05Z');
    expect((await t.rest('POST', `/v1/call-requests/${id}/start`, { json: { leaseId } })).status).toBe(200);
    expect((await t.rest('POST', `/v1/call-requests/${id}/complete`, { json: { leaseId, disposition: 'booked' } })).status).toBe(200);
    await s.next();
    await s.next();
    const completed = s.received.at(-1)!.data.data.callRequestChanged;
    expect(completed).toMatchObject({
      type: 'call_request.completed',
      callRequest: {
        id,
        status: 'completed',
        disposition: 'booked',
        startedAt: '2026-03-02T15:00:05.000Z',
        finishedAt: '2026-03-02T15:00:05.000Z',
      },
    });
    // a cancel through GraphQL is heard as well
    const second = await place();
    const canceled = await t.gql(`mutation($id: ID!) { cancelCallRequest(id: $id) { status } }`, { id: second });
    expect(canceled.body.errors).toBeUndefined();
    await s.next();
    await s.next();
    await settle();
    expect(seen(s)).toEqual([
      'call_request.queued queued',
      'call_request.started in_progress',
      'call_request.completed completed',
      'call_request.queued queued',
      'call_request.canceled canceled',
    ]);
    // each event once: the ids are the log's, none twice
    const ids = s.received.map((e) => e.data.data.callRequestChanged.eventId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never carries another organization's transitions, and refuses another organization's id as missing", async () => {
    const s = await watch();
    await place('other');
    await settle();
    expect(s.received).toEqual([]);
    const foreign = await watch(t.demo.organizations.other.id);
    const refused = await foreign.next();
    expect(refused.data.errors[0].extensions.code).toBe('NOT_FOUND');
    const missing = await watch('00000000-0000-4000-8000-000000000000');
    expect((await missing.next()).data.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await watch(t.demo.organizations.clinic.id, null).then((x) => x.next())).data.errors[0].extensions.code).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('needs call-requests:read, and ends the stream when the scope is taken away or the key revoked', async () => {
    const { clientId } = t.demo.oauthClients.clinicReadOnly;
    const readOnly = await t.accessToken('clinicReadOnly'); // every :read scope
    const s = await watch(t.demo.organizations.clinic.id, readOnly);
    await place();
    expect((await s.next()).data.data.callRequestChanged.type).toBe('call_request.queued');
    await setOAuthClientScopes(t.deps, clientId, ['office-hours:read']);
    const last = await s.next();
    expect(last.data.errors[0].extensions.code).toBe('FORBIDDEN');
    await s.ended;
    const narrowed = await t.accessToken('clinicReadOnly');
    expect((await watch(t.demo.organizations.clinic.id, narrowed).then((x) => x.next())).data.errors[0].extensions.code).toBe('FORBIDDEN');

    const byKey = await watch();
    const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: t.demo.organizations.clinic.id } });
    await revokeApiKey(t.deps, key.id);
    expect((await byKey.next()).data.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    await byKey.ended;
  });

  it('stops reading the log once the last subscriber left', async () => {
    const reader = t.deps.liveEvents as LiveEventReader;
    const observers = t.db.observers.size;
    const s = await watch();
    await place();
    await s.next();
    expect(reader.watched).toBe(1);
    expect(t.db.observers.size).toBe(observers + 1); // woken by this process's commits while watched
    await s.close();
    await settle();
    expect(reader.watched).toBe(0);
    expect(t.db.observers.size).toBe(observers);
    // no read of the log after that, though events commit
    const { sql } = await t.statements(async () => {
      await place();
      await settle();
    });
    expect(sql.filter((q) => q.includes('"occurredAt"') && q.includes('UNION ALL'))).toEqual([]);
  });

  it('refuses a subscription while the log cannot be read, and leaves nothing behind', async () => {
    const reader = t.deps.liveEvents as LiveEventReader;
    const watchOf = reader.watch.bind(reader);
    reader.watch = () => Promise.reject(new Error('the database is away'));
    try {
      t.clock.set('2026-03-02T15:00:00Z'); // the credential's minute recheck is a wake-up on this clock
      const wakeUps = t.clock.pendingWakeUps;
      const s = await watch();
      expect((await s.next()).data.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      await s.ended;
      expect(t.deps.liveStreams.count()).toBe(0);
      expect(t.clock.pendingWakeUps).toBe(wakeUps); // no recheck left waiting for a stream that never was
    } finally {
      reader.watch = watchOf;
    }
  });
});

const REDIS = process.env.TEST_REDIS_URL;
const onPostgres = process.env.TEST_DB === 'postgres';
const channel = () => `ocs_test_${randomBytes(6).toString('hex')}`;

/**
 * An instance as the runtime wires one, whose live reader hears only notices: not this process's commits (the
 * other instance's writes go through the same database object here) and no poll. Both instances' feeds announce
 * every commit (they share the database object): an instance ignores its own notices, so only the writer's
 * notice, over the channel, can wake the subscriber's reader.
 */
async function instance(transport: ChangeTransport) {
  const feed = new ChangeFeed(transport, t.deps.logger);
  const readModel = new ReadModel(t.db.prisma, { maxEntries: 1_000, maxAgeMs: 3_600_000, clock: t.clock.now });
  feed.subscribe(readModel);
  await feed.start(3_000);
  closers.push(() => feed.close());
  // as the runtime wires it: a commit of events here is announced to the other instances
  const announce = { onStatement: () => {}, onEventsCommitted: () => feed.announce() };
  t.db.observers.add(announce);
  closers.push(() => Promise.resolve(void t.db.observers.delete(announce)));
  const tail = new EventTail(t.db.prisma, feed, { pollMs: 3_600_000 });
  await tail.start();
  closers.push(() => tail.stop());
  const liveEvents = new LiveEventReader(
    t.db.prisma,
    { observers: new Set(), onNotice: (wake) => feed.onNotice(wake) },
    { pollMs: 3_600_000 },
  );
  closers.push(() => liveEvents.close());
  const deps: AppDeps = { ...t.deps, readModel, changes: feed, liveStreams: new LiveStreams(10), liveEvents };
  return createApp(deps);
}

for (const [name, available, make] of [
  ['Redis pub/sub', !!REDIS, (c: string) => new RedisTransport(REDIS!, c)],
  ['PostgreSQL NOTIFY', onPostgres, (c: string) => new PostgresTransport(t.db.url, c)],
] as const) {
  describe.skipIf(!available)(`callRequestChanged across two instances over ${name}`, () => {
    it('reaches a subscriber of one instance within a second of a transition made on the other', async () => {
      const c = channel();
      const a = await instance(make(c));
      const b = await instance(make(c));
      const s = await watch(t.demo.organizations.clinic.id, t.demo.organizations.clinic.apiKey, a);
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await b.fetch(
          new Request('http://127.0.0.1/v1/call-requests', {
            method: 'POST',
            headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ botId: t.demo.bots.clinic[0], phoneNumberId: t.demo.phoneNumbers.clinic[0], to: '+15005550006' }),
          }),
        );
        expect(res.status).toBe(200);
        const id = ((await res.json()) as { data: { callRequestId: string } }).data.callRequestId;
        const heard = (await s.next(1_000)).data.data.callRequestChanged;
        expect(heard.callRequest.id).toBe(id);
        expect(Date.now() - started).toBeLessThan(1_000 + 500); // the write's own time, plus the promised second
      }
    });
  });
}
