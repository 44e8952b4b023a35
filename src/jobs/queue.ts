// Durable work, on one mechanism over the project's database (the same on the embedded database and
// on PostgreSQL across instances). A job is a row of "Job": enqueued in the transaction of the change
// that calls for it (so a committed change never loses its work, even after kill -9), claimed with
// `FOR UPDATE SKIP LOCKED` (with several instances, each job is in flight on one at a time), and held
// by a lease (`lockedUntil`): the work of an instance that died is taken over once its lease expires.
// Time is the app's clock (deps.clock / deps.wakeAt), so tests move jobs through time with a fake one.
//
// Lanes: work whose own rows already say what is due (a pending webhook delivery and its nextAttemptAt)
// is claimed from those rows, with the same lease and SKIP LOCKED, by the same loop and slots, instead of
// standing behind a "Job" row of its own: no second row to insert, claim and delete per piece of work,
// and the claim can read what the work needs in the same statement (JobLane). A lane may also hand out
// work of its own before its entries are claimed, on every look (`look`: webhook first attempts, read
// from the event log by domain/events/webhooks/dispatcher.ts).
//
// Why not a maintained queue: pg-boss 11+ and graphile-worker 0.18 require Node 22+ and the service
// must run on Node 20.19; pg-boss 10 would need a custom executeSql bridge over PGlite. This module is one
// loop over Prisma, with one SQL statement per claim (jobs/sql.ts; docs/architecture.md "Durable work").
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { claimJobRows, deleteJobRows, jobInsertStatement, type JobRow } from './sql.js';

/** What a handler tells the queue: done (the row goes), try again at an instant, or failed for good (the row stays, failedAt set). */
export type JobOutcome = ({ done: true } | { retryAt: Date; error: string } | { failed: string }) & {
  /** What the outcome counts as in metrics (e.g. delivered, gone); by default done, retried or failed. */
  label?: string;
  /** From the commit of the change that called for the work to this outcome (metrics: delivery latency from commit). */
  latencyMs?: number;
};

/** Hears every outcome of this queue's jobs (metrics). */
export type OutcomeListener = (kind: string, label: string, outcome: JobOutcome) => void;

/** A job (or a lane's entry) claimed for a run. */
export type ClaimedJob = JobRow;

export type JobHandler = (job: ClaimedJob) => Promise<JobOutcome>;

/**
 * Durable work whose rows are their own queue entries (jobs/queue.ts "Lanes"). Its handler records every
 * outcome on the entry itself, ending the lease (a retry sets the entry's next due time); the queue only
 * releases an entry whose handler threw.
 */
export interface JobLane {
  /** What its entries run as: their handler's kind, and their outcomes' in metrics. */
  kind: string;
  /** Claims up to `limit` due entries (FOR UPDATE SKIP LOCKED) under a lease until `lockedUntil`; the payload is what the handler needs. */
  claim(limit: number, now: Date, lockedUntil: Date): Promise<ClaimedJob[]>;
  /** An entry whose handler threw: due again at `retryAt`, its lease ended. */
  release(job: ClaimedJob, retryAt: Date, error: string): Promise<void>;
  /** Ends every lease (an embedded database's process that died held them; see JobQueue.releaseLeases). */
  releaseAll(): Promise<void>;
  /** Entries waiting or in flight, and when the oldest fell due (metrics). */
  depth(): Promise<{ pending: number; oldestRunAt: Date | null }>;
  /**
   * Work the lane starts itself on every look, before its due entries are claimed; answers how many it
   * started. With `settle` (runDue), waits until that work ended and was recorded.
   */
  look?(settle: boolean): Promise<number>;
  /** Waits for what `look` started and gives up what it holds (the queue stops). */
  stop?(): Promise<void>;
}

