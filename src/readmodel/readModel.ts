// The read model: what the hot path reads, held in memory — organizations (each with its child count
// and first few child ids; reach is decided from a target's own parentId), API keys and OAuth clients, verified access tokens, and each
// organization's compiled schedule (office hours, breaks, the closures that can still apply indexed by
// time, templates, phone-number greetings). It is the one cache of the service.
//
// - Bounded: every part is an LRU of at most READ_MODEL_MAX_ENTRIES entries, and organizations, credentials
//   and schedules also of at most READ_MODEL_MAX_MB of estimated size each (sizes.ts): a schedule may hold
//   a few rules or thousands of closures, so a count alone bounds nothing.
// - Filled on first use, in one statement per kind for all the keys missed together (loaders.ts).
// - Invalidated by the change feed: a write made here is forgotten at once (before the write answers); one
//   made on another instance when this instance reads its event from the event log (changes/eventTail.ts):
//   at once when the writer's notice arrives, and at the latest at the log's next poll (every second) when
//   the notice is lost. So an entry is never served more than the poll interval plus one read of the log
//   after a change to it committed, whether or not the notice channel is up.
// - When the log cannot be read, changes may go unheard: everything held becomes suspect (loadingCache.ts):
//   every read loads again, and a suspect entry is answered only when that load fails, so that a database
//   outage leaves what was held answered while a log that alone is unreadable serves nothing stale. Entries
//   loaded meanwhile live one second (READ_MODEL_MAX_AGE_SECONDS otherwise) until a read of the log succeeds;
//   that read hears everything committed meanwhile (the log is read from where it was), and the suspect
//   entries are dropped.
// - Entries also expire after READ_MODEL_MAX_AGE_SECONDS when no change says so: a write made outside the
//   service (plain SQL) appends no event.
import { LRUCache } from 'lru-cache';
import type { Change } from '../changes/change.js';
import type { ChangeListener } from '../changes/feed.js';
import type { Db } from '../db/client.js';
import { loadApiKeys, loadOAuthClients, loadOrganizations, loadSchedules } from './loaders.js';
import { LoadingCache } from './loadingCache.js';
import { apiKeyBytes, oauthClientBytes, organizationBytes, scheduleBytes } from './sizes.js';
import type { ApiKeyRecord, OAuthClientRecord, OrganizationRecord, VerifiedToken } from '../domain/shared/readModel.js';
import type { OrgSchedule } from '../domain/schedule/records.js';

export interface ReadModelOptions {
  maxEntries: number;
  /** Bound on the estimated bytes of each part (organizations, API keys, OAuth clients, schedules); none when absent. */
  maxBytes?: number;
  /** Lifetime of an entry while the event log is read. */
  maxAgeMs: number;
  /** Lifetime of an entry while it cannot be (changes from other instances may go unheard). */
  fallbackAgeMs?: number;
  /** The app's clock: which closures can still apply is decided by it. */
  clock: () => Date;
}

export interface ReadModelStats {
  hits: number;
  misses: number;
  entries: number;
  /** Estimated bytes held (0 for tokens, bounded by count only). */
  bytes: number;
}

/** How far back the cached schedule reaches: an `at` a little in the past still reads it. */
const SCHEDULE_LOOKBACK_MS = 60 * 60_000;

export class ReadModel implements ChangeListener {
  /** False while the change feed cannot read the event log: entries then live only briefly. */
  private inSync = true;
  private readonly organizationCache: LoadingCache<string, OrganizationRecord>;
  private readonly apiKeyCache: LoadingCache<string, ApiKeyRecord>;
  private readonly oauthClientCache: LoadingCache<string, OAuthClientRecord>;
  private readonly scheduleCache: LoadingCache<string, OrgSchedule>;
  private readonly tokenCache: LRUCache<string, VerifiedToken>;
  private tokenHits = 0;
  private tokenMisses = 0;

  constructor(
    private readonly db: Db,
    options: ReadModelOptions,
  ) {
    const ttl = () => (this.inSync ? options.maxAgeMs : (options.fallbackAgeMs ?? 1_000));
    const max = options.maxEntries;
    const maxBytes = options.maxBytes;
    this.organizationCache = new LoadingCache({
      max,
      maxBytes,
      sizeOf: organizationBytes,
      ttl,
      loadMany: (ids) => loadOrganizations(db, ids),
    });
    this.apiKeyCache = new LoadingCache({ max, maxBytes, sizeOf: apiKeyBytes, ttl, loadMany: (hashes) => loadApiKeys(db, hashes) });
    this.oauthClientCache = new LoadingCache({
      max,
      maxBytes,
      sizeOf: oauthClientBytes,
      ttl,
      loadMany: (ids) => loadOAuthClients(db, ids, options.clock()),
    });
    this.scheduleCache = new LoadingCache({
      max,
      maxBytes,
      sizeOf: scheduleBytes,
      ttl,
      loadMany: (ids) => loadSchedules(db, ids, new Date(options.clock().getTime() - SCHEDULE_LOOKBACK_MS)),
    });
    this.tokenCache = new LRUCache({ max });
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────────

  organization(id: string): Promise<OrganizationRecord | undefined> {
    return this.organizationCache.get(id);
  }

  organizations(ids: readonly string[]): Promise<(OrganizationRecord | undefined)[]> {
    return this.organizationCache.getMany(ids);
  }

  apiKey(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.apiKeyCache.get(hash);
  }

  oauthClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    return this.oauthClientCache.get(clientId);
  }

