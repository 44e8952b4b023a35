// Where a reader of the event log is, by `seq`, and the one rule every reader of the log follows (the
// change feed's tail, eventTail.ts; the webhook dispatcher, domain/events/webhooks/dispatcher.ts).
//
// `seq` is taken when an event is inserted, not when its transaction commits: a later seq can be visible
// before an earlier one commits. A seq skipped over is kept as a gap and read again with what follows
// (`seq > read OR seq = ANY(gaps)`) until it appears or `gapMs` of real time passed: a write's transaction
// ends within seconds (Prisma's interactive transactions time out after 5 s, statements after
// DB_STATEMENT_TIMEOUT_MS), so a gap that never fills was rolled back.
/** At most this many gaps are kept (a burst of rolled-back writes must not grow memory without end). */
const MAX_GAPS = 10_000;

export class LogPosition {
  /** Skipped seqs → when first seen skipped (ms, real time). */
  private readonly gaps = new Map<number, number>();

  constructor(
    /** The highest seq read. */
    private highest: number,
    private readonly gapMs: number,
  ) {}

  /**
   * A reader that starts now: the seqs present among the latest (`recent`, ascending) count as read, and those
   * missing within `window` seqs below the highest as gaps, since a write may still commit them (never more than
   * `window` gaps, however far the first seqs of a short log were purged).
   */
  static startingAfter(recent: readonly number[], window: number, gapMs: number, now = Date.now()): LogPosition {
    const highest = recent.at(-1) ?? 0;
    const position = new LogPosition(Math.max(0, highest - window), gapMs);
    for (const seq of recent) position.saw(seq, now);
    return position;
  }

  /** The highest seq read so far. */
  get read(): number {
    return this.highest;
  }

  /** The seqs to read again (the gaps not yet given up on), forgetting those looked for longer than `gapMs`. */
  gapsToRead(now = Date.now()): number[] {
    for (const [seq, since] of this.gaps) if (now - since > this.gapMs) this.gaps.delete(seq);
    return [...this.gaps.keys()];
  }

  /** Records an event read: past the highest, the seqs skipped become gaps; else a gap filled. */
  saw(seq: number, now = Date.now()): void {
    if (seq > this.highest) {
      for (let missing = this.highest + 1; missing < seq && this.gaps.size < MAX_GAPS; missing++) this.gaps.set(missing, now);
      this.highest = seq;
    } else {
      this.gaps.delete(seq);
    }
  }

  /**
   * The highest seq below which every event has been read (or given up on as rolled back): the highest
   * seq read, or just below the lowest gap.
   */
  get complete(): number {
    let complete = this.highest;
    for (const seq of this.gaps.keys()) if (seq - 1 < complete) complete = seq - 1;
    return complete;
  }
}
