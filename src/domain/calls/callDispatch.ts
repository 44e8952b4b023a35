// The agent runtime's side of call requests (docs/decisions.md §9): a machine credential (scope calls:dispatch)
// claims due requests under a lease, keeps the lease with heartbeats, starts the call (which opens its
// conversation), and reports the outcome. The service never dials.
//
// Exactly one claimer: a claim is one conditional UPDATE over `SELECT … FOR UPDATE SKIP LOCKED`, so two
// instances sharing the database never hand out one request twice; every later step names the lease
// (`leaseId`) and locks the row, so a runtime whose lease ended (and whose request went to another)
// cannot complete it, and a cancel racing a claim or a start has exactly one outcome.
//
// Every request reaches a final state, by durable work (jobs/queue.ts): the end of each lease (the
// request is re-queued, and fails with dispatch_timeout after MAX_LEASES), and the expiry (never
// started by notAfter → expired). Transitions made that way are recorded with the `system` actor.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { absentToUndefined, integerFromString } from '../shared/inputParams.js';
import type { Availability } from '../schedule/availability.js';
import { availabilityResponse } from '../schedule/availability.js';
import type { CallRequest, Prisma } from '../../generated/prisma/client.js';
import { conversationView } from './conversations.js';
import { dropJobs, enqueueJob, type ClaimedJob, type JobHandler, type JobOutcome } from '../../jobs/queue.js';
import { type Actor, requireScope } from '../shared/access.js';
import { reachableInTransaction } from '../organizations/organizations.js';
import {
  CALL_FAILURE_CODES,
  callRequestSchema,
  type CallRequestView,
  callRequestView,
  endCallRequestWork,
  EXPIRE_JOB,
  firstCallInstant,
  LEASE_JOB,
  lapsed,
  lockCallRequest,
  placeFollowUp,
  placingOfRow,
  statusAt,
} from './callRequests.js';
import {
  attemptsOf,
  CALL_DISPOSITIONS,
  endAttempt,
  outcomeFields,
  pendingRetryEarliest,
  retryEarliest,
  retryPolicyOf,
  startAttempt,
} from './callAttempts.js';
import { nextPhoneOpening, phoneAvailabilityAt } from './callOpenings.js';
import type { ScheduleDeps } from '../schedule/deps.js';
import { CallWindowClosed, Conflict, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { HOURS_CHANGED_JOB, recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { viewSchema } from '../shared/viewSchema.js';
import { processTenantWork } from '../shared/tenantWork.js';
import { resolveZone } from '../shared/localTime.js';
import { type CallCapacity, callCapacitySchema, capacityFrom, capacityRoot } from './callCapacity.js';
import {
  type CallingPolicyFields,
  compiledPolicy,
  DEFAULT_CALLING_POLICY,
  type EffectivePolicy,
  effectivePolicy,
  REEVALUATE_JOB,
} from './callingPolicy.js';
import { isCallAllowedAt, nextAllowedCallInstant } from './callWindows.js';
import {
  callLoads,
  dueOfficeHoursOnly,
  dueWindowGroups,
  failSuppressedAtHead,
  giveBack,
  handOut,
  moveQueuedDueAts,
  type PickedRequest,
  pickDueWithinCapacity,
  requestsDispatchedBy,
} from './sql.js';
import { addSuppressionInTransaction, recordSuppressedRequestsEnded } from './suppressions.js';

/** Leases that may end without an outcome before the request fails with dispatch_timeout. */
export const MAX_LEASES = 3;
export const DEFAULT_LEASE_SECONDS = 60;
export const MIN_LEASE_SECONDS = 10;
export const MAX_LEASE_SECONDS = 3_600;
export const MAX_CLAIM = 50;

function boundedInteger(min: number, max: number, fallback: number) {
  const error = `must be an integer between ${min} and ${max}`;
  return z.preprocess(integerFromString, z.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback));
}
const leaseSeconds = boundedInteger(MIN_LEASE_SECONDS, MAX_LEASE_SECONDS, DEFAULT_LEASE_SECONDS).describe(
  `How long the claim holds without a heartbeat (${MIN_LEASE_SECONDS}..${MAX_LEASE_SECONDS} s, default ${DEFAULT_LEASE_SECONDS}).`,
);
const leaseId = z.uuid({ error: 'must be the leaseId of your claim' }).describe('The leaseId the claim answered.');

export const claimInput = z.strictObject({
  max: boundedInteger(1, MAX_CLAIM, 1).describe(`Requests to claim at most (1..${MAX_CLAIM}, default 1).`),
  leaseSeconds,
});
export const heartbeatInput = z.strictObject({ leaseId, leaseSeconds });
export const startInput = z.strictObject({ leaseId });
export { CALL_DISPOSITIONS };
/** What the call came to (issue 35 §3): a disposition from a closed set, notes for people, data for programs, a callback. */
export const completeInput = z.strictObject({ leaseId, ...outcomeFields }).superRefine((input, ctx) => {
  if (input.callbackAt !== undefined && input.disposition !== 'callback_requested')
    ctx.addIssue({ code: 'custom', path: ['callbackAt'], message: 'is only taken with disposition callback_requested' });
});
export const failInput = z.strictObject({
  leaseId,
  error: z.strictObject(
    {
      category: z
        .preprocess(
          absentToUndefined,
          z
            .string()
            .regex(/^[a-z_]{1,64}$/, 'must be 1 to 64 lowercase letters or _')
            .default('request'),
        )
        .describe('Default "request".'),
      code: z.enum(CALL_FAILURE_CODES, { error: `must be one of ${CALL_FAILURE_CODES.join(', ')}` }),
      message: z
        .string({ error: 'is required' })
        .min(1, 'must not be empty')
        .max(500, 'must be at most 500 characters')
        .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
    },
    { error: 'must be an object {category, code, message}' },
  ),
});

/** A request with no calling window in sight is held this far ahead (past any notAfter: its expiry ends it). */
const NO_WINDOW_HOLD_MS = 400 * 86_400_000;

export interface CallClaim {
  leaseId: string;
  leaseUntil: string;
  callRequest: CallRequestView;
  /** The organization's PHONE availability now, with the greetings of the caller-id number: what the agent says. */
  availability: Availability;
}

export interface ClaimAnswer {
  claims: CallClaim[];
  /** The capacity of the claimer's organization after the claim. */
  capacity: CallCapacity;
}

export const claimResponse = viewSchema<ClaimAnswer>()(
  z.object({
    capacity: callCapacitySchema.describe("The claimer's organization's cap and its calls in progress after this claim."),
    claims: z
      .array(
        z
          .object({
            leaseId: z.uuid().describe('Name it in heartbeat, start, complete and fail.'),
            leaseUntil: z.iso.datetime().describe('The claim ends then unless a heartbeat extends it.'),
            callRequest: callRequestSchema,
            availability: availabilityResponse,
          })
          .meta({ id: 'CallClaim' }),
      )
      .describe('Oldest due first; empty when nothing is due.'),
  }),
);

const at = (d: Date) => d.toISOString();

/**
 * Hands out up to `max` due requests (queued, notBefore passed, not expired, organization enabled, and
 * for officeHoursOnly the organization OPEN now), each to exactly one claimer across instances.
 */
export async function claimCallRequests(deps: ScheduleDeps, actor: Actor, input: unknown): Promise<ClaimAnswer> {
  const query = parseInput(claimInput, input ?? {});
  requireScope(actor, 'calls:dispatch');
  // a claim locks and moves up to MAX_CLAIM requests, for an account across all its locations: the credential
  // owner's claims run a few at a time (tenantWork.ts)
  return (deps.tenantWork ?? processTenantWork).run(actor.orgId, 'claim', () => claimDue(deps, actor, query), deps.answerMade);
}

async function claimDue(deps: ScheduleDeps, actor: Actor, query: z.output<typeof claimInput>): Promise<ClaimAnswer> {
  const { db } = deps;
  const now = deps.clock();

  // officeHoursOnly requests that came due while their organization is not OPEN (a closure added
  // since they were queued) move to its next opening, so that the claim below passes them over
  const closedCandidates = await dueOfficeHoursOnly(db, actor, now);
  for (const candidate of closedCandidates) {
    const availability = await phoneAvailabilityAt(deps, candidate.orgId, candidate.phoneNumberId, now.getTime());
    if (availability.state === 'OPEN') continue;
    const opening = await nextPhoneOpening(deps, candidate.orgId, candidate.phoneNumberId, now);
    await db.callRequest.updateMany({
      where: {
        orgId: candidate.orgId,
        phoneNumberId: candidate.phoneNumberId,
        status: 'queued',
        officeHoursOnly: true,
        dueAt: { lte: now },
      },
      data: { dueAt: opening },
    });
  }

  await holdOutsideCallWindows(deps, actor, now);

  const actorOrg = await deps.readModel.organization(actor.orgId);
  if (!actorOrg) return { claims: [], capacity: { limit: null, inProgress: 0 } };
  const leaseUntil = new Date(now.getTime() + query.leaseSeconds * 1000);
  const rootId = capacityRoot(actorOrg);
  const policy = await effectivePolicy(db, actorOrg);
  let capacity: CallCapacity = { limit: null, inProgress: 0 };
  // the PHONE availability of each (organization, caller id) handed out from: checked at the hand-out, then answered
  const availabilities = new Map<string, Promise<Availability>>();
  const rows = await db.$transaction(async (tx) => {
    // a request queued while its number was being listed (the listing's update could not see it) ends here,
    // failed with error.code suppressed, once it reaches the head of the queue; the claim never hands it out
    await recordSuppressedRequestsEnded(tx, deps, await failSuppressedAtHead(tx, requestsDispatchedBy(actor), now), now);
    // the requests this claim may hand out, locked (claims side by side take different ones), as many as the
    // calls in progress read now leave free
    let picked = await pickDueWithinCapacity(tx, {
      rootId,
      scope: requestsDispatchedBy(actor),
      now,
      max: query.max,
      defaultCap: DEFAULT_CALLING_POLICY.maxConcurrentCalls,
    });
    if (picked.length === 0) {
      capacity = capacityFrom(actorOrg, policy, await callLoads(tx, rootId, [actorOrg.id]));
      return [];
    }
    const found = await tx.callRequest.findMany({ where: { id: { in: picked.map((p) => p.id) } } });
    // each is checked here, at the hand-out: the moves above looked at the heads of the queues only, and a window
    // may close meanwhile (one not allowed now stays queued, at the head, for the next claim to move)
    const allowed = await lawfulNow(deps, tx, found, now, availabilities);
    const byId = new Map(found.filter((r) => allowed.has(r.id)).map((r) => [r.id, r]));
    picked = picked.filter((p) => byId.has(p.id));
    if (picked.length === 0) {
      capacity = capacityFrom(actorOrg, policy, await callLoads(tx, rootId, [actorOrg.id]));
      return [];
    }
    // each as it is once handed out: its events and its lease's end are written before it is (below), so that the
    // family's counts stay locked only for the hand-out and the commit
    const handed = picked.map((p) => ({
      pick: p,
      row: {
        ...byId.get(p.id)!,
        status: 'in_progress' as const,
        leaseId: randomUUID(),
        leaseUntil,
        attempts: byId.get(p.id)!.attempts + 1,
        claimedAt: now,
      },
      eventId: '',
    }));
    for (const h of handed) {
      h.eventId = await recordEvent(tx, deps, actor, {
        type: 'call_request.started',
        orgId: h.row.orgId,
        subject: { type: 'call_request', id: h.row.id },
        data: callRequestView(h.row, now),
        previous: { status: 'queued' },
      });
      // the lease's end is durable work: a runtime that vanished gives the request back
      // named by the lease, so that whatever ends the lease first drops it
      await enqueueJob(tx, now, {
        id: h.row.leaseId,
        kind: LEASE_JOB,
        payload: { callRequestId: h.row.id, leaseId: h.row.leaseId },
        runAt: leaseUntil,
      });
    }
    // the hand-out: the triggers count the calls, locking the family's count (and the organizations') until the
    // commit; a claim of the same family waits here, then reads the counts this one left
    const out = new Set(
      (
        await handOut(
          tx,
          handed.map((h) => ({ id: h.row.id, leaseId: h.row.leaseId })),
          leaseUntil,
          now,
        )
      ).map((r) => r.id),
    );
    // every picked request is locked and queued, so all are handed out; should one not be, its event and job go below
    const counted = handed.filter((h) => out.has(h.row.id));
    const loads = await callLoads(
      tx,
      rootId,
      counted.map((h) => h.pick.orgId),
    );
    const kept = withinCapacity(counted, loads);
    const over = counted.filter((h) => !kept.has(h));
    // claims side by side read the same counts: those beyond the caps the locked counts leave go back, unseen
    if (over.length > 0)
      await giveBack(
        tx,
        over.map((h) => h.row.id),
      );
    for (const h of over) {
      loads.own.set(h.pick.orgId, (loads.own.get(h.pick.orgId) ?? 0) - 1);
      loads.family--;
    }
    const dropped = handed.filter((h) => !kept.has(h));
    if (dropped.length > 0) {
      await tx.event.deleteMany({ where: { id: { in: dropped.map((h) => h.eventId) } } });
      await dropJobs(
        tx,
        dropped.map((h) => h.row.leaseId),
      );
    }
    capacity = capacityFrom(actorOrg, policy, loads);
    return handed.filter((h) => kept.has(h)).map((h) => h.row);
  });

  const claims: CallClaim[] = [];
  for (const row of rows) {
    claims.push({
      leaseId: row.leaseId,
      leaseUntil: at(row.leaseUntil),
      callRequest: callRequestView(row, now),
      availability: await availabilityOf(deps, availabilities, row, now),
    });
  }
  return { claims, capacity };
}

/** The PHONE availability of `row`'s organization and caller id now, read once per claim. */
function availabilityOf(
  deps: ScheduleDeps,
  memo: Map<string, Promise<Availability>>,
  row: Pick<CallRequest, 'orgId' | 'phoneNumberId'>,
  now: Date,
): Promise<Availability> {
  const key = `${row.orgId}:${row.phoneNumberId ?? ''}`;
  let found = memo.get(key);
  if (!found) memo.set(key, (found = phoneAvailabilityAt(deps, row.orgId, row.phoneNumberId, now.getTime())));
  return found;
}

/**
 * The requests among `rows` that may be handed out at `now`: the callee's calling window is open, and for
 * officeHoursOnly the organization's PHONE availability is OPEN.
 */
async function lawfulNow(
  deps: ScheduleDeps,
  tx: Prisma.TransactionClient,
  rows: CallRequest[],
  now: Date,
  availabilities: Map<string, Promise<Availability>>,
): Promise<Set<string>> {
  const orgs = await tx.organization.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.orgId))] } },
    select: { id: true, parentId: true, timezone: true },
  });
  const policies = new Map(
    await Promise.all(orgs.map(async (o) => [o.id, compiledPolicy((await effectivePolicy(tx, o)).fields)] as const)),
  );
  const zones = new Map(orgs.map((o) => [o.id, o.timezone]));
  const allowed = new Set<string>();
  for (const row of rows) {
    const policy = policies.get(row.orgId);
    if (!policy || !isCallAllowedAt(policy, resolveZone(row.calleeTimezone ?? zones.get(row.orgId)!), now.getTime())) continue;
    if (row.officeHoursOnly && (await availabilityOf(deps, availabilities, row, now)).state !== 'OPEN') continue;
    allowed.add(row.id);
  }
  return allowed;
}