  /**
   * The organization's compiled schedule, able to answer for instants from `fromMs` on. The cached one
   * reaches back an hour before it was loaded; an older instant reads a schedule loaded for it (not kept).
   */
  async schedule(orgId: string, fromMs: number): Promise<OrgSchedule | undefined> {
    const cached = await this.scheduleCache.get(orgId);
    if (!cached || fromMs >= cached.validFromMs) return cached;
    return (await loadSchedules(this.db, [orgId], new Date(fromMs))).get(orgId);
  }

  /** A verified access token's claims, if it was verified before and has not expired at `nowMs`. */
  verifiedToken(token: string, nowMs: number): VerifiedToken | undefined {
    const claims = this.tokenCache.get(token);
    if (claims && claims.expiresAtMs > nowMs) {
      this.tokenHits++;
      return claims;
    }
    this.tokenMisses++;
    return undefined;
  }

  rememberToken(token: string, claims: VerifiedToken): void {
    this.tokenCache.set(token, claims);
  }

  /** Whether an organization's record or schedule is held now (tests, diagnostics). */
  holds(part: 'organization' | 'schedule', orgId: string): boolean {
    return this.held(part, orgId) !== undefined;
  }

  /**
   * The organization's record or schedule held now, as a read would hand it out without loading (not
   * expired, not suspect); undefined when it is not.
   */
  held(part: 'organization', orgId: string): OrganizationRecord | undefined;
  held(part: 'schedule', orgId: string): OrgSchedule | undefined;
  held(part: 'organization' | 'schedule', orgId: string): OrganizationRecord | OrgSchedule | undefined;
  held(part: 'organization' | 'schedule', orgId: string): OrganizationRecord | OrgSchedule | undefined {
    return (part === 'organization' ? this.organizationCache : this.scheduleCache).peek(orgId);
  }

  stats(): Record<'organizations' | 'credentials' | 'tokens' | 'schedules', ReadModelStats> {
    const of = (c: { hits: number; misses: number; size: number; bytes: number }) => ({
      hits: c.hits,
      misses: c.misses,
      entries: c.size,
      bytes: c.bytes,
    });
    const apiKeys = of(this.apiKeyCache);
    const clients = of(this.oauthClientCache);
    return {
      organizations: of(this.organizationCache),
      credentials: {
        hits: apiKeys.hits + clients.hits,
        misses: apiKeys.misses + clients.misses,
        entries: apiKeys.entries + clients.entries,
        bytes: apiKeys.bytes + clients.bytes,
      },
      tokens: { hits: this.tokenHits, misses: this.tokenMisses, entries: this.tokenCache.size, bytes: 0 },
      schedules: of(this.scheduleCache),
    };
  }

  // ── invalidation ────────────────────────────────────────────────────────────────────────────

  onChange(change: Change): void {
    switch (change.kind) {
      case 'organization':
        // the timezone lives in the schedule too
        this.organizationCache.invalidate(change.orgId);
        this.scheduleCache.invalidate(change.orgId);
        break;
      case 'officeHours':
      case 'closures':
      case 'templates':
      case 'phoneNumbers':
        this.scheduleCache.invalidate(change.orgId);
        break;
      case 'credentials':
        this.apiKeyCache.invalidateWhere((r) => r.orgId === change.orgId);
        this.oauthClientCache.invalidateWhere((r) => r.orgId === change.orgId);
        break;
    }
  }

  onSync(inSync: boolean): void {
    this.inSync = inSync;
    // unreadable: changes committed since the last read may already be unheard, so what is held is answered
    // only when the database cannot be (a load fails). Readable again: that read heard (and forgot)
    // everything committed meanwhile, and what was loaded meanwhile lives a second only
    for (const cache of [this.organizationCache, this.apiKeyCache, this.oauthClientCache, this.scheduleCache]) {
      if (inSync) cache.dropSuspects();
      else cache.suspectAll();
    }
  }

  clear(): void {
    this.organizationCache.clear();
    this.apiKeyCache.clear();
    this.oauthClientCache.clear();
    this.scheduleCache.clear();
  }
}
