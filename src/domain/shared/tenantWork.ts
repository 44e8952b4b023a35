// Fairness between tenants (docs/decisions.md §10 "Fairness"): an organization within its budgets must not
// slow the others down. Its rate budgets bound how OFTEN it may ask; this bounds how much of its expensive
// work runs AT ONCE — availability timelines, bot workflow exports, call claims: work whose cost grows with
// what the organization stores, not with the request. Each organization gets, per kind of work, a few slots
// (`running`) and a line of its own (`waiting`); the others' work never waits in that line. Past the line the
// request is refused with 429 + Retry-After naming the bound (a budget like the others), never queued without
// end. Work that computes for long also gives the event loop back between slices (yieldToOthers), so that
// what it does in one turn of the loop stays short whatever it has to do.
import { RateLimited } from './errors.js';

export type TenantWorkKind = 'timeline' | 'export' | 'claim';

export interface TenantWorkLimits {
  /** Pieces of one kind of work an organization runs at once. */
  running: number;
  /** Pieces that may wait for a slot, per organization and kind (its per-minute budget: within it nothing is refused). */
  waiting: number;
  /** How long one may wait for a slot before it is refused (ms). */
  waitMs: number;
}

/**
 * How long a slot rests after a piece of work, for more of the same organization's (times the work's own time):
 * one organization's expensive work of a kind then has at most a sixth of the process's time, so that another
 * organization's request, which waits for at most one slice of it at each of its turns, seldom meets it at all.
 */
const REST_FACTOR = 5;
/**
 * The kinds whose slot rests: work the process computes (a timeline, an export). A claim's time is the database's,
 * which the pool shares out (a claim holds one connection for its few statements): its slot passes on at once, so
 * that an organization's runtimes claim back to back, one at a time per instance.
 */
const RESTING_KINDS: ReadonlySet<TenantWorkKind> = new Set(['timeline', 'export']);
/** The longest a slot rests between two pieces of one organization's work (ms). */
const MAX_REST_MS = 1_000;
/**
 * The longest a slot waits for the answer made of its work's result (ms): a bound, so that a surface that never
 * says its answer is made (a bug) slows its organization's work of that kind but never stops it.
 */
const HOLD_MAX_MS = 5_000;

function settledWithin(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const settle = () => {
      clearTimeout(timer);
      resolve();
    };
    promise.then(settle, settle);
  });
}

export const TENANT_WORK_LIMITS: TenantWorkLimits = { running: 1, waiting: 60, waitMs: 20_000 };

const WHAT: Record<TenantWorkKind, string> = {
  timeline: 'availability timelines',
  export: 'workflow exports',
  claim: 'call claims',
};

interface Waiter {
  /** Admits the waiter: into the slot passed on, or (companion) into the slot its own request already holds. */
  admit: (companion: boolean) => void;
  timer: NodeJS.Timeout;
  request: Promise<void> | undefined;
}

interface Lane {
  running: number;
  waiters: Waiter[];
  /** The requests (their answerMade) whose slot is held: their other pieces of the same work run in it. */
  holders: Set<Promise<void>>;
}

/** What /metrics and tests read. */
export interface TenantWorkStats {
  running: number;
  waiting: number;
  refused: number;
}

export class TenantWorkGate {
  private readonly lanes = new Map<string, Lane>();
  private refusedTotal = 0;

  constructor(readonly limits: TenantWorkLimits = TENANT_WORK_LIMITS) {}

