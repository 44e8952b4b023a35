// The suppression (do-not-call) list (issue 34 §4): numbers an organization must never call. The list is the
// credential owner's organization's; an account's entries apply to all its locations, a location's to itself.
// Numbers are kept in E.164, so every way of writing one number is one entry. Read by the create of a call
// request (409 suppressed, callRequests.ts), by the claim (a suppressed request is never handed out: sql.ts) and
// written by `complete` with disposition opt_out (callDispatch.ts), on both surfaces. Listing a number ends the
// queued requests to it.
import { z } from 'zod';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Prisma, Suppression } from '../../generated/prisma/client.js';
import { recordEvent } from '../events/log.js';
import { type Actor, requireScope } from '../shared/access.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { openCursor, PAGE_CURSOR_MAX_LENGTH, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { cursorPaginationView, viewSchema } from '../shared/viewSchema.js';
import type { ConversationDeps } from './conversations.js';
import { callRequestView } from './callRequests.js';
import { settleCallBatches } from './callBatchProgress.js';
import { dropJobs } from '../../jobs/queue.js';
import { failSuppressedNumbers, insertSuppressions } from './sql.js';
import { erasedNumber } from './erasedNumbers.js';

export const SUPPRESSION_SOURCES = ['api', 'bulk', 'opt_out'] as const;
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];

export const MAX_BULK_SUPPRESSIONS = 10_000;
export const SUPPRESSIONS_DEFAULT_LIMIT = 20;
export const SUPPRESSIONS_MAX_LIMIT = 100;

const NUMBER_ERROR = 'must be a phone number with its country code, e.g. +12025550143';

/**
 * A number in E.164 (`+12025550143`) when `value` is a valid phone number written with its country code,
 * in any common punctuation (`+1 (202) 555-0143`); else null. No default country: a number without one
 * could be read in the wrong plan.
 */
export function normalizePhoneNumber(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const parsed = parsePhoneNumberFromString(value.trim());
  return parsed?.isValid() ? parsed.number : null;
}

const numberSchema = z
  .string({ error: NUMBER_ERROR })
  .transform(
    (v, ctx) =>
      normalizePhoneNumber(v) ?? (ctx.addIssue({ code: 'custom', message: `${NUMBER_ERROR} (got "${v.slice(0, 40)}")` }), z.NEVER),
  );

const reasonSchema = z
  .preprocess(
    (v) => (v === null ? undefined : v),
    z
      .string({ error: 'must be a string' })
      .max(200, 'must be at most 200 characters')
      .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
      .default(''),
  )
  .describe('Why the number must not be called (at most 200 characters; default empty).');

export const addSuppressionInput = z.strictObject({
  number: numberSchema.describe('The number, with its country code; stored in E.164.'),
  reason: reasonSchema,
});

export const bulkSuppressionsInput = z.strictObject({
  // each number is checked below, so that the answer can name the bad rows by index
  numbers: z
    .array(z.unknown(), { error: `must be an array of phone numbers (at most ${MAX_BULK_SUPPRESSIONS})` })
    .min(1, 'must not be empty')
    .max(MAX_BULK_SUPPRESSIONS, `must have at most ${MAX_BULK_SUPPRESSIONS} numbers`)
    .describe(`Up to ${MAX_BULK_SUPPRESSIONS} numbers with their country codes; all are added or none.`),
  reason: reasonSchema,
});