/**
 * Which of the requests a claim handed out stay within capacity, given the counts of calls in progress read under
 * their lock after the hand-out (which include them): in claim order, each while its organization's count before it
 * is below its own cap and the family's below the family's cap. Exact: every claim of the family decides with
 * the same locked counts, one after another.
 */
function withinCapacity<T extends { pick: PickedRequest }>(handed: T[], loads: { family: number; own: Map<string, number> }): Set<T> {
  const ours = new Map<string, number>();
  for (const h of handed) ours.set(h.pick.orgId, (ours.get(h.pick.orgId) ?? 0) + 1);
  const before = new Map([...ours].map(([orgId, n]) => [orgId, (loads.own.get(orgId) ?? 0) - n]));
  let family = loads.family - handed.length;
  const kept = new Set<T>();
  for (const h of handed) {
    const { orgId, cap, familyCap } = h.pick;
    const own = before.get(orgId)!;
    if ((cap !== null && own >= cap) || (familyCap !== null && family >= familyCap)) continue;
    before.set(orgId, own + 1);
    family++;
    kept.add(h);
  }
  return kept;
}

/**
 * Due requests whose callee's calling window is closed now (the window ended while they waited, or the
 * policy changed) move to their next allowed instant, so that the claim passes them over: a claim never
 * hands out a call its policy does not allow at that instant. One check per organization and callee zone.
 */
