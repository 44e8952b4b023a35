// Every SQL statement of the calls context: the conversations' keyset pages (conversationPages.ts says how
// they read the indexes), the dispatch claims of call requests, the row locks, the batches' statements and
// the erasure's batches. The rest of its reads and writes go through Prisma's client.
import { Prisma } from '../../generated/prisma/client.js';
import type { CallBatch, CallRequest, Conversation, ConversationMessage } from '../../generated/prisma/client.js';
import { type EventRow, eventInsertFromSql, eventInsertSql } from '../events/sql.js';
import { jsonColumn, jsonInstant, type SqlRunner } from '../../db/sql.js';
import { redactionPolicyRowsJson } from '../governance/sql.js';
import type { Actor } from '../shared/access.js';
import { afterInstantId } from '../shared/sql.js';
import type { ConversationPosition, ConversationRange, ConversationRowFilter } from './conversationPages.js';

// ---- conversations' pages

function rowFilterSql(filter: ConversationRowFilter | undefined): Prisma.Sql {
  if (!filter) return Prisma.empty;
  const parts: Prisma.Sql[] = [];
  if (filter.medium) parts.push(Prisma.sql`AND "medium"::text = ${filter.medium}`);
  if (filter.status) parts.push(Prisma.sql`AND "status"::text = ${filter.status}`);
  if (filter.from !== undefined) parts.push(Prisma.sql`AND "startTime" >= ${new Date(filter.from).toISOString()}::timestamp(3)`);
  if (filter.to !== undefined) parts.push(Prisma.sql`AND "startTime" < ${new Date(filter.to).toISOString()}::timestamp(3)`);
  return parts.length === 0 ? Prisma.empty : Prisma.join(parts, ' ');
}

/** A row count as SQL: as text cast to bigint, since offset + limit may pass the 32-bit range a bare number would be sent in. */
const count = (n: number) => Prisma.sql`${String(n)}::bigint`;

function rangeQuery(range: ConversationRange, after: ConversationPosition | undefined, take: number): Prisma.Sql {
  const owner = range.botId
    ? Prisma.sql`"botId" = ${range.botId}::uuid AND "orgId" = ${range.orgId}::uuid`
    : range.withChildren
      ? Prisma.sql`"orgId" IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${range.orgId}::uuid OR o."parentId" = ${range.orgId}::uuid)`
      : Prisma.sql`"orgId" = ${range.orgId}::uuid`;
  const keyset = afterInstantId('startTime', after);
  return Prisma.sql`(SELECT * FROM "Conversation" WHERE ${owner} AND "archived" = ${range.archived} ${rowFilterSql(range.where)} ${keyset} ORDER BY "startTime" DESC, "id" ASC LIMIT ${count(take)})`;
}

/**
 * The SQL of one page (exported so that a test can EXPLAIN exactly what runs): `take` rows after
 * `after`, or, for an offset page, after skipping `skip` rows (each range then reads skip + take rows
 * in index order: an offset page still costs its offset, but never sorts the whole list).
 */
export function conversationPageQuery(
  ranges: readonly ConversationRange[],
  after: ConversationPosition | undefined,
  take: number,
  skip = 0,
): Prisma.Sql {
  return Prisma.sql`SELECT * FROM (${Prisma.join(
    ranges.map((r) => rangeQuery(r, after, skip + take)),
    ' UNION ALL ',
  )}) AS page ORDER BY "startTime" DESC, "id" ASC LIMIT ${count(take)} OFFSET ${count(skip)}`;
}

/** Up to `take` conversations after `after` (from the start without it), in list order. */
export async function conversationsAfter(
  db: SqlRunner,
  ranges: readonly ConversationRange[],
  after: ConversationPosition | undefined,
  take: number,
): Promise<Conversation[]> {
  if (ranges.length === 0) return [];
  return db.$queryRaw<Conversation[]>(conversationPageQuery(ranges, after, take));
}

/** One offset page (`take` rows after skipping `skip`), in list order. */
export function conversationsAtOffset(
  db: SqlRunner,
  ranges: readonly ConversationRange[],
  take: number,
  skip: number,
): Prisma.PrismaPromise<Conversation[]> {
  return db.$queryRaw<Conversation[]>(conversationPageQuery(ranges, undefined, take, skip));
}

// ---- row locks

/** Locks one call request's row for the rest of the transaction; answers its id (none when it is not there). */
export function lockCallRequestRow(tx: SqlRunner, id: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`SELECT "id"::text AS "id" FROM "CallRequest" WHERE "id" = ${id}::uuid FOR UPDATE`;
}

/** A conversation's columns as the domain reads them (ids as text). */
const CONVERSATION_COLUMNS = Prisma.sql`"id"::text AS "id", "orgId"::text AS "orgId", "botId"::text AS "botId", "tags", "medium"::text AS "medium",
           "toNumber", "fromNumber", "summary", "topic", "duration", "startTime", "endTime", "status"::text AS "status", "archived",
           "lastSeq"`;

/** Locks one conversation's row for the rest of the transaction and answers it (null when it is not there). */
export async function lockConversationRow(tx: SqlRunner, id: string): Promise<Conversation | null> {
  const rows = await tx.$queryRaw<Conversation[]>`
    SELECT ${CONVERSATION_COLUMNS} FROM "Conversation" WHERE "id" = ${id}::uuid FOR UPDATE`;
  return rows[0] ?? null;
}

/**
 * One conversation as it is now, unlocked, with the redaction policy rows of its organization and account (a turn's
 * write reads both before it appends: governance/redactionPolicy.ts turnRedaction); null when it is not there.
 */
export async function conversationForTurn(db: SqlRunner, id: string): Promise<(Conversation & { redactionPolicies: unknown }) | null> {
  const rows = await db.$queryRaw<(Conversation & { redactionPolicies: unknown })[]>`
    SELECT ${CONVERSATION_COLUMNS}, ${redactionPolicyRowsJson(Prisma.sql`c."orgId"`)} AS "redactionPolicies"
    FROM "Conversation" c WHERE c."id" = ${id}::uuid`;
  return rows[0] ?? null;
}

