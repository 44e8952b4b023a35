// Erasure on request (issue 36 §4, docs/decisions.md §14): a patient asks a clinic to delete what it holds about
// them, named by one of their phone number, a conversation or a call request. `POST /v1/erasure-requests` records
// the request (202, status pending) and queues a durable job (ERASURE_JOB) that works it off in bounded batches,
// each batch one transaction that also adds what it removed to the request's counts (so a batch repeated after a
// crash is not counted twice: what it removed is gone, and a repeat finds nothing). Within the reach of the
// organization that asked (an account's request covers its locations):
//   - conversations (of the number: its calls' and those whose from/to number is it) are deleted with their turns,
//     and the events about them keep their type, subject and times but their data becomes {"erased": true};
//   - call requests keep their status and times; the number becomes `erased:<keyed hash>` (HMAC-SHA-256 with a key
//     derived from the signing key, `erasedNumber`), and the number is scrubbed from their metadata, notes and
//     outcome; a queued one cannot be placed any more and ends failed (error code `erased`);
//   - events, stored webhook answers and stored idempotent answers naming the number have it replaced by
//     `[erased]`;
//   - a suppression of the number stays honoured: its entry keeps `erased:<keyed hash>`, and a new call request to
//     the number is still refused (callRequests.ts `suppressionFor` looks both forms up).
// The request keeps the number in clear only while pending or running (the job needs it to find the rows); once
// completed it keeps its keyed hash alone, and `erasure.completed` names the counts, never the number.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ErasureRequest, Prisma } from '../../generated/prisma/client.js';
import type { ClaimedJob, JobHandler, JobOutcome } from '../../jobs/queue.js';
import { enqueueJob } from '../../jobs/queue.js';
import { type EventActorKind, recordEvent } from '../events/log.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { absentToUndefined } from '../shared/inputParams.js';
import { viewSchema } from '../shared/viewSchema.js';
import { callRequestView, endCallRequestWork } from './callRequests.js';
import type { ConversationDeps } from './conversations.js';
import { erasedNumber, isErasedNumber } from './erasedNumbers.js';
import {
  eraseCallRequestNumbers,
  eraseConversationEvents,
  erasureConversations,
  hashSuppressedNumber,
  lockUnfinishedErasure,
  scrubCallRequestMentions,
  scrubDeliveryMentions,
  scrubEventMentions,
  scrubIdempotentMentions,
} from './sql.js';
import { normalizePhoneNumber } from './suppressions.js';

export const ERASURE_JOB = 'erasure.run';
export const ERASURE_KINDS = ['phoneNumber', 'conversationId', 'callRequestId'] as const;
export type ErasureKind = (typeof ERASURE_KINDS)[number];
export const ERASURE_STATUSES = ['pending', 'running', 'completed'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** Rows one batch changes at most (one transaction). */
export const ERASURE_BATCH_SIZE = 500;
/** Batches one run of the job makes before it gives the queue back (it continues at once, after other due work). */
export const ERASURE_BATCHES_PER_RUN = 20;
/** What an erased number is replaced by in free text and JSON. */
export const ERASED_TEXT = '[erased]';
const ERASED_DATA = { erased: true };

export const ERASURE_COUNT_FIELDS = [
  'conversations',
  'messages',
  'callRequests',
  'events',
  'webhookDeliveries',
  'suppressions',
  'idempotentAnswers',
] as const;
export type ErasureCounts = Record<(typeof ERASURE_COUNT_FIELDS)[number], number>;
const zeroCounts = (): ErasureCounts => Object.fromEntries(ERASURE_COUNT_FIELDS.map((f) => [f, 0])) as ErasureCounts;

const uuidField = (what: string) =>
  z.preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional()).describe(`The ${what} to erase.`);

export const createErasureInput = z.strictObject({
  phoneNumber: z
    .preprocess(absentToUndefined, z.string({ error: 'must be a phone number with its country code, e.g. +12025550143' }).optional())
    .describe('A phone number with its country code (any punctuation; compared in E.164): everything the organization holds about it.'),
  conversationId: uuidField('conversation'),
  callRequestId: uuidField('call request'),
});

