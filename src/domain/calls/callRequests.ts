// Call requests (spec §2 "Call request", §3; docs/decisions.md §9): integrators place calls, the agent runtime
// (a machine client, domain/calls/callDispatch.ts) works them, and both read the outcome here. Statuses:
// queued → in_progress → completed | failed | canceled | expired. Polling one request is bounded by
// the polling budget and the minimum poll interval (ratelimit/callRequestPolling.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { e164Schema } from '../shared/e164.js';
import { absentToUndefined, integerFromString } from '../shared/inputParams.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import type { ScheduleDeps } from '../schedule/deps.js';
import type { CallRequest, Prisma, Suppression } from '../../generated/prisma/client.js';
import { dropJobs, enqueueJob, jobInsertSql } from '../../jobs/queue.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import type { ConversationDeps } from './conversations.js';
import { ConsentRequired, Conflict, InvalidInput, NotFound, OutsideCallWindow, parseInput, Suppressed } from '../shared/errors.js';
import { isValidTimezone, resolveZone } from '../shared/localTime.js';
import { CALL_PURPOSES, type CallPurpose, type CallingPolicyFields, compiledPolicy, effectivePolicy } from './callingPolicy.js';
import { nextAllowedCallInstant } from './callWindows.js';
import { newEventRow, recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { loadReachableOrganization, reachableInTransaction } from '../organizations/organizations.js';
import { openCursor, PAGE_CURSOR_MAX_LENGTH, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { nextPhoneOpening } from './callOpenings.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { cursorPaginationView, viewSchema } from '../shared/viewSchema.js';
import { erasedNumber, isErasedNumber } from './erasedNumbers.js';
import { insertQueuedCallRequest, lockCallRequestRow } from './sql.js';
import { settleCallBatches } from './callBatchProgress.js';
import {
  attemptsOf,
  CALL_DISPOSITIONS,
  type CallAttempt,
  callAttemptSchema,
  type CallDisposition,
  type RetryPolicy,
  retryPolicyOf,
  retryPolicySchema,
  retryPolicyView,
} from './callAttempts.js';

export const CALL_REQUEST_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'canceled', 'expired'] as const;
export type CallRequestStatus = (typeof CALL_REQUEST_STATUSES)[number];
/** Pending statuses: the request may still change (and is polled under the minimum interval). */
export const PENDING_CALL_REQUEST_STATUSES: ReadonlySet<string> = new Set(['queued', 'in_progress']);

/** The failure codes a runtime reports (spec §2 shows `request/target_unavailable`). */
export const CALL_FAILURE_CODES = ['target_unavailable', 'busy', 'no_answer', 'voicemail', 'rejected', 'dispatch_timeout'] as const;

/** Without notAfter a request may wait a day; no request waits longer than 30 days. */
export const DEFAULT_CALL_WINDOW_MS = 24 * 3_600_000;
export const MAX_CALL_WINDOW_MS = 30 * 24 * 3_600_000;
export const MAX_METADATA_ENTRIES = 20;

/** Durable work kinds (jobs/queue.ts): a request's expiry, and the end of a claim's lease (callDispatch.ts). */
export const EXPIRE_JOB = 'call_request.expire';
export const LEASE_JOB = 'call_request.lease';

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

const instantInput = z.preprocess(
  (v) => (v instanceof Date ? v.toISOString() : absentToUndefined(v)),
  instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-02T15:00:00Z').optional(),
);

const metadataSchema = z.preprocess(
  (value, ctx) => {
    // the count first: an object of 100,000 entries is refused without reading each of them
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > MAX_METADATA_ENTRIES) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_METADATA_ENTRIES} entries`, input: value });
      return z.NEVER;
    }
    return absentToUndefined(value);
  },
  z
    .record(
      z.string(),
      z
        .string({ error: 'values must be strings' })
        .max(500, 'values are at most 500 characters')
        .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
      {
        error: 'must be an object of string values',
      },
    )
    .superRefine((m, ctx) => {
      // keys are checked here (a key schema's message would be replaced by the record's)
      for (const key of Object.keys(m)) {
        if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(key) || key === '__proto__')
          ctx.addIssue({ code: 'custom', path: [key], message: 'keys are 1 to 64 letters, digits or _ . : - (not __proto__)' });
      }
    })
    .refine((m) => Object.keys(m).length <= MAX_METADATA_ENTRIES, { error: `must have at most ${MAX_METADATA_ENTRIES} entries` })
    .optional(),
);

export const CONSENT_BASES = ['express_written', 'express', 'existing_relationship', 'emergency'] as const;

export interface CallConsent {
  basis: (typeof CONSENT_BASES)[number];
  obtainedAt: string;
  source: string;
}

const consentSchema = z.strictObject(
  {
    basis: z.enum(CONSENT_BASES, { error: `must be one of ${CONSENT_BASES.join(', ')}` }),
    obtainedAt: instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-02T15:00:00Z').transform((v) => new Date(v).toISOString()),
    source: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
  },
  { error: 'must be an object {basis, obtainedAt, source}' },
);

export const createCallRequestInput = z.strictObject({
  botId: z.uuid({ error: 'must be a UUID' }).describe('The bot that talks.'),
  phoneNumberId: z
    .uuid({ error: 'must be a UUID' })
    .describe('The caller id: a phone number of the same organization attached to the bot.'),
  to: e164Schema.describe('The number to call, E.164.'),
  notBefore: instantInput.describe('Not dialed before this instant (default: now).'),
  notAfter: instantInput.describe('Expires when not started by this instant (default: now + 24 h; at most 30 days ahead).'),
  officeHoursOnly: z
    .preprocess(absentToUndefined, z.boolean({ error: 'must be true or false' }).default(false))
    .describe("Dispatched only while the organization's PHONE availability is OPEN."),
  metadata: metadataSchema.describe(`Up to ${MAX_METADATA_ENTRIES} string pairs, returned as given.`),
  calleeTimezone: z
    .preprocess(
      absentToUndefined,
      z
        .string({ error: 'must be an IANA time zone, e.g. America/New_York' })
        .max(64, 'must be an IANA time zone, e.g. America/New_York')
        .refine(isValidTimezone, { error: 'is not a known IANA time zone (e.g. America/New_York)' })
        .optional(),
    )
    .describe(
      "The callee's IANA zone, in which the calling policy's windows are read (default: the organization's; never guessed from the number).",
    ),
  purpose: z
    .preprocess(absentToUndefined, z.enum(CALL_PURPOSES, { error: `must be one of ${CALL_PURPOSES.join(', ')}` }).default('informational'))
    .describe('informational (default) or marketing; a purpose the calling policy lists in requireConsentFor needs `consent`.'),
  consent: z
    .preprocess(absentToUndefined, consentSchema.optional())
    .describe('The consent recorded for this call: {basis, obtainedAt, source}.'),
  retry: z
    .preprocess(absentToUndefined, retryPolicySchema.optional())
    .describe(
      "Tries again after a busy, no_answer or voicemail outcome: {on, maxAttempts (1..10), intervalsMinutes (the last repeats)}; default the calling policy's `retry`.",
    ),
});
export type CreateCallRequestInput = z.input<typeof createCallRequestInput>;

const errorView = z.object({ category: z.string(), code: z.string(), message: z.string() });

/** The call request record as answered (documentation of the response; see CallRequestView). */
export const callRequestSchema = viewSchema<CallRequestView>()(
  z
    .object({
      callRequestId: z.uuid(),
      orgId: z.uuid(),
      botId: z.uuid().nullable(),
      phoneNumberId: z.uuid().nullable().describe('The caller id.'),
      to: z.string().describe('The number called, E.164.'),
      status: z.enum(CALL_REQUEST_STATUSES),
      officeHoursOnly: z.boolean(),
      metadata: z.record(z.string(), z.string()),
      createdAt: instant,
      notBefore: instant.nullable(),
      expiresAt: instant,
      startedAt: instant.nullable().describe('When the runtime started the call (the conversation began).'),
      finishedAt: instant.nullable().describe('When processing ended; null while pending.'),
      claims: z.int().describe('Claims so far, a lease that ended unused included.'),
      attempts: z.array(callAttemptSchema).describe('One per claim that started or failed, in order.'),
      conversationId: z.uuid().nullable().describe("The conversation the call started; use it to track an initiated call's outcome."),
      error: errorView.nullable().describe('A public reason for failure (status failed); null otherwise.'),
      dueAt: instant.describe(
        "When it may next be handed out: the first instant the calling policy (in the callee's zone) and, with officeHoursOnly, the PHONE availability allow.",
      ),
      calleeTimezone: z.string().nullable().describe("The callee's IANA zone (null on requests older than it: the organization's)."),
      purpose: z.enum(CALL_PURPOSES),
      consent: z
        .object({ basis: z.enum(CONSENT_BASES), obtainedAt: instant, source: z.string() })
        .nullable()
        .describe('The consent given at creation; null when none.'),
      retry: retryPolicyView
        .nullable()
        .describe("The retry policy (the request's own, else the calling policy's at creation); null: one attempt."),
      disposition: z.enum(CALL_DISPOSITIONS).nullable().describe('What the call came to, as the runtime completed it; null otherwise.'),
      notes: z.string().nullable().describe("The runtime's notes on the outcome."),
      data: z.record(z.string(), z.unknown()).nullable().describe("The outcome's JSON object for programs (e.g. the booked slot)."),
      followUpOf: z.uuid().nullable().describe('The request whose callee asked for this call back.'),
      followUpId: z.uuid().nullable().describe('The follow-up call request placed when this one completed with callback_requested.'),
      batchId: z.uuid().nullable().describe("The call batch it was placed with (a follow-up keeps its original's); null otherwise."),
      batchIndex: z.int().nullable().describe("Its recipient's index in the batch's `recipients`; null outside a batch."),
    })
    .meta({ id: 'CallRequest' }),
);

/** A public reason for a failure (spec §2); present on `failed` requests only. */
export interface CallRequestError {
  category: string;
  code: string;
  message: string;
}

export interface CallRequestView {
  callRequestId: string;
  orgId: string;
  botId: string | null;
  phoneNumberId: string | null;
  to: string;
  status: CallRequestStatus;
  officeHoursOnly: boolean;
  metadata: Record<string, string>;
  createdAt: string;
  notBefore: string | null;
  expiresAt: string;
  startedAt: string | null;
  /** When processing ended (completed, failed, canceled, expired); null while pending. */
  finishedAt: string | null;
  /** Claims so far (a lease that ended unused included). */
  claims: number;
  attempts: CallAttempt[];
  /** The conversation the call started; null until there is one. */
  conversationId: string | null;
  error: CallRequestError | null;
  dueAt: string;
  /** Null on requests placed before callee zones were kept: they are read in the organization's zone. */
  calleeTimezone: string | null;
  purpose: CallPurpose;
  consent: CallConsent | null;
  retry: RetryPolicy | null;
  disposition: CallDisposition | null;
  notes: string | null;
  data: Record<string, unknown> | null;
  followUpOf: string | null;
  followUpId: string | null;
  batchId: string | null;
  batchIndex: number | null;
}

/** Whether a request never started by its expiry is over (it reads expired before the expiry job has run). */
export function lapsed(row: Pick<CallRequest, 'status' | 'startedAt' | 'expiresAt'>, now: Date): boolean {
  return (row.status === 'queued' || (row.status === 'in_progress' && row.startedAt === null)) && row.expiresAt.getTime() <= now.getTime();
}

/** The status a request answers at `now`: `expired` once it lapsed, else as stored (callRequestView's `status`). */
export function statusAt(row: Pick<CallRequest, 'status' | 'startedAt' | 'expiresAt'>, now: Date): CallRequestStatus {
  return lapsed(row, now) ? 'expired' : row.status;
}

/**
 * The record as answered at `now`. A request not started when its `expiresAt` has passed will never be
 * placed, so it reads as `expired` (finished at its expiry) even before the expiry job has written it.
 */
export function callRequestView(row: CallRequest, now: Date): CallRequestView {
  const failed = row.errorCategory !== null || row.errorCode !== null || row.errorMessage !== null;
  const over = lapsed(row, now);
  return {
    callRequestId: row.id,
    orgId: row.orgId,
    botId: row.botId,
    phoneNumberId: row.phoneNumberId,
    to: row.to,
    status: statusAt(row, now),
    officeHoursOnly: row.officeHoursOnly,
    metadata: (row.metadata ?? {}) as Record<string, string>,
    createdAt: row.createdAt.toISOString(),
    notBefore: row.notBefore?.toISOString() ?? null,
    expiresAt: row.expiresAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: over ? row.expiresAt.toISOString() : (row.finishedAt?.toISOString() ?? null),
    claims: row.attempts,
    attempts: attemptsOf(row.attemptLog),
    conversationId: row.conversationId,
    error: failed ? { category: row.errorCategory ?? 'request', code: row.errorCode ?? 'unknown', message: row.errorMessage ?? '' } : null,
    dueAt: row.dueAt.toISOString(),
    calleeTimezone: row.calleeTimezone,
    purpose: row.purpose as CallPurpose,
    consent: (row.consent as CallConsent | null) ?? null,
    retry: retryPolicyOf(row.retry),
    disposition: (row.disposition as CallDisposition | null) ?? null,
    notes: row.notes,
    data: (row.outcomeData as Record<string, unknown> | null) ?? null,
    followUpOf: row.followUpOf,
    followUpId: row.followUpId,
    batchId: row.batchId,
    batchIndex: row.batchIndex,
  };
}

/** One call request owned by an organization within reach, else 404. A failed request is data, not an error. */
export async function getCallRequest(deps: ScheduleDeps, actor: Actor, callRequestId: string): Promise<CallRequestView> {
  const { db } = deps;
  requireScope(actor, 'call-requests:read');
  const id = uuidParam('callRequestId', callRequestId);
  const row = await db.callRequest.findUnique({ where: { id } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Call request');
  return callRequestView(row, deps.clock());
}

/**
 * Places a call: the bot and its caller-id number must be of one organization within reach (else 404,
 * as missing ones), the number attached to the bot (400), the organization enabled (409). The request
 * is queued with its expiry as durable work; an officeHoursOnly request is due at the next OPEN instant.
 */
export async function createCallRequest(deps: ConversationDeps, actor: Actor, input: unknown): Promise<CallRequestView> {
  const { db } = deps;
  const data = parseInput(createCallRequestInput, input ?? {});
  requireScope(actor, 'call-requests:write');
  const now = deps.clock();
  const { org, botId, phoneNumberId } = await placingOrganization(deps, actor, data.botId, data.phoneNumberId);
  const expiresAt = callExpiry(data.notAfter, now);
  // a number on the do-not-call list of the organization or its account is never queued (issue 34 §4)
  const [policy, suppression] = await Promise.all([
    effectivePolicy(db, org),
    suppressionFor(db, org, [data.to, erasedNumber(deps.tokens.key, data.to)]),
  ]);
  if (suppression) throw suppressedError(suppression, org);
  const row = await queuedCallRow(deps, { org, policy: policy.fields, botId, phoneNumberId, now }, { ...data, expiresAt });
  const view = callRequestView(row, now);
  const event = newEventRow(deps, actor, {
    type: 'call_request.queued',
    orgId: org.id,
    subject: { type: 'call_request', id: row.id },
    data: view,
  });
  // every request reaches a final state: its expiry is durable work, kept across restarts, named by the
  // request so that the transition to a final state drops it (endCallRequestWork). The row, its event and
  // its expiry are one statement: one transaction without the round trips of opening and committing one
  await insertQueuedCallRequest(
    db,
    row,
    event,
    jobInsertSql(now, { id: row.id, kind: EXPIRE_JOB, payload: { callRequestId: row.id }, runAt: row.expiresAt }),
  );
  return view;
}

/**
 * The organization calls are placed for, from their bot and caller id (a single call's, a batch's): both of one
 * organization within reach (else 404, as missing ones), the number attached to the bot (400), the organization
 * enabled and active (not archived) and the bot enabled (409).
 */
export async function placingOrganization(
  deps: ScheduleDeps,
  actor: Actor,
  botIdInput: string,
  phoneNumberIdInput: string,
): Promise<{ org: Awaited<ReturnType<typeof loadReachableOrganization>>; botId: string; phoneNumberId: string }> {
  const { db } = deps;
  const botId = botIdInput.toLowerCase();
  const phoneNumberId = phoneNumberIdInput.toLowerCase();
  const [bot, number] = await Promise.all([
    db.bot.findUnique({ where: { id: botId }, select: { id: true, orgId: true, enabled: true } }),
    db.phoneNumber.findUnique({ where: { id: phoneNumberId }, select: { id: true, orgId: true, botId: true } }),
  ]);
  if (!bot || !(await canReach(deps, actor, bot.orgId))) throw new NotFound('Bot');
  if (!number || !(await canReach(deps, actor, number.orgId))) throw new NotFound('Phone number');
  if (number.orgId !== bot.orgId) throw InvalidInput.of('phoneNumberId', "must be a phone number of the bot's organization");
  if (number.botId !== bot.id)
    throw InvalidInput.of('phoneNumberId', 'is not attached to this bot (attach it first: POST /v1/phone-numbers/{id}/attach)');
  const org = await loadReachableOrganization(deps, actor, bot.orgId);
  if (!org.communicationsEnabled) throw new Conflict(`Organization ${org.id} has communications disabled; enable it before placing calls`);
  if (org.archivedAt) throw new Conflict(`Organization ${org.id} is archived; unarchive it before placing calls`);
  if (!bot.enabled) throw new Conflict(`Bot ${bot.id} is disabled; enable it before placing calls`);
  return { org, botId, phoneNumberId };
}

/** When a call placed at `now` with `notAfter` expires: in the future, at most 30 days ahead (400 naming notAfter otherwise). */
export function callExpiry(notAfter: string | undefined, now: Date): Date {
  const expiresAt = notAfter ? new Date(notAfter) : new Date(now.getTime() + DEFAULT_CALL_WINDOW_MS);
  if (expiresAt.getTime() <= now.getTime()) throw InvalidInput.of('notAfter', 'must be in the future');
  if (expiresAt.getTime() > now.getTime() + MAX_CALL_WINDOW_MS) throw InvalidInput.of('notAfter', 'must be at most 30 days ahead');
  return expiresAt;
}

/** What is shared by the calls placed in one request: the organization, its calling policy, bot, caller id, the instant. */
export interface PlacingContext {
  org: { id: string; parentId: string | null; timezone: string };
  policy: CallingPolicyFields;
  botId: string;
  phoneNumberId: string;
  now: Date;
}

/** One call to place, parsed (createCallRequestInput's fields) with its expiry (callExpiry). */
export type CallToPlace = Omit<z.output<typeof createCallRequestInput>, 'botId' | 'phoneNumberId' | 'notAfter'> & {
  expiresAt: Date;
  batchId?: string;
  batchIndex?: number;
};

/** The first allowed instant of a call (firstCallInstant's arguments); a batch memoizes it over recipients alike. */
export type FirstInstant = (placing: CallPlacing, policy: CallingPolicyFields, from: Date, before: Date) => Promise<Date | null>;

/**
 * The queued row of one call, checked by the rules of POST /v1/call-requests (a batch's recipients by the very same):
 * notBefore before notAfter (400 notBefore), consent not obtained in the future (400 consent.obtainedAt), consent when
 * the purpose needs it (400 consent_required), an allowed instant before notAfter (422 outside_call_window naming
 * notAfter); due at the first allowed instant. The suppression list is the caller's (a single call is refused, a
 * batch's recipient skipped).
 */
export async function queuedCallRow(
  deps: ScheduleDeps,
  ctx: PlacingContext,
  data: CallToPlace,
  firstInstant: FirstInstant = (placing, policy, from, before) => firstCallInstant(deps, placing, policy, from, before),
): Promise<CallRequest> {
  const { org, policy, botId, phoneNumberId, now } = ctx;
  const notBefore = data.notBefore ? new Date(data.notBefore) : null;
  const expiresAt = data.expiresAt;
  if (notBefore && notBefore.getTime() >= expiresAt.getTime()) throw InvalidInput.of('notBefore', 'must be before notAfter');
  if (data.consent && Date.parse(data.consent.obtainedAt) > now.getTime())
    throw InvalidInput.of('consent.obtainedAt', 'must not be in the future');
  if (policy.requireConsentFor.includes(data.purpose) && !data.consent) {
    throw new ConsentRequired(
      `consent: a ${data.purpose} call needs consent {basis, obtainedAt, source}: the calling policy lists "${data.purpose}" in requireConsentFor`,
    );
  }
  const calleeTimezone = data.calleeTimezone ?? org.timezone;
  const retry = data.retry ?? policy.retry;
  const earliest = notBefore && notBefore.getTime() > now.getTime() ? notBefore : now;
  const placing = { orgId: org.id, phoneNumberId, calleeTimezone, officeHoursOnly: data.officeHoursOnly };
  const dueAt = await firstInstant(placing, policy, earliest, expiresAt);
  if (dueAt === null) {
    const after = await firstInstant(placing, policy, expiresAt, new Date(expiresAt.getTime() + 400 * 86_400_000));
    throw new OutsideCallWindow(
      `notAfter: no instant before ${expiresAt.toISOString()} is within the calling policy's windows in ${calleeTimezone}` +
        (data.officeHoursOnly ? ' while the organization is OPEN' : '') +
        (after ? `; the first allowed instant after it is ${after.toISOString()}` : '; none is allowed in the next 400 days'),
    );
  }

  return {
    id: randomUUID(),
    orgId: org.id,
    status: 'queued',
    conversationId: null,
    errorCategory: null,
    errorCode: null,
    errorMessage: null,
    createdAt: now,
    expiresAt,
    finishedAt: null,
    botId,
    phoneNumberId,
    to: data.to,
    notBefore,
    dueAt,
    officeHoursOnly: data.officeHoursOnly,
    metadata: data.metadata ?? {},
    leaseId: null,
    leaseUntil: null,
    attempts: 0,
    startedAt: null,
    calleeTimezone,
    purpose: data.purpose,
    consent: data.consent ?? null,
    claimedAt: null,
    leasesLost: 0,
    attemptLog: [],
    retry: (retry as unknown as Prisma.JsonValue) ?? null,
    disposition: null,
    notes: null,
    outcomeData: null,
    followUpOf: null,
    followUpId: null,
    batchId: data.batchId ?? null,
    batchIndex: data.batchIndex ?? null,
  };
}