/**
 * One conversation and up to `take` of its turns after seq `after`, in seq order, in one statement (the turns as
 * stored: sealed); null when the conversation is not there.
 */
export async function conversationWithTurns(
  db: SqlRunner,
  id: string,
  after: number,
  take: number,
): Promise<{ conversation: Conversation; turns: ConversationMessage[] } | null> {
  const rows = await db.$queryRaw<(Conversation & { turns: unknown })[]>`
    SELECT ${CONVERSATION_COLUMNS}, (
      SELECT COALESCE(json_agg(json_build_object('id', m."id", 'seq', m."seq", 'role', m."role", 'text', m."text",
                                                 'keyVersion', m."keyVersion", 'original', m."original", 'at', ${jsonInstant(Prisma.sql`m."at"`)})
                               ORDER BY m."seq"), '[]'::json)
      FROM (SELECT * FROM "ConversationMessage" WHERE "conversationId" = c."id" AND "seq" > ${after} ORDER BY "seq" LIMIT ${take}) m
    ) AS "turns"
    FROM "Conversation" c WHERE c."id" = ${id}::uuid`;
  const row = rows[0];
  if (!row) return null;
  const { turns, ...conversation } = row;
  const parsed = jsonColumn<(Omit<ConversationMessage, 'at' | 'conversationId'> & { at: string })[]>(turns);
  return { conversation, turns: parsed.map((t) => ({ ...t, conversationId: id, at: new Date(t.at) })) };
}

/**
 * Appends a turn to an OPEN conversation, with its event, in one statement (one transaction, no round trips to
 * open and commit one). The conversation's lastSeq moves on and the turn takes it: turns written at once wait on
 * the row's lock, and one that waited re-reads the moved value, so each has its own seq (a turn stored without
 * moving it, by an older version or by hand, is passed by the MAX). The event's data gets the seq. Answers the
 * stored row; none when the conversation is gone or no longer OPEN.
 */
export async function appendConversationMessage(
  db: SqlRunner,
  row: Omit<ConversationMessage, 'seq'>,
  event: EventRow,
): Promise<ConversationMessage | null> {
  const rows = await db.$queryRaw<ConversationMessage[]>`
    WITH c AS (
      UPDATE "Conversation" SET "lastSeq" = GREATEST("lastSeq",
        (SELECT COALESCE(MAX("seq"), 0) FROM "ConversationMessage" WHERE "conversationId" = ${row.conversationId}::uuid)) + 1
      WHERE "id" = ${row.conversationId}::uuid AND "status" = 'OPEN'
      RETURNING "lastSeq"),
    m AS (
      INSERT INTO "ConversationMessage" ("id", "conversationId", "seq", "role", "text", "keyVersion", "original", "at")
      SELECT ${row.id}::uuid, ${row.conversationId}::uuid, c."lastSeq", ${row.role}, ${row.text}, ${row.keyVersion}, ${row.original},
             ${row.at.toISOString()}::timestamp(3)
      FROM c
      RETURNING "id"::text AS "id", "conversationId"::text AS "conversationId", "seq", "role", "text", "keyVersion", "original", "at"),
    ev AS (${eventInsertFromSql(event, Prisma.sql`m`, Prisma.sql`jsonb_build_object('seq', m."seq")`)})
    SELECT m.* FROM m`;
  return rows[0] ?? null;
}

// ---- dispatch (callDispatch.ts)

/**
 * The organizations a credential dispatches for, as a condition on `column`: its own, and for an account
 * its children, named through the parent relation (the same statement for 2 locations or 20,000).
 */
function dispatchScope(actor: Actor, column: Prisma.Sql): Prisma.Sql {
  return actor.ownerIsAccount
    ? Prisma.sql`${column} IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${actor.orgId}::uuid OR o."parentId" = ${actor.orgId}::uuid)`
    : Prisma.sql`${column} = ${actor.orgId}::uuid`;
}

/** The call requests (as `c`) a credential dispatches. */
export const requestsDispatchedBy = (actor: Actor): Prisma.Sql => dispatchScope(actor, Prisma.sql`c."orgId"`);

/**
 * How deep a claim looks into each organization's due requests (claim order) for ones it must move first (a closed
 * calling window, an organization not OPEN): the head it hands out from, not the whole queue, which made every
 * claim as slow as the queue is long. Deeper ones are looked at when they reach the head; the claim checks every
 * request it hands out itself (callDispatch.ts lawfulNow).
 */
export const CLAIM_HEAD = 200;

/** The first CLAIM_HEAD due requests (as `c`) of each organization the actor dispatches for, in claim order. */
function dueHeads(actor: Actor, now: Date): Prisma.Sql {
  const at = now.toISOString();
  return Prisma.sql`(
    SELECT h.* FROM "Organization" k CROSS JOIN LATERAL (
      SELECT c."orgId", c."phoneNumberId", c."calleeTimezone", c."officeHoursOnly" FROM "CallRequest" c
      WHERE c."orgId" = k."id" AND c."status" = 'queued' AND c."dueAt" <= ${at}::timestamp(3) AND c."expiresAt" > ${at}::timestamp(3)
      ORDER BY c."dueAt", c."id" LIMIT ${CLAIM_HEAD}::int
    ) h
    WHERE ${dispatchScope(actor, Prisma.sql`k."id"`)})`;
}

/** The organizations and phone numbers with officeHoursOnly requests at the head of their due requests at `now`. */
export function dueOfficeHoursOnly(db: SqlRunner, actor: Actor, now: Date): Promise<{ orgId: string; phoneNumberId: string | null }[]> {
  return db.$queryRaw`
    SELECT DISTINCT c."orgId"::text AS "orgId", c."phoneNumberId"::text AS "phoneNumberId" FROM ${dueHeads(actor, now)} c
    WHERE c."officeHoursOnly"`;
}