async function holdOutsideCallWindows(deps: ScheduleDeps, actor: Actor, now: Date): Promise<void> {
  const groups = await dueWindowGroups(deps.db, actor, now);
  const policies = new Map<string, Promise<EffectivePolicy>>();
  for (const group of groups) {
    if (!policies.has(group.orgId)) policies.set(group.orgId, effectivePolicy(deps.db, { id: group.orgId, parentId: group.parentId }));
    const policy = compiledPolicy((await policies.get(group.orgId)!).fields);
    const zone = resolveZone(group.zone);
    if (isCallAllowedAt(policy, zone, now.getTime())) continue;
    const next = nextAllowedCallInstant(policy, zone, now.getTime(), now.getTime() + NO_WINDOW_HOLD_MS);
    await deps.db.callRequest.updateMany({
      where: {
        orgId: group.orgId,
        status: 'queued',
        dueAt: { lte: now },
        OR: [{ calleeTimezone: group.zone }, ...(group.zone === group.orgTimezone ? [{ calleeTimezone: null }] : [])],
      },
      // with no window in sight the request waits until its expiry ends it
      data: { dueAt: new Date(next ?? now.getTime() + NO_WINDOW_HOLD_MS) },
    });
  }
}

/**
 * One step of the holder of a lease: locks the request, checks reach (404), that the lease is the
 * caller's and still held (409), then applies `change` and records its event, in one transaction.
 */
