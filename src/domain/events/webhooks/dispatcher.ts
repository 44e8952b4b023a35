// The first attempts of webhook deliveries, made from the event log. A write records its event in its
// own transaction (domain/events/log.ts) and nothing else for webhooks; the dispatcher reads the log from a
// durable cursor, matches each event with the endpoints subscribed to it, posts it to them
// (delivery.ts `attemptOnce`), and writes each delivery's row once, when its attempt ended: delivered,
// failed, or pending a retry (the deliveries lane's entry from then on). Rows are written together with
// the cursor, one statement per 20 ms window, so a delivery that went well costs the database one row
// insert: no row written in the write's transaction, claimed, and updated again.
//
// Durability: the cursor says that every event up to it has been handed out (its deliveries' rows
// written, or it had no endpoint). It moves only as far as every event below it is done: an attempt in
// flight, a delivery waiting for a slot, or a gap in `seq` (an event not committed yet, logPosition.ts)
// hold it back. A process that dies (kill -9) leaves the cursor where its last window left it; whoever
// dispatches next reads on from there and attempts again what was not recorded (at least once: receivers
// tell repeats apart by webhook-id).
//
// One instance at a time: the instance holding the lease (WebhookDispatch.owner, until leaseUntil, on the
// app's clock) is the only one making first attempts, so that with several instances each event goes out
// once; it renews the lease as it reads, and another takes over from the cursor once it runs out. An
// embedded database's process releases a lease found held when it starts (only a process that died held
// it: jobs/queue.ts releaseLeases).
//
// Fair: each attempt takes one of the instance's delivery slots (delivery.ts DeliverySlots: bounded per
// organization and per endpoint, served in turn across organizations), so one organization's hanging
// receivers hold at most its share and another's events go out at once.
//
// Bounded: at most `maxWaitingPerEndpoint` deliveries wait for one endpoint's slot; past that (a slow or
// failing receiver and a stream of events), a delivery is handed to the deliveries lane as a pending row
// due now, so memory does not grow with a receiver's backlog and the cursor is not held up by it. A look
// stops reading once `maxOpenEvents` events have deliveries not written yet (a backlog after downtime is
// read as it is sent, not all at once); the next look reads on.
import { randomUUID } from 'node:crypto';
import { LogPosition } from '../../../changes/logPosition.js';
import { releaseDispatchLease, takeDispatchLease, unreadDispatchEvents, writeDispatched } from '../sql.js';
import type { JobOutcome } from '../../../jobs/queue.js';
import {
  type AttemptRecord,
  attemptOnce,
  type DeliveryDeps,
  type DeliveryEndpoint,
  type DeliveryEvent,
  type DeliveryHooks,
  type DeliverySlots,
} from './delivery.js';

export interface DispatcherOptions {
  /** How long a lease holds on the app's clock (renewed as the holder reads, once half of it has passed). */
  leaseMs?: number;
  /** Events read per statement. */
  batchSize?: number;
  /** Deliveries that may wait for one endpoint's slots before the next ones go to the deliveries lane. */
  maxWaitingPerEndpoint?: number;
  /** How long a skipped seq is looked for (logPosition.ts). */
  gapMs?: number;
  /** How long outcomes are collected before they are written together (real time). */
  recordWindowMs?: number;
  /** Events with deliveries not written yet past which a look stops reading. */
  maxOpenEvents?: number;
}

/** How long a write that failed (the database away) waits before it is tried again (real time). */
const WRITE_RETRY_MS = 1_000;
/** How often, at most, a cursor moved by events without deliveries is written alone (real time). */
const CURSOR_WRITE_MS = 1_000;

/** A delivery's row to write: what its attempt recorded, or (handed to the lane untried) pending, due now. */
interface Row extends Omit<AttemptRecord, 'lastAttemptAt' | 'response' | 'entry'> {
  seq: number;
  endpointId: string;
  event: DeliveryEvent;
  lastAttemptAt: Date | null;
  response: string | null;
  /** Its attempt's entry; null when handed over untried. */
  entry: AttemptRecord['entry'] | null;
}

/** A timestamp of json_build_object (a `timestamp(3)` column, UTC without its zone) as a Date. */
const jsonTime = (text: string | null) => (text === null ? null : new Date(`${text}Z`));