// ---- the calling policy (callingPolicy.ts, callCapacity.ts): the claim within the organization family's
// capacity, the counts of calls in progress it is checked against (CallLoad, kept by triggers: migration
// 20261128030000_call_load), and the counts the capacity is answered from

const iso = (d: Date) => d.toISOString();

/** An integer larger than any cap (a family whose account sets none is bounded per location only). */
const UNBOUNDED = 2_147_483_647;

/** The heads of the queues of due requests, grouped by organization and callee zone (the calling windows are checked per group). */
export function dueWindowGroups(
  db: SqlRunner,
  actor: Actor,
  now: Date,
): Promise<{ orgId: string; parentId: string | null; orgTimezone: string; zone: string }[]> {
  return db.$queryRaw`
    SELECT DISTINCT c."orgId"::text AS "orgId", o."parentId"::text AS "parentId", o."timezone" AS "orgTimezone",
      COALESCE(c."calleeTimezone", o."timezone") AS "zone"
    FROM ${dueHeads(actor, now)} c JOIN "Organization" o ON o."id" = c."orgId"`;
}

/** Whether the request `c` calls a number on its organization's list or its account's (a condition of the claim). */
const suppressedRequest = Prisma.sql`EXISTS (
  SELECT 1 FROM "Suppression" s JOIN "Organization" so ON so."id" = c."orgId"
  WHERE s."number" = c."to" AND (s."orgId" = so."id" OR s."orgId" = so."parentId"))`;

/** A due request a claim picked and locked, with the caps it is handed out under. */
export interface PickedRequest {
  id: string;
  orgId: string;
  /** Its organization's own cap (its policy's, or the default when neither it nor its account sets one); null: none. */
  cap: number | null;
  /** The family's cap (the root's own policy's); null: none. */
  familyCap: number | null;
}

/**
 * Picks and locks (FOR UPDATE SKIP LOCKED: claims running side by side take different requests) up to `max`
 * due requests of the organizations in `scope` (all of family `rootId`), in claim order, as many as the counts
 * of calls in progress read now leave free: per organization its cap (its own policy's `maxConcurrentCalls`; none
 * when only its account sets one; the default when neither does) less its calls in progress, and over the family
 * the account's cap less the family's. Those counts may move before the claim commits: the claim takes its
 * capacity, exactly, at its end (callLoads).
 */
export function pickDueWithinCapacity(
  tx: SqlRunner,
  args: { rootId: string; scope: Prisma.Sql; now: Date; max: number; defaultCap: number },
): Promise<PickedRequest[]> {
  const { rootId, scope, now, max, defaultCap } = args;
  return tx.$queryRaw`
    WITH family AS (
      SELECT o."id", o."parentId" FROM "Organization" o
      WHERE (o."id" = ${rootId}::uuid OR o."parentId" = ${rootId}::uuid) AND o."communicationsEnabled" AND o."archivedAt" IS NULL
    ), caps AS (
      SELECT f."id" AS "orgId", COALESCE(p."maxConcurrentCalls", CASE WHEN ap."orgId" IS NULL THEN ${defaultCap}::int END) AS cap,
        COALESCE(l."inProgress", 0) AS busy
      FROM family f LEFT JOIN "CallingPolicy" p ON p."orgId" = f."id" LEFT JOIN "CallingPolicy" ap ON ap."orgId" = f."parentId"
        LEFT JOIN "CallLoad" l ON l."orgId" = f."id"
    ), family_cap AS (
      SELECT (SELECT p."maxConcurrentCalls" FROM "CallingPolicy" p WHERE p."orgId" = ${rootId}::uuid) AS cap,
        COALESCE((SELECT l."familyInProgress" FROM "CallLoad" l WHERE l."orgId" = ${rootId}::uuid), 0) AS busy
    ), candidates AS (
      -- per organization its first due requests in claim order only, as many as it has free (an index range), each
      -- locked; one another claim holds is passed over (it is that claim's)
      SELECT c."id", c."orgId", c."to", c."dueAt", k.cap
      FROM caps k
      CROSS JOIN LATERAL (
        SELECT c."id", c."orgId", c."to", c."dueAt" FROM "CallRequest" c
        WHERE c."orgId" = k."orgId" AND c."status" = 'queued' AND c."dueAt" <= ${iso(now)}::timestamp(3)
          AND c."expiresAt" > ${iso(now)}::timestamp(3) AND ${scope}
          -- a disabled bot's calls wait (and a deleted one's expire); the demo's older requests name no bot
          AND (c."botId" IS NULL OR EXISTS (SELECT 1 FROM "Bot" b WHERE b."id" = c."botId" AND b."enabled"))
        ORDER BY c."dueAt", c."id" LIMIT LEAST(${max}::int, GREATEST(0, COALESCE(k.cap - k.busy, ${max}::int)))
        FOR UPDATE OF c SKIP LOCKED
      ) c
      WHERE k.cap IS NULL OR k.cap > k.busy
    )
    -- a listed number is never handed out, even when its suppression committed after the claim's clean-up
    -- (failSuppressedAtHead); checked on the rows picked in order only, not on every due request
    SELECT c."id"::text AS "id", c."orgId"::text AS "orgId", c.cap, (SELECT cap FROM family_cap) AS "familyCap"
    FROM candidates c WHERE NOT ${suppressedRequest}
    ORDER BY c."dueAt", c."id"
    LIMIT GREATEST(0, LEAST(${max}::int, (SELECT COALESCE(cap, ${UNBOUNDED}::int) - busy FROM family_cap)))`;
}

/**
 * Hands out the picked requests (locked by this transaction): in_progress under their leases. The triggers on
 * CallRequest then count them, locking the family's CallLoad row and the organizations' until the transaction
 * ends: run it last, so that the claims of a family wait for each other only for this and the commit.
 */