export interface JobQueueDeps {
  db: Db;
  clock: () => Date;
  wakeAt(atMs: number, wake: () => void): () => void;
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export interface JobQueueOptions {
  /** How long a claim holds before another instance may take the job over (longer than any handler runs). */
  leaseMs?: number;
  /** How often an idle queue looks for due work (other instances' jobs, retries that came due). */
  pollMs?: number;
  /** Jobs claimed at once (runDue), and the jobs a started queue keeps in flight. */
  batchSize?: number;
  /**
   * The least time between the starts of two looks of a started queue (0: none). Every commit pokes the
   * queue: under a steady stream of writes, looks that wait for this gap each take the work of many
   * commits in one claim (and run the other work once), instead of a few statements per commit.
   */
  minLookGapMs?: number;
}

/**
 * Adds a job; call it with the transaction of the change that calls for the work. `id`: a job that ends
 * with its subject is named by it (a call request's expiry by the request's id), so that the transition
 * that makes it pointless deletes it by that name in its own transaction (dropJobs).
 */
export async function enqueueJob(
  tx: Pick<Prisma.TransactionClient, 'job'>,
  now: Date,
  job: { kind: string; payload: unknown; runAt?: Date; id?: string },
): Promise<string> {
  const id = job.id ?? randomUUID();
  await tx.job.create({
    data: { id, kind: job.kind, payload: job.payload as Prisma.InputJsonValue, runAt: job.runAt ?? now, createdAt: now },
    select: { id: true },
  });
  return id;
}

/**
 * The INSERT of one job, for a write that queues it in its own statement (a data-modifying WITH of that
 * statement; see enqueueJob for the transaction's way); with `when`, only when that condition holds.
 */
export function jobInsertSql(now: Date, job: { id: string; kind: string; payload: unknown; runAt?: Date }, when?: Prisma.Sql): Prisma.Sql {
  return jobInsertStatement(job.id, job.kind, JSON.stringify(job.payload), (job.runAt ?? now).toISOString(), now.toISOString(), when);
}

/**
 * Deletes the jobs named `ids` (absent ones are skipped): call it in the transaction that brought their
 * subject to an end, so that no work outlives it (docs/decisions.md "Work ends with its subject"). A job
 * in flight meanwhile finds its subject ended, and its outcome is recorded on no row.
 */
export async function dropJobs(tx: Pick<Prisma.TransactionClient, 'job'>, ids: (string | null | undefined)[]): Promise<void> {
  const named = ids.filter((id): id is string => typeof id === 'string');
  if (named.length > 0) await tx.job.deleteMany({ where: { id: { in: named } } });
}

/** A claimed job, or a lane's entry with its lane and handler. */
interface Claimed {
  job: ClaimedJob;
  lane?: JobLane;
  handler?: JobHandler;
}

export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly lanes: { lane: JobLane; handler: JobHandler }[] = [];
  private readonly sources: (() => Promise<number>)[] = [];
  private readonly outcomeListeners = new Set<OutcomeListener>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly minLookGapMs: number;
  /** When the last look started (performance.now(): a gap between looks, not a time of the app's clock). */
  private lastLookAt = -Infinity;
  private cancelWake: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Set by start: the next look releases the leases found held first. */
  private releaseHeldLeases = false;
  /** Outcomes since start, by kind (metrics read them on each scrape). */
  private readonly totals = new Map<string, Record<string, number>>();
  private lastDepth: { pending: number; oldestRunAt: Date | null } = { pending: 0, oldestRunAt: null };
  private depthRefresh: Promise<void> | undefined;
  /** The jobs a started queue runs now (its slots): refilled as they finish, not batch by batch. */
  private readonly inFlight = new Set<Promise<void>>();
  /** A look found too few slots free: the next job to finish pokes the queue. */
  private roomWanted = false;
  /** Done jobs whose rows are deleted together, one statement per turn of the event loop. */
  private doneIds: string[] = [];
  private doneFlush: Promise<void> | undefined;

  constructor(
    private readonly deps: JobQueueDeps,
    options: JobQueueOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 1_000;
    this.batchSize = options.batchSize ?? 10;
    this.minLookGapMs = options.minLookGapMs ?? 0;
  }

  handle(kind: string, handler: JobHandler): this {
    this.handlers.set(kind, handler);
    return this;
  }

  /** Runs a lane's entries with `handler` (claimed with the jobs, in the same slots). */
  lane(lane: JobLane, handler: JobHandler): this {
    this.lanes.push({ lane, handler });
    return this;
  }

  /**
   * Ends every lease, of jobs and of lanes' entries: one process owns an embedded database at a time,
   * so a lease found held when it opens was held by a process that died, and its work is due at once.
   */
  async releaseLeases(): Promise<void> {
    await this.deps.db.job.updateMany({ where: { lockedUntil: { not: null }, failedAt: null }, data: { lockedUntil: null } });
    for (const { lane } of this.lanes) await lane.releaseAll();
  }

  /**
   * Other durable work that claims its own rows (FOR UPDATE SKIP LOCKED) and answers how many it took:
   * run with every look for due jobs, on the same loop and clock (availability.changed looks).
   */
  alsoRun(source: () => Promise<number>): this {
    this.sources.push(source);
    return this;
  }

