// Live availability (GraphQL subscription availabilityChanged): the current answer at once, then a new
// one whenever it changes — when the clock reaches the instant the answer itself changes (its state,
// but also its break, closure or greeting alone, as between two adjacent breaks, or its nextChangeAt
// once a change comes within the lookahead; a wake-up on the app's clock, so exact across
// daylight-saving changes like nextChangeAt itself) and after every write that can change it (office
// hours, breaks, closures, templates, phone numbers, the organization), on this instance or another
// (the change feed). An answer equal to the last one sent (but for its instant) is not sent.
//
// The caller's credential is checked again when its organization's credentials or reach change, and
// every minute (an access token expires): a revoked credential, a lost scope or a lost reach ends the
// stream with that error.
import { type Change, SCHEDULE_KINDS } from '../../changes/change.js';
import { type Actor, assertReach, requireScope } from '../shared/access.js';
import type { Availability, Medium } from './availability.js';
import { answerFromSchedule, availabilityQuerySchema, loadSchedule } from './availabilityQuery.js';
import type { ScheduleDeps } from './deps.js';
import { parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { LiveQueue, mayChangeCredential, RECHECK_CREDENTIAL_MS } from '../shared/liveQueue.js';

/** Answers waiting for a slow reader; older ones are dropped (each answer is whole, the latest is what counts). */
const MAX_BUFFERED = 10;

export interface WatchOptions {
  /** Authenticates the caller's credential again (it may have been revoked or narrowed since). */
  reauthenticate(): Promise<Actor>;
}

class AvailabilityWatch {
  /** What the client reads; a slow one loses the oldest answers (each is whole, the latest is what counts). */
  readonly stream: LiveQueue<Availability>;
  private lastKey: string | undefined;
  private steps: Promise<void> = Promise.resolve();
  private cancelWake: (() => void) | undefined;
  private cancelRecheck: (() => void) | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: ScheduleDeps,
    private readonly ownerOrgId: string,
    private readonly orgId: string,
    private readonly medium: Medium,
    private readonly phoneNumberId: string | null | undefined,
    private readonly options: WatchOptions,
    first: { availability: Availability; untilMs: number; now: number },
  ) {
    this.stream = new LiveQueue({ max: MAX_BUFFERED, overflow: 'dropOldest', onEnd: () => this.stop() });
    // every change is heard, this instance's at once and the others' from the event log (even after a
    // time when the log could not be read: it is then read from where it was)
    this.unsubscribe = deps.changes.subscribe({ onChange: (change) => this.onChange(change) });
    // the first answer is the one computed when the arguments were checked: it is ready before the stream
    // is handed out, so that its first event never waits for a read queued behind other work; the step
    // after it reads again, for a change made between that read and the subscription above (an answer
    // equal to the first is not sent twice)
    this.deliver(first.availability, first.untilMs, first.now, true);
    this.refresh(false);
  }

  private onChange(change: Change): void {
    if (change.orgId === this.orgId && SCHEDULE_KINDS.has(change.kind)) this.refresh(false);
    if (mayChangeCredential(change, this.ownerOrgId)) this.refresh(true);
  }

  /** Steps run one after the other, so that answers go out in the order of the instants they are for. */
  private refresh(recheck: boolean): void {
    this.steps = this.steps.then(() => this.step(recheck)).catch((err: unknown) => this.stream.fail(err));
  }

  private async step(recheck: boolean): Promise<void> {
    if (this.stream.finished) return;
    if (recheck) {
      const actor = await this.options.reauthenticate();
      requireScope(actor, 'office-hours:read');
      await assertReach(this.deps, actor, this.orgId);
    }
    const now = this.deps.clock().getTime();
    const { availability: answer, untilMs } = answerFromSchedule(
      await loadSchedule(this.deps, this.orgId, now),
      now,
      this.medium,
      this.phoneNumberId,
    );
    if (this.stream.finished) return;
    this.deliver(answer, untilMs, now, recheck);
  }

  /** Sends `answer` unless it equals the last one sent, and sets the wake-ups that follow it. */
  private deliver(answer: Availability, untilMs: number, now: number, recheck: boolean): void {
    const key = JSON.stringify({ ...answer, at: undefined, localTime: undefined });
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.stream.push(answer);
    }
    this.cancelWake?.();
    // not nextChangeAt: the break, the closure or the greeting can change before the state does
    this.cancelWake = this.deps.wakeAt(untilMs, () => this.refresh(false));
    if (recheck || !this.cancelRecheck) {
      this.cancelRecheck?.();
      this.cancelRecheck = this.deps.wakeAt(now + RECHECK_CREDENTIAL_MS, () => this.refresh(true));
    }
  }

  private stop(): void {
    this.unsubscribe();
    this.cancelWake?.();
    this.cancelRecheck?.();
  }
}

/**
 * Starts watching an organization's availability for a medium (and a phone number's greetings). The
 * arguments are checked first, as the availability query checks them: a bad argument, a missing scope,
 * an organization outside reach or a foreign phone number fail here, before anything is streamed.
 */
export async function watchAvailability(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  query: unknown,
  options: WatchOptions,
): Promise<AsyncIterableIterator<Availability>> {
  const parsed = parseInput(availabilityQuerySchema.omit({ at: true }), query ?? {});
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, uuidParam('orgId', orgId));
  const now = deps.clock().getTime();
  // a foreign phone number: 404 now; else the stream's first answer
  const first = answerFromSchedule(await loadSchedule(deps, org.id, now), now, parsed.medium, parsed.phoneNumberId);
  return new AvailabilityWatch(deps, actor.orgId, org.id, parsed.medium, parsed.phoneNumberId, options, { ...first, now }).stream;
}
