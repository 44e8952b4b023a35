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
// queue (http/server.ts): they must answer quickly exactly when the instance is busiest.
//
// The queue is bounded (HTTP_MAX_QUEUED_REQUESTS): past it a request is refused at once (the server answers
// 503 + Retry-After) rather than waiting behind work the instance cannot finish in time. Its depth and
// the refusals are in /metrics (ocs_http_requests_waiting, ocs_http_requests_refused_total).
//
// Fair between callers: each request waits in the line of its caller (the server names it by its credential,
// else its address), and the lines take turns, one request each. A client that sends a hundred requests at
// once does not make the next request of another client wait for those hundred to start.

/** The work an iteration may start (ms): short enough to accept often, long enough to cost nothing. */
const SLICE_MS = 5;

/** What /metrics reads of the queue. */
export interface RequestQueueState {
  readonly waiting: number;
  readonly refused: number;
}

export interface SchedulerOptions {
  /** Requests that may wait; `run` refuses more. */
  maxWaiting: number;
  sliceMs?: number;
  /** Called with what a job threw (the listener answers its own errors: this one is a bug, logged). */
  onError?: (err: unknown) => void;
}

/** The requests of one caller waiting to start, in order. */
interface Line {
  jobs: (() => void)[];
  head: number;
}

export class RequestScheduler implements RequestQueueState {
  /** The callers' lines with requests waiting, by caller. */
  private readonly lines = new Map<string, Line>();
  /** The callers whose turn comes, in order (each once while its line has requests). */
  private turns: string[] = [];
  private turnHead = 0;
  private queued = 0;
  private scheduled = false;
  /** The measured cost of starting one request (ms): a moving average, kept across idle periods. */
  private costMs = 0.1;
  private lastSlice = 0;
  private lastStarted = 0;

  /** Requests refused because the queue was full, since start. */
  refused = 0;
  private readonly sliceMs: number;
  private readonly maxWaiting: number;
  private readonly onError: (err: unknown) => void;

  constructor(options: SchedulerOptions) {
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    this.maxWaiting = options.maxWaiting;
    this.onError = options.onError ?? (() => {});
  }

  /** Requests waiting to start. */
  get waiting(): number {
    return this.queued;
  }

  /** Requests one iteration starts now. */
  get perSlice(): number {
    return Math.max(1, Math.min(1_000, Math.floor(this.sliceMs / this.costMs)));
  }

  /** Queues `job` in the line of `caller`; false (and nothing queued) when the queue is full. */
  run(job: () => void, caller = ''): boolean {
    if (this.queued >= this.maxWaiting) {
      this.refused++;
      return false;
    }
    let line = this.lines.get(caller);
    if (!line) {
      this.lines.set(caller, (line = { jobs: [], head: 0 }));
      this.turns.push(caller);
    }
    line.jobs.push(job);
    this.queued++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
    return true;
  }

  /** The next request to start: the first of the line whose turn it is; that line goes to the back when it has more. */
  private next(): (() => void) | undefined {
    const caller = this.turns[this.turnHead];
    if (caller === undefined) return undefined;
    this.turns[this.turnHead++] = undefined as never;
    const line = this.lines.get(caller)!;
    const job = line.jobs[line.head]!;
    line.jobs[line.head++] = undefined as never;
    this.queued--;
    if (line.head < line.jobs.length) this.turns.push(caller);
    else this.lines.delete(caller);
    if (this.turnHead >= this.turns.length) {
      this.turns = [];
      this.turnHead = 0;
    } else if (this.turnHead > 1_024 && this.turnHead * 2 > this.turns.length) {
      this.turns = this.turns.slice(this.turnHead);
      this.turnHead = 0;
    }
    return job;
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
    while (started < limit) {
      const job = this.next();
      if (!job) break;
      started++;
      try {
        job();
      } catch (err) {
        // a job answers its own errors (the request listener); one that throws must not stop the others
        this.onError(err);
      }
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