// ---- the suppression list's check at create (suppressions.ts keeps the list)

type SuppressionReader = Pick<Prisma.TransactionClient, 'suppression'>;

/**
 * The entry that forbids calling a number from `org`: its own, else its account's; null when none. `numbers`: the
 * number in E.164 and its keyed hash (an entry kept after the number was erased on request, erasedNumbers.ts).
 */
export async function suppressionFor(
  db: SuppressionReader,
  org: { id: string; parentId: string | null },
  numbers: string[],
): Promise<Suppression | null> {
  const rows = await db.suppression.findMany({
    where: { number: { in: numbers }, orgId: { in: org.parentId ? [org.id, org.parentId] : [org.id] } },
  });
  return rows.find((r) => r.orgId === org.id) ?? rows[0] ?? null;
}

/** The 409 a create of a call to a suppressed number answers. */
export function suppressedError(entry: Suppression, org: { id: string }): Suppressed {
  const whose = entry.orgId === org.id ? 'the organization' : `its account ${entry.orgId}`;
  // an entry kept after an erasure names no number (its keyed hash is not shown either)
  const number = isErasedNumber(entry.number) ? 'the number (erased on request, its entry kept)' : entry.number;
  return new Suppressed(
    `to: ${number} is on the suppression (do-not-call) list of ${whose} since ${entry.createdAt.toISOString()}; it must not be called`,
  );
}

