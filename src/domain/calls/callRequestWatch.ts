// Live call status (GraphQL subscription callRequestChanged): every transition of an organization's call requests
// — queued, started, a lease extended, an attempt failed, a retry scheduled, completed, failed, canceled, expired —
// as it commits on any instance, in the log's order, each with the request as it was answered then (the event's
// data). Nothing is sent at first: a dashboard reads the current list (callRequests) after subscribing, and the
// transitions from then on.
//
// Every transition is kept for a slow reader up to MAX_BUFFERED; past that the stream ends with a 503 error
// (subscribe again and read the list) rather than skip one silently or hold memory without end. The caller's
// credential is checked again when its organization's credentials or reach change, and every minute: a revoked
// credential, a lost scope or a lost reach ends the stream with that error.
import type { LiveEvent, LiveEventSource } from '../../changes/change.js';
import { type Actor, assertReach, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { Unavailable } from '../shared/errors.js';
import { LiveQueue, mayChangeCredential, RECHECK_CREDENTIAL_MS } from '../shared/liveQueue.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { MAX_BATCH_RECIPIENTS } from './callBatches.js';
import type { CallRequestView } from './callRequests.js';

/** Transitions held for a slow reader: two batches of the largest size (each queues its calls at once). */
export const MAX_BUFFERED = 2 * MAX_BATCH_RECIPIENTS;

export interface CallWatchDeps extends DomainDeps {
  /** The log's events as they commit, on any instance (changes/liveEvents.ts). */
  liveEvents: LiveEventSource;
}

/** One transition: the event's type (`call_request.started`), its id and instant, and the request after it. */
export interface CallRequestChange {
  eventId: string;
  type: string;
  occurredAt: Date;
  callRequest: CallRequestView;
}

export interface CallWatchOptions {
  /** Authenticates the caller's credential again (it may have been revoked or narrowed since). */
  reauthenticate(): Promise<Actor>;
}

const CALL_REQUEST_EVENT = /^call_request\./;

/**
 * Starts streaming the transitions of an organization's call requests. A missing scope or an organization outside
 * reach fails here, before anything is streamed; the stream hears everything that commits once this resolved.
 * Scope call-requests:read.
 */
export async function watchCallRequests(
  deps: CallWatchDeps,
  actor: Actor,
  orgId: string,
  options: CallWatchOptions,
): Promise<AsyncIterableIterator<CallRequestChange>> {
  requireScope(actor, 'call-requests:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const ends: (() => void)[] = [];
  const stream = new LiveQueue<CallRequestChange>({
    max: MAX_BUFFERED,
    overflow: 'fail',
    overflowError: () =>
      new Unavailable(`More than ${MAX_BUFFERED} transitions waited for this subscriber; subscribe again and read callRequests`),
    onEnd: () => {
      for (const end of ends.splice(0)) end();
    },
  });

  // a recheck at a time, failing the stream when the credential no longer may read it
  let checking: Promise<void> = Promise.resolve();
  const recheck = () => {
    checking = checking
      .then(async () => {
        if (stream.finished) return;
        const again = await options.reauthenticate();
        requireScope(again, 'call-requests:read');
        await assertReach(deps, again, org.id);
      })
      .catch((err: unknown) => stream.fail(err));
  };
  let cancelMinute = () => {};
  const everyMinute = () => {
    cancelMinute = deps.wakeAt(deps.clock().getTime() + RECHECK_CREDENTIAL_MS, () => {
      recheck();
      everyMinute();
    });
  };
  ends.push(() => cancelMinute());
  ends.push(
    deps.changes.subscribe({
      onChange: (change) => {
        if (mayChangeCredential(change, actor.orgId)) recheck();
      },
    }),
  );
  everyMinute();

  let stop: () => void;
  try {
    stop = await deps.liveEvents.watch(org.id, (event: LiveEvent) => {
      if (!CALL_REQUEST_EVENT.test(event.type)) return;
      stream.push({ eventId: event.id, type: event.type, occurredAt: event.occurredAt, callRequest: event.data as CallRequestView });
    });
  } catch (err) {
    // the log could not be read: nothing is streamed, and the rechecks set up above end with it
    await stream.return();
    throw err;
  }
  if (stream.finished) stop();
  else ends.push(stop);
  return stream;
}
