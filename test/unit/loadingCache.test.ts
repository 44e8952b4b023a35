// The read model's cache while the event log cannot be read: what was held is suspect, answered only when
// the database cannot answer (stale-if-error), never in place of what a load reads now.
import { describe, expect, it } from 'vitest';
import { LoadingCache } from '../../src/readmodel/loadingCache.js';

function cacheOver(store: Map<string, { v: number }>) {
  const state = { down: false, loads: 0 };
  const cache = new LoadingCache<string, { v: number }>({
    max: 100,
    ttl: () => 60_000,
    loadMany: (keys) => {
      state.loads++;
      if (state.down) return Promise.reject(new Error('the database cannot be reached'));
      return Promise.resolve(new Map(keys.flatMap((k) => (store.has(k) ? [[k, store.get(k)!] as const] : []))));
    },
  });
  return { cache, state };
}

describe('LoadingCache while the event log cannot be read', () => {
  it('loads again rather than answer what it held, and answers what it held only when the load fails', async () => {
    const store = new Map([
      ['a', { v: 1 }],
      ['b', { v: 1 }],
    ]);
    const { cache, state } = cacheOver(store);
    expect(await cache.get('a')).toEqual({ v: 1 });
    expect(await cache.get('b')).toEqual({ v: 1 });
    store.set('a', { v: 2 }); // changed elsewhere; its event not heard (the log is unreadable)
    cache.suspectAll();
    expect(cache.peek('a')).toBeUndefined();
    expect(await cache.get('a')).toEqual({ v: 2 }); // read again: the database answers, nothing stale
    state.down = true;
    expect(await cache.get('b')).toEqual({ v: 1 }); // the database is down: what was held
    await expect(cache.get('c')).rejects.toThrow('cannot be reached'); // nothing held: the failure
  });

  it('forgets a suspect entry a change names, and drops them all once the log is read again', async () => {
    const store = new Map([
      ['a', { v: 1 }],
      ['b', { v: 1 }],
    ]);
    const { cache, state } = cacheOver(store);
    await cache.get('a');
    await cache.get('b');
    cache.suspectAll();
    expect(cache.suspects).toBe(2);
    cache.invalidate('a'); // a change made on this instance
    state.down = true;
    await expect(cache.get('a')).rejects.toThrow();
    expect(await cache.get('b')).toEqual({ v: 1 });
    cache.dropSuspects();
    await expect(cache.get('b')).rejects.toThrow();
  });
});