/** What decides when a request may start. */
export interface CallPlacing {
  orgId: string;
  phoneNumberId: string | null;
  calleeTimezone: string;
  officeHoursOnly: boolean;
}

/**
 * The first instant at or after `from` and before `before` at which the policy's windows (in the callee's
 * zone) and, with officeHoursOnly, the organization's PHONE availability both allow a call; null when none.
 * The two are walked in turn: a window's start that is not OPEN moves to the next opening, and back.
 */
export async function firstCallInstant(
  deps: ScheduleDeps,
  placing: CallPlacing,
  policy: CallingPolicyFields,
  from: Date,
  before: Date,
): Promise<Date | null> {
  const zone = resolveZone(placing.calleeTimezone);
  const windows = compiledPolicy(policy);
  let t = from.getTime();
  for (let step = 0; step < 64; step++) {
    const allowed = nextAllowedCallInstant(windows, zone, t, before.getTime());
    if (allowed === null) return null;
    if (!placing.officeHoursOnly) return new Date(allowed);
    const opening = (await nextPhoneOpening(deps, placing.orgId, placing.phoneNumberId, new Date(allowed))).getTime();
    if (opening === allowed) return new Date(allowed);
    if (opening >= before.getTime()) return null;
    t = opening;
  }
  return null;
}