export const listSuppressionsInput = z.strictObject({
  limit: z
    .preprocess(
      (v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v === null ? undefined : v),
      z
        .number({ error: 'must be an integer between 1 and 100' })
        .int({ error: 'must be an integer between 1 and 100' })
        .min(1, 'must be an integer between 1 and 100')
        .max(SUPPRESSIONS_MAX_LIMIT, 'must be an integer between 1 and 100')
        .default(SUPPRESSIONS_DEFAULT_LIMIT),
    )
    .describe('Page size (1..100, default 20).'),
  cursor: z
    .preprocess(
      (v) => (v === null ? undefined : v),
      z
        .string({ error: 'must be a cursor from a previous page' })
        .min(1, 'must not be empty')
        .max(PAGE_CURSOR_MAX_LENGTH, `must be at most ${PAGE_CURSOR_MAX_LENGTH} characters`)
        .optional(),
    )
    .describe('Continue after the page whose `nextCursor` this is (bound to the filter it was issued for).'),
  number: z
    .preprocess((v) => (v === null ? undefined : v), numberSchema.optional())
    .describe('Only the entry of this number (any punctuation; compared in E.164).'),
});

export interface SuppressionView {
  suppressionId: string;
  orgId: string;
  /** E.164. */
  number: string;
  reason: string;
  source: SuppressionSource;
  /** The call request whose callee opted out (source opt_out), else null. */
  callRequestId: string | null;
  createdAt: string;
}

export const suppressionSchema = viewSchema<SuppressionView>()(
  z
    .object({
      suppressionId: z.uuid(),
      orgId: z.uuid().describe('The organization whose list holds it (an account: it applies to all its locations).'),
      number: z.string().describe('E.164.'),
      reason: z.string(),
      source: z.enum(SUPPRESSION_SOURCES).describe('api (one add), bulk, or opt_out (a call completed with disposition opt_out).'),
      callRequestId: z.uuid().nullable().describe('The call request whose callee opted out (source opt_out), else null.'),
      createdAt: z.iso.datetime(),
    })
    .meta({ id: 'Suppression' }),
);

export interface SuppressionPage {
  suppressions: SuppressionView[];
  pagination: { limit: number; nextCursor: string | null };
}

export const suppressionPageSchema = viewSchema<SuppressionPage>()(
  z.object({
    suppressions: z.array(suppressionSchema).describe('In number order.'),
    pagination: cursorPaginationView(),
  }),
);

export interface BulkSuppressionAnswer {
  /** Numbers newly on the list. */
  added: number;
  /** Numbers that were on it already, or given twice (each number is one entry). */
  unchanged: number;
}

export const bulkSuppressionResponse = viewSchema<BulkSuppressionAnswer>()(
  z
    .object({
      added: z.int().describe('Numbers newly on the list.'),
      unchanged: z.int().describe('Numbers already on it, or given more than once (one number is one entry).'),
    })
    .meta({ id: 'BulkSuppressionResult' }),
);