export function handOut(tx: SqlRunner, leases: { id: string; leaseId: string }[], leaseUntil: Date, now: Date): Promise<{ id: string }[]> {
  return tx.$queryRaw`
    UPDATE "CallRequest" c SET "status" = 'in_progress', "leaseId" = l."leaseId", "leaseUntil" = ${iso(leaseUntil)}::timestamp(3),
      "attempts" = c."attempts" + 1, "claimedAt" = ${iso(now)}::timestamp(3)
    FROM unnest(${leases.map((l) => l.id)}::uuid[], ${leases.map((l) => l.leaseId)}::uuid[]) AS l("id", "leaseId")
    WHERE c."id" = l."id" AND c."status" = 'queued'
    RETURNING c."id"::text AS "id"`;
}

/** Gives back requests handed out by this transaction beyond the capacity it found (the triggers uncount them). */
export function giveBack(tx: SqlRunner, ids: string[]): Promise<number> {
  return tx.$executeRaw`
    UPDATE "CallRequest" SET "status" = 'queued', "leaseId" = NULL, "leaseUntil" = NULL, "attempts" = "attempts" - 1
    WHERE "id" = ANY(${ids}::uuid[]) AND "status" = 'in_progress'`;
}

/** The calls in progress of `orgIds` (own) and of family `rootId` (as read by the caller's transaction). */
export async function callLoads(db: SqlRunner, rootId: string, orgIds: string[]): Promise<{ family: number; own: Map<string, number> }> {
  const rows = await db.$queryRaw<{ orgId: string; inProgress: number; familyInProgress: number }[]>`
    SELECT "orgId"::text AS "orgId", "inProgress", "familyInProgress" FROM "CallLoad"
    WHERE "orgId" = ANY(${[...new Set([rootId, ...orgIds])]}::uuid[])`;
  const own = new Map(rows.map((r) => [r.orgId, r.inProgress]));
  return { family: rows.find((r) => r.orgId === rootId)?.familyInProgress ?? 0, own };
}

/** Queued requests due at `now`, per organization of the family `rootId` (the calls in progress are CallLoad's). */
export function queuedDueCounts(db: SqlRunner, rootId: string, now: Date): Promise<{ orgId: string; queuedDue: number }[]> {
  return db.$queryRaw`
    SELECT c."orgId"::text AS "orgId", count(*)::int AS "queuedDue"
    FROM "CallRequest" c
    WHERE c."orgId" IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${rootId}::uuid OR o."parentId" = ${rootId}::uuid)
      AND c."status" = 'queued' AND c."dueAt" <= ${iso(now)}::timestamp(3) AND c."expiresAt" > ${iso(now)}::timestamp(3)
    GROUP BY c."orgId"`;
}

// ---- the suppression list (suppressions.ts)

/**
 * Puts `numbers` (E.164, distinct) on `orgId`'s list in one statement; a number already there keeps its
 * entry. Answers the entries added (10,000 numbers are one round trip, not 10,000).
 */
export function insertSuppressions(
  tx: SqlRunner,
  args: { orgId: string; numbers: string[]; reason: string; source: string; callRequestId: string | null; now: Date },
): Promise<{ id: string; number: string }[]> {
  const { orgId, numbers, reason, source, callRequestId, now } = args;
  return tx.$queryRaw`
    INSERT INTO "Suppression" ("id", "orgId", "number", "reason", "source", "callRequestId", "createdAt")
    SELECT gen_random_uuid(), ${orgId}::uuid, n, ${reason}, ${source}, ${callRequestId}::uuid, ${iso(now)}::timestamp(3)
    FROM unnest(${numbers}::text[]) AS n
    ON CONFLICT ("orgId", "number") DO NOTHING
    RETURNING "id"::text AS "id", "number"`;
}

/** The message of a request ended because its number was listed. */
const SUPPRESSED_MESSAGE = 'The number was put on the suppression (do-not-call) list while the request was queued; it was not called';

/** Due requests a claim looks at for listed numbers before it hands anything out (the head of the queue in claim order). */
const SUPPRESSION_HEAD = 200;

/**
 * Ends `failed` (error.code suppressed) the queued requests to `numbers` of `orgId` and, for an account, of its
 * locations; run when numbers are listed. Answers the requests it ended.
 */
export function failSuppressedNumbers(tx: SqlRunner, orgId: string, numbers: string[], now: Date): Promise<{ id: string }[]> {
  return tx.$queryRaw`
    UPDATE "CallRequest" c SET "status" = 'failed', "finishedAt" = ${iso(now)}::timestamp(3),
      "errorCategory" = 'request', "errorCode" = 'suppressed', "errorMessage" = ${SUPPRESSED_MESSAGE}
    WHERE c."status" = 'queued' AND c."expiresAt" > ${iso(now)}::timestamp(3) AND c."to" = ANY(${numbers}::text[])
      AND c."orgId" IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${orgId}::uuid OR o."parentId" = ${orgId}::uuid)
    RETURNING c."id"::text AS "id"`;
}

/**
 * Ends `failed` the listed ones among the first due requests in `scope` (claim order); run by a claim before it
 * hands anything out, for a request queued while its number was being listed (the listing's own update could not
 * see it). Those deeper in the queue are ended when they reach its head; the claim never hands one out meanwhile.
 */
export function failSuppressedAtHead(tx: SqlRunner, scope: Prisma.Sql, now: Date): Promise<{ id: string }[]> {
  return tx.$queryRaw`
    UPDATE "CallRequest" u SET "status" = 'failed', "finishedAt" = ${iso(now)}::timestamp(3),
      "errorCategory" = 'request', "errorCode" = 'suppressed', "errorMessage" = ${SUPPRESSED_MESSAGE}
    WHERE u."id" IN (
      SELECT c."id" FROM (
        SELECT c."id", c."orgId", c."to" FROM "CallRequest" c
        WHERE c."status" = 'queued' AND c."dueAt" <= ${iso(now)}::timestamp(3) AND c."expiresAt" > ${iso(now)}::timestamp(3) AND ${scope}
        ORDER BY c."dueAt", c."id" LIMIT ${SUPPRESSION_HEAD}::int
      ) c WHERE ${suppressedRequest})
      AND u."status" = 'queued'
    RETURNING u."id"::text AS "id"`;
}