async function underLease(
  deps: ScheduleDeps,
  actor: Actor,
  callRequestId: string,
  lease: string,
  step: (tx: Prisma.TransactionClient, row: CallRequest, now: Date) => Promise<CallRequestView>,
): Promise<CallRequestView> {
  requireScope(actor, 'calls:dispatch');
  const id = uuidParam('callRequestId', callRequestId);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const row = await lockCallRequest(tx, id);
    if (!row || !(await reachableInTransaction(tx, actor, row.orgId))) throw new NotFound('Call request');
    const status = statusAt(row, now);
    if (status !== 'in_progress') throw new Conflict(`Call request ${id} is ${status}; it is no longer being worked`);
    if (row.leaseId !== lease.toLowerCase() || row.leaseUntil === null || row.leaseUntil.getTime() <= now.getTime()) {
      throw new Conflict(`The lease ${lease} on call request ${id} is not held (it ended, or another runtime claimed the request)`);
    }
    return step(tx, row, now);
  });
}

/** Extends the caller's lease to now + leaseSeconds. */
export async function heartbeatCallRequest(
  deps: ScheduleDeps,
  actor: Actor,
  callRequestId: string,
  input: unknown,
): Promise<CallRequestView & { leaseUntil: string }> {
  const data = parseInput(heartbeatInput, input ?? {});
  let leaseUntil = '';
  const view = await underLease(deps, actor, callRequestId, data.leaseId, async (tx, row, now) => {
    const until = new Date(now.getTime() + data.leaseSeconds * 1000);
    leaseUntil = at(until);
    const updated = await tx.callRequest.update({ where: { id: row.id }, data: { leaseUntil: until } });
    const view = callRequestView(updated, now);
    await recordEvent(tx, deps, actor, {
      type: 'call_request.lease_extended',
      orgId: row.orgId,
      subject: { type: 'call_request', id: row.id },
      data: { ...view, leaseUntil },
    });
    return view;
  });
  return { ...view, leaseUntil };
}

export const heartbeatResponse = viewSchema<CallRequestView & { leaseUntil: string }>()(
  callRequestSchema.extend({ leaseUntil: z.iso.datetime().describe('The lease now ends then.') }),
);

