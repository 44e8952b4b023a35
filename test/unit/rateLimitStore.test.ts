// The counter store and the fixed windows built on it (no database, no app).
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { RateLimiter } from '../../src/ratelimit/limiter.js';
import { MemoryStore } from '../../src/ratelimit/memoryStore.js';
import { type CounterStore, FailoverStore } from '../../src/ratelimit/store.js';

const config = { rateLimitPerMinute: 3, callRequestReadsPerSecond: 2, callRequestMinPollSeconds: 10, unauthenticatedRateLimitPerMinute: 2 };
const silent = createLogger('silent');

function limiterAt(iso: string) {
  let now = Date.parse(iso);
  const limiter = new RateLimiter(new MemoryStore(), config, () => new Date(now), silent);
  return { limiter, set: (at: string) => (now = Date.parse(at)), advance: (ms: number) => (now += ms) };
}

describe('MemoryStore', () => {
  it('counts per key, atomically one by one', async () => {
    const store = new MemoryStore();
    expect(await store.increment('a', 1000)).toBe(1);
    expect(await store.increment('a', 1000)).toBe(2);
    expect(await store.increment('b', 1000)).toBe(1);
    expect(await store.get('a')).toBe(2);
    expect(await store.get('missing')).toBe(0);
    // concurrent increments: each gets its own count
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.increment('c', 1000)));
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('expires a key after its time to live, and sweeps expired keys', async () => {
    let now = 0;
    const store = new MemoryStore(() => now);
    await store.increment('a', 1000);
    now = 999;
    expect(await store.increment('a', 1000)).toBe(2);
    now = 1000;
    expect(await store.get('a')).toBe(0);
    expect(await store.increment('a', 1000)).toBe(1); // a new key, a new lifetime
    for (let i = 0; i < 1500; i++) await store.increment(`k${i}`, 10);
    now = 5000;
    for (let i = 0; i < 1000; i++) await store.increment('live', 10_000);
    expect(store.size).toBeLessThan(10);
  });

  it('claims an interval: 0 when free, else the milliseconds left; a refused claim changes nothing', async () => {
    const store = new MemoryStore();
    expect(await store.claimInterval('p', 10_000, 10_000)).toBe(0);
    expect(await store.claimInterval('p', 13_000, 10_000)).toBe(7_000);
    expect(await store.claimInterval('p', 19_999, 10_000)).toBe(1);
    expect(await store.claimInterval('p', 20_000, 10_000)).toBe(0);
    expect(await store.claimInterval('p', 21_000, 10_000)).toBe(9_000);
    // a clock that went back waits the whole interval, not less
    expect(await store.claimInterval('p', 5_000, 10_000)).toBe(10_000);
  });
});