// ---- placing a call (callRequests.ts)

const isoOrNull = (t: Date | null) => (t === null ? null : t.toISOString());

/**
 * Writes a queued call request, its event and its expiry job in one statement (data-modifying WITHs: all
 * or none, one transaction). The row is the whole row as placed (defaults written out by the caller).
 */
export async function insertQueuedCallRequest(db: SqlRunner, row: CallRequest, event: EventRow, job: Prisma.Sql): Promise<void> {
  await db.$executeRaw`
    WITH r AS (
      INSERT INTO "CallRequest" ("id", "orgId", "status", "createdAt", "expiresAt", "botId", "phoneNumberId", "to", "notBefore", "dueAt",
                                 "officeHoursOnly", "metadata", "attempts", "calleeTimezone", "purpose", "consent", "retry", "followUpOf")
      VALUES (${row.id}::uuid, ${row.orgId}::uuid, ${row.status}::"CallRequestStatus", ${iso(row.createdAt)}::timestamp(3),
              ${iso(row.expiresAt)}::timestamp(3), ${row.botId}::uuid, ${row.phoneNumberId}::uuid, ${row.to}, ${isoOrNull(row.notBefore)}::timestamp(3),
              ${iso(row.dueAt)}::timestamp(3), ${row.officeHoursOnly}, ${JSON.stringify(row.metadata)}::jsonb, ${row.attempts},
              ${row.calleeTimezone}, ${row.purpose}, ${row.consent === null ? null : JSON.stringify(row.consent)}::jsonb,
              ${row.retry === null ? null : JSON.stringify(row.retry)}::jsonb, ${row.followUpOf}::uuid)
      RETURNING "id"),
    ev AS (${eventInsertSql(event)}),
    job AS (${job})
    SELECT 1 FROM r, ev, job`;
}

/** Moves the due instants of queued requests (one statement for a batch); a request no longer queued is left as it is. */
export async function moveQueuedDueAts(db: SqlRunner, moves: readonly { id: string; dueAt: Date }[]): Promise<void> {
  await db.$executeRaw`
    UPDATE "CallRequest" c SET "dueAt" = m."dueAt"
    FROM unnest(${moves.map((m) => m.id)}::uuid[], ${moves.map((m) => m.dueAt.toISOString())}::timestamp(3)[]) AS m("id", "dueAt")
    WHERE c."id" = m."id" AND c."status" = 'queued'`;
}

// ---- call batches (callBatches.ts, callBatchProgress.ts)

/** One recipient's queued request as a batch's create writes it (the rest of the row is the batch's). */
export interface BatchRow {
  id: string;
  to: string;
  notBefore: string | null;
  dueAt: string;
  metadata: Record<string, string>;
  calleeTimezone: string;
  consent: unknown;
  retry: unknown;
  batchIndex: number;
}

/**
 * Writes a batch, its queued requests, their expiry jobs and the batch's event in one statement (data-modifying
 * WITHs: all or none). The requests go as one JSON parameter read by jsonb_to_recordset: 5,000 rows are one round
 * trip and one statement, not 5,000.
 */
export async function insertCallBatch(
  db: SqlRunner,
  batch: {
    id: string;
    orgId: string;
    botId: string;
    phoneNumberId: string;
    purpose: string;
    officeHoursOnly: boolean;
    notBefore: Date | null;
    expiresAt: Date;
    metadata: Record<string, string>;
    retry: unknown;
    recipients: number;
    skipped: unknown[];
    createdAt: Date;
    completedAt: Date | null;
  },
  rows: BatchRow[],
  event: EventRow,
  expireJobKind: string,
): Promise<void> {
  const now = iso(batch.createdAt);
  await db.$executeRaw`
    WITH b AS (
      INSERT INTO "CallBatch" ("id", "orgId", "botId", "phoneNumberId", "purpose", "officeHoursOnly", "notBefore", "expiresAt", "metadata",
                               "retry", "recipients", "placed", "skipped", "createdAt", "completedAt")
      VALUES (${batch.id}::uuid, ${batch.orgId}::uuid, ${batch.botId}::uuid, ${batch.phoneNumberId}::uuid, ${batch.purpose},
              ${batch.officeHoursOnly}, ${isoOrNull(batch.notBefore)}::timestamp(3), ${iso(batch.expiresAt)}::timestamp(3),
              ${JSON.stringify(batch.metadata)}::jsonb, ${batch.retry === null ? null : JSON.stringify(batch.retry)}::jsonb, ${batch.recipients},
              ${rows.length}, ${JSON.stringify(batch.skipped)}::jsonb, ${now}::timestamp(3), ${isoOrNull(batch.completedAt)}::timestamp(3))
      RETURNING "id"),
    r AS (
      INSERT INTO "CallRequest" ("id", "orgId", "status", "createdAt", "expiresAt", "botId", "phoneNumberId", "to", "notBefore", "dueAt",
                                 "officeHoursOnly", "metadata", "attempts", "calleeTimezone", "purpose", "consent", "retry", "batchId", "batchIndex")
      SELECT x."id", ${batch.orgId}::uuid, 'queued'::"CallRequestStatus", ${now}::timestamp(3), ${iso(batch.expiresAt)}::timestamp(3),
             ${batch.botId}::uuid, ${batch.phoneNumberId}::uuid, x."to", x."notBefore", x."dueAt", ${batch.officeHoursOnly}, x."metadata", 0,
             x."calleeTimezone", ${batch.purpose}, x."consent", x."retry", b."id", x."batchIndex"
      FROM b, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x("id" uuid, "to" text, "notBefore" timestamp(3), "dueAt" timestamp(3),
           "metadata" jsonb, "calleeTimezone" text, "consent" jsonb, "retry" jsonb, "batchIndex" int)
      RETURNING "id"),
    j AS (
      INSERT INTO "Job" ("id", "kind", "payload", "runAt", "createdAt")
      SELECT r."id", ${expireJobKind}, jsonb_build_object('callRequestId', r."id"::text), ${iso(batch.expiresAt)}::timestamp(3), ${now}::timestamp(3)
      FROM r
      RETURNING "id"),
    ev AS (${eventInsertSql(event)})
    SELECT (SELECT count(*) FROM r), (SELECT count(*) FROM j), (SELECT count(*) FROM ev)`;
}