/** The call was answered: opens its conversation (medium PHONE, from the caller id to `to`) and sets conversationId. */
export async function startCallRequest(deps: ScheduleDeps, actor: Actor, callRequestId: string, input: unknown): Promise<CallRequestView> {
  const data = parseInput(startInput, input ?? {});
  let closedUntil: Date | null = null;
  const view = await underLease(deps, actor, callRequestId, data.leaseId, async (tx, row, now) => {
    if (row.startedAt !== null) throw new Conflict(`Call request ${row.id} has already started`);
    const held = await holdIfWindowClosed(deps, tx, row, now);
    if (held) {
      closedUntil = held;
      return callRequestView(row, now);
    }
    const number = row.phoneNumberId
      ? await tx.phoneNumber.findUnique({ where: { id: row.phoneNumberId }, select: { number: true } })
      : null;
    const conversation = await tx.conversation.create({
      data: {
        orgId: row.orgId,
        botId: row.botId,
        medium: 'PHONE',
        toNumber: row.to,
        fromNumber: number?.number ?? '',
        startTime: now,
        status: 'OPEN',
        tags: [],
      },
    });
    const updated = await tx.callRequest.update({
      where: { id: row.id },
      data: {
        startedAt: now,
        conversationId: conversation.id,
        attemptLog: startAttempt(attemptsOf(row.attemptLog), row.claimedAt, now, conversation.id) as unknown as Prisma.InputJsonValue,
      },
    });
    await recordEvent(tx, deps, actor, {
      type: 'conversation.started',
      orgId: row.orgId,
      subject: { type: 'conversation', id: conversation.id },
      data: {
        conversationId: conversation.id,
        callRequestId: row.id,
        medium: 'PHONE',
        botId: row.botId,
        toNumber: row.to,
        fromNumber: conversation.fromNumber,
        startTime: at(now),
      },
    });
    return callRequestView(updated, now);
  });
  if (closedUntil !== null) {
    throw new CallWindowClosed(
      `Call request ${view.callRequestId}: the callee's calling window is closed now; do not dial. It is queued again, due at ${(closedUntil as Date).toISOString()}`,
    );
  }
  return view;
}

/**
 * A start after the callee's calling window closed (the claim was in time, the dial was not): the request
 * goes back to the queue, due at its next allowed instant, and that lease does not count toward
 * dispatch_timeout. Answers the new due instant, or null when the call may start now.
 */
async function holdIfWindowClosed(deps: ScheduleDeps, tx: Prisma.TransactionClient, row: CallRequest, now: Date): Promise<Date | null> {
  const org = await tx.organization.findUnique({ where: { id: row.orgId }, select: { id: true, parentId: true, timezone: true } });
  if (!org) return null;
  const policy = compiledPolicy((await effectivePolicy(tx, org)).fields);
  const zone = resolveZone(row.calleeTimezone ?? org.timezone);
  if (isCallAllowedAt(policy, zone, now.getTime())) return null;
  const dueAt = new Date(
    nextAllowedCallInstant(policy, zone, now.getTime(), now.getTime() + NO_WINDOW_HOLD_MS) ?? now.getTime() + NO_WINDOW_HOLD_MS,
  );
  const updated = await tx.callRequest.update({
    where: { id: row.id },
    data: { status: 'queued', dueAt, leaseId: null, leaseUntil: null, attempts: Math.max(0, row.attempts - 1) },
  });
  // the lease ended here: its end has nothing left to do
  await dropJobs(tx, [row.leaseId]);
  await recordEvent(tx, deps, null, {
    type: 'call_request.queued',
    orgId: row.orgId,
    subject: { type: 'call_request', id: row.id },
    data: callRequestView(updated, now),
    previous: { status: 'in_progress' },
  });
  return dueAt;
}

/**
 * The call ended normally (after start), with what it came to: `disposition`, `notes`, `data`; `opt_out` lists the
 * number, `callback_requested` with `callbackAt` places the follow-up (followUpOf), in the completion's transaction.
 */
export async function completeCallRequest(
  deps: ScheduleDeps,
  actor: Actor,
  callRequestId: string,
  input: unknown,
): Promise<CallRequestView> {
  const data = parseInput(completeInput, input ?? {});
  const callbackAt = data.callbackAt === undefined ? null : new Date(data.callbackAt);
  if (callbackAt && callbackAt.getTime() < deps.clock().getTime()) throw InvalidInput.of('callbackAt', 'must not be in the past');
  return underLease(deps, actor, callRequestId, data.leaseId, async (tx, row, now) => {
    if (row.startedAt === null) throw new Conflict(`Call request ${row.id} has not started; report a call that never connected with fail`);
    if (callbackAt && callbackAt.getTime() >= row.expiresAt.getTime())
      throw InvalidInput.of('callbackAt', `must be before the request's notAfter (${at(row.expiresAt)})`);
    const followUpId = callbackAt ? randomUUID() : null;
    const updated = await tx.callRequest.update({
      where: { id: row.id },
      data: {
        status: 'completed',
        finishedAt: now,
        leaseId: null,
        leaseUntil: null,
        attemptLog: endAttempt(attemptsOf(row.attemptLog), row, now, 'completed', null) as unknown as Prisma.InputJsonValue,
        ...(data.disposition ? { disposition: data.disposition } : {}),
        ...(data.notes !== undefined ? { notes: data.notes } : {}),
        ...(data.data !== undefined ? { outcomeData: data.data as Prisma.InputJsonObject } : {}),
        ...(followUpId ? { followUpId } : {}),
      },
    });
    const view = callRequestView(updated, now);
    await recordEvent(tx, deps, actor, {
      type: 'call_request.completed',
      orgId: row.orgId,
      subject: { type: 'call_request', id: row.id },
      data: view,
      previous: { status: 'in_progress' },
    });
    if (data.disposition === 'opt_out') {
      // the callee's own organization keeps the opt-out (a location's, not its account's: the patient told that clinic)
      await addSuppressionInTransaction(tx, deps, actor, {
        orgId: row.orgId,
        number: row.to,
        reason: 'The callee opted out during the call',
        source: 'opt_out',
        callRequestId: row.id,
      });
    }
    // the callee asked to be called back: a request of its own, due by the calling policy like any (a refusal rolls all back)
    if (callbackAt && followUpId) await placeFollowUp(deps, tx, actor, updated, callbackAt, now, followUpId);
    await endCallRequestWork(tx, deps, row);
    return view;
  });
}