  /**
   * Starts the poll loop (the server does; tests may call runDue() instead). `afterMs`: the first look waits
   * that long on the clock, unless something is enqueued here first (a poke). `releaseHeldLeases`: the
   * first look begins by releasing every lease found held, so that the work is due at once — only where
   * a held lease can only belong to a process that died (one process owns an embedded folder).
   */
  start(options: { afterMs?: number; releaseHeldLeases?: boolean } = {}): void {
    this.stopped = false;
    this.releaseHeldLeases = options.releaseHeldLeases ?? false;
    if (options.afterMs) {
      this.cancelWake?.();
      this.cancelWake = this.deps.wakeAt(this.deps.clock().getTime() + options.afterMs, () => this.poke());
    } else this.poke();
  }

  /** Stops polling and waits for the jobs in hand (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelWake?.();
    this.cancelWake = undefined;
    await this.running;
    await Promise.all(this.inFlight);
    for (const { lane } of this.lanes) await lane.stop?.();
  }

  /** Runs due work now (after an enqueue on this instance, so that it need not wait for the next poll). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop(): Promise<void> {
    do {
      // a look soon after the last one waits out the gap: the commits meanwhile are taken by the one look
      const wait = this.lastLookAt + this.minLookGapMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.stopped) break;
      this.lastLookAt = performance.now();
      this.again = false;
      try {
        if (this.releaseHeldLeases) {
          await this.releaseLeases();
          this.releaseHeldLeases = false;
        }
        const others = await this.runSources();
        await this.lookLanes(false);
        // a pool of slots: claim while the last claim came back full (more is due), each claim for the free
        // slots once enough are free (one statement for several jobs). With too few free, the look ends and
        // the next job to finish pokes again: slow jobs never stop the looks (the lanes' own work, such as
        // webhook first attempts, and the other work go on meanwhile)
        const minRoom = Math.max(1, Math.floor(this.batchSize / 4));
        for (;;) {
          if (this.stopped) break;
          const room = this.batchSize - this.inFlight.size;
          if (room < minRoom) {
            this.roomWanted = true;
            break;
          }
          const claimed = await this.claim(room);
          for (const job of claimed) {
            const running: Promise<void> = this.run(job)
              .catch((err: unknown) =>
                this.deps.logger?.warn('job queue: recording an outcome failed', {
                  error: err instanceof Error ? err.message : String(err),
                }),
              )
              .finally(() => {
                this.inFlight.delete(running);
                if (this.roomWanted) {
                  this.roomWanted = false;
                  this.poke();
                }
              });
            this.inFlight.add(running);
          }
          if (claimed.length < room) break;
        }
        // what the other work recorded (events and their deliveries) is due now: look again
        if (others > 0) this.again = true;
      } catch (err) {
        this.deps.logger?.warn('job queue: claiming failed', { error: err instanceof Error ? err.message : String(err) });
      }
    } while (this.again && !this.stopped);
    if (!this.stopped) {
      this.cancelWake?.();
      this.cancelWake = this.deps.wakeAt(this.deps.clock().getTime() + this.pollMs, () => this.poke());
    }
  }

  /** Claims the due jobs (up to one batch), runs them, and answers how many ran (with the other work's count). */
  async runDue(): Promise<number> {
    // the other work first: what it records (events and their deliveries) is then due in this same look
    const ran = (await this.runSources()) + (await this.lookLanes(true));
    const claimed = await this.claim(this.batchSize);
    await Promise.all(claimed.map((c) => this.run(c)));
    return ran + claimed.length;
  }