/** The organization, calling policy and placing of a stored request, read in `tx` (a retry's and a follow-up's dueAt). */
export async function placingOfRow(
  tx: Prisma.TransactionClient,
  row: Pick<CallRequest, 'orgId' | 'phoneNumberId' | 'calleeTimezone' | 'officeHoursOnly'>,
): Promise<{ policy: CallingPolicyFields; placing: CallPlacing; org: { id: string; parentId: string | null } }> {
  const org = await tx.organization.findUniqueOrThrow({ where: { id: row.orgId }, select: { id: true, parentId: true, timezone: true } });
  const policy = (await effectivePolicy(tx, org)).fields;
  const placing = {
    orgId: org.id,
    phoneNumberId: row.phoneNumberId,
    calleeTimezone: row.calleeTimezone ?? org.timezone,
    officeHoursOnly: row.officeHoursOnly,
  };
  return { policy, placing, org };
}

/**
 * The follow-up a callee asked for (complete with callback_requested and `callbackAt`, issue 35 §3): a new request
 * like `row` (bot, caller id, number, callee zone, purpose, consent, metadata, retry policy), not before `callbackAt`,
 * expiring with `row`, due at the first allowed instant at or after `callbackAt` (firstCallInstant, as every
 * request's dueAt). Refused like a create: 400 naming callbackAt when no instant before notAfter is allowed, 409 when
 * the number is listed, 400 when the purpose now needs consent the request lacks. Answers the new request's row.
 */