/**
 * The call could not be placed or held: busy, no answer, voicemail, unreachable, rejected. The attempt is listed;
 * an outcome the request's retry policy names, with attempts left, queues it again, due at the first instant the
 * calling policy allows at or after the outcome plus the policy's interval (firstCallInstant, as a new request's
 * dueAt); otherwise, or when no such instant is left before notAfter, it ends failed with this outcome as its error.
 */
export async function failCallRequest(deps: ScheduleDeps, actor: Actor, callRequestId: string, input: unknown): Promise<CallRequestView> {
  const data = parseInput(failInput, input ?? {});
  return underLease(deps, actor, callRequestId, data.leaseId, async (tx, row, now) => {
    const attempts = endAttempt(attemptsOf(row.attemptLog), row, now, data.error.code, data.error);
    const earliest = retryEarliest(retryPolicyOf(row.retry), data.error.code, attempts.length, now);
    let dueAt: Date | null = null;
    if (earliest && earliest.getTime() < row.expiresAt.getTime()) {
      const { policy, placing } = await placingOfRow(tx, row);
      dueAt = await firstCallInstant(deps, placing, policy, earliest, row.expiresAt);
    }
    const subject = { type: 'call_request' as const, id: row.id };
    const ended = { leaseId: null, leaseUntil: null, attemptLog: attempts as unknown as Prisma.InputJsonValue };
    if (dueAt !== null) {
      const updated = await tx.callRequest.update({ where: { id: row.id }, data: { status: 'queued', dueAt, startedAt: null, ...ended } });
      // the lease ended here; the expiry stays with the request
      await dropJobs(tx, [row.leaseId]);
      const view = callRequestView(updated, now);
      // two facts: this attempt failed (its outcome is the last of `attempts`), and the next is due at dueAt
      await recordEvent(tx, deps, actor, { type: 'call_request.attempt_failed', orgId: row.orgId, subject, data: view });
      await recordEvent(tx, deps, actor, {
        type: 'call_request.retry_scheduled',
        orgId: row.orgId,
        subject,
        data: view,
        previous: { status: 'in_progress' },
      });
      return view;
    }
    const updated = await tx.callRequest.update({
      where: { id: row.id },
      data: {
        status: 'failed',
        finishedAt: now,
        ...ended,
        errorCategory: data.error.category,
        errorCode: data.error.code,
        errorMessage: data.error.message,
      },
    });
    // the last attempt's failure is the request's: one event, call_request.failed, whose attempts list it
    const view = callRequestView(updated, now);
    await recordEvent(tx, deps, actor, {
      type: 'call_request.failed',
      orgId: row.orgId,
      subject,
      data: view,
      previous: { status: 'in_progress' },
    });
    await endCallRequestWork(tx, deps, row);
    return view;
  });
}

// ---- durable work: what the service itself moves ---------------------------------------------------

function payloadId(job: ClaimedJob, field: string): string | null {
  const value = (job.payload as Record<string, unknown> | null)?.[field];
  return typeof value === 'string' ? value : null;
}

/** A lease ended: back to the queue (or failed with dispatch_timeout after MAX_LEASES, or expired when past notAfter). */
async function onLeaseEnd(deps: ScheduleDeps, job: ClaimedJob): Promise<JobOutcome> {
  const id = payloadId(job, 'callRequestId');
  const lease = payloadId(job, 'leaseId');
  if (!id || !lease) return { failed: 'malformed payload' };
  return deps.db.$transaction(async (tx): Promise<JobOutcome> => {
    const row = await lockCallRequest(tx, id);
    if (!row || row.status !== 'in_progress' || row.leaseId !== lease) return { done: true }; // finished, or claimed again since
    const now = deps.clock();
    if (row.leaseUntil && row.leaseUntil.getTime() > now.getTime()) return { retryAt: row.leaseUntil, error: 'lease extended' };
    const subject = { type: 'call_request' as const, id };
    const leasesLost = row.leasesLost + 1;
    // a call that started is listed as an attempt the runtime never reported; a lease that ended unused is only counted
    const attemptLog =
      row.startedAt === null
        ? undefined
        : (endAttempt(attemptsOf(row.attemptLog), row, now, 'dispatch_timeout', {
            category: 'request',
            code: 'dispatch_timeout',
            message: "The runtime's lease ended during the call, without an outcome",
          }) as unknown as Prisma.InputJsonValue);
    const cleared = { leaseId: null, leaseUntil: null, leasesLost, ...(attemptLog ? { attemptLog } : {}) };
    await closeAbandonedConversation(deps, tx, row, now);
    if (lapsed(row, now)) {
      const updated = await tx.callRequest.update({ where: { id }, data: { status: 'expired', finishedAt: row.expiresAt, ...cleared } });
      await recordEvent(tx, deps, null, {
        type: 'call_request.expired',
        orgId: row.orgId,
        subject,
        data: callRequestView(updated, now),
        previous: { status: 'in_progress' },
      });
      await endCallRequestWork(tx, deps, row);
    } else if (leasesLost >= MAX_LEASES || row.expiresAt.getTime() <= now.getTime()) {
      // out of leases, or a started call whose runtime vanished after notAfter (re-queued, it could never be claimed again)
      const updated = await tx.callRequest.update({
        where: { id },
        data: {
          status: 'failed',
          finishedAt: now,
          ...cleared,
          errorCategory: 'request',
          errorCode: 'dispatch_timeout',
          errorMessage:
            leasesLost >= MAX_LEASES
              ? `No outcome after ${MAX_LEASES} claims: each runtime's lease ended without a heartbeat`
              : "No outcome: the runtime's lease ended after notAfter",
        },
      });
      await recordEvent(tx, deps, null, {
        type: 'call_request.failed',
        orgId: row.orgId,
        subject,
        data: callRequestView(updated, now),
        previous: { status: 'in_progress' },
      });
      await endCallRequestWork(tx, deps, row);
    } else {
      // the runtime vanished: the request is queued again, due at once, and may be started afresh
      const updated = await tx.callRequest.update({ where: { id }, data: { status: 'queued', dueAt: now, startedAt: null, ...cleared } });
      await recordEvent(tx, deps, null, {
        type: 'call_request.queued',
        orgId: row.orgId,
        subject,
        data: callRequestView(updated, now),
        previous: { status: 'in_progress' },
      });
    }
    return { done: true };
  });
}

