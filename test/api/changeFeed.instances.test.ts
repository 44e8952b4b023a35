// Two instances of the service on one database, each with its own read model and its own reader of the
// event log, woken by notices over a real channel: Redis pub/sub (TEST_REDIS_URL) and PostgreSQL
// LISTEN/NOTIFY (on the PostgreSQL run). Every kind of change made through one instance reaches the other
// within a second — entries otherwise live an hour here, and the log is not polled, so only a notice
// waking the log's reader can explain it. A notice is only that: one that lies (names a change that never
// committed) makes the other instance read the log and nothing more. When the channel is lost (a TCP relay
// is cut), changes still arrive, by the log's poll, and entries keep living long (the log misses nothing);
// once the channel is back, notices wake the reader again.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createOrganization, revokeApiKey, setOAuthClientScopes } from '../../src/auth/provisioning.js';
import { EventTail } from '../../src/changes/eventTail.js';
import { ChangeFeed } from '../../src/changes/feed.js';
import { PostgresTransport } from '../../src/changes/postgresTransport.js';
import { RedisTransport } from '../../src/changes/redisTransport.js';
import type { ChangeTransport } from '../../src/changes/transport.js';
import type { AppDeps } from '../../src/deps.js';
import { recordEvent } from '../../src/domain/events/log.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { subscribe } from '../support/sse.js';
import { openTcpRelay } from '../support/tcpRelay.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const REDIS = process.env.TEST_REDIS_URL;
const onPostgres = process.env.TEST_DB === 'postgres';