export class WebhookDispatcher {
  /** This dispatcher, as the lease names its holder. */
  readonly owner = randomUUID();
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly maxWaitingPerEndpoint: number;
  private readonly gapMs: number;
  private readonly recordWindowMs: number;
  private readonly maxOpenEvents: number;
  /** Where this dispatcher is in the log while it holds the lease (null: it does not). */
  private position: LogPosition | null = null;
  /** The lease's end as last written (app clock, ms). */
  private leaseUntil = 0;
  /** Events whose deliveries are not all written yet, by seq: the cursor stays below the lowest. */
  private readonly open = new Map<number, { left: number; occurredAt: Date }>();
  private rows: Row[] = [];
  private readonly attempts = new Set<Promise<void>>();
  /** The writes, one after the other. */
  private writes: Promise<void> = Promise.resolve();
  private writeTimer: NodeJS.Timeout | undefined;
  /** The cursor as last written, and when (real time, ms). */
  private written = 0;
  private writtenAt = 0;
  private reading: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly hooks: DeliveryHooks & { slots: DeliverySlots },
    /** Hears every outcome (the job queue's metrics). */
    private readonly report: (outcome: JobOutcome) => void,
    options: DispatcherOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = options.batchSize ?? 200;
    this.maxWaitingPerEndpoint = options.maxWaitingPerEndpoint ?? 64;
    this.gapMs = options.gapMs ?? 60_000;
    this.recordWindowMs = options.recordWindowMs ?? 20;
    this.maxOpenEvents = options.maxOpenEvents ?? 2_000;
  }

  /**
   * Reads what the log has since the last read and starts its first attempts (when this instance holds the
   * lease, or takes it now); answers how many it started. With `settle`, also waits until they ended and
   * their rows are written (tests, the job queue's runDue); else they are written within the window.
   */
  async look(settle: boolean): Promise<number> {
    if (this.stopped) return 0;
    // one read at a time (the queue's loop and a runDue may overlap); a second look waits for it
    while (this.reading) await this.reading.catch(() => undefined);
    this.reading = this.readAndStart();
    let started: number;
    try {
      started = await this.reading;
    } finally {
      this.reading = undefined;
    }
    if (settle) await this.settle();
    return started;
  }

  /** Waits for the attempts started and writes what they recorded. */
  async settle(): Promise<void> {
    while (this.attempts.size > 0) await Promise.all(this.attempts);
    await this.write();
  }

  /** Waits for the attempts in flight, writes their rows and gives the lease up (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.reading?.catch(() => undefined);
    await this.settle();
    clearTimeout(this.writeTimer);
    if (this.position) {
      await releaseDispatchLease(this.deps.db, this.owner);
      this.position = null;
    }
  }

  /** First attempts waiting or in flight on this instance, and the event time of the oldest (metrics). */
  backlog(): { pending: number; oldestOccurredAt: Date | null } {
    let pending = 0;
    let oldest: Date | null = null;
    for (const { left, occurredAt } of this.open.values()) {
      pending += left;
      if (!oldest || occurredAt < oldest) oldest = occurredAt;
    }
    return { pending, oldestOccurredAt: oldest };
  }

  private async readAndStart(): Promise<number> {
    if (!(await this.holdLease())) return 0;
    const position = this.position!;
    let started = 0;
    for (;;) {
      const events = await unreadDispatchEvents(this.deps.db, position, this.batchSize);
      // the lease may have been lost meanwhile (taken over after it ran out): what was read is the new holder's
      if (this.position !== position) return started;
      for (const read of events) {
        const seq = Number(read.seq);
        position.saw(seq);
        if (!read.endpoints?.length) continue;
        const event: DeliveryEvent = { id: read.id, type: read.type, occurredAt: read.occurredAt, orgId: read.orgId, data: read.data };
        this.open.set(seq, { left: read.endpoints.length, occurredAt: event.occurredAt });
        for (const e of read.endpoints) {
          const endpoint: DeliveryEndpoint = {
            id: e.id,
            orgId: e.orgId,
            url: e.url,
            secret: e.secret,
            previousSecret: e.previousSecret,
            previousSecretExpiresAt: jsonTime(e.previousSecretExpiresAt),
            failingSince: jsonTime(e.failingSince),
          };
          if (this.hooks.slots.waiting(endpoint.id) >= this.maxWaitingPerEndpoint) {
            // the receiver is behind: the lane takes this one, due now (written with the window's rows)
            this.record(handedOver(seq, endpoint.id, event, this.deps.clock(), null));
            continue;
          }
          started++;
          const attempt: Promise<void> = attemptOnce(this.deps, this.hooks, endpoint, event, 0)
            .then(({ outcome, record }) => {
              this.report(outcome);
              this.record({ seq, endpointId: endpoint.id, event, ...record });
            })
            .catch((err: unknown) => {
              // an attempt that threw (its endpoint's update failed): the lane tries it again shortly
              const error = err instanceof Error ? err.message : String(err);
              this.record(handedOver(seq, endpoint.id, event, this.deps.clock(), error.slice(0, 1024)));
            })
            .finally(() => this.attempts.delete(attempt));
          this.attempts.add(attempt);
        }
      }
      if (events.length < this.batchSize || this.open.size >= this.maxOpenEvents) break;
    }
    // events without an endpoint move the cursor too: written with the next rows, or alone once a batch of
    // them or a second has passed (the cursor is how far behind the dispatcher is: ocs_jobs_oldest_pending_age_seconds)
    if (
      position.complete > this.written &&
      (position.complete - this.written >= this.batchSize || Date.now() - this.writtenAt >= CURSOR_WRITE_MS)
    )
      this.scheduleWrite();
    return started;
  }

  /**
   * Holds the lease: renews it when half of it has passed, or takes it when it is free or ran out (then
   * reads on from the cursor where the last holder left it). Answers whether this dispatcher holds it.
   */
  private async holdLease(): Promise<boolean> {
    const now = this.deps.clock().getTime();
    if (this.position && this.leaseUntil - now > this.leaseMs / 2) return true;
    const [held] = await takeDispatchLease(this.deps.db, this.owner, new Date(now), new Date(now + this.leaseMs));
    if (!held) {
      // another instance holds it: what this one had read is that instance's to send now
      this.position = null;
      return false;
    }
    this.leaseUntil = now + this.leaseMs;
    if (!this.position) {
      this.written = Number(held.cursor);
      this.position = new LogPosition(this.written, this.gapMs);
    }
    return true;
  }

  private record(row: Row): void {
    this.rows.push(row);
    this.scheduleWrite();
  }

  private scheduleWrite(afterMs = this.recordWindowMs): void {
    if (this.writeTimer || this.stopped) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      void this.write().catch(() => undefined);
    }, afterMs);
  }

  /** The cursor this dispatcher may write: below every event not done, and every gap. */
  private cursorNow(): number {
    let cursor = this.position?.complete ?? 0;
    for (const seq of this.open.keys()) if (seq - 1 < cursor) cursor = seq - 1;
    return cursor;
  }

  /**
   * Writes the rows recorded so far and moves the cursor, in one statement, one write after the other. Rows
   * that could not be written are kept for the next (the cursor stays below their events until then). A
   * dispatcher that lost the lease still writes its rows (the attempts happened); the cursor is the new holder's.
   */
  private write(): Promise<void> {
    const next = this.writes.then(() => this.writeNow());
    this.writes = next.catch(() => undefined);
    return next;
  }

  private async writeNow(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    for (const row of rows) {
      const open = this.open.get(row.seq);
      if (open && --open.left === 0) this.open.delete(row.seq);
    }
    const cursor = this.cursorNow();
    if (rows.length === 0 && cursor <= this.written) return;
    try {
      await writeDispatched(this.deps.db, this.owner, cursor, rows);
      this.written = Math.max(this.written, cursor);
      this.writtenAt = Date.now();
    } catch (err) {
      for (const row of rows) {
        const open = this.open.get(row.seq);
        if (open) open.left++;
        else this.open.set(row.seq, { left: 1, occurredAt: row.event.occurredAt });
      }
      this.rows = rows.concat(this.rows);
      this.scheduleWrite(WRITE_RETRY_MS);
      throw err;
    }
  }
}

/** A delivery handed to the deliveries lane untried (its receiver is behind, or its attempt threw): pending, due now. */
function handedOver(seq: number, endpointId: string, event: DeliveryEvent, now: Date, response: string | null): Row {
  return {
    seq,
    endpointId,
    event,
    status: 'pending',
    attempts: 0,
    lastAttemptAt: null,
    nextAttemptAt: now,
    statusCode: null,
    latencyMs: null,
    response,
    entry: null,
  };
}