/** A request's status (as `c`) as answered at `now`: a queued one, or one claimed and not started, past its expiry is expired. */
const answeredStatus = (now: Date) =>
  Prisma.sql`CASE WHEN c."expiresAt" <= ${iso(now)}::timestamp(3) AND (c."status" = 'queued' OR (c."status" = 'in_progress' AND c."startedAt" IS NULL))
                THEN 'expired' ELSE c."status"::text END`;

/** A batch's requests counted per status (as answered: a queued one past its expiry is expired) and disposition. */
export function callBatchCounts(
  db: SqlRunner,
  batchId: string,
  now: Date,
): Promise<{ status: string; disposition: string | null; n: number }[]> {
  return db.$queryRaw`
    SELECT ${answeredStatus(now)} AS "status", c."disposition", count(*)::int AS "n"
    FROM "CallRequest" c WHERE c."batchId" = ${batchId}::uuid
    GROUP BY 1, 2`;
}

/** The counts of callBatchCounts for several batches in one statement (a page of the list: one read, not one per batch). */
export function callBatchesCounts(
  db: SqlRunner,
  batchIds: string[],
  now: Date,
): Promise<{ batchId: string; status: string; disposition: string | null; n: number }[]> {
  return db.$queryRaw`
    SELECT c."batchId"::text AS "batchId", ${answeredStatus(now)} AS "status", c."disposition", count(*)::int AS "n"
    FROM "CallRequest" c WHERE c."batchId" = ANY(${batchIds}::uuid[])
    GROUP BY 1, 2, 3`;
}

/** What the list of batches is filtered by; `status` reads the row: completedAt null or not, canceledAt set. */
export interface CallBatchListFilter {
  orgId: string;
  status: 'in_progress' | 'completed' | 'canceled' | null;
  createdFrom: string | null;
  createdTo: string | null;
}

/**
 * Up to `take` batches of an organization after `after` (from the start without it), newest first, ties by id:
 * read through the index (orgId, createdAt desc, id), the status filter applied to the rows it walks.
 */
export function callBatchesAfter(
  db: SqlRunner,
  filter: CallBatchListFilter,
  after: { t: number; i: string } | undefined,
  take: number,
): Promise<CallBatch[]> {
  const status =
    filter.status === 'in_progress'
      ? Prisma.sql`AND "completedAt" IS NULL`
      : filter.status === 'completed'
        ? Prisma.sql`AND "completedAt" IS NOT NULL`
        : filter.status === 'canceled'
          ? Prisma.sql`AND "canceledAt" IS NOT NULL`
          : Prisma.empty;
  const from = filter.createdFrom ? Prisma.sql`AND "createdAt" >= ${filter.createdFrom}::timestamp(3)` : Prisma.empty;
  const to = filter.createdTo ? Prisma.sql`AND "createdAt" < ${filter.createdTo}::timestamp(3)` : Prisma.empty;
  const keyset = afterInstantId('createdAt', after);
  return db.$queryRaw<CallBatch[]>`
    SELECT * FROM "CallBatch" WHERE "orgId" = ${filter.orgId}::uuid ${status} ${from} ${to} ${keyset}
    ORDER BY "createdAt" DESC, "id" ASC LIMIT ${take}::int`;
}

/**
 * Locks a batch not yet completed (FOR NO KEY UPDATE: a follow-up's insert, which checks its key, is not held up)
 * for the rest of the transaction; answers its id (none when completed or absent).
 */
export function lockOpenCallBatch(tx: SqlRunner, batchId: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`SELECT "id"::text AS "id" FROM "CallBatch" WHERE "id" = ${batchId}::uuid AND "completedAt" IS NULL FOR NO KEY UPDATE`;
}

/** Whether a batch has a request not yet final (queued or in progress; one past its expiry waits for its expiry job). */
export async function callBatchHasPending(tx: SqlRunner, batchId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ pending: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM "CallRequest" c WHERE c."batchId" = ${batchId}::uuid AND c."status" IN ('queued', 'in_progress')) AS "pending"`;
  return rows[0]?.pending ?? false;
}

/**
 * Cancels the requests of a batch not yet started (queued, or claimed and not started) in one statement; answers
 * them with the jobs they held (their expiry, named by the request, and their lease's end).
 */
export function cancelBatchRequests(tx: SqlRunner, batchId: string, now: Date): Promise<{ id: string; leaseId: string | null }[]> {
  return tx.$queryRaw`
    WITH picked AS (
      SELECT c."id", c."leaseId" FROM "CallRequest" c
      WHERE c."batchId" = ${batchId}::uuid AND (c."status" = 'queued' OR (c."status" = 'in_progress' AND c."startedAt" IS NULL))
        AND c."expiresAt" > ${iso(now)}::timestamp(3)
      FOR UPDATE)
    UPDATE "CallRequest" u SET "status" = 'canceled', "finishedAt" = ${iso(now)}::timestamp(3), "leaseId" = NULL, "leaseUntil" = NULL
    FROM picked WHERE u."id" = picked."id"
    RETURNING u."id"::text AS "id", picked."leaseId"::text AS "leaseId"`;
}

/** Batches of an organization not yet completed (the limit on batches in progress counts them under its lock). */
export async function openCallBatches(tx: SqlRunner, orgId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS "n" FROM "CallBatch" WHERE "orgId" = ${orgId}::uuid AND "completedAt" IS NULL`;
  return rows[0]?.n ?? 0;
}