/**
 * The conversation of a call whose runtime vanished mid-call is closed (the call is placed afresh, with
 * a conversation of its own), so that no conversation stays OPEN for ever.
 */
async function closeAbandonedConversation(deps: ScheduleDeps, tx: Prisma.TransactionClient, row: CallRequest, now: Date): Promise<void> {
  if (row.startedAt === null || row.conversationId === null) return;
  const closed = await tx.conversation.updateMany({
    where: { id: row.conversationId, status: 'OPEN' },
    data: {
      status: 'CLOSED',
      endTime: now,
      duration: Math.max(0, Math.round((now.getTime() - row.startedAt.getTime()) / 1000)),
      summary: 'The agent runtime stopped reporting; the call was given back.',
    },
  });
  if (closed.count === 0) return;
  const conversation = await tx.conversation.findUniqueOrThrow({ where: { id: row.conversationId } });
  await recordEvent(tx, deps, null, {
    type: 'conversation.ended',
    orgId: row.orgId,
    subject: { type: 'conversation', id: conversation.id },
    data: conversationView(conversation),
    previous: { status: 'OPEN', endTime: null },
  });
}

/** notAfter passed: a request never started is expired. */
async function onExpiry(deps: ScheduleDeps, job: ClaimedJob): Promise<JobOutcome> {
  const id = payloadId(job, 'callRequestId');
  if (!id) return { failed: 'malformed payload' };
  return deps.db.$transaction(async (tx): Promise<JobOutcome> => {
    const row = await lockCallRequest(tx, id);
    if (!row) return { done: true };
    const now = deps.clock();
    if (row.expiresAt.getTime() > now.getTime()) return { retryAt: row.expiresAt, error: 'not yet expired' };
    if (!lapsed(row, now)) return { done: true }; // finished, or started in time
    const updated = await tx.callRequest.update({
      where: { id },
      data: { status: 'expired', finishedAt: row.expiresAt, leaseId: null, leaseUntil: null },
    });
    await recordEvent(tx, deps, null, {
      type: 'call_request.expired',
      orgId: row.orgId,
      subject: { type: 'call_request', id },
      data: callRequestView(updated, now),
      previous: { status: row.status },
    });
    await endCallRequestWork(tx, deps, row);
    return { done: true };
  });
}

/**
 * Queued requests re-evaluated per job; a larger set continues in a job of its own (each batch a few
 * statements: the other work of the instance, and other organizations' requests, are not held up long).
 */
const REEVALUATE_BATCH = 1_000;
/** How long one re-evaluation job works through batches before it hands the rest to a job of its own (ms). */
const REEVALUATE_RUN_MS = 2_000;

/** How far a batch's shared walk looks ahead: past any request's notAfter (at most 30 days after its creation). */
const BATCH_WALK_HORIZON_MS = 400 * 86_400_000;

/**
 * The first allowed instant under a policy's windows alone (no office hours), for the requests of one batch:
 * each (policy, zone, start) is walked once, up to a horizon past every notAfter, and each request takes that
 * instant when it comes before its own notAfter (the walk's answer does not depend on where it stops, only
 * whether it is found). Lives for one batch: a policy read again is another object.
 */
class BatchWalks {
  private readonly found = new Map<CallingPolicyFields, Map<string, number | null>>();

  first(policy: CallingPolicyFields, zoneName: string, from: Date, before: Date): Date | null {
    let byStart = this.found.get(policy);
    if (!byStart) this.found.set(policy, (byStart = new Map<string, number | null>()));
    const key = `${zoneName} ${from.getTime()}`;
    let at = byStart.get(key);
    if (at === undefined) {
      at = nextAllowedCallInstant(compiledPolicy(policy), resolveZone(zoneName), from.getTime(), from.getTime() + BATCH_WALK_HORIZON_MS);
      byStart.set(key, at);
    }
    return at !== null && at < before.getTime() ? new Date(at) : null;
  }
}

