// The events of the log as they commit, for live subscriptions (callRequestChanged): unlike a change (which names
// data to reload, change.ts), a subscriber here needs each event itself, every transition in order, also two that
// follow each other within a millisecond. One reader per instance reads the log while anyone watches, from where
// it was when the first watcher came, by the rule of every reader of the log (logPosition.ts: a seq skipped is
// read again until it commits or is given up on), and hands each event to the watchers of its organization.
//
// It reads at once when this instance committed events (the database's observers) or another instance's notice
// arrives (the change feed), and every `pollMs` besides: a lost notice delays an event by one poll at most. A read
// that fails is tried again from the same place at the next poll: nothing is skipped, only late. Only the data of
// the organizations watched is read.
import type { Db } from '../db/client.js';
import type { DatabaseObserver } from '../db/instrumentedAdapter.js';
import type { LiveEvent, LiveEventSource } from './change.js';
import { CoalescedRun } from './coalescedRun.js';
import { LogPosition } from './logPosition.js';
import { recentEventSeqs, unreadLiveEvents } from './sql.js';

export interface LiveEventOptions {
  /** How often the log is read while watched, without a wake-up. */
  pollMs?: number;
  /** How long a skipped seq is looked for before it is taken as rolled back. */
  gapMs?: number;
  /** Events read per statement. */
  batchSize?: number;
  /** How many of the log's latest seqs the first read looks at for gaps (writes still in flight). */
  startWindow?: number;
}

type Listener = (event: LiveEvent) => void;

export class LiveEventReader implements LiveEventSource {
  private readonly watchers = new Map<string, Set<Listener>>();
  private position: LogPosition | null = null;
  private starting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopWaking: (() => void) | undefined;
  private closed = false;
  private readonly pollMs: number;
  private readonly gapMs: number;
  private readonly batchSize: number;
  private readonly startWindow: number;

  constructor(
    private readonly db: Db,
    private readonly sources: {
      /** The database's statement observers: told when this instance committed events. */
      observers: Set<DatabaseObserver>;
      /** The change feed: calls `wake` when another instance's notice arrives. */
      onNotice(wake: () => void): () => void;
    },
    options: LiveEventOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.gapMs = options.gapMs ?? 60_000;
    this.batchSize = options.batchSize ?? 500;
    this.startWindow = options.startWindow ?? 1_000;
  }

  /** Organizations watched now (metrics, tests). */
  get watched(): number {
    return this.watchers.size;
  }

  async watch(orgId: string, listener: Listener): Promise<() => void> {
    if (this.closed) throw new Error('the live event reader is closed');
    let set = this.watchers.get(orgId);
    const newOrganization = !set;
    if (!set) this.watchers.set(orgId, (set = new Set()));
    set.add(listener);
    const stop = () => this.unwatch(orgId, listener);
    try {
      await this.start();
      // a read already under way was asked without this organization's data: what it returns of it is passed
      // over as read, so the watcher listens from the read after it (which asks for it)
      if (newOrganization) await this.reads.settled();
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  /** Stops reading; watchers hear nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    this.watchers.clear();
    this.halt();
    await this.reads.settled();
  }

  private unwatch(orgId: string, listener: Listener): void {
    const set = this.watchers.get(orgId);
    if (!set?.delete(listener)) return;
    if (set.size === 0) this.watchers.delete(orgId);
    if (this.watchers.size === 0) this.halt();
  }

  /**
   * Where reading starts, found once for the first watcher: a later watcher hears what commits after it came,
   * since what the reader reads next is read with the data of every organization watched when it reads.
   */
  private start(): Promise<void> {
    if (this.position) return Promise.resolve();
    this.starting ??= (async () => {
      const recent = await recentEventSeqs(this.db, this.startWindow);
      // everyone left (or the reader closed) while the log's end was read: nothing to start
      if (this.closed || this.watchers.size === 0) return;
      this.position = LogPosition.startingAfter(recent, this.startWindow, this.gapMs);
      const wake = () => void this.wake();
      const observer: DatabaseObserver = { onStatement: () => {}, onEventsCommitted: wake };
      this.sources.observers.add(observer);
      const stopNotices = this.sources.onNotice(wake);
      this.stopWaking = () => {
        this.sources.observers.delete(observer);
        stopNotices();
      };
      this.schedule();
    })().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** No one watches: stop reading (the next watcher starts from where the log then ends). */
  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopWaking?.();
    this.stopWaking = undefined;
    this.position = null;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      if (!this.position) return;
      void this.wake();
      this.schedule();
    }, this.pollMs);
    this.timer.unref();
  }

  /** Reads what committed since the last read (a read under way is followed by another). */
  wake(): Promise<void> {
    return this.reads.wake();
  }

  private readonly reads = new CoalescedRun(
    async () => {
      try {
        await this.catchUp();
      } catch {
        // the database is away: the next poll reads again from the same place
      }
    },
    () => this.position !== null,
  );

  private async catchUp(): Promise<void> {
    for (;;) {
      const position = this.position;
      if (!position) return;
      const rows = await unreadLiveEvents(this.db, position, [...this.watchers.keys()], this.batchSize);
      // halted meanwhile (no one watches): a new start reads from where the log ends then
      if (position !== this.position) return;
      for (const row of rows) {
        position.saw(Number(row.seq));
        if (row.data === null) continue; // an organization no one watched when it was read
        const listeners = this.watchers.get(row.orgId);
        if (!listeners) continue;
        const event: LiveEvent = { id: row.id, type: row.type, orgId: row.orgId, occurredAt: row.occurredAt, data: row.data };
        for (const listener of [...listeners]) listener(event);
      }
      if (rows.length < this.batchSize) return;
    }
  }
}
