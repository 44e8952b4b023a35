// How a reader of the log runs its reads (eventTail.ts, liveEvents.ts): one at a time, and a wake-up that arrives
// during a read makes one more read after it, not one per wake-up (a burst of commits costs two reads at most).

export class CoalescedRun {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    /** One read; handles its own failure (a read that throws is not retried until the next wake-up). */
    private readonly read: () => Promise<void>,
    /** Whether to read again after a wake-up that came during a read (false once the reader stopped). */
    private readonly active: () => boolean,
  ) {}

  /** Reads now, or after the read under way; resolves once read. */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          await this.read();
        } while (this.again && this.active());
      } finally {
        // in the same turn as the last look at `again`: a wake-up after it starts a new run, none is lost between
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  /** Resolves once no read runs (a reader that stops waits for it). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }
}