/** The suppressed among `numbers` for an organization (its own list and its account's). */
export async function suppressedAmong(
  db: SqlRunner,
  org: { id: string; parentId: string | null },
  numbers: string[],
): Promise<Set<string>> {
  const lists = org.parentId ? [org.id, org.parentId] : [org.id];
  const rows = await db.$queryRaw<{ number: string }[]>`
    SELECT DISTINCT s."number" FROM "Suppression" s WHERE s."orgId" = ANY(${lists}::uuid[]) AND s."number" = ANY(${numbers}::text[])`;
  return new Set(rows.map((r) => r.number));
}

// ---- erasure (erasure.ts): each statement one batch of a phase, its rows locked in id (or seq) order

/** What an erasure's statements read of its request. */
export interface ErasureTarget {
  orgId: string;
  kind: string;
  subjectId: string | null;
  number: string | null;
  numberHash: string | null;
}

/** The organizations an erasure covers: the one that asked and its locations (none for a location). */
const erasureReach = (orgId: string) =>
  Prisma.sql`(SELECT o."id" FROM "Organization" o WHERE o."id" = ${orgId}::uuid OR o."parentId" = ${orgId}::uuid)`;

/** Replaces `number` by `erased` in a json column (its text), leaving other values as they were. */
const scrubJson = (column: Prisma.Sql, number: string, erased: string) =>
  Prisma.sql`CASE WHEN ${column} IS NULL THEN NULL ELSE replace(${column}::text, ${number}, ${erased})::jsonb END`;
const scrubText = (column: Prisma.Sql, number: string, erased: string) => Prisma.sql`replace(${column}, ${number}, ${erased})`;

/** The assignments scrubbing the number from every free-text column of a call request `u`. */
const scrubbedCallRequestColumns = (n: string, erased: string) => Prisma.sql`
      "metadata" = ${scrubJson(Prisma.sql`u."metadata"`, n, erased)}, "attemptLog" = ${scrubJson(Prisma.sql`u."attemptLog"`, n, erased)},
      "consent" = ${scrubJson(Prisma.sql`u."consent"`, n, erased)}, "outcomeData" = ${scrubJson(Prisma.sql`u."outcomeData"`, n, erased)},
      "retry" = ${scrubJson(Prisma.sql`u."retry"`, n, erased)},
      "notes" = ${scrubText(Prisma.sql`u."notes"`, n, erased)}, "errorMessage" = ${scrubText(Prisma.sql`u."errorMessage"`, n, erased)}`;

/**
 * The conversations of the erasure still to delete (ids, at most one batch, locked): the one named, or those of
 * its calls (each call request's own and each attempt's) and, for a number, those recorded with it as caller or
 * callee in any punctuation (`digitForms`: the digits in full and without the country code).
 */
export function erasureConversations(tx: SqlRunner, target: ErasureTarget, digitForms: string[], batch: number): Promise<{ id: string }[]> {
  const reach = erasureReach(target.orgId);
  if (target.kind === 'conversationId') {
    return tx.$queryRaw`SELECT c."id"::text AS "id" FROM "Conversation" c WHERE c."id" = ${target.subjectId}::uuid AND c."orgId" IN ${reach} FOR UPDATE`;
  }
  const numbers = [target.number, target.numberHash].filter((n): n is string => n !== null);
  const calls =
    target.kind === 'callRequestId'
      ? Prisma.sql`cr."id" = ${target.subjectId}::uuid`
      : Prisma.sql`cr."to" = ANY(${numbers}::text[]) AND cr."orgId" IN ${reach}`;
  const ofCalls = Prisma.sql`c."id"::text IN (
      SELECT cr."conversationId"::text FROM "CallRequest" cr WHERE ${calls} AND cr."conversationId" IS NOT NULL
      UNION SELECT a->>'conversationId' FROM "CallRequest" cr, jsonb_array_elements(CASE WHEN jsonb_typeof(cr."attemptLog") = 'array' THEN cr."attemptLog" ELSE '[]'::jsonb END) a
        WHERE ${calls} AND a->>'conversationId' IS NOT NULL)`;
  const byNumber =
    target.kind === 'phoneNumber' && target.number
      ? Prisma.sql`OR regexp_replace(c."fromNumber", '[^0-9]', '', 'g') = ANY(${digitForms}::text[])
          OR regexp_replace(c."toNumber", '[^0-9]', '', 'g') = ANY(${digitForms}::text[])`
      : Prisma.empty;
  return tx.$queryRaw`SELECT c."id"::text AS "id" FROM "Conversation" c
    WHERE c."orgId" IN ${reach} AND (${ofCalls} ${byNumber})
    ORDER BY c."id" LIMIT ${batch}::int FOR UPDATE`;
}

/** The events about these conversations keep type, subject and times; their data becomes `erasedData`. */
export function eraseConversationEvents(tx: SqlRunner, orgId: string, ids: string[], erasedData: unknown): Promise<number> {
  const data = JSON.stringify(erasedData);
  return tx.$executeRaw`UPDATE "Event" SET "data" = ${data}::jsonb, "previous" = NULL
    WHERE "orgId" IN ${erasureReach(orgId)} AND "subjectType" = 'conversation' AND "subjectId" = ANY(${ids}::text[])
      AND "data" <> ${data}::jsonb`;
}