export async function placeFollowUp(
  deps: ScheduleDeps,
  tx: Prisma.TransactionClient,
  actor: Actor | null,
  row: CallRequest,
  callbackAt: Date,
  now: Date,
  id: string,
): Promise<CallRequest> {
  const { policy, placing, org } = await placingOfRow(tx, row);
  // an erased number is listed as its keyed hash (erasedNumbers.ts): looked up in both forms where the key is at hand
  const key = (deps as Partial<ConversationDeps>).tokens?.key;
  const suppression = await suppressionFor(tx, org, key && !isErasedNumber(row.to) ? [row.to, erasedNumber(key, row.to)] : [row.to]);
  if (suppression) throw suppressedError(suppression, org);
  if (policy.requireConsentFor.includes(row.purpose as CallPurpose) && row.consent === null) {
    throw new ConsentRequired(
      `callbackAt: a ${row.purpose} call needs consent {basis, obtainedAt, source}, which this request lacks: the calling policy lists "${row.purpose}" in requireConsentFor`,
    );
  }
  const dueAt = await firstCallInstant(deps, placing, policy, callbackAt, row.expiresAt);
  if (dueAt === null) {
    throw new OutsideCallWindow(
      `callbackAt: no instant from ${callbackAt.toISOString()} to the request's notAfter (${row.expiresAt.toISOString()}) is within the calling policy's windows in ${placing.calleeTimezone}` +
        (row.officeHoursOnly ? ' while the organization is OPEN' : ''),
    );
  }
  const followUp = await tx.callRequest.create({
    data: {
      id,
      orgId: row.orgId,
      botId: row.botId,
      phoneNumberId: row.phoneNumberId,
      to: row.to,
      status: 'queued',
      createdAt: now,
      notBefore: callbackAt,
      dueAt,
      expiresAt: row.expiresAt,
      officeHoursOnly: row.officeHoursOnly,
      metadata: row.metadata ?? {},
      calleeTimezone: placing.calleeTimezone,
      purpose: row.purpose,
      ...(row.consent !== null ? { consent: row.consent } : {}),
      ...(row.retry !== null ? { retry: row.retry } : {}),
      followUpOf: row.id,
      // a callback is part of its original's campaign: the batch completes when it does
      ...(row.batchId !== null ? { batchId: row.batchId, batchIndex: row.batchIndex } : {}),
    },
  });
  await recordEvent(tx, deps, actor, {
    type: 'call_request.queued',
    orgId: row.orgId,
    subject: { type: 'call_request', id: followUp.id },
    data: callRequestView(followUp, now),
  });
  await enqueueJob(tx, now, { id: followUp.id, kind: EXPIRE_JOB, payload: { callRequestId: followUp.id }, runAt: followUp.expiresAt });
  return followUp;
}