interface Instance {
  app: App;
  deps: AppDeps;
  feed: ChangeFeed;
  /** What its listeners heard, in order: `kind orgId`. */
  heard: string[];
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** An instance as the runtime wires one: feed, read model, and the event log's reader (not polled unless `pollMs`). */
async function instance(transport: ChangeTransport, pollMs = 3_600_000): Promise<Instance> {
  const feed = new ChangeFeed(transport, t.deps.logger);
  const readModel = new ReadModel(t.db.prisma, { maxEntries: 1_000, maxAgeMs: 3_600_000, clock: t.clock.now });
  feed.subscribe(readModel);
  const heard: string[] = [];
  feed.subscribe({ onChange: (change) => heard.push(`${change.kind} ${change.orgId}`) });
  await feed.start(3_000);
  opened.push(() => feed.close());
  const tail = new EventTail(t.db.prisma, feed, { pollMs });
  await tail.start();
  opened.push(() => tail.stop());
  const deps: AppDeps = { ...t.deps, readModel, changes: feed, liveStreams: new LiveStreams(10) };
  return { app: createApp(deps), deps, feed, heard };
}

async function call(on: Instance, method: string, path: string, body?: unknown, token = t.demo.organizations.clinic.apiKey) {
  const res = await on.app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

/** Polls `check` until it holds; fails after `withinMs` (the promise of the channel: a second). */
async function within(withinMs: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not seen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const channel = () => `ocs_test_${randomBytes(6).toString('hex')}`;

const transports: {
  name: string;
  available: boolean;
  make(name: string, url?: string): ChangeTransport;
  url: () => string;
  defaultPort: number;
}[] = [
  {
    name: 'Redis pub/sub',
    available: !!REDIS,
    make: (name, url) => new RedisTransport(url ?? REDIS!, name),
    url: () => REDIS!,
    defaultPort: 6379,
  },
  {
    name: 'PostgreSQL NOTIFY',
    available: onPostgres,
    make: (name, url) => new PostgresTransport(url ?? t.db.url, name),
    url: () => t.db.url,
    defaultPort: 5432,
  },
];

for (const transport of transports) {
  describe.skipIf(!transport.available)(`two instances over ${transport.name}`, () => {
    it('each kind of change made on one reaches the other within a second', async () => {
      const name = channel();
      const a = await instance(transport.make(name));
      const b = await instance(transport.make(name));
      const org = t.demo.organizations.clinic.id;
      t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York
      const availability = async () => (await call(b, 'GET', `/v1/organizations/${org}/availability?medium=PHONE`)).body.data;

      // office hours
      expect((await availability()).state).toBe('CLOSED');
      await call(a, 'POST', `/v1/organizations/${org}/office-hours`, {
        dayOfWeek: 'MONDAY',
        isClosed: false,
        open: '09:00',
        close: '17:00',
      });
      await within(1_000, async () => (await availability()).state === 'OPEN');

      // closures
      await call(a, 'POST', `/v1/organizations/${org}/closures`, {
        description: 'Storm',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T20:00:00Z',
        chatGreeting: null,
        phoneGreeting: null,
      });
      await within(1_000, async () => (await availability()).state === 'CLOSURE');

      // templates
      await call(a, 'POST', '/v1/templates', { name: 'Storm line' });
      await within(1_000, async () =>
        ((await availability()).availableTemplates as { name: string }[]).some((x) => x.name === 'Storm line'),
      );

      // phone numbers (their greetings live in the schedule)
      expect(b.deps.readModel.holds('schedule', org)).toBe(true);
      await call(a, 'POST', `/v1/phone-numbers/${t.demo.phoneNumbers.clinic[1]}/attach`, { botId: t.demo.bots.clinic[0] });
      await within(1_000, () => !b.deps.readModel.holds('schedule', org));

      // the organization itself
      expect((await call(b, 'GET', `/v1/organizations/${org}`)).body.data.communicationsEnabled).toBe(true);
      await call(a, 'POST', `/v1/organizations/${org}/disable`);
      await within(1_000, async () => (await call(b, 'GET', `/v1/organizations/${org}`)).body.data.communicationsEnabled === false);

      // a new child organization is reachable (from its own record) and counted in its account's record
      const account = t.demo.organizations.account;
      const children = async () =>
        (await call(b, 'GET', `/v1/organizations/${account.id}`, undefined, account.apiKey)).body.data.childIds as string[];
      expect(await children()).toHaveLength(2);
      const child = await createOrganization(a.deps, { name: 'Clinic 3', timezone: 'America/Denver', parentId: account.id });
      await within(1_000, async () => (await children()).includes(child.id));
      expect((await call(b, 'GET', `/v1/organizations/${account.id}`, undefined, account.apiKey)).body.data.childCount).toBe(3);
      await within(1_000, async () => (await call(b, 'GET', `/v1/organizations/${child.id}`, undefined, account.apiKey)).status === 200);

      // a narrowed OAuth scope, on a token already issued
      const token = await t.accessToken('clinic');
      expect((await call(b, 'GET', `/v1/organizations/${org}/closures`, undefined, token)).status).toBe(200);
      await setOAuthClientScopes(a.deps, t.demo.oauthClients.clinic.clientId, ['organizations:read']);
      expect((await call(a, 'GET', `/v1/organizations/${org}/closures`, undefined, token)).status).toBe(403); // at once where it was made
      await within(1_000, async () => (await call(b, 'GET', `/v1/organizations/${org}/closures`, undefined, token)).status === 403);

      // a revoked API key
      expect((await call(b, 'GET', `/v1/organizations/${org}`)).status).toBe(200);
      const key = await t.db.prisma.apiKey.findFirstOrThrow({ where: { orgId: org } });
      await revokeApiKey(a.deps, key.id);
      expect((await call(a, 'GET', `/v1/organizations/${org}`)).status).toBe(401); // at once where it was made
      await within(1_000, async () => (await call(b, 'GET', `/v1/organizations/${org}`)).status === 401);
    });

    it('a live subscription on one instance receives the event caused by a write on the other', async () => {
      const name = channel();
      const a = await instance(transport.make(name));
      const b = await instance(transport.make(name));
      const org = t.demo.organizations.clinic.id;
      t.clock.set('2026-03-09T15:30:00Z');
      const s = await subscribe(
        b.app,
        'subscription($org: ID!) { availabilityChanged(orgId: $org, medium: CHAT) { state greeting } }',
        { org },
        t.demo.organizations.clinic.apiKey,
      );
      opened.push(() => s.close());
      expect((await s.next()).data.data.availabilityChanged).toEqual({ state: 'CLOSED', greeting: null });
      await call(a, 'POST', `/v1/organizations/${org}/closures`, {
        description: 'Power cut',
        startAt: '2026-03-09T15:00:00Z',
        endAt: '2026-03-09T20:00:00Z',
        chatGreeting: 'We are closed: power cut',
        phoneGreeting: null,
      });
      expect((await s.next(1_000)).data.data.availabilityChanged).toEqual({ state: 'CLOSURE', greeting: 'We are closed: power cut' });
    });

    it('a notice is only a wake-up: one that lies makes the other instance read the log, and act on what committed only', async () => {
      const name = channel();
      const b = await instance(transport.make(name));
      const liar = transport.make(name);
      opened.push(() => liar.close());
      await liar.start({ onMessage: () => {}, onConnection: () => {} }, 3_000);
      const org = t.demo.organizations.clinic.id;
      const account = t.demo.organizations.account.id;
      t.clock.set('2026-03-09T15:30:00Z');
      expect((await call(b, 'GET', `/v1/organizations/${org}/availability?medium=PHONE`)).status).toBe(200);
      expect(b.deps.readModel.holds('schedule', org)).toBe(true);

      // a write that committed without a notice (its writer died), then a notice naming a change that never
      // committed, for another organization and kind
      await t.db.prisma.$transaction((tx) =>
        recordEvent(tx, t.deps, null, { type: 'template.created', orgId: account, subject: { type: 'template', id: 't' }, data: {} }),
      );
      await liar.send(JSON.stringify({ kind: 'officeHours', orgId: org, origin: 'another-instance' }));
      await within(1_000, () => b.heard.length > 0);
      expect(b.heard).toEqual([`templates ${account}`]); // what the log holds, not what the notice said
      expect(b.deps.readModel.holds('schedule', org)).toBe(true);

      // a notice naming nothing wakes the reader all the same
      await t.db.prisma.$transaction((tx) =>
        recordEvent(tx, t.deps, null, { type: 'closure.created', orgId: account, subject: { type: 'closure', id: 'c' }, data: {} }),
      );
      await liar.send(JSON.stringify({ origin: 'another-instance' }));
      await within(1_000, () => b.heard.length > 1);
      expect(b.heard).toEqual([`templates ${account}`, `closures ${account}`]);
      expect(b.deps.readModel.holds('schedule', org)).toBe(true);
    });

    it('a lost channel delays changes to the log poll, entries keep living, and notices wake the reader again once it is back', async () => {
      const name = channel();
      const relay = await openTcpRelay(transport.url(), transport.defaultPort);
      opened.push(() => relay.cut());
      const a = await instance(transport.make(name));
      const b = await instance(transport.make(name, relay.via(transport.url())), 1_000);
      expect(b.feed.connected).toBe(true);
      const org = t.demo.organizations.clinic.id;
      const enabled = async () => (await call(b, 'GET', `/v1/organizations/${org}`)).body.data.communicationsEnabled as boolean;
      expect(await enabled()).toBe(true);

      await relay.cut();
      await within(5_000, () => !b.feed.connected);
      expect(b.feed.inSync).toBe(true); // the log is still read: nothing held need be forgotten
      expect(b.deps.readModel.holds('organization', org)).toBe(true);
      await call(a, 'POST', `/v1/organizations/${org}/disable`); // B gets no notice...
      await within(2_500, async () => (await enabled()) === false); // ...and reads the change at the log's next poll

      await relay.restore();
      await within(10_000, () => b.feed.connected);
      expect(await enabled()).toBe(false); // cached again, for an hour
      await call(a, 'POST', `/v1/organizations/${org}/enable`);
      await within(1_000, async () => (await enabled()) === true);
    });
  });
}

describe('a change published on one instance', () => {
  it('is not applied twice by the instance that published it when it comes back on the channel', async () => {
    // the local transport has no echo; this checks the feed's own filter with a transport that echoes
    const echoes: string[] = [];
    const transport: ChangeTransport = {
      name: 'redis',
      start(handlers) {
        handlers.onConnection(true);
        this.send = (text: string) => {
          echoes.push(text);
          handlers.onMessage(text);
          return Promise.resolve();
        };
        return Promise.resolve();
      },
      async send() {},
      async close() {},
    };
    const a = await instance(transport);
    const seen: boolean[] = [];
    a.feed.subscribe({ onChange: (_change, local) => seen.push(local) });
    a.feed.publish({ kind: 'closures', orgId: t.demo.organizations.clinic.id });
    await a.feed.drain();
    expect(echoes).toHaveLength(1);
    expect(seen).toEqual([true]);
  });
});