/**
 * A calling policy changed: each queued request of the organization (and, for an account, of its locations)
 * is due at its first allowed instant under the new policy; one left without any before its notAfter ends
 * expired with error.code outside_call_window.
 */
async function onPolicyChange(deps: ScheduleDeps, job: ClaimedJob, hoursOnly = false): Promise<JobOutcome> {
  const orgId = payloadId(job, 'orgId');
  if (!orgId) return { failed: 'malformed payload' };
  let after = payloadId(job, 'after');
  // batch after batch for a while, the loop served between them; what is left continues in a job of its own
  const started = performance.now();
  do {
    after = await reevaluateBatch(deps, orgId, after, hoursOnly);
    if (after === null) return { done: true };
    await new Promise((resolve) => setImmediate(resolve));
  } while (performance.now() - started < REEVALUATE_RUN_MS);
  const now = deps.clock();
  await enqueueJob(deps.db, now, { kind: hoursOnly ? HOURS_CHANGED_JOB : REEVALUATE_JOB, payload: { orgId, after }, runAt: now });
  return { done: true };
}

/**
 * Re-evaluates the next batch after `after` (an id) — of the requests timed by the organization's hours only, with
 * `hoursOnly` (its hours changed, not its policy); answers the last id when the batch was full, else null (done).
 */
async function reevaluateBatch(deps: ScheduleDeps, orgId: string, after: string | null, hoursOnly: boolean): Promise<string | null> {
  const now = deps.clock();
  const rows = await deps.db.callRequest.findMany({
    where: {
      ...(hoursOnly ? { officeHoursOnly: true } : {}),
      status: 'queued',
      expiresAt: { gt: now },
      org: { OR: [{ id: orgId }, { parentId: orgId }] },
      ...(after ? { id: { gt: after } } : {}),
    },
    orderBy: { id: 'asc' },
    take: REEVALUATE_BATCH,
    // what the walk reads, no more: a batch's rows are parsed while the loop waits
    select: {
      id: true,
      orgId: true,
      dueAt: true,
      notBefore: true,
      expiresAt: true,
      calleeTimezone: true,
      officeHoursOnly: true,
      phoneNumberId: true,
      retry: true,
      attemptLog: true,
      org: { select: { id: true, parentId: true, timezone: true } },
    },
  });
  const policies = new Map<string, EffectivePolicy>();
  // most of a batch shares a policy, a callee zone and a start (now): the walk is made once for them
  const windowsOnly = new BatchWalks();
  // the new due instants, written in one statement for the batch
  const moved: { id: string; dueAt: Date }[] = [];
  for (const row of rows) {
    let policy = policies.get(row.orgId);
    if (!policy) policies.set(row.orgId, (policy = await effectivePolicy(deps.db, row.org)));
    // not before its notBefore, nor before the interval of a retry it waits for (a policy change moves neither)
    const from = new Date(Math.max(now.getTime(), row.notBefore?.getTime() ?? 0, pendingRetryEarliest(row)?.getTime() ?? 0));
    const placing = {
      orgId: row.orgId,
      phoneNumberId: row.phoneNumberId,
      calleeTimezone: row.calleeTimezone ?? row.org.timezone,
      officeHoursOnly: row.officeHoursOnly,
    };
    const dueAt = placing.officeHoursOnly
      ? await firstCallInstant(deps, placing, policy.fields, from, row.expiresAt)
      : windowsOnly.first(policy.fields, placing.calleeTimezone, from, row.expiresAt);
    if (dueAt !== null) {
      if (dueAt.getTime() !== row.dueAt.getTime()) moved.push({ id: row.id, dueAt });
      continue;
    }
    await deps.db.$transaction(async (tx) => {
      const locked = await lockCallRequest(tx, row.id);
      if (!locked || locked.status !== 'queued') return;
      const updated = await tx.callRequest.update({
        where: { id: row.id },
        data: {
          status: 'expired',
          finishedAt: now,
          errorCategory: 'request',
          errorCode: 'outside_call_window',
          errorMessage: `No instant before notAfter (${row.expiresAt.toISOString()}) is allowed by the calling policy`,
        },
      });
      await recordEvent(tx, deps, null, {
        type: 'call_request.expired',
        orgId: row.orgId,
        subject: { type: 'call_request', id: row.id },
        data: callRequestView(updated, now),
        previous: { status: 'queued' },
      });
      await endCallRequestWork(tx, deps, locked);
    });
  }
  // a request claimed or ended meanwhile keeps what it has (only queued rows move)
  if (moved.length > 0) await moveQueuedDueAts(deps.db, moved);
  const last = rows.at(-1);
  return rows.length === REEVALUATE_BATCH && last ? last.id : null;
}

/** The durable work of call requests, by job kind; the runtime registers them on its queue. */
export function callRequestJobHandlers(deps: ScheduleDeps): Record<string, JobHandler> {
  return {
    [LEASE_JOB]: (job) => onLeaseEnd(deps, job),
    [EXPIRE_JOB]: (job) => onExpiry(deps, job),
    [REEVALUATE_JOB]: (job) => onPolicyChange(deps, job),
    // an office-hours, special-hours or closure change (recorded with its event, events/log.ts)
    [HOURS_CHANGED_JOB]: (job) => onPolicyChange(deps, job, true),
  };
}

export { EXPIRE_JOB, LEASE_JOB };