/**
 * Cancels a request not yet started (queued, or claimed but not started: the runtime's start then
 * answers 409). The row is locked first, so a cancel racing a claim or a start has one outcome.
 */
export const cancelCallRequestInput = z.strictObject({});

export async function cancelCallRequest(
  deps: ScheduleDeps,
  actor: Actor,
  callRequestId: string,
  input?: unknown,
): Promise<CallRequestView> {
  parseInput(cancelCallRequestInput, input ?? {});
  requireScope(actor, 'call-requests:write');
  const id = uuidParam('callRequestId', callRequestId);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const row = await lockCallRequest(tx, id);
    if (!row || !(await reachableInTransaction(tx, actor, row.orgId))) throw new NotFound('Call request');
    const current = statusAt(row, now);
    if (!cancelable(row, now)) {
      throw new Conflict(
        `Call request ${id} is ${current === 'in_progress' ? 'in progress (started)' : current}; only a call not yet started can be canceled`,
      );
    }
    return cancelLockedCallRequest(tx, deps, actor, row, now);
  });
}

/** Whether a request may still be canceled: queued, or claimed and not started. */
export function cancelable(row: Pick<CallRequest, 'status' | 'startedAt' | 'expiresAt'>, now: Date): boolean {
  const current = statusAt(row, now);
  return current === 'queued' || (current === 'in_progress' && row.startedAt === null);
}

