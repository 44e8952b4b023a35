// Call batches (issue 35 §4): a campaign's calls placed in one request. Shared defaults (bot, caller id, purpose,
// consent, notBefore, notAfter, officeHoursOnly, retry, metadata) and up to 5,000 recipients, each of which becomes a
// call request checked by the very rules of POST /v1/call-requests (callRequests.ts queuedCallRow, the same code). All
// or nothing: a bad recipient refuses the batch (400 naming the first 20 bad rows by index) and nothing is written;
// suppressed numbers and numbers given twice are skipped, reported by index, not errors. The batch, its requests,
// their expiry jobs and its event are one statement (sql.ts insertCallBatch). Its requests are claimed like any call
// (in order of dueAt, within the organization's capacity), and it completes when every one is final
// (callBatchProgress.ts, from the transition that ends a request). Scopes: those of call requests.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { newEventRow, recordEvent } from '../events/log.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import {
  type Issue,
  ConsentRequired,
  Conflict,
  DomainError,
  InvalidInput,
  NotFound,
  OutsideCallWindow,
  parseInput,
} from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { openInstantIdCursor, pageCursorKey, sealCursor } from '../shared/pageCursors.js';
import { cursorPaginationView, viewSchema } from '../shared/viewSchema.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { absentToUndefined } from '../shared/inputParams.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { issuesFromZod } from '../shared/errors.js';
import type { ScheduleDeps } from '../schedule/deps.js';
import { effectivePolicy } from './callingPolicy.js';
import {
  callExpiry,
  type CallRequestPage,
  createCallRequestInput,
  EXPIRE_JOB,
  type FirstInstant,
  firstCallInstant,
  listCallRequests,
  listCallRequestsInput,
  MAX_METADATA_ENTRIES,
  type PlacingContext,
  placingOrganization,
  queuedCallRow,
} from './callRequests.js';
import {
  type CallBatchView,
  callBatchEventData,
  callBatchView,
  callBatchSchema,
  countsOf,
  countsOfBatches,
  settleCallBatches,
  type SkippedRecipient,
} from './callBatchProgress.js';
import type { ConversationDeps } from './conversations.js';
import { erasedNumber } from './erasedNumbers.js';
import { noDispositionCounts } from './callAttempts.js';
import { type BatchRow, callBatchesAfter, cancelBatchRequests, insertCallBatch, openCallBatches, suppressedAmong } from './sql.js';
import { dropJobs } from '../../jobs/queue.js';

export const MAX_BATCH_RECIPIENTS = 5_000;

const call = createCallRequestInput.shape;

/** A recipient: its number, zone and metadata, and its own consent and notBefore when they differ from the batch's. */
export const batchRecipientInput = z.strictObject(
  {
    to: call.to,
    calleeTimezone: call.calleeTimezone,
    metadata: call.metadata.describe(`Up to ${MAX_METADATA_ENTRIES} string pairs, with the batch's (the recipient's win).`),
    consent: call.consent.describe("This recipient's consent (default the batch's)."),
    notBefore: call.notBefore.describe("Not dialed before this instant (default the batch's)."),
  },
  { error: 'must be an object {to, calleeTimezone, metadata, consent, notBefore}' },
);

export const createCallBatchInput = z.strictObject({
  botId: call.botId,
  phoneNumberId: call.phoneNumberId,
  purpose: call.purpose,
  consent: call.consent.describe('The consent of every recipient without its own.'),
  notBefore: call.notBefore,
  notAfter: call.notAfter,
  officeHoursOnly: call.officeHoursOnly,
  retry: call.retry,
  metadata: call.metadata.describe(`Up to ${MAX_METADATA_ENTRIES} string pairs, on the batch and each of its requests.`),
  // each recipient is checked below, so that the answer can name the bad rows by index
  recipients: z
    .array(z.unknown(), { error: `must be an array of recipients {to, …} (1 to ${MAX_BATCH_RECIPIENTS})` })
    .min(1, 'must not be empty')
    .max(MAX_BATCH_RECIPIENTS, `must have at most ${MAX_BATCH_RECIPIENTS} recipients`)
    .describe(`1 to ${MAX_BATCH_RECIPIENTS} recipients {to, calleeTimezone, metadata, consent, notBefore}; all are placed or none.`),
});

export interface CreatedCallBatch extends CallBatchView {
  /** The call requests placed, in recipient order: [{index, callRequestId}]. */
  callRequests: { index: number; callRequestId: string }[];
}

