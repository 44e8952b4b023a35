// A bounded cache that loads what it misses: least-recently-used entries are dropped past `max` entries
// or past `maxBytes` of their estimated sizes, every
// entry expires after the TTL the read model sets (long while the event log is read, a second while
// it cannot be), concurrent misses of one key share one load, and misses of the same tick are loaded
// together (DataLoader), so that N organizations cost one statement, not N.
//
// A load races with invalidation: a write may commit, and its change arrive, while a load that began
// before it is still reading. Such a load's result is handed to the callers that were waiting for it
// (they asked before the write completed) but never stored, so no stale value outlives its change.
//
// While the event log cannot be read (changes from other instances may be going unheard), what is held
// becomes suspect: it is no longer answered as it is, every read loads again, and a suspect entry is
// answered only when that load fails (the database cannot be reached: stale-if-error). So a database
// outage leaves reads of what was held answered, and a log that alone is unreadable serves nothing stale.
import DataLoader from 'dataloader';
import { LRUCache } from 'lru-cache';

export interface LoadingCacheOptions<K extends string, V extends object> {
  max: number;
  /** Bound on the sum of `sizeOf` over the entries held (an entry larger than it is loaded but not kept). */
  maxBytes?: number;
  /** An entry's estimated size in bytes (readmodel/sizes.ts). */
  sizeOf?: (value: V, key: K) => number;
  /** Loads several keys at once; a key missing from the answer does not exist (not cached). */
  loadMany(keys: readonly K[]): Promise<Map<K, V>>;
  /** The TTL, in milliseconds, for an entry stored now. */
  ttl(): number;
}

interface InFlight<V> {
  promise: Promise<V | undefined>;
  stale: boolean;
}

export class LoadingCache<K extends string, V extends object> {
  private readonly entries: LRUCache<K, V>;
  /** What was held when the event log became unreadable: answered only when a load fails. */
  private suspect: LRUCache<K, V> | undefined;
  private readonly inFlight = new Map<K, InFlight<V>>();
  private readonly loader: DataLoader<K, V | undefined>;
  hits = 0;
  misses = 0;

  constructor(private readonly options: LoadingCacheOptions<K, V>) {
    this.entries = this.newEntries();
    this.loader = new DataLoader<K, V | undefined>(
      async (keys) => {
        const found = await options.loadMany(keys);
        return keys.map((k) => found.get(k));
      },
      // a batch collects every miss until the event loop turns, not only those of one microtask: GraphQL
      // resolvers of sibling objects reach the cache after different numbers of awaits
      { cache: false, maxBatchSize: 500, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
    );
  }

  /** `expiring`: entries expire (the held ones); suspect ones do not (they are answered only when a load fails). */
  private newEntries(expiring = true): LRUCache<K, V> {
    const { maxBytes, sizeOf } = this.options;
    return new LRUCache<K, V>({
      max: this.options.max,
      ...(expiring ? { ttl: 60_000 } : {}),
      ttlAutopurge: false,
      updateAgeOnGet: false,
      ...(maxBytes !== undefined && sizeOf
        ? { maxSize: maxBytes, maxEntrySize: maxBytes, sizeCalculation: (value: V, key: K) => Math.max(1, Math.ceil(sizeOf(value, key))) }
        : {}),
    });
  }

  /** The event log cannot be read: what is held is answered from now on only when loading it again fails. */
  suspectAll(): void {
    // a second outage before the log was read again: what was suspect stays so, with what was loaded since
    const suspect = this.suspect ?? this.newEntries(false);
    for (const [key, value] of this.entries.entries()) suspect.set(key, value);
    this.suspect = suspect;
    this.entries.clear();
    for (const flight of this.inFlight.values()) flight.stale = true;
    this.inFlight.clear();
  }

  /** The event log was read again (what changed meanwhile was heard): nothing suspect is answered any more. */
  dropSuspects(): void {
    this.suspect = undefined;
  }

  /** Entries held as suspect (tests). */
  get suspects(): number {
    return this.suspect?.size ?? 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes held (0 without `sizeOf`). */
  get bytes(): number {
    return this.entries.calculatedSize ?? 0;
  }

  /** The cached value, without loading. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  get(key: K): Promise<V | undefined> {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.hits++;
      return Promise.resolve(cached);
    }
    this.misses++;
    const running = this.inFlight.get(key);
    if (running) return running.promise;
    const flight: InFlight<V> = { stale: false, promise: Promise.resolve(undefined) };
    flight.promise = this.loader.load(key).then(
      (value) => {
        if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
        if (value !== undefined && !flight.stale) this.entries.set(key, value, { ttl: this.options.ttl() });
        this.suspect?.delete(key);
        return value;
      },
      (err: unknown) => {
        if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
        // the database cannot answer: what was held before the log became unreadable, however old
        const held = this.suspect?.get(key);
        if (held !== undefined) return held;
        throw err;
      },
    );
    this.inFlight.set(key, flight);
    return flight.promise;
  }

  getMany(keys: readonly K[]): Promise<(V | undefined)[]> {
    return Promise.all(keys.map((k) => this.get(k)));
  }

  invalidate(key: K): void {
    this.entries.delete(key);
    this.suspect?.delete(key);
    const running = this.inFlight.get(key);
    if (running) {
      running.stale = true;
      this.inFlight.delete(key);
    }
  }

  /** Forgets every entry for which `matches` is true (a scan: for rare changes such as revoked credentials). */
  invalidateWhere(matches: (value: V, key: K) => boolean): void {
    for (const [key, value] of this.entries.entries()) if (matches(value, key)) this.entries.delete(key);
    if (this.suspect) for (const [key, value] of this.suspect.entries()) if (matches(value, key)) this.suspect.delete(key);
    // a load in flight may be about to store a matching value: let none of them store
    for (const flight of this.inFlight.values()) flight.stale = true;
    this.inFlight.clear();
  }

  clear(): void {
    this.entries.clear();
    this.suspect = undefined;
    for (const flight of this.inFlight.values()) flight.stale = true;
    this.inFlight.clear();
  }
}