/**
 * Cancels a request the transaction holds locked and found `cancelable`: its event, and the end of its durable
 * work (a cancel of one request, and of a deleted bot's, go through here).
 */
export async function cancelLockedCallRequest(
  tx: Prisma.TransactionClient,
  deps: Pick<ScheduleDeps, 'clock'>,
  actor: Actor,
  row: CallRequest,
  now: Date,
): Promise<CallRequestView> {
  const previousStatus = statusAt(row, now);
  const updated = await tx.callRequest.update({
    where: { id: row.id },
    data: { status: 'canceled', finishedAt: now, leaseId: null, leaseUntil: null },
  });
  const view = callRequestView(updated, now);
  await recordEvent(tx, deps, actor, {
    type: 'call_request.canceled',
    orgId: row.orgId,
    subject: { type: 'call_request', id: row.id },
    data: view,
    previous: { status: previousStatus },
  });
  await endCallRequestWork(tx, deps, row);
  return view;
}

/**
 * A request reached a final state: its durable work goes in the same transaction, its expiry (named by
 * the request's id) and the end of its lease (named by the lease's id), so that no job outlives its subject;
 * and its call batch, if any, completes when this was its last pending request (callBatchProgress.ts). Call it
 * last in the transaction of the transition, after its event and what it placed (a follow-up joins the batch).
 */
export async function endCallRequestWork(
  tx: Prisma.TransactionClient,
  deps: Pick<ScheduleDeps, 'clock'>,
  row: Pick<CallRequest, 'id' | 'leaseId' | 'batchId'>,
): Promise<void> {
  await dropJobs(tx, [row.id, row.leaseId]);
  if (row.batchId !== null) await settleCallBatches(tx, deps, [row.batchId]);
}

/** Locks one request's row for the rest of the transaction (FOR UPDATE) and reads it. */
export async function lockCallRequest(tx: Prisma.TransactionClient, id: string): Promise<CallRequest | null> {
  const locked = await lockCallRequestRow(tx, id);
  if (locked.length === 0) return null;
  return tx.callRequest.findUnique({ where: { id } });
}

// ---- the list ----------------------------------------------------------------------------------

export const CALL_REQUESTS_DEFAULT_LIMIT = 20;
export const CALL_REQUESTS_MAX_LIMIT = 100;