  /**
   * Runs `work` in one of the organization's slots for `kind`, waiting in its own line for one. With
   * `answerMade` (the request's, DomainDeps), the slot is held until the answer made of the work's result
   * exists as text too (at most HOLD_MAX_MS): that is as much the organization's work as `work` itself. A
   * request's further pieces of the same kind (GraphQL aliases) run in the slot it holds, never waiting for it.
   */
  async run<T>(orgId: string, kind: TenantWorkKind, work: () => Promise<T>, answerMade?: Promise<void>): Promise<T> {
    const key = `${kind}|${orgId}`;
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiters: [], holders: new Set() }));
    if (answerMade && lane.holders.has(answerMade)) return work();
    if (lane.running < this.limits.running && lane.waiters.length === 0) lane.running++;
    else if (await this.wait(lane, kind, answerMade)) return work();
    if (answerMade) lane.holders.add(answerMade);
    const started = performance.now();
    let result: T;
    try {
      result = await work();
    } catch (err) {
      this.done(key, kind, lane, started, answerMade); // a refusal or failure: no answer of the work's result to wait for
      throw err;
    }
    if (answerMade) void settledWithin(answerMade, HOLD_MAX_MS).then(() => this.done(key, kind, lane, started, answerMade));
    else this.done(key, kind, lane, started, answerMade);
    return result;
  }

  private done(key: string, kind: TenantWorkKind, lane: Lane, started: number, answerMade: Promise<void> | undefined): void {
    if (answerMade) lane.holders.delete(answerMade);
    // with more of the organization's work waiting, the slot rests REST_FACTOR times as long as the work took before
    // it passes on: one organization's expensive work of a kind takes at most about a sixth of the process's time
    if (lane.waiters.length > 0 && RESTING_KINDS.has(kind))
      setTimeout(() => this.release(key, lane), Math.min((performance.now() - started) * REST_FACTOR, MAX_REST_MS));
    else this.release(key, lane);
  }

  private release(key: string, lane: Lane): void {
    const next = lane.waiters.shift();
    if (next) {
      next.admit(false); // the slot passes on, and the same request's other pieces waiting go in with it
      if (next.request)
        for (let i = lane.waiters.length - 1; i >= 0; i--)
          if (lane.waiters[i]!.request === next.request) lane.waiters.splice(i, 1)[0]!.admit(true);
    } else if (--lane.running === 0) this.lanes.delete(key);
  }

  /** Waits in the lane's line; answers whether it was admitted as a companion (into its request's own slot). */
  private wait(lane: Lane, kind: TenantWorkKind, request: Promise<void> | undefined): Promise<boolean> {
    const { running, waiting, waitMs } = this.limits;
    const refusal = () =>
      new RateLimited(1, `An organization runs at most ${running} of its ${WHAT[kind]} at a time and ${waiting} waiting; retry after 1 s`);
    if (lane.waiters.length >= waiting) {
      this.refusedTotal++;
      return Promise.reject(refusal());
    }
    return new Promise<boolean>((resolve, reject) => {
      const waiter: Waiter = {
        admit: (companion) => {
          clearTimeout(waiter.timer);
          resolve(companion);
        },
        timer: setTimeout(() => {
          const at = lane.waiters.indexOf(waiter);
          if (at >= 0) lane.waiters.splice(at, 1);
          this.refusedTotal++;
          reject(refusal());
        }, waitMs),
        request,
      };
      lane.waiters.push(waiter);
    });
  }

  stats(): TenantWorkStats {
    let running = 0;
    let waiting = 0;
    for (const lane of this.lanes.values()) {
      running += lane.running;
      waiting += lane.waiters.length;
    }
    return { running, waiting, refused: this.refusedTotal };
  }
}

/** The gate of a process whose deps name none (command-line tools; every app names its own). */
export const processTenantWork = new TenantWorkGate();

/** How long work runs before it gives the event loop back (ms): what another request may wait at one of its turns. */
export const SLICE_MS = 1;

/** Lets every callback that is due run (I/O, timers, requests waiting to start) before going on. */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Drives a generator that yields between small steps, giving the event loop back whenever a slice of
 * SLICE_MS has been used; answers what the generator returns. What is made within one slice is answered
 * on the same turn.
 */
export async function driveInSlices<T>(steps: Generator<void, T, void>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= SLICE_MS) {
      await yieldToOthers();
      sliceStart = performance.now();
    }
  }
}

/** driveInSlices, and once more at the end: what the caller does with the answer (serializing it) starts on a turn of its own. */
export async function runInSlices<T>(steps: Generator<void, T, void>): Promise<T> {
  const value = await driveInSlices(steps);
  await yieldToOthers();
  return value;
}
