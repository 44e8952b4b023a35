// The change feed read from the event log (changes/eventTail.ts), the only way a change made on another
// instance is heard: a change whose notice was never sent (the writing instance died between its commit
// and its notice) still reaches another instance, which reads it from the log; a new child organization
// reaches its account's record too; a later seq committed before an earlier one does not make the
// earlier one missed (on PostgreSQL, where two transactions run at once). While the log cannot be read,
// the read model serves nothing it held before (changes may be going unheard); once it is read again,
// everything committed meanwhile is heard.
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { EventTail } from '../../src/changes/eventTail.js';
import { ChangeFeed } from '../../src/changes/feed.js';
import { LocalTransport } from '../../src/changes/transport.js';
import type { AppDeps } from '../../src/deps.js';
import { createOrganization } from '../../src/auth/provisioning.js';
import type { Db } from '../../src/db/client.js';
import { recordEvent } from '../../src/domain/events/log.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const onPostgres = process.env.TEST_DB === 'postgres';

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** An instance: its own read model (entries live an hour) and feed; with a tail of the event log when asked. */
async function instance(
  withTail: boolean,
  tailDb: Db = t.db.prisma,
): Promise<{ app: App; deps: AppDeps; feed: ChangeFeed; tail?: EventTail; seen: string[] }> {
  const feed = new ChangeFeed(new LocalTransport(), t.deps.logger);
  const readModel = new ReadModel(t.db.prisma, { maxEntries: 1_000, maxAgeMs: 3_600_000, clock: t.clock.now });
  feed.subscribe(readModel);
  const seen: string[] = [];
  feed.subscribe({ onChange: (change) => seen.push(`${change.kind} ${change.orgId}`) });
  await feed.start();
  const deps: AppDeps = { ...t.deps, readModel, changes: feed, liveStreams: new LiveStreams(10) };
  let tail: EventTail | undefined;
  if (withTail) {
    // no poll during the test: it reads when the test says
    tail = new EventTail(tailDb, feed, { pollMs: 3_600_000 });
    await tail.start();
    opened.push(() => tail!.stop());
  }
  opened.push(() => feed.close());
  return { app: createApp(deps), deps, feed, tail, seen };
}

async function call(app: App, method: string, path: string, body?: unknown, token = t.demo.organizations.clinic.apiKey) {
  const res = await app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return (await res.json()) as { data: Record<string, unknown> };
}

describe('the change feed read from the event log', () => {
  it('brings another instance a change whose notice was never sent (the writer died after its commit)', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York
    const writer = await instance(false); // its feed reaches no other instance: as if it died before sending
    const reader = await instance(true);
    const untailed = await instance(false);
    const state = async (app: App) => (await call(app, 'GET', `/v1/organizations/${org}/availability?medium=CHAT`)).data.state;
    expect(await state(reader.app)).toBe('CLOSED');
    expect(await state(untailed.app)).toBe('CLOSED');
    await call(writer.app, 'POST', `/v1/organizations/${org}/office-hours`, {
      dayOfWeek: 'MONDAY',
      isClosed: false,
      open: '09:00',
      close: '17:00',
    });
    expect(await state(writer.app)).toBe('OPEN');
    expect(await state(reader.app)).toBe('CLOSED'); // cached, nothing told it yet

    expect(await reader.tail!.catchUp()).toBe(1);
    expect(reader.seen).toEqual([`officeHours ${org}`]);
    expect(await state(reader.app)).toBe('OPEN');
    expect(await state(untailed.app)).toBe('CLOSED'); // without the log, stale for the hour its entry lives
    // read once: nothing more to read
    expect(await reader.tail!.catchUp()).toBe(0);
    expect(reader.seen).toHaveLength(1);
  });

  it("brings a new child organization to its account's record (which holds its children)", async () => {
    const account = t.demo.organizations.account;
    const writer = await instance(false);
    const reader = await instance(true);
    const children = async () =>
      (await call(reader.app, 'GET', `/v1/organizations/${account.id}`, undefined, account.apiKey)).data.childIds as string[];
    const before = await children();
    const child = await createOrganization(writer.deps, { name: 'Clinic 3', timezone: 'America/Denver', parentId: account.id });
    expect(await children()).toEqual(before); // cached, nothing told it yet
    await reader.tail!.catchUp();
    expect(reader.seen).toEqual(expect.arrayContaining([`organization ${child.id}`, `organization ${account.id}`]));
    expect(await children()).toContain(child.id);
  });

  it('while the log cannot be read, serves nothing held before; once it is read again, hears everything committed meanwhile', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z'); // Monday 11:30 in New York
    let unreachable = false;
    const prisma = t.db.prisma;
    const tailDb = new Proxy(prisma, {
      get(target, property) {
        if (property === '$queryRaw' && unreachable) return () => Promise.reject(new Error('the database is unreachable'));
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const writer = await instance(false);
    const reader = await instance(true, tailDb);
    const state = async () => (await call(reader.app, 'GET', `/v1/organizations/${org}/availability?medium=CHAT`)).data.state;
    expect(await state()).toBe('CLOSED');
    expect(reader.deps.readModel.holds('schedule', org)).toBe(true);

    await call(writer.app, 'POST', `/v1/organizations/${org}/office-hours`, {
      dayOfWeek: 'MONDAY',
      isClosed: false,
      open: '09:00',
      close: '17:00',
    });
    unreachable = true;
    await reader.tail!.wake(); // the poll, failing
    expect(reader.feed.inSync).toBe(false);
    expect(reader.deps.readModel.holds('schedule', org)).toBe(false); // what it held may be stale: forgotten
    expect(await state()).toBe('OPEN'); // read again (and now held a second only)
    expect(reader.seen).toEqual([]);

    await call(writer.app, 'POST', `/v1/organizations/${org}/closures`, {
      description: 'Storm',
      startAt: '2026-03-09T15:00:00Z',
      endAt: '2026-03-09T20:00:00Z',
      chatGreeting: null,
      phoneGreeting: null,
    });
    unreachable = false;
    await reader.tail!.wake();
    expect(reader.feed.inSync).toBe(true);
    expect(reader.seen).toEqual([`officeHours ${org}`, `closures ${org}`]);
    expect(await state()).toBe('CLOSURE');
    expect(reader.deps.readModel.holds('schedule', org)).toBe(true);
  });

  it.skipIf(!onPostgres)('reads an event whose seq was skipped because it committed after a later one', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z');
    const reader = await instance(true);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const first = new Promise<void>((resolve) => (inserted = resolve));
    // the first transaction takes its seq, then waits; the second takes the next seq and commits first
    const slow = t.db.prisma.$transaction(
      async (tx) => {
        await recordEvent(tx, t.deps, null, { type: 'closure.created', orgId: org, subject: { type: 'closure', id: 'a' }, data: {} });
        inserted();
        await held;
      },
      { timeout: 20_000 },
    );
    await first;
    await t.db.prisma.$transaction((tx) =>
      recordEvent(tx, t.deps, null, { type: 'template.created', orgId: org, subject: { type: 'template', id: 'b' }, data: {} }),
    );
    expect(await reader.tail!.catchUp()).toBe(1);
    expect(reader.seen).toEqual([`templates ${org}`]);
    release();
    await slow;
    expect(await reader.tail!.catchUp()).toBe(1);
    expect(reader.seen).toEqual([`templates ${org}`, `closures ${org}`]);
  });
});