/** The field a create's refusal names (its message starts with it), for naming it under the recipient's index. */
function refusalIssue(err: DomainError, index: number): Issue[] {
  const at = (path: string) => (path ? `recipients.${index}.${path}` : `recipients.${index}`);
  if (err instanceof InvalidInput) return err.issues.map((i) => ({ path: at(i.path), message: i.message }));
  const field = err instanceof ConsentRequired ? 'consent' : err instanceof OutsideCallWindow ? 'notAfter' : '';
  const message = field && err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message;
  return [{ path: at(field), message }];
}

/**
 * POST /v1/call-batches: places up to 5,000 calls at once (scope call-requests:write), all or none. Skips the
 * suppressed numbers and the numbers given before in the batch; a batch whose every recipient is skipped is created
 * completed. At most LIST_LIMITS.callBatches batches of an organization are in progress at once (409 past it).
 */
export async function createCallBatch(deps: ConversationDeps, actor: Actor, input: unknown): Promise<CreatedCallBatch> {
  const data = parseInput(createCallBatchInput, input ?? {});
  requireScope(actor, 'call-requests:write');
  // the rows first: a bad row is named whatever the bot and the organization are
  const recipients: z.output<typeof batchRecipientInput>[] = [];
  const bad: Issue[] = [];
  data.recipients.forEach((value, i) => {
    const parsed = batchRecipientInput.safeParse(value);
    if (parsed.success) recipients.push(parsed.data);
    else
      bad.push(
        ...issuesFromZod(parsed.error).map((issue) => ({
          ...issue,
          path: issue.path ? `recipients.${i}.${issue.path}` : `recipients.${i}`,
        })),
      );
  });
  if (bad.length > 0) throw new InvalidInput(bad);

  const now = deps.clock();
  const { org, botId, phoneNumberId } = await placingOrganization(deps, actor, data.botId, data.phoneNumberId);
  const expiresAt = callExpiry(data.notAfter, now);
  if (data.consent && Date.parse(data.consent.obtainedAt) > now.getTime())
    throw InvalidInput.of('consent.obtainedAt', 'must not be in the future');
  const policy = (await effectivePolicy(deps.db, org)).fields;
  // an entry kept after a number was erased on request holds its keyed hash (erasedNumbers.ts): looked up both ways
  const numbers = [...new Set(recipients.map((r) => r.to))];
  const byHash = new Map(numbers.map((number) => [erasedNumber(deps.tokens.key, number), number]));
  const found = await suppressedAmong(deps.db, org, [...numbers, ...byHash.keys()]);
  const suppressed = new Set([...found].map((number) => byHash.get(number) ?? number));
  const ctx: PlacingContext = { org, policy, botId, phoneNumberId, now };
  // recipients alike (zone, start) share one walk of the calling windows (and of the office hours)
  const walks = new Map<string, Promise<Date | null>>();
  const firstInstant: FirstInstant = (placing, p, from, before) => {
    const key = `${placing.calleeTimezone} ${from.getTime()} ${before.getTime()}`;
    let found = walks.get(key);
    if (!found) walks.set(key, (found = firstCallInstant(deps, placing, p, from, before)));
    return found;
  };

  const batchId = randomUUID();
  const seen = new Set<string>();
  const skipped: SkippedRecipient[] = [];
  const rows: BatchRow[] = [];
  for (const [index, recipient] of recipients.entries()) {
    if (seen.has(recipient.to)) {
      skipped.push({ index, reason: 'duplicate' });
      continue;
    }
    seen.add(recipient.to);
    const metadata = { ...(data.metadata ?? {}), ...(recipient.metadata ?? {}) };
    if (Object.keys(metadata).length > MAX_METADATA_ENTRIES) {
      bad.push({ path: `recipients.${index}.metadata`, message: `must have at most ${MAX_METADATA_ENTRIES} entries with the batch's` });
      continue;
    }
    try {
      const row = await queuedCallRow(
        deps,
        ctx,
        {
          to: recipient.to,
          calleeTimezone: recipient.calleeTimezone,
          metadata,
          consent: recipient.consent ?? data.consent,
          notBefore: recipient.notBefore ?? data.notBefore,
          officeHoursOnly: data.officeHoursOnly,
          purpose: data.purpose,
          retry: data.retry,
          expiresAt,
          batchId,
          batchIndex: index,
        },
        firstInstant,
      );
      // a listed number is skipped, once the row is otherwise sound (a bad row is bad whatever the list says)
      if (suppressed.has(recipient.to)) {
        skipped.push({ index, reason: 'suppressed' });
        continue;
      }
      rows.push({
        id: row.id,
        to: row.to,
        notBefore: row.notBefore?.toISOString() ?? null,
        dueAt: row.dueAt.toISOString(),
        metadata: row.metadata as Record<string, string>,
        calleeTimezone: row.calleeTimezone!,
        consent: row.consent,
        retry: row.retry,
        batchIndex: index,
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      bad.push(...refusalIssue(err, index));
    }
  }
  if (bad.length > 0) throw new InvalidInput(bad);
  skipped.sort((a, b) => a.index - b.index);

  const retry = data.retry ?? policy.retry;
  const batch = {
    id: batchId,
    orgId: org.id,
    botId,
    phoneNumberId,
    purpose: data.purpose,
    officeHoursOnly: data.officeHoursOnly,
    notBefore: data.notBefore ? new Date(data.notBefore) : null,
    expiresAt,
    metadata: data.metadata ?? {},
    retry: retry ?? null,
    recipients: recipients.length,
    skipped,
    createdAt: now,
    // every recipient skipped: nothing to wait for
    completedAt: rows.length === 0 ? now : null,
  };
  const counts = {
    total: rows.length,
    byStatus: { queued: rows.length, in_progress: 0, completed: 0, failed: 0, canceled: 0, expired: 0 },
    byDisposition: noDispositionCounts(),
  };
  const view = callBatchView(
    {
      ...batch,
      metadata: batch.metadata,
      retry: batch.retry as never,
      placed: rows.length,
      skipped: skipped as never,
      canceledAt: null,
    },
    counts,
  );
  const subject = { type: 'call_batch' as const, id: batchId };
  const created = newEventRow(deps, actor, { type: 'call_batch.created', orgId: org.id, subject, data: callBatchEventData(view) });
  await deps.db.$transaction(async (tx) => {
    // batches in progress are a list at its limit: counted under the organization's lock, as every limit is
    await lockOrganizationForLimit(tx, org.id);
    if (!batch.completedAt) assertRoomFor('callBatches', await openCallBatches(tx, org.id));
    await insertCallBatch(tx, batch, rows, created, EXPIRE_JOB);
    // every recipient skipped: completed as it is created (after its creation in the log)
    if (batch.completedAt)
      await recordEvent(tx, deps, null, { type: 'call_batch.completed', orgId: org.id, subject, data: callBatchEventData(view) });
  }, LIMIT_TRANSACTION_OPTIONS);
  return { ...view, callRequests: rows.map((r) => ({ index: r.batchIndex, callRequestId: r.id })) };
}

/** A batch within the caller's reach, else 404 (another organization's is absent). */
async function reachableBatch(deps: ScheduleDeps | ConversationDeps, actor: Actor, callBatchId: string) {
  const id = uuidParam('callBatchId', callBatchId);
  const row = await deps.db.callBatch.findUnique({ where: { id } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Call batch');
  return row;
}

/** GET /v1/call-batches/{id}: the batch with its requests counted per status and disposition (scope call-requests:read). */
export async function getCallBatch(deps: ScheduleDeps, actor: Actor, callBatchId: string): Promise<CallBatchView> {
  requireScope(actor, 'call-requests:read');
  const row = await reachableBatch(deps, actor, callBatchId);
  return callBatchView(row, await countsOf(deps.db, row.id, deps.clock()));
}

export const CALL_BATCH_STATUSES = ['in_progress', 'completed', 'canceled'] as const;
export type CallBatchStatus = (typeof CALL_BATCH_STATUSES)[number];

const listShape = listCallRequestsInput.shape;

export const listCallBatchesInput = z.strictObject({
  limit: listShape.limit,
  cursor: listShape.cursor,
  orgId: listShape.orgId,
  status: z
    .preprocess(absentToUndefined, z.enum(CALL_BATCH_STATUSES, { error: `must be one of ${CALL_BATCH_STATUSES.join(', ')}` }).optional())
    .describe(
      'in_progress: some request is pending (completedAt null); completed: every request is final (completedAt set, canceled ones included); canceled: canceled (canceledAt set), whether or not its calls under way have ended.',
    ),
  createdFrom: listShape.createdFrom,
  createdTo: listShape.createdTo,
});

export interface CallBatchPage {
  callBatches: CallBatchView[];
  pagination: { limit: number; nextCursor: string | null };
}

export const callBatchPageSchema = viewSchema<CallBatchPage>()(
  z.object({
    callBatches: z.array(callBatchSchema).describe('Newest first, ties by id; each as GET /v1/call-batches/{id} answers it.'),
    pagination: cursorPaginationView(),
  }),
);

/**
 * GET /v1/call-batches: one page of an organization's batches (the credential owner's, or with `orgId` one within
 * reach, as the list of call requests), newest first, keyset on (createdAt desc, id). Each with its counts, read for
 * the whole page in one statement. Scope call-requests:read.
 */
export async function listCallBatches(deps: ConversationDeps, actor: Actor, input: unknown): Promise<CallBatchPage> {
  requireScope(actor, 'call-requests:read');
  const query = parseInput(listCallBatchesInput, input ?? {});
  const org = await loadReachableOrganization(deps, actor, query.orgId ?? actor.orgId);
  const filters = {
    list: 'call-batches',
    orgId: org.id,
    status: query.status ?? null,
    createdFrom: query.createdFrom ? new Date(query.createdFrom).toISOString() : null,
    createdTo: query.createdTo ? new Date(query.createdTo).toISOString() : null,
  };
  const key = pageCursorKey(deps.tokens.key);
  const after = query.cursor === undefined ? undefined : openInstantIdCursor(key, query.cursor, filters, 'cursor');
  const rows = await callBatchesAfter(deps.db, filters, after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const counts = await countsOfBatches(
    deps.db,
    page.map((row) => row.id),
    deps.clock(),
  );
  const last = page.at(-1);
  return {
    callBatches: page.map((row) => callBatchView(row, counts.get(row.id)!)),
    pagination: {
      limit: query.limit,
      nextCursor: rows.length > query.limit && last ? sealCursor(key, { t: last.createdAt.getTime(), i: last.id }, filters) : null,
    },
  };
}

export const listCallBatchRequestsInput = listCallRequestsInput.pick({ limit: true, cursor: true, status: true, disposition: true });

/** GET /v1/call-batches/{id}/call-requests: its requests, newest first, by cursor (the list of call requests, filtered). */
export async function listCallBatchRequests(
  deps: ConversationDeps,
  actor: Actor,
  callBatchId: string,
  input: unknown,
): Promise<CallRequestPage> {
  requireScope(actor, 'call-requests:read');
  const query = parseInput(listCallBatchRequestsInput, input ?? {});
  const row = await reachableBatch(deps, actor, callBatchId);
  return listCallRequests(deps, actor, { ...query, orgId: row.orgId, batchId: row.id });
}

export const cancelCallBatchInput = z.strictObject({});

/**
 * POST /v1/call-batches/{id}/cancel: cancels its requests not yet started (queued, or claimed and not started), in
 * one statement; those under way finish as they will. Event call_batch.canceled (by the caller), then
 * call_batch.completed when nothing is left pending. A completed batch is a 409.
 */
export async function cancelCallBatch(deps: ScheduleDeps, actor: Actor, callBatchId: string, input?: unknown): Promise<CallBatchView> {
  parseInput(cancelCallBatchInput, absentToUndefined(input) ?? {});
  requireScope(actor, 'call-requests:write');
  const found = await reachableBatch(deps, actor, callBatchId);
  if (found.completedAt)
    throw new Conflict(`Call batch ${found.id} completed at ${found.completedAt.toISOString()}; nothing is left to cancel`);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    // the requests first, then the batch (the order every transition that ends a request takes)
    const canceled = await cancelBatchRequests(tx, found.id, now);
    await dropJobs(
      tx,
      canceled.flatMap((r) => [r.id, r.leaseId]),
    );
    const row = await tx.callBatch.update({ where: { id: found.id }, data: { canceledAt: now } });
    const view = callBatchView(row, await countsOf(tx, row.id, now));
    await recordEvent(tx, deps, actor, {
      type: 'call_batch.canceled',
      orgId: row.orgId,
      subject: { type: 'call_batch', id: row.id },
      data: { ...callBatchEventData(view), canceled: canceled.length },
      previous: { canceledAt: found.canceledAt?.toISOString() ?? null },
    });
    await settleCallBatches(tx, deps, [row.id]);
    const after = await tx.callBatch.findUniqueOrThrow({ where: { id: row.id } });
    return callBatchView(after, view.counts);
  }, LIMIT_TRANSACTION_OPTIONS);
}