describe('RateLimiter windows (fixed, aligned to the clock minute / second)', () => {
  it('allows n ≤ limit per window, with remaining, reset and Retry-After', async () => {
    const { limiter, set } = limiterAt('2026-03-09T13:30:15.500Z');
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await limiter.hit('perMinute', 'org', 'GET /x'));
    expect(hits.map((h) => [h.allowed, h.count, h.remaining])).toEqual([
      [true, 1, 2],
      [true, 2, 1],
      [true, 3, 0],
      [false, 4, 0],
    ]);
    expect(hits[3]!.resetAt).toBe(Date.parse('2026-03-09T13:31:00Z'));
    expect(hits[3]!.retryAfter).toBe(45); // 44.5 s rounded up
    set('2026-03-09T13:30:59.999Z');
    const last = await limiter.hit('perMinute', 'org', 'GET /x');
    expect([last.allowed, last.retryAfter]).toEqual([false, 1]);
    set('2026-03-09T13:31:00.000Z');
    const fresh = await limiter.hit('perMinute', 'org', 'GET /x');
    expect([fresh.allowed, fresh.count, fresh.resetAt]).toEqual([true, 1, Date.parse('2026-03-09T13:32:00Z')]);
  });

  it('keeps patterns, subjects and budgets apart', async () => {
    const { limiter } = limiterAt('2026-03-09T13:30:00Z');
    for (let i = 0; i < 3; i++) await limiter.hit('perMinute', 'org', 'GET /x');
    expect((await limiter.hit('perMinute', 'org', 'GET /x')).allowed).toBe(false);
    expect((await limiter.hit('perMinute', 'org', 'GET /y')).count).toBe(1);
    expect((await limiter.hit('perMinute', 'org2', 'GET /x')).count).toBe(1);
    expect((await limiter.hit('callRequestPoll', 'org', 'GET /x')).count).toBe(1);
  });

  it('uses one-second windows for call-request polling', async () => {
    const { limiter, set } = limiterAt('2026-03-09T13:30:00.250Z');
    await limiter.hit('callRequestPoll', 'org', 'polls');
    await limiter.hit('callRequestPoll', 'org', 'polls');
    const third = await limiter.hit('callRequestPoll', 'org', 'polls');
    expect([third.allowed, third.limit, third.retryAfter, third.resetAt]).toEqual([false, 2, 1, Date.parse('2026-03-09T13:30:01Z')]);
    set('2026-03-09T13:30:01.000Z');
    expect((await limiter.hit('callRequestPoll', 'org', 'polls')).allowed).toBe(true);
  });

  it('peeks without counting', async () => {
    const { limiter } = limiterAt('2026-03-09T13:30:00Z');
    expect((await limiter.peek('unauthenticated', 'addr', 'auth')).allowed).toBe(true);
    await limiter.hit('unauthenticated', 'addr', 'auth');
    expect((await limiter.peek('unauthenticated', 'addr', 'auth')).allowed).toBe(true);
    await limiter.hit('unauthenticated', 'addr', 'auth');
    expect((await limiter.peek('unauthenticated', 'addr', 'auth')).allowed).toBe(false);
    expect((await limiter.peek('unauthenticated', 'addr', 'auth')).count).toBe(2);
  });

  it('spaces polls of one request by the minimum interval, in whole seconds', async () => {
    const { limiter, advance } = limiterAt('2026-03-09T13:30:00Z');
    expect(await limiter.claimPoll('org', 'r1')).toBe(0);
    advance(2_500);
    expect(await limiter.claimPoll('org', 'r1')).toBe(8); // 7.5 s rounded up
    expect(await limiter.claimPoll('org', 'r2')).toBe(0);
    expect(await limiter.claimPoll('org2', 'r1')).toBe(0);
    advance(7_500);
    expect(await limiter.claimPoll('org', 'r1')).toBe(0);
  });
});

describe('FailoverStore', () => {
  const broken: CounterStore = {
    kind: 'redis',
    increment: () => Promise.reject(new Error('Connection is closed.')),
    get: () => Promise.reject(new Error('Connection is closed.')),
    claimInterval: () => Promise.reject(new Error('Connection is closed.')),
    ping: () => Promise.reject(new Error('Connection is closed.')),
    ready: () => Promise.resolve(false),
    close: async () => {},
  };

  it('counts in memory instead of throwing, and warns once per interval', async () => {
    const lines: string[] = [];
    const store = new FailoverStore(
      broken,
      createLogger('info', (l) => lines.push(l)),
      60_000,
    );
    for (let i = 1; i <= 20; i++) expect(await store.increment('k', 60_000)).toBe(i);
    expect(await store.get('k')).toBe(20);
    expect(await store.claimInterval('p', 0, 1000)).toBe(0);
    expect(await store.claimInterval('p', 400, 1000)).toBe(600);
    expect(store.degraded).toBe(true);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', store: 'redis', error: 'Connection is closed.' });
  });

  it('keeps the limit per instance while the store is down, and goes back to it when it returns', async () => {
    const lines: string[] = [];
    let down = false;
    const shared = new MemoryStore(); // stands for Redis
    const inner: CounterStore = {
      ...broken,
      kind: 'redis',
      increment: (k, ttl) => (down ? broken.increment(k, ttl) : shared.increment(k, ttl)),
    };
    const limiter = new RateLimiter(
      inner,
      config,
      () => new Date('2026-03-09T13:30:00Z'),
      createLogger('info', (l) => lines.push(l)),
    );
    expect((await limiter.hit('perMinute', 'org', 'GET /x')).count).toBe(1);
    down = true;
    const during = [];
    for (let i = 0; i < 4; i++) during.push(await limiter.hit('perMinute', 'org', 'GET /x'));
    // the budget of 3 holds, counted by this instance alone
    expect(during.map((d) => [d.allowed, d.count, d.remaining])).toEqual([
      [true, 1, 2],
      [true, 2, 1],
      [true, 3, 0],
      [false, 4, 0],
    ]);
    down = false;
    // back on the shared store, where the count was left
    const after = await limiter.hit('perMinute', 'org', 'GET /x');
    expect([after.allowed, after.count]).toEqual([true, 2]);
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
      'rate-limit store unavailable; counting per instance until it returns',
      'rate-limit store available again',
    ]);
  });
});
