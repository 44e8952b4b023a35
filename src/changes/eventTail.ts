// How every other instance's changes reach this one: the event log (domain/events/log.ts writes one event in
// the transaction of every write), read from where this instance last read it, by `seq`. The changes the
// events stand for go to the feed's listeners (the read model forgets, live subscriptions recompute). It
// is the only way: a notice from another instance (feed.ts) only wakes this reader, which then reads what
// committed, so nothing that committed is missed (a notice lost; the writer dead between its commit and
// its notice) and nothing that did not commit, or that a notice merely claims, is acted on. A poll reads
// the log every `pollMs` without a notice: that bounds how late a change is heard when notices are lost.
// When a read fails the feed is told (ChangeFeed.setInSync: what the read model holds becomes suspect, answered
// only when the database cannot be read either, and new entries live briefly) until a read succeeds; that read hears everything committed meanwhile.
//
// `seq` is taken when a row is inserted, not when it commits: a skipped seq is looked for again
// (logPosition.ts, the rule every reader of the log follows).
import type { Db } from '../db/client.js';
import type { Change, ChangeKind } from './change.js';
import type { ChangeFeed } from './feed.js';
import { CoalescedRun } from './coalescedRun.js';
import { LogPosition } from './logPosition.js';
import { lastEventSeq, unreadChangeEvents } from './sql.js';

/** The change an event's type stands for in what instances hold (read model, live subscriptions); null for none. */
export function changeOfEventType(type: string): ChangeKind | null {
  switch (type.slice(0, type.indexOf('.'))) {
    case 'organization':
      return 'organization';
    case 'office_hours':
    case 'special_hours':
      return 'officeHours';
    case 'closure':
      return 'closures';
    case 'template':
      return 'templates';
    case 'phone_number':
      return 'phoneNumbers';
    case 'api_key':
    case 'oauth_client':
      return 'credentials';
    default:
      return null;
  }
}

/** The events of a location that change its account's record too (which counts its active children). */
const CHILDREN_CHANGED: ReadonlySet<string> = new Set(['organization.created', 'organization.archived', 'organization.unarchived']);

/**
 * The changes one event stands for: its type's, and for a location made, archived or brought back also its
 * account's (whose record counts its children), named by the event's data.
 */
export function changesOfEvent(event: { type: string; orgId: string; parentId: string | null }): Change[] {
  const kind = changeOfEventType(event.type);
  if (!kind) return [];
  const changes: Change[] = [{ kind, orgId: event.orgId }];
  if (CHILDREN_CHANGED.has(event.type) && event.parentId) changes.push({ kind: 'organization', orgId: event.parentId });
  return changes;
}

export interface EventTailOptions {
  /** How often the log is read without a wake-up. */
  pollMs?: number;
  /** How long a skipped seq is looked for before it is taken as rolled back. */
  gapMs?: number;
  /** Events read per statement. */
  batchSize?: number;
}

export class EventTail {
  private position: LogPosition | null = null;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly pollMs: number;
  private readonly gapMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly db: Db,
    private readonly feed: ChangeFeed,
    options: EventTailOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1_000;
    this.gapMs = options.gapMs ?? 60_000;
    this.batchSize = options.batchSize ?? 500;
  }

  /** Starts from the end of the log (what this instance holds was read after it), woken by other instances' notices and polling. */
  async start(): Promise<void> {
    await this.readCursor();
    this.unsubscribe = this.feed.onNotice(() => void this.wake());
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await this.reads.settled();
  }

  /**
   * Reads what was committed since the last read (now; a read under way is followed by another). Resolves
   * once read (or failed: the next wake-up or poll reads again).
   */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.reads.wake();
  }

  private readonly reads = new CoalescedRun(
    async () => {
      try {
        await this.catchUp();
        this.feed.setInSync(true);
      } catch {
        // the database is away: the next wake-up or poll reads again from the same place; meanwhile
        // changes may be going unheard, so nothing held may be trusted for long
        if (!this.stopped) this.feed.setInSync(false);
      }
    },
    () => !this.stopped,
  );

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.wake();
      this.schedule();
    }, this.pollMs);
    this.timer.unref();
  }

  private async readCursor(): Promise<void> {
    const seq = await lastEventSeq(this.db);
    this.position = new LogPosition(seq ? Number(seq) : 0, this.gapMs);
  }

  /** Reads every event committed since the last read and hands its changes to the feed; answers how many events it read. */
  async catchUp(): Promise<number> {
    if (this.position === null) await this.readCursor();
    const position = this.position!;
    let read = 0;
    for (;;) {
      const rows = await unreadChangeEvents(this.db, position, this.batchSize);
      const changes = new Map<string, Change>();
      for (const row of rows) {
        position.saw(Number(row.seq));
        for (const change of changesOfEvent(row)) changes.set(`${change.kind}|${change.orgId}`, change);
      }
      for (const change of changes.values()) this.feed.apply(change);
      read += rows.length;
      if (rows.length < this.batchSize) return read;
    }
  }
}