/** One batch of call requests to the number: it becomes its keyed hash and leaves their free text. */
export function eraseCallRequestNumbers(
  tx: SqlRunner,
  target: ErasureTarget & { number: string; numberHash: string },
  erased: string,
  batch: number,
): Promise<{ id: string; status: string }[]> {
  const which =
    target.kind === 'callRequestId'
      ? Prisma.sql`c."id" = ${target.subjectId}::uuid`
      : Prisma.sql`c."orgId" IN ${erasureReach(target.orgId)}`;
  return tx.$queryRaw`
    UPDATE "CallRequest" u SET "to" = ${target.numberHash}, ${scrubbedCallRequestColumns(target.number, erased)}
    WHERE u."id" IN (SELECT c."id" FROM "CallRequest" c WHERE ${which} AND c."to" = ${target.number} ORDER BY c."id" LIMIT ${batch}::int FOR UPDATE)
    RETURNING u."id"::text AS "id", u."status"::text AS "status"`;
}

/** One batch of the reach's other call requests whose free text names the number (a callback number in metadata, notes). */
export function scrubCallRequestMentions(tx: SqlRunner, orgId: string, n: string, erased: string, batch: number): Promise<number> {
  const names = (column: string) => Prisma.sql`strpos(coalesce(c.${Prisma.raw(`"${column}"`)}::text, ''), ${n}) > 0`;
  return tx.$executeRaw`UPDATE "CallRequest" u SET ${scrubbedCallRequestColumns(n, erased)}
    WHERE u."id" IN (SELECT c."id" FROM "CallRequest" c WHERE c."orgId" IN ${erasureReach(orgId)}
      AND (${names('metadata')} OR ${names('attemptLog')} OR ${names('consent')} OR ${names('outcomeData')} OR ${names('retry')}
        OR ${names('notes')} OR ${names('errorMessage')})
      ORDER BY c."id" LIMIT ${batch}::int FOR UPDATE)`;
}

/** One batch of events naming the number (of the call request named, or of the reach): replaced in data and previous values. */
export function scrubEventMentions(
  tx: SqlRunner,
  target: ErasureTarget & { number: string },
  erased: string,
  batch: number,
): Promise<number> {
  const n = target.number;
  const reach = erasureReach(target.orgId);
  const which =
    target.kind === 'callRequestId'
      ? Prisma.sql`e."subjectType" = 'call_request' AND e."subjectId" = ${target.subjectId} AND e."orgId" IN ${reach}`
      : Prisma.sql`e."orgId" IN ${reach}`;
  return tx.$executeRaw`UPDATE "Event" u SET "data" = ${scrubJson(Prisma.sql`u."data"`, n, erased)}, "previous" = ${scrubJson(Prisma.sql`u."previous"`, n, erased)}
    WHERE u."id" IN (SELECT e."id" FROM "Event" e WHERE ${which}
      AND (strpos(e."data"::text, ${n}) > 0 OR strpos(coalesce(e."previous"::text, ''), ${n}) > 0) ORDER BY e."seq" LIMIT ${batch}::int FOR UPDATE)`;
}

/** One batch of stored answers of webhook receivers naming the number (a receiver may echo what it was sent). */
export function scrubDeliveryMentions(tx: SqlRunner, orgId: string, n: string, erased: string, batch: number): Promise<number> {
  return tx.$executeRaw`UPDATE "WebhookDelivery" u SET "response" = ${scrubText(Prisma.sql`u."response"`, n, erased)},
      "attemptLog" = ${scrubJson(Prisma.sql`u."attemptLog"`, n, erased)}
    WHERE u."id" IN (SELECT d."id" FROM "WebhookDelivery" d JOIN "WebhookEndpoint" w ON w."id" = d."endpointId"
      WHERE w."orgId" IN ${erasureReach(orgId)} AND (strpos(d."response", ${n}) > 0 OR strpos(d."attemptLog"::text, ${n}) > 0)
      ORDER BY d."id" LIMIT ${batch}::int FOR UPDATE OF d)`;
}

/** One batch of stored idempotent answers naming the number (a call request's, a suppression's). */
export function scrubIdempotentMentions(tx: SqlRunner, orgId: string, n: string, erased: string, batch: number): Promise<number> {
  return tx.$executeRaw`UPDATE "IdempotencyKey" u SET "body" = ${scrubText(Prisma.sql`u."body"`, n, erased)}
    WHERE (u."ownerOrgId", u."key") IN (SELECT k."ownerOrgId", k."key" FROM "IdempotencyKey" k
      WHERE k."ownerOrgId" IN ${erasureReach(orgId)} AND strpos(k."body", ${n}) > 0 ORDER BY k."ownerOrgId", k."key" LIMIT ${batch}::int FOR UPDATE)`;
}

/**
 * One batch of the reach's suppressions of the number: each keeps the keyed hash instead. A list that holds the
 * hashed entry already (an earlier erasure, then the number listed again) keeps that one (`duplicates` removed).
 */
export async function hashSuppressedNumber(
  tx: SqlRunner,
  orgId: string,
  number: string,
  numberHash: string,
  batch: number,
): Promise<{ hashed: number; duplicates: number }> {
  const reach = erasureReach(orgId);
  const duplicates = await tx.$executeRaw`DELETE FROM "Suppression" s WHERE s."orgId" IN ${reach} AND s."number" = ${number}
    AND EXISTS (SELECT 1 FROM "Suppression" h WHERE h."orgId" = s."orgId" AND h."number" = ${numberHash})`;
  const hashed = await tx.$executeRaw`UPDATE "Suppression" u SET "number" = ${numberHash}
    WHERE u."id" IN (SELECT s."id" FROM "Suppression" s WHERE s."orgId" IN ${reach} AND s."number" = ${number}
      ORDER BY s."id" LIMIT ${batch}::int FOR UPDATE)`;
  return { hashed, duplicates };
}

/** Locks an erasure request that is not completed yet; false when it is (or is gone). */
export async function lockUnfinishedErasure(tx: SqlRunner, id: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT "id"::text AS "id" FROM "ErasureRequest" WHERE "id" = ${id}::uuid AND "status" <> 'completed' FOR UPDATE`;
  return rows.length > 0;
}