  /** The lanes' own work (JobLane.look); answers how much was started. */
  private async lookLanes(settle: boolean): Promise<number> {
    let started = 0;
    for (const { lane } of this.lanes) {
      if (!lane.look) continue;
      try {
        started += await lane.look(settle);
      } catch (err) {
        // looked at again at the next look; the claims are not held up by it
        this.deps.logger?.warn("job queue: a lane's look failed", {
          kind: lane.kind,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return started;
  }

  private async runSources(): Promise<number> {
    let ran = 0;
    for (const source of this.sources) {
      try {
        ran += await source();
      } catch (err) {
        // its rows stay due: it runs again at the next look; the jobs are not held up by it
        this.deps.logger?.warn('job queue: other work failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return ran;
  }

  /** Claims due jobs, then the lanes' due entries, up to `limit` in all. */
  private async claim(limit: number): Promise<Claimed[]> {
    const now = this.deps.clock();
    const lockedUntil = new Date(now.getTime() + this.leaseMs);
    const claimed: Claimed[] = (await this.claimJobs(limit, now, lockedUntil)).map((job) => ({ job }));
    for (const { lane, handler } of this.lanes) {
      if (claimed.length >= limit) break;
      for (const job of await lane.claim(limit - claimed.length, now, lockedUntil)) claimed.push({ job, lane, handler });
    }
    return claimed;
  }

  private async claimJobs(limit: number, now: Date, lockedUntil: Date): Promise<ClaimedJob[]> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0 || limit <= 0) return [];
    return claimJobRows(this.deps.db, kinds, limit, now, lockedUntil);
  }

  private async run({ job, lane, handler }: Claimed): Promise<void> {
    let outcome: JobOutcome;
    let threw = false;
    try {
      outcome = await (handler ?? this.handlers.get(job.kind)!)(job);
    } catch (err) {
      // a handler that throws is retried with the lease's delay (handlers answer their own retry times)
      outcome = { retryAt: new Date(this.deps.clock().getTime() + this.leaseMs), error: err instanceof Error ? err.message : String(err) };
      threw = true;
    }
    const { db } = this.deps;
    this.record(job.kind, outcome);
    if (lane) {
      // a lane's handler recorded its outcome on the entry; one that threw did not
      if (threw && 'retryAt' in outcome) await lane.release(job, outcome.retryAt, outcome.error.slice(0, 1000));
    } else if ('done' in outcome) await this.deleteDone(job.id);
    // updateMany: the job may have been dropped meanwhile with its subject (dropJobs), then nothing is left to record
    else if ('retryAt' in outcome)
      await db.job.updateMany({
        where: { id: job.id },
        data: { runAt: outcome.retryAt, lockedUntil: null, lastError: outcome.error.slice(0, 1000) },
      });
    else
      await db.job.updateMany({
        where: { id: job.id },
        data: { failedAt: this.deps.clock(), lockedUntil: null, lastError: outcome.failed.slice(0, 1000) },
      });
  }

  /**
   * Deletes a done job's row, with the others done in the same turn of the event loop (one statement).
   * Until it is deleted the row stays claimed under its lease; a process that dies meanwhile has it run
   * again after the lease, and handlers tell a repeat from new work (a delivered delivery is skipped).
   */
  private deleteDone(id: string): Promise<void> {
    this.doneIds.push(id);
    this.doneFlush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = this.doneIds;
      this.doneIds = [];
      this.doneFlush = undefined;
      await deleteJobRows(this.deps.db, ids);
    });
    return this.doneFlush;
  }

  /** Counts an outcome of work of `kind` and tells the listeners (the queue's own jobs, and a lane's own work). */
  record(kind: string, outcome: JobOutcome): void {
    const totals = this.totals.get(kind) ?? {};
    this.totals.set(kind, totals);
    const label = outcome.label ?? ('done' in outcome ? 'done' : 'retryAt' in outcome ? 'retried' : 'failed');
    totals[label] = (totals[label] ?? 0) + 1;
    for (const listener of this.outcomeListeners) listener(kind, label, outcome);
  }

  /** Calls `listener` with every outcome from now on; answers how to stop. */
  onOutcome(listener: OutcomeListener): () => void {
    this.outcomeListeners.add(listener);
    return () => this.outcomeListeners.delete(listener);
  }

  /** Outcomes of the jobs of one kind run on this instance since start, by label. */
  outcomes(kind: string): Record<string, number> {
    return { ...this.totals.get(kind) };
  }

  /**
   * The depth as of the last look, and a new look started in the background (metrics are read
   * synchronously on a scrape: each scrape shows what the previous one asked for, one count statement each).
   */
  depthNow(): { pending: number; oldestAgeSeconds: number } {
    this.depthRefresh ??= this.depth()
      .then((depth) => void (this.lastDepth = depth))
      .catch(() => undefined)
      .finally(() => (this.depthRefresh = undefined));
    const oldest = this.lastDepth.oldestRunAt;
    return {
      pending: this.lastDepth.pending,
      oldestAgeSeconds: oldest ? Math.max(0, (this.deps.clock().getTime() - oldest.getTime()) / 1000) : 0,
    };
  }

  /** Jobs and lanes' entries waiting (not failed), and the oldest one's due time (metrics). */
  async depth(): Promise<{ pending: number; oldestRunAt: Date | null }> {
    const [pending, oldest, ...lanes] = await Promise.all([
      this.deps.db.job.count({ where: { failedAt: null } }),
      this.deps.db.job.findFirst({ where: { failedAt: null }, orderBy: { runAt: 'asc' }, select: { runAt: true } }),
      ...this.lanes.map(({ lane }) => lane.depth()),
    ]);
    let oldestRunAt = oldest?.runAt ?? null;
    for (const lane of lanes) if (lane.oldestRunAt && (!oldestRunAt || lane.oldestRunAt < oldestRunAt)) oldestRunAt = lane.oldestRunAt;
    return { pending: pending + lanes.reduce((sum, lane) => sum + lane.pending, 0), oldestRunAt };
  }
}
