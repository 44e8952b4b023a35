// Where a call batch stands (issue 35 §4): its requests counted per status and disposition, and its completion. A
// batch completes when every request of it is final; the transition of a request to a final state (callRequests.ts
// endCallRequestWork, the one function every such transition calls) settles its batch here, in its transaction.
// Kept apart from callBatches.ts (the create, which needs callRequests.ts) so that callRequests.ts can call it.
import { z } from 'zod';
import type { CallBatch, Prisma } from '../../generated/prisma/client.js';
import { recordEvent } from '../events/log.js';
import type { DomainDeps } from '../shared/deps.js';
import { viewSchema } from '../shared/viewSchema.js';
import { CALL_DISPOSITIONS, type CallDisposition, type RetryPolicy, retryPolicyOf, retryPolicyView } from './callAttempts.js';
import { CALL_PURPOSES, type CallPurpose } from './callingPolicy.js';
import { callBatchCounts, callBatchesCounts, callBatchHasPending, lockOpenCallBatch } from './sql.js';
import type { SqlRunner } from '../../db/sql.js';

// the statuses of a request (callRequests.ts CALL_REQUEST_STATUSES; written out: that module imports this one)
const STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'canceled', 'expired'] as const;
type Status = (typeof STATUSES)[number];

export const SKIP_REASONS = ['suppressed', 'duplicate'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface SkippedRecipient {
  index: number;
  reason: SkipReason;
}

export interface CallBatchCounts {
  /** Its call requests (follow-ups included). */
  total: number;
  byStatus: Record<Status, number>;
  byDisposition: Record<CallDisposition, number>;
}

export interface CallBatchView {
  callBatchId: string;
  orgId: string;
  botId: string;
  phoneNumberId: string;
  purpose: CallPurpose;
  officeHoursOnly: boolean;
  notBefore: string | null;
  notAfter: string;
  metadata: Record<string, string>;
  retry: RetryPolicy | null;
  /** Recipients given. */
  recipients: number;
  /** Recipients that became call requests. */
  placed: number;
  skipped: SkippedRecipient[];
  counts: CallBatchCounts;
  createdAt: string;
  canceledAt: string | null;
  completedAt: string | null;
}

const statusCounts = z.object(Object.fromEntries(STATUSES.map((s) => [s, z.int()])) as Record<Status, z.ZodInt>);
const dispositionCounts = z.object(Object.fromEntries(CALL_DISPOSITIONS.map((d) => [d, z.int()])) as Record<CallDisposition, z.ZodInt>);

export const callBatchSchema = viewSchema<CallBatchView>()(
  z
    .object({
      callBatchId: z.uuid(),
      orgId: z.uuid(),
      botId: z.uuid(),
      phoneNumberId: z.uuid().describe('The caller id.'),
      purpose: z.enum(CALL_PURPOSES),
      officeHoursOnly: z.boolean(),
      notBefore: z.iso.datetime().nullable().describe("The batch's notBefore (a recipient's own may be later)."),
      notAfter: z.iso.datetime().describe('Its requests expire when not started by then.'),
      metadata: z.record(z.string(), z.string()).describe("The batch's metadata (each request has it, with its recipient's own)."),
      retry: retryPolicyView
        .nullable()
        .describe('The retry policy of its requests (the calling policy’s when none was given); null: one attempt.'),
      recipients: z.int().describe('Recipients given.'),
      placed: z.int().describe('Recipients that became call requests.'),
      skipped: z
        .array(z.object({ index: z.int(), reason: z.enum(SKIP_REASONS) }))
        .describe('Recipients not called, by index: suppressed (on the do-not-call list), duplicate (a number given before in the batch).'),
      counts: z
        .object({
          total: z.int().describe('Its call requests, follow-ups included.'),
          byStatus: statusCounts.describe('Per status, as each request answers it.'),
          byDisposition: dispositionCounts.describe('Per disposition of the completed ones.'),
        })
        .describe('Its requests now.'),
      createdAt: z.iso.datetime(),
      canceledAt: z.iso.datetime().nullable().describe('When it was canceled; null otherwise.'),
      completedAt: z.iso.datetime().nullable().describe('When the last of its requests reached a final state; null while any is pending.'),
    })
    .meta({ id: 'CallBatch' }),
);

function noCounts(): CallBatchCounts {
  return {
    total: 0,
    byStatus: Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>,
    byDisposition: Object.fromEntries(CALL_DISPOSITIONS.map((d) => [d, 0])) as Record<CallDisposition, number>,
  };
}

function addCount(counts: CallBatchCounts, row: { status: string; disposition: string | null; n: number }): void {
  counts.total += row.n;
  counts.byStatus[row.status as Status] += row.n;
  if (row.disposition !== null && row.disposition in counts.byDisposition)
    counts.byDisposition[row.disposition as CallDisposition] += row.n;
}

/** The counts of a batch's requests at `now` (one grouped read of the batch's rows). */
export async function countsOf(db: SqlRunner, batchId: string, now: Date): Promise<CallBatchCounts> {
  const counts = noCounts();
  for (const row of await callBatchCounts(db, batchId, now)) addCount(counts, row);
  return counts;
}

/** The counts of several batches at `now`, by batch id, in one grouped read (a batch without requests counts zeros). */
export async function countsOfBatches(db: SqlRunner, batchIds: string[], now: Date): Promise<Map<string, CallBatchCounts>> {
  const found = new Map(batchIds.map((id) => [id, noCounts()]));
  if (batchIds.length === 0) return found;
  for (const row of await callBatchesCounts(db, batchIds, now)) {
    const counts = found.get(row.batchId);
    if (counts) addCount(counts, row);
  }
  return found;
}

export function callBatchView(row: CallBatch, counts: CallBatchCounts): CallBatchView {
  return {
    callBatchId: row.id,
    orgId: row.orgId,
    botId: row.botId,
    phoneNumberId: row.phoneNumberId,
    purpose: row.purpose as CallPurpose,
    officeHoursOnly: row.officeHoursOnly,
    notBefore: row.notBefore?.toISOString() ?? null,
    notAfter: row.expiresAt.toISOString(),
    metadata: (row.metadata ?? {}) as Record<string, string>,
    retry: retryPolicyOf(row.retry),
    recipients: row.recipients,
    placed: row.placed,
    skipped: (Array.isArray(row.skipped) ? row.skipped : []) as unknown as SkippedRecipient[],
    counts,
    createdAt: row.createdAt.toISOString(),
    canceledAt: row.canceledAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/**
 * What an event says of a batch: its view without the list of skipped recipients (up to 5,000 entries; GET
 * /v1/call-batches/{id} answers it), with their number instead.
 */
export function callBatchEventData(view: CallBatchView): Omit<CallBatchView, 'skipped'> & { skippedCount: number } {
  const { skipped, ...rest } = view;
  return { ...rest, skippedCount: skipped.length };
}

/**
 * Completes the batches among `batchIds` whose every request is final, in the caller's transaction (call it after
 * the transition that ended a request of it, and anything that transition placed, e.g. a follow-up): the batch row
 * is locked first, so of two transactions ending a batch's last two requests the second one, which waits, reads the
 * first one's committed and completes the batch (event call_batch.completed, by the system).
 */
export async function settleCallBatches(
  tx: Prisma.TransactionClient,
  deps: Pick<DomainDeps, 'clock'>,
  batchIds: Iterable<string | null | undefined>,
): Promise<void> {
  const ids = [...new Set([...batchIds].filter((id): id is string => typeof id === 'string'))].sort();
  for (const id of ids) {
    if ((await lockOpenCallBatch(tx, id)).length === 0) continue;
    if (await callBatchHasPending(tx, id)) continue;
    const now = deps.clock();
    const row = await tx.callBatch.update({ where: { id }, data: { completedAt: now } });
    const view = callBatchView(row, await countsOf(tx, id, now));
    await recordEvent(tx, deps, null, {
      type: 'call_batch.completed',
      orgId: row.orgId,
      subject: { type: 'call_batch', id },
      data: callBatchEventData(view),
    });
  }
}