export function suppressionView(row: Suppression): SuppressionView {
  return {
    suppressionId: row.id,
    orgId: row.orgId,
    number: row.number,
    reason: row.reason,
    source: row.source as SuppressionSource,
    callRequestId: row.callRequestId,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The queued requests to numbers just listed on `orgId` (and, for an account, on its locations) end `failed` with
 * error.code suppressed, recorded by the `system` (the claim's own check covers any queued meanwhile).
 */
async function endSuppressedRequests(
  tx: Prisma.TransactionClient,
  deps: Pick<DomainDeps, 'clock'>,
  orgId: string,
  numbers: string[],
  now: Date,
): Promise<void> {
  await recordSuppressedRequestsEnded(tx, deps, await failSuppressedNumbers(tx, orgId, numbers, now), now);
}

/**
 * What follows a statement that ended queued requests because their numbers are listed (sql.ts failSuppressed*):
 * their durable work is dropped and each gets its `call_request.failed` event, by the `system`.
 */
export async function recordSuppressedRequestsEnded(
  tx: Prisma.TransactionClient,
  deps: Pick<DomainDeps, 'clock'>,
  ended: { id: string }[],
  now: Date,
): Promise<void> {
  if (ended.length === 0) return;
  const rows = await tx.callRequest.findMany({ where: { id: { in: ended.map((r) => r.id) } } });
  await dropJobs(
    tx,
    rows.flatMap((row) => [row.id, row.leaseId]),
  );
  for (const row of rows) {
    await recordEvent(tx, deps, null, {
      type: 'call_request.failed',
      orgId: row.orgId,
      subject: { type: 'call_request', id: row.id },
      data: callRequestView(row, now),
      previous: { status: 'queued' },
    });
  }
  // as endCallRequestWork does for one request: the batches they were the last pending requests of complete
  await settleCallBatches(
    tx,
    deps,
    rows.map((row) => row.batchId),
  );
}

/**
 * Adds `number` to `orgId`'s list inside the caller's transaction and records suppression.added; a number
 * already there keeps its entry (and no event). Answers the entry and whether it is new.
 */
export async function addSuppressionInTransaction(
  tx: Prisma.TransactionClient,
  deps: Pick<DomainDeps, 'clock'>,
  actor: Actor | null,
  entry: { orgId: string; number: string; reason: string; source: SuppressionSource; callRequestId?: string | null },
): Promise<{ row: Suppression; added: boolean }> {
  const now = deps.clock();
  const inserted = await insertSuppressions(tx, { ...entry, callRequestId: entry.callRequestId ?? null, numbers: [entry.number], now });
  const row = await tx.suppression.findUniqueOrThrow({ where: { orgId_number: { orgId: entry.orgId, number: entry.number } } });
  if (inserted.length === 0) return { row, added: false };
  await recordEvent(tx, deps, actor, {
    type: 'suppression.added',
    orgId: entry.orgId,
    subject: { type: 'suppression', id: row.id },
    data: suppressionView(row),
  });
  await endSuppressedRequests(tx, deps, entry.orgId, [entry.number], now);
  return { row, added: true };
}

/** POST /v1/suppressions: one number on the credential owner's list (scope call-requests:write). Idempotent. */
export async function addSuppression(deps: DomainDeps, actor: Actor, input: unknown): Promise<SuppressionView> {
  const data = parseInput(addSuppressionInput, input ?? {});
  requireScope(actor, 'call-requests:write');
  const { row } = await deps.db.$transaction((tx) =>
    addSuppressionInTransaction(tx, deps, actor, { orgId: actor.orgId, number: data.number, reason: data.reason, source: 'api' }),
  );
  return suppressionView(row);
}

/** A value that is not a number, as an error names it: a string's first 40 characters, else what it is. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined ? 'nothing' : `a value of type ${typeof value}`;
}

/**
 * POST /v1/suppressions/bulk: up to 10,000 numbers, all or none. One invalid number refuses the whole
 * list (400 naming the first 20 bad rows by index) before anything is stored; the same number twice is one
 * entry. One suppression.added event names the numbers newly added (a list of 10,000 stays one write).
 */
export async function addSuppressions(deps: DomainDeps, actor: Actor, input: unknown): Promise<BulkSuppressionAnswer> {
  const data = parseInput(bulkSuppressionsInput, input ?? {});
  requireScope(actor, 'call-requests:write');
  const numbers = new Set<string>();
  const bad: { path: string; message: string }[] = [];
  data.numbers.forEach((value, i) => {
    const number = normalizePhoneNumber(value);
    if (number) numbers.add(number);
    else bad.push({ path: `numbers.${i}`, message: `${NUMBER_ERROR} (got ${shownValue(value)})` });
  });
  // InvalidInput names the first 20 issues and counts the rest ("and 10 more issues")
  if (bad.length > 0) throw new InvalidInput(bad);
  const now = deps.clock();
  const added = await deps.db.$transaction(async (tx) => {
    const rows = await insertSuppressions(tx, {
      orgId: actor.orgId,
      numbers: [...numbers],
      reason: data.reason,
      source: 'bulk',
      callRequestId: null,
      now,
    });
    if (rows.length > 0) {
      await recordEvent(tx, deps, actor, {
        type: 'suppression.added',
        orgId: actor.orgId,
        subject: { type: 'suppression_list', id: actor.orgId },
        data: { orgId: actor.orgId, source: 'bulk', reason: data.reason, numbers: rows.map((r) => r.number).sort() },
      });
      await endSuppressedRequests(
        tx,
        deps,
        actor.orgId,
        rows.map((r) => r.number),
        now,
      );
    }
    return rows.length;
  });
  return { added, unchanged: data.numbers.length - added };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * DELETE /v1/suppressions/{number}: off the credential owner's list (scope call-requests:write). The entry is
 * named by its number (any punctuation) or its suppressionId; one not on the list (another organization's
 * included) is a 404.
 */
export async function removeSuppression(deps: ConversationDeps, actor: Actor, numberParam: string): Promise<SuppressionView> {
  requireScope(actor, 'call-requests:write');
  const byId = UUID.test(numberParam) ? numberParam.toLowerCase() : null;
  const number = byId ? null : normalizePhoneNumber(numberParam);
  if (!byId && !number) throw InvalidInput.of('number', `${NUMBER_ERROR}, or a suppressionId`);
  return deps.db.$transaction(async (tx) => {
    const row = byId
      ? await tx.suppression.findFirst({ where: { id: byId, orgId: actor.orgId } })
      : await tx.suppression.findFirst({
          where: { orgId: actor.orgId, number: { in: [number!, erasedNumber(deps.tokens.key, number!)] } },
          orderBy: { number: 'asc' }, // the clear entry before a hashed one
        });
    if (!row) throw new NotFound('Suppression');
    await tx.suppression.delete({ where: { id: row.id } });
    const view = suppressionView(row);
    await recordEvent(tx, deps, actor, {
      type: 'suppression.removed',
      orgId: row.orgId,
      subject: { type: 'suppression', id: row.id },
      data: view,
    });
    return view;
  });
}

/** GET /v1/suppressions: the credential owner's list in number order, cursor pages (scope call-requests:read). */
export async function listSuppressions(deps: ConversationDeps, actor: Actor, input: unknown): Promise<SuppressionPage> {
  requireScope(actor, 'call-requests:read');
  const query = parseInput(listSuppressionsInput, input ?? {});
  // a location is bound by its account's list too: it sees those entries beside its own (each names its
  // organization); an account sees its own, which bind all its locations
  const own = await loadReachableOrganization(deps, actor, actor.orgId);
  const lists = own.parentId ? [own.id, own.parentId] : [own.id];
  const filters = { list: 'suppressions', orgId: actor.orgId, number: query.number ?? null };
  const key = pageCursorKey(deps.tokens.key);
  let after: { n: string; o: string } | undefined;
  if (query.cursor !== undefined) {
    const p = openCursor(key, query.cursor, filters, 'cursor') as { n?: unknown; o?: unknown };
    if (typeof p?.n !== 'string' || (p.o !== undefined && typeof p.o !== 'string'))
      throw InvalidInput.of('cursor', 'is not a cursor this service issued (altered or made up); start again without it');
    after = { n: p.n, o: typeof p.o === 'string' ? p.o : '' };
  }
  // in (number, orgId) order: a number listed by both the location and its account is two entries
  const rows = await deps.db.suppression.findMany({
    where: {
      orgId: { in: lists },
      // an entry kept after the number was erased on request holds its keyed hash (erasedNumbers.ts): found either way
      ...(query.number ? { number: { in: [query.number, erasedNumber(deps.tokens.key, query.number)] } } : {}),
      ...(after !== undefined ? { OR: [{ number: { gt: after.n } }, { number: after.n, orgId: { gt: after.o } }] } : {}),
    },
    orderBy: [{ number: 'asc' }, { orgId: 'asc' }],
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    suppressions: page.map(suppressionView),
    pagination: {
      limit: query.limit,
      nextCursor: rows.length > query.limit && last ? sealCursor(key, { n: last.number, o: last.orgId }, filters) : null,
    },
  };
}
