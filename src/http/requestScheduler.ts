// Starts requests in short slices of the event loop, so that a busy instance keeps accepting connections.
//
// Why: libuv accepts ONE connection per event-loop iteration (libuv PR #3696, in Node 20 and later) and
// node:http runs every request whose bytes arrived in that iteration before the loop turns. With a few
// hundred busy keep-alive connections an iteration lasts as long as a few hundred requests, so a new
// connection — a load balancer's health check, a client that just arrived — waits in the kernel's accept
// queue one long iteration per connection ahead of it. Measured on 2 cores, 400 connections on an
// organization read: 120 connections were not accepted within 10 s, and `/healthz` took 9 s.
//
// So requests are queued and started from `setImmediate`, at most about SLICE_MS of work per iteration;
// the others wait for the next one, after the poll phase has accepted a connection and read the sockets.
// How many fit in a slice is learned from the iterations themselves (their length includes what the
// started requests did after their first `await`, and the reading of the sockets). Health checks skip the
// queue: they must answer quickly exactly when the instance is busiest.

/** The work an iteration may start (ms): short enough to accept often, long enough to cost nothing. */
const SLICE_MS = 5;

export class RequestScheduler {
  private queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  /** The measured cost of starting one request (ms): a moving average, kept across idle periods. */
  private costMs = 0.1;
  private lastSlice = 0;
  private lastStarted = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Requests waiting to start. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Requests one iteration starts now. */
  get perSlice(): number {
    return Math.max(1, Math.min(1_000, Math.floor(this.sliceMs / this.costMs)));
  }

  run(job: () => void): void {
    this.queue.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    const now = performance.now();
    if (this.lastSlice !== 0 && this.lastStarted > 0) {
      // the whole last iteration (the requests it started, what they did after their first await, the
      // reading of the sockets) divided among the requests it started: an overestimate when the loop
      // also did other work, so that a slice starts fewer requests, never too many
      const cost = (now - this.lastSlice) / this.lastStarted;
      this.costMs = this.costMs * 0.7 + cost * 0.3;
    }
    const limit = this.perSlice;
    let started = 0;
    while (this.head < this.queue.length && started < limit) {
      const job = this.queue[this.head]!;
      this.queue[this.head++] = undefined as never;
      started++;
      try {
        job();
      } catch {
        // a job answers its own errors (the request listener); one that throws must not stop the others
      }
    }
    if (this.head >= this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    if (started === 0) {
      // an iteration with nothing to start: the loop is idle again; the next request starts a new round
      this.scheduled = false;
      this.lastSlice = 0;
      return;
    }
    // one more iteration even when the queue is empty: it measures how long this one took
    this.lastSlice = now;
    this.lastStarted = started;
    setImmediate(this.drain);
  };
}