export interface ErasureRequestView {
  erasureRequestId: string;
  orgId: string;
  kind: ErasureKind;
  /** The conversation or call request erased; null for a phone number (never answered back). */
  subjectId: string | null;
  status: ErasureStatus;
  counts: ErasureCounts;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

const countsSchema = z
  .object(
    Object.fromEntries(ERASURE_COUNT_FIELDS.map((f) => [f, z.int().min(0)])) as Record<(typeof ERASURE_COUNT_FIELDS)[number], z.ZodInt>,
  )
  .describe(
    'What was removed or scrubbed so far: conversations and messages deleted; call requests whose number became its keyed hash; events, stored webhook answers and stored idempotent answers scrubbed; suppressions kept as a keyed hash.',
  );

export const erasureRequestSchema = viewSchema<ErasureRequestView>()(
  z
    .object({
      erasureRequestId: z.uuid(),
      orgId: z.uuid().describe('The organization that asked: the erasure covers it and, for an account, its locations.'),
      kind: z.enum(ERASURE_KINDS).describe('Which identifier named what to erase.'),
      subjectId: z
        .uuid()
        .nullable()
        .describe('The conversation or call request erased; null for a phone number (which is never answered back).'),
      status: z.enum(ERASURE_STATUSES).describe('pending (queued), running, completed.'),
      counts: countsSchema,
      createdAt: z.iso.datetime(),
      startedAt: z.iso.datetime().nullable(),
      completedAt: z.iso.datetime().nullable(),
    })
    .meta({ id: 'ErasureRequest' }),
);

export function erasureRequestView(row: ErasureRequest): ErasureRequestView {
  return {
    erasureRequestId: row.id,
    orgId: row.orgId,
    kind: row.kind as ErasureKind,
    subjectId: row.subjectId,
    status: row.status as ErasureStatus,
    counts: { ...zeroCounts(), ...(row.counts as Partial<ErasureCounts>) },
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** The event data of an erasure: its kind, subject and counts; never a number. */
function erasureEventData(row: ErasureRequest) {
  const view = erasureRequestView(row);
  return { erasureRequestId: view.erasureRequestId, kind: view.kind, subjectId: view.subjectId, status: view.status, counts: view.counts };
}

/**
 * POST /v1/erasure-requests: exactly one of `phoneNumber`, `conversationId`, `callRequestId`, within the caller's
 * reach (another organization's conversation or call request is a 404, as if absent). Scope erasure:write.
 * Records the request (pending), its `erasure.requested` event and its job in one transaction.
 */
export async function createErasureRequest(deps: ConversationDeps, actor: Actor, input: unknown): Promise<ErasureRequestView> {
  const data = parseInput(createErasureInput, input ?? {});
  requireScope(actor, 'erasure:write');
  const given = ERASURE_KINDS.filter((k) => data[k] !== undefined);
  if (given.length === 0) throw InvalidInput.of('phoneNumber', 'exactly one of phoneNumber, conversationId or callRequestId is required');
  if (given.length > 1)
    throw InvalidInput.of(given[1]!, `give exactly one of phoneNumber, conversationId or callRequestId (got ${given.join(' and ')})`);
  const kind = given[0]!;
  let number: string | null = null;
  let subjectId: string | null = null;
  if (kind === 'phoneNumber') {
    number = normalizePhoneNumber(data.phoneNumber);
    if (!number) throw InvalidInput.of('phoneNumber', 'must be a phone number with its country code, e.g. +12025550143');
  } else if (kind === 'conversationId') {
    subjectId = data.conversationId!.toLowerCase();
    const row = await deps.db.conversation.findUnique({ where: { id: subjectId }, select: { orgId: true } });
    if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Conversation');
  } else {
    subjectId = data.callRequestId!.toLowerCase();
    const row = await deps.db.callRequest.findUnique({ where: { id: subjectId }, select: { orgId: true, to: true } });
    if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Call request');
    // the call's own number, to scrub from its rows (none when it was erased already, or never had one)
    number = row.to && !isErasedNumber(row.to) ? row.to : null;
  }
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const row = await tx.erasureRequest.create({
      data: {
        id: randomUUID(),
        orgId: actor.orgId,
        kind,
        subjectId,
        number,
        numberHash: number ? erasedNumber(deps.tokens.key, number) : null,
        status: 'pending',
        counts: zeroCounts(),
        actorKind: actor.credential.kind === 'apiKey' ? 'apiKey' : 'oauthClient',
        actorId: actor.credential.id,
        actorName: actor.credential.name,
        createdAt: now,
      },
    });
    await recordEvent(tx, deps, actor, {
      type: 'erasure.requested',
      orgId: actor.orgId,
      subject: { type: 'erasure_request', id: row.id },
      data: erasureEventData(row),
    });
    await enqueueJob(tx, now, { id: row.id, kind: ERASURE_JOB, payload: { erasureRequestId: row.id }, runAt: now });
    return erasureRequestView(row);
  });
}

/** GET /v1/erasure-requests/{id}: one request of the caller's reach (404 otherwise). Scope erasure:write. */
export async function getErasureRequest(deps: ConversationDeps, actor: Actor, id: string): Promise<ErasureRequestView> {
  requireScope(actor, 'erasure:write');
  const parsed = z.uuid().safeParse(id);
  if (!parsed.success) throw InvalidInput.of('erasureRequestId', 'must be a UUID');
  const row = await deps.db.erasureRequest.findUnique({ where: { id: parsed.data.toLowerCase() } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Erasure request');
  return erasureRequestView(row);
}

// ---- the work

type Tx = Prisma.TransactionClient;

/** The forms a number is matched in within free text: digits only, in full and without the country code. */
function digitForms(e164: string): string[] {
  const parsed = parsePhoneNumberFromString(e164);
  const forms = new Set([e164.slice(1)]);
  if (parsed?.nationalNumber) forms.add(String(parsed.nationalNumber));
  return [...forms];
}

interface Work {
  row: ErasureRequest;
  batch: number;
  now: Date;
}

/** One batch of a phase: what it changed, counted; fewer rows than the batch size means the phase is done. */
type Phase = (tx: Tx, work: Work) => Promise<{ counts: Partial<ErasureCounts>; rows: number }>;

/** Conversations deleted with their turns; the events about them keep type, subject and times, not their data. */
const deleteConversations: Phase = async (tx, work) => {
  const { row, batch } = work;
  const forms = row.kind === 'phoneNumber' && row.number ? digitForms(row.number) : [];
  const ids = (await erasureConversations(tx, row, forms, batch)).map((r) => r.id);
  if (ids.length === 0) return { counts: {}, rows: 0 };
  const messages = await tx.conversationMessage.count({ where: { conversationId: { in: ids } } });
  const events = await eraseConversationEvents(tx, row.orgId, ids, ERASED_DATA);
  const { count: conversations } = await tx.conversation.deleteMany({ where: { id: { in: ids } } });
  return { counts: { conversations, messages, events }, rows: ids.length };
};

/** Call requests to the number: the number becomes its keyed hash and leaves their free text; queued ones end failed. */
const eraseCallRequests: Phase = async (tx, { row, batch, now }) => {
  if (!row.number || !row.numberHash) return { counts: {}, rows: 0 };
  const erased = await eraseCallRequestNumbers(tx, { ...row, number: row.number, numberHash: row.numberHash }, ERASED_TEXT, batch);
  // a queued request can no longer be placed: it ends failed, its durable work dropped, with its event (by the system)
  const queued = erased.filter((r) => r.status === 'queued').map((r) => r.id);
  if (queued.length > 0) {
    await tx.callRequest.updateMany({
      where: { id: { in: queued }, status: 'queued' },
      data: {
        status: 'failed',
        finishedAt: now,
        errorCategory: 'request',
        errorCode: 'erased',
        errorMessage: 'The number was erased on request; the call cannot be placed',
      },
    });
    for (const ended of await tx.callRequest.findMany({ where: { id: { in: queued } } })) {
      await recordEvent(tx, { clock: () => now }, null, {
        type: 'call_request.failed',
        orgId: ended.orgId,
        subject: { type: 'call_request', id: ended.id },
        data: callRequestView(ended, now),
        previous: { status: 'queued' },
      });
      // last: it may complete the request's batch (callBatches.ts)
      await endCallRequestWork(tx, { clock: () => now }, ended);
    }
  }
  return { counts: { callRequests: erased.length }, rows: erased.length };
};

/** Other call requests of the reach whose free text names the number (a callback number in metadata, notes): scrubbed. */
const scrubMentionsInCallRequests: Phase = async (tx, { row, batch }) => {
  if (row.kind !== 'phoneNumber' || !row.number) return { counts: {}, rows: 0 };
  const callRequests = await scrubCallRequestMentions(tx, row.orgId, row.number, ERASED_TEXT, batch);
  return { counts: { callRequests }, rows: callRequests };
};

/** Events naming the number: it is replaced by [erased] in their data and previous values. */
const scrubEvents: Phase = async (tx, { row, batch }) => {
  if (!row.number) return { counts: {}, rows: 0 };
  const events = await scrubEventMentions(tx, { ...row, number: row.number }, ERASED_TEXT, batch);
  return { counts: { events }, rows: events };
};

/** Stored answers of webhook receivers naming the number (a receiver may echo what it was sent). */
const scrubDeliveries: Phase = async (tx, { row, batch }) => {
  if (!row.number) return { counts: {}, rows: 0 };
  const webhookDeliveries = await scrubDeliveryMentions(tx, row.orgId, row.number, ERASED_TEXT, batch);
  return { counts: { webhookDeliveries }, rows: webhookDeliveries };
};

/** Stored idempotent answers naming the number (a call request's, a suppression's): replayed with [erased] in its place. */
const scrubIdempotentAnswers: Phase = async (tx, { row, batch }) => {
  if (!row.number) return { counts: {}, rows: 0 };
  const idempotentAnswers = await scrubIdempotentMentions(tx, row.orgId, row.number, ERASED_TEXT, batch);
  return { counts: { idempotentAnswers }, rows: idempotentAnswers };
};

/** A suppression of the number stays honoured: its entry keeps the keyed hash instead (one per list). */
const hashSuppressions: Phase = async (tx, { row, batch }) => {
  if (row.kind !== 'phoneNumber' || !row.number || !row.numberHash) return { counts: {}, rows: 0 };
  const { hashed, duplicates } = await hashSuppressedNumber(tx, row.orgId, row.number, row.numberHash, batch);
  return { counts: { suppressions: hashed + duplicates }, rows: hashed };
};

// Every batch locks its rows in one order (ids, seq), so that two erasures running at once wait for each other rather
// than deadlock; what one removed or scrubbed no longer matches the other's query when its turn comes.

/** In this order: conversations are found through their calls' numbers before those become hashes (both are looked up anyway). */
const PHASES: Phase[] = [
  deleteConversations,
  eraseCallRequests,
  scrubMentionsInCallRequests,
  scrubEvents,
  scrubDeliveries,
  scrubIdempotentAnswers,
  hashSuppressions,
];

function addCounts(counts: ErasureCounts, more: Partial<ErasureCounts>): ErasureCounts {
  const sum = { ...counts };
  for (const f of ERASURE_COUNT_FIELDS) sum[f] += more[f] ?? 0;
  return sum;
}

/**
 * One run of an erasure's job: batches of each phase in turn, each batch one transaction that adds its counts to
 * the request, until every phase finds nothing (completed, with `erasure.completed`) or the run's batches are
 * spent (it continues at once, after other due work).
 */
export async function runErasure(
  deps: Pick<ConversationDeps, 'db' | 'clock'>,
  erasureRequestId: string,
  options: { batchSize?: number; batchesPerRun?: number } = {},
): Promise<JobOutcome> {
  const batch = options.batchSize ?? ERASURE_BATCH_SIZE;
  let budget = options.batchesPerRun ?? ERASURE_BATCHES_PER_RUN;
  const first = await deps.db.erasureRequest.findUnique({ where: { id: erasureRequestId } });
  if (!first || first.status === 'completed') return { done: true };
  if (first.status === 'pending') {
    await deps.db.erasureRequest.updateMany({
      where: { id: first.id, status: 'pending' },
      data: { status: 'running', startedAt: deps.clock() },
    });
  }
  for (const phase of PHASES) {
    for (;;) {
      // only batches that changed something spend the run's budget: a run always gets further than the one before
      if (budget <= 0) return { retryAt: deps.clock(), error: 'continued: the batches of one run are spent', label: 'continued' };
      const rows = await deps.db.$transaction(async (tx) => {
        const row = await tx.erasureRequest.findUniqueOrThrow({ where: { id: erasureRequestId } });
        const done = await phase(tx, { row, batch, now: deps.clock() });
        if (done.rows > 0 || Object.values(done.counts).some((n) => n > 0)) {
          const counts = addCounts(erasureRequestView(row).counts, done.counts);
          await tx.erasureRequest.update({ where: { id: row.id }, data: { counts } });
        }
        return done.rows;
      });
      if (rows > 0) budget--;
      if (rows < batch) break;
    }
  }
  await deps.db.$transaction(async (tx) => {
    const now = deps.clock();
    if (!(await lockUnfinishedErasure(tx, erasureRequestId))) return;
    // the number goes with the work: the request keeps its keyed hash only
    const row = await tx.erasureRequest.update({
      where: { id: erasureRequestId },
      data: { status: 'completed', completedAt: now, number: null },
    });
    // by the credential that asked (who erased), as the request was
    const by = { kind: row.actorKind as EventActorKind, id: row.actorId, name: row.actorName };
    await recordEvent(tx, { clock: () => now }, by, {
      type: 'erasure.completed',
      orgId: row.orgId,
      subject: { type: 'erasure_request', id: row.id },
      data: erasureEventData(row),
      previous: { status: 'running' },
    });
  });
  return { done: true };
}

/** The durable work of erasures, by job kind; the runtime registers it on its queue. */
export function erasureJobHandlers(
  deps: Pick<ConversationDeps, 'db' | 'clock'>,
  options: { batchSize?: number; batchesPerRun?: number } = {},
): Record<string, JobHandler> {
  return {
    [ERASURE_JOB]: (job: ClaimedJob) => runErasure(deps, String((job.payload as { erasureRequestId?: unknown }).erasureRequestId), options),
  };
}