export const listCallRequestsInput = z.strictObject({
  limit: z
    .preprocess(
      integerFromString,
      z
        .number({ error: 'must be an integer between 1 and 100' })
        .int({ error: 'must be an integer between 1 and 100' })
        .min(1, 'must be an integer between 1 and 100')
        .max(CALL_REQUESTS_MAX_LIMIT, 'must be an integer between 1 and 100')
        .default(CALL_REQUESTS_DEFAULT_LIMIT),
    )
    .describe('Page size (1..100, default 20).'),
  cursor: z
    .preprocess(
      absentToUndefined,
      z
        .string({ error: 'must be a cursor from a previous page' })
        .min(1, 'must not be empty')
        .max(PAGE_CURSOR_MAX_LENGTH, `must be at most ${PAGE_CURSOR_MAX_LENGTH} characters`)
        .optional(),
    )
    .describe('Continue after the page whose `nextCursor` this is (bound to the filters it was issued for).'),
  orgId: z
    .preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional())
    .describe("The organization (default: the credential owner's); outside reach a 404."),
  status: z
    .preprocess(
      absentToUndefined,
      z.enum(CALL_REQUEST_STATUSES, { error: `must be one of ${CALL_REQUEST_STATUSES.join(', ')}` }).optional(),
    )
    .describe('Only requests in this status (as stored).'),
  botId: z.preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional()).describe('Only requests of this bot.'),
  batchId: z
    .preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional())
    .describe('Only requests of this call batch (see also GET /v1/call-batches/{id}/call-requests).'),
  disposition: z
    .preprocess(absentToUndefined, z.enum(CALL_DISPOSITIONS, { error: `must be one of ${CALL_DISPOSITIONS.join(', ')}` }).optional())
    .describe('Only requests completed with this disposition.'),
  createdFrom: instantInput.describe('Created at or after this instant.'),
  createdTo: instantInput.describe('Created before this instant.'),
});

export interface CallRequestPage {
  callRequests: CallRequestView[];
  pagination: { limit: number; nextCursor: string | null };
}

export const callRequestPageSchema = viewSchema<CallRequestPage>()(
  z.object({
    callRequests: z.array(callRequestSchema).describe('Newest first, ties by id.'),
    pagination: cursorPaginationView(),
  }),
);

/** One page of an organization's call requests, newest first (keyset on createdAt desc, id). Scope call-requests:read. */
export async function listCallRequests(deps: ConversationDeps, actor: Actor, input: unknown): Promise<CallRequestPage> {
  requireScope(actor, 'call-requests:read');
  const query = parseInput(listCallRequestsInput, input ?? {});
  const org = await loadReachableOrganization(deps, actor, query.orgId ?? actor.orgId);
  if (query.botId) {
    const bot = await deps.db.bot.findUnique({ where: { id: query.botId.toLowerCase() }, select: { orgId: true } });
    if (!bot || !(await canReach(deps, actor, bot.orgId))) throw new NotFound('Bot');
  }
  const filters = {
    list: 'call-requests',
    orgId: org.id,
    status: query.status ?? null,
    botId: query.botId?.toLowerCase() ?? null,
    ...(query.disposition ? { disposition: query.disposition } : {}),
    ...(query.batchId ? { batchId: query.batchId.toLowerCase() } : {}),
    createdFrom: query.createdFrom ? new Date(query.createdFrom).toISOString() : null,
    createdTo: query.createdTo ? new Date(query.createdTo).toISOString() : null,
  };
  const key = pageCursorKey(deps.tokens.key);
  const where: Prisma.CallRequestWhereInput = {
    orgId: org.id,
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.botId ? { botId: filters.botId } : {}),
    ...(query.disposition ? { disposition: query.disposition } : {}),
    ...(query.batchId ? { batchId: query.batchId.toLowerCase() } : {}),
    ...(filters.createdFrom || filters.createdTo
      ? {
          createdAt: {
            ...(filters.createdFrom ? { gte: new Date(filters.createdFrom) } : {}),
            ...(filters.createdTo ? { lt: new Date(filters.createdTo) } : {}),
          },
        }
      : {}),
  };
  const and: Prisma.CallRequestWhereInput[] = [where];
  if (query.cursor !== undefined) {
    const p = openCursor(key, query.cursor, filters, 'cursor') as { t?: unknown; i?: unknown };
    if (typeof p?.t !== 'number' || typeof p.i !== 'string' || !/^[0-9a-f-]{36}$/.test(p.i))
      throw InvalidInput.of('cursor', 'is not a cursor this service issued (altered or made up); start again without it');
    const t = new Date(p.t);
    and.push({ OR: [{ createdAt: { lt: t } }, { createdAt: t, id: { gt: p.i } }] });
  }
  const rows = await deps.db.callRequest.findMany({
    where: { AND: and },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const now = deps.clock();
  return {
    callRequests: page.map((row) => callRequestView(row, now)),
    pagination: {
      limit: query.limit,
      nextCursor: rows.length > query.limit && last ? sealCursor(key, { t: last.createdAt.getTime(), i: last.id }, filters) : null,
    },
  };
}
