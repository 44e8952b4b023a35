// Every SQL statement of the governance context: the access log's chain lock, its head, and the reads of
// the list and of the verification. Column lists are written once, here.
import { Prisma } from '../../generated/prisma/client.js';
import { jsonColumn, jsonInstant, type SqlRunner } from '../../db/sql.js';

/** An access-log row as stored (prisma/schema.prisma AccessLogEntry). */
export interface AccessLogRow {
  id: string;
  orgId: string;
  seq: number;
  at: Date;
  credentialKind: string;
  credentialId: string;
  credentialName: string;
  conversationId: string;
  surface: string;
  requestId: string | null;
  clientAddress: string | null;
  unredacted: boolean;
  prevHash: string;
  hash: string;
}

const COLUMNS = Prisma.sql`"id"::text AS "id", "orgId"::text AS "orgId", "seq", "at", "credentialKind", "credentialId", "credentialName",
  "conversationId"::text AS "conversationId", "surface", "requestId", "clientAddress", "unredacted", "prevHash", "hash"`;

/**
 * Serializes the writers of one organization's chain until the transaction ends: each reads the head and
 * appends after it, so no two entries ever name the same predecessor (the chain cannot fork). An advisory
 * lock, since the first entry of a chain has no row to lock yet; other organizations' writers do not wait.
 */
export async function lockAccessLogChain(tx: SqlRunner, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`access-log:${orgId}`}, 0))::text AS "locked"`;
}

/** The last entry of an organization's chain (its head), read by the unique (orgId, seq) index. */
export async function accessLogHead(tx: SqlRunner, orgId: string): Promise<{ seq: number; hash: string } | null> {
  const rows = await tx.$queryRaw<{ seq: number; hash: string }[]>`
    SELECT "seq", "hash" FROM "AccessLogEntry" WHERE "orgId" = ${orgId}::uuid ORDER BY "seq" DESC LIMIT 1`;
  return rows[0] ?? null;
}

/** Appends entries (in the caller's transaction, under the chain's lock), in one statement. */
export async function insertAccessLogEntries(tx: SqlRunner, rows: readonly AccessLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map(
    (row) => Prisma.sql`(${row.id}::uuid, ${row.orgId}::uuid, ${row.seq}, ${row.at.toISOString()}::timestamp(3), ${row.credentialKind},
      ${row.credentialId}, ${row.credentialName}, ${row.conversationId}::uuid, ${row.surface}, ${row.requestId}, ${row.clientAddress},
      ${row.unredacted}, ${row.prevHash}, ${row.hash})`,
  );
  await tx.$executeRaw`
    INSERT INTO "AccessLogEntry" ("id", "orgId", "seq", "at", "credentialKind", "credentialId", "credentialName", "conversationId",
                                  "surface", "requestId", "clientAddress", "unredacted", "prevHash", "hash")
    VALUES ${Prisma.join(values)}`;
}

/**
 * The organizations a list or a verification covers: one, or (an account's credential without `orgId`) the
 * account and its children, named through the parent relation, never as a list of ids.
 */
export function organizationsCondition(scope: { orgId: string; withChildren: boolean }): Prisma.Sql {
  return scope.withChildren
    ? Prisma.sql`("orgId" = ${scope.orgId}::uuid OR "orgId" IN (SELECT "id" FROM "Organization" WHERE "parentId" = ${scope.orgId}::uuid))`
    : Prisma.sql`"orgId" = ${scope.orgId}::uuid`;
}

export interface AccessLogFilter {
  conversationId?: string;
  credentialId?: string;
  /** at ≥ from, < to. */
  from?: Date;
  to?: Date;
}

function filterConditions(filter: AccessLogFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (filter.conversationId) parts.push(Prisma.sql`AND "conversationId" = ${filter.conversationId}::uuid`);
  if (filter.credentialId) parts.push(Prisma.sql`AND "credentialId" = ${filter.credentialId}`);
  if (filter.from) parts.push(Prisma.sql`AND "at" >= ${filter.from.toISOString()}::timestamp(3)`);
  if (filter.to) parts.push(Prisma.sql`AND "at" < ${filter.to.toISOString()}::timestamp(3)`);
  return parts.length ? Prisma.join(parts, ' ') : Prisma.empty;
}

/** A page of entries, newest first (ties by id), after the position `after`. */
export function accessLogPage(
  db: SqlRunner,
  organizations: Prisma.Sql,
  filter: AccessLogFilter,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<AccessLogRow[]> {
  const keyset = after ? Prisma.sql`AND ("at", "id") < (${after.at.toISOString()}::timestamp(3), ${after.id}::uuid)` : Prisma.empty;
  return db.$queryRaw<AccessLogRow[]>`
    SELECT ${COLUMNS} FROM "AccessLogEntry"
    WHERE ${organizations} ${filterConditions(filter)} ${keyset}
    ORDER BY "at" DESC, "id" DESC LIMIT ${take}`;
}

/** Per organization with entries in [from, to): the first and last seq of those entries. */
export function accessLogSpans(
  db: SqlRunner,
  organizations: Prisma.Sql,
  filter: AccessLogFilter,
): Promise<{ orgId: string; first: number; last: number }[]> {
  return db.$queryRaw`
    SELECT "orgId"::text AS "orgId", MIN("seq") AS "first", MAX("seq") AS "last" FROM "AccessLogEntry"
    WHERE ${organizations} ${filterConditions(filter)}
    GROUP BY "orgId" ORDER BY "orgId"`;
}

/** One organization's entries with seq in [from, to], in chain order. */
export function accessLogChainSlice(db: SqlRunner, orgId: string, from: number, to: number): Promise<AccessLogRow[]> {
  return db.$queryRaw<AccessLogRow[]>`
    SELECT ${COLUMNS} FROM "AccessLogEntry"
    WHERE "orgId" = ${orgId}::uuid AND "seq" >= ${from} AND "seq" <= ${to}
    ORDER BY "seq"`;
}

// ---- Retention (domain/governance/retention.ts): each statement deletes at most `limit` rows of one organization
// older than a cutoff, found through an index that starts with the organization (migration 20261128062701_retention).
// The access log is never named here: nothing purges it (and its trigger would refuse).

const at = (d: Date) => Prisma.sql`${d.toISOString()}::timestamp(3)`;

/**
 * Deletes up to `limit` rows of one organization's table older than the cutoff, oldest first, in the order
 * of its (orgId, time) index; `also` narrows which rows may go.
 */
function oldestFirst(
  table: 'Conversation' | 'CallRequest' | 'Event',
  time: 'startTime' | 'createdAt' | 'occurredAt',
  orgId: string,
  before: Date,
  limit: number,
  also: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  const [t, c] = [Prisma.raw(`"${table}"`), Prisma.raw(`"${time}"`)];
  return Prisma.sql`
      DELETE FROM ${t} WHERE "id" IN (
        SELECT "id" FROM ${t} WHERE "orgId" = ${orgId}::uuid AND ${c} < ${at(before)} ${also}
        ORDER BY ${c} LIMIT ${limit})`;
}

/** The statements of a purge, by kind; each deletes at most `limit` rows (run with purgeRows; EXPLAIN-ed by the tests). */
export const purgeStatements = {
  /**
   * Messages of the organization's conversations that are past retention: written before `transcriptsBefore`, or of a
   * conversation started before `conversationsBefore` (its conversation goes next, its messages first, in batches).
   * Walks the conversations started before the later cutoff in (startTime, id) order from `from` (where the previous
   * statement of this purge stopped: the ones before it hold nothing past retention any more), each one's messages by
   * its (conversationId, seq) index: every statement reads about what it deletes, however many were deleted before.
   * Answers the rows deleted and the conversation it stopped at.
   */
  transcripts(
    orgId: string,
    cutoffs: { transcripts: Date; conversations: Date },
    limit: number,
    from: ConversationPosition | null = null,
  ): Prisma.Sql {
    const latest = cutoffs.transcripts > cutoffs.conversations ? cutoffs.transcripts : cutoffs.conversations;
    const after = from ? Prisma.sql`AND ("startTime", "id") >= (${at(new Date(from.startTime))}, ${from.id}::uuid)` : Prisma.empty;
    return Prisma.sql`
      WITH picked AS (
        SELECT m."id", c."startTime", c."id" AS "conversationId"
        FROM (SELECT "id", "startTime" FROM "Conversation"
              WHERE "orgId" = ${orgId}::uuid AND "startTime" < ${at(latest)} ${after}
              ORDER BY "startTime", "id") c
        CROSS JOIN LATERAL (
          SELECT m."id" FROM "ConversationMessage" m
          WHERE m."conversationId" = c."id" AND (m."at" < ${at(cutoffs.transcripts)} OR c."startTime" < ${at(cutoffs.conversations)})) m
        ORDER BY c."startTime", c."id"
        LIMIT ${limit}),
      gone AS (DELETE FROM "ConversationMessage" WHERE "id" IN (SELECT "id" FROM picked) RETURNING 1),
      last AS (SELECT "startTime", "conversationId" FROM picked ORDER BY "startTime" DESC, "conversationId" DESC LIMIT 1)
      SELECT (SELECT count(*) FROM gone)::int AS "deleted",
             (SELECT "startTime" FROM last) AS "startTime", (SELECT "conversationId"::text FROM last) AS "id"`;
  },
  /** Conversations started before the cutoff (their messages, if any are left, go with them: ON DELETE CASCADE). */
  conversations(orgId: string, cutoffs: { conversations: Date }, limit: number): Prisma.Sql {
    return oldestFirst('Conversation', 'startTime', orgId, cutoffs.conversations, limit);
  },
  /** Call requests created before the cutoff that reached a final state, in the order of their (orgId, createdAt) index. */
  callRequests(orgId: string, cutoffs: { callRequests: Date }, limit: number): Prisma.Sql {
    const final = Prisma.sql`AND "status" IN ('completed', 'failed', 'canceled', 'expired')`;
    return oldestFirst('CallRequest', 'createdAt', orgId, cutoffs.callRequests, limit, final);
  },
  /** Events of the organization that occurred before the cutoff. */
  events(orgId: string, cutoffs: { events: Date }, limit: number): Prisma.Sql {
    return oldestFirst('Event', 'occurredAt', orgId, cutoffs.events, limit);
  },
  /** Webhook deliveries to the organization's endpoints made before the cutoff, except those still pending a retry. */
  webhookDeliveries(orgId: string, cutoffs: { webhookDeliveries: Date }, limit: number): Prisma.Sql {
    return Prisma.sql`
      DELETE FROM "WebhookDelivery" WHERE "id" IN (
        SELECT d."id" FROM "WebhookEndpoint" e JOIN "WebhookDelivery" d ON d."endpointId" = e."id"
        WHERE e."orgId" = ${orgId}::uuid AND d."createdAt" < ${at(cutoffs.webhookDeliveries)} AND d."status" <> 'pending'
        LIMIT ${limit})`;
  },
};

/** Runs one purge statement; answers the rows it deleted. */
export function purgeRows(db: SqlRunner, statement: Prisma.Sql): Promise<number> {
  return db.$executeRaw(statement);
}

/** Where the transcripts walk of a purge stands: a conversation (its start as an ISO instant, its id). */
export interface ConversationPosition {
  startTime: string;
  id: string;
}

/** Runs the transcripts statement; answers the rows deleted and where the walk stopped (null: nothing picked). */
export async function purgeTranscripts(
  db: SqlRunner,
  statement: Prisma.Sql,
): Promise<{ deleted: number; at: ConversationPosition | null }> {
  const [row] = await db.$queryRaw<{ deleted: number; startTime: Date | null; id: string | null }[]>(statement);
  const deleted = Number(row?.deleted ?? 0);
  return { deleted, at: row?.startTime && row.id ? { startTime: row.startTime.toISOString(), id: row.id } : null };
}

/** Organizations after `after` in id order (the sweep's walk), at most `limit`. */
export async function organizationIdsAfter(db: SqlRunner, after: string | null, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT "id"::text AS "id" FROM "Organization" ${after ? Prisma.sql`WHERE "id" > ${after}::uuid` : Prisma.empty}
    ORDER BY "id" LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** Adds the first retention sweep, unless one is waiting already (several instances starting at once add one: a fixed id). */
export async function insertRetentionSweep(db: SqlRunner, id: string, kind: string, now: Date): Promise<void> {
  await db.$executeRaw`
    INSERT INTO "Job" ("id", "kind", "payload", "runAt", "createdAt")
    SELECT ${id}::uuid, ${kind}, '{"after":null}'::jsonb, ${at(now)}, ${at(now)}
    WHERE NOT EXISTS (SELECT 1 FROM "Job" WHERE "kind" = ${kind} AND "failedAt" IS NULL)
    ON CONFLICT ("id") DO NOTHING`;
}

// --- transcript data keys and sealed messages (transcriptKeys.ts) ---

/** An organization's data key as stored (prisma/schema.prisma TranscriptDataKey). */
export interface TranscriptDataKeyRow {
  orgId: string;
  version: number;
  masterKeyId: string;
  wrapped: string;
}

export async function transcriptDataKeyRow(db: SqlRunner, orgId: string, version: number): Promise<TranscriptDataKeyRow | null> {
  const rows = await db.$queryRaw<TranscriptDataKeyRow[]>`
    SELECT "orgId"::text AS "orgId", "version", "masterKeyId", "wrapped" FROM "TranscriptDataKey"
    WHERE "orgId" = ${orgId}::uuid AND "version" = ${version}`;
  return rows[0] ?? null;
}

/**
 * Stores a data key unless the organization has one of that version already (two first uses at once keep one);
 * answers whether this one was stored.
 */
export async function insertTranscriptDataKey(db: SqlRunner, row: TranscriptDataKeyRow): Promise<boolean> {
  const stored = await db.$executeRaw`
    INSERT INTO "TranscriptDataKey" ("orgId", "version", "masterKeyId", "wrapped")
    VALUES (${row.orgId}::uuid, ${row.version}, ${row.masterKeyId}, ${row.wrapped})
    ON CONFLICT ("orgId", "version") DO NOTHING`;
  return stored > 0;
}

/** Up to `take` data keys wrapped by another master key than `current`. */
export function transcriptDataKeysNotWrappedBy(db: SqlRunner, current: string, take: number): Promise<TranscriptDataKeyRow[]> {
  return db.$queryRaw<TranscriptDataKeyRow[]>`
    SELECT "orgId"::text AS "orgId", "version", "masterKeyId", "wrapped" FROM "TranscriptDataKey"
    WHERE "masterKeyId" <> ${current} ORDER BY "masterKeyId", "orgId", "version" LIMIT ${take}`;
}

/** Replaces a data key's wrapping, unless another re-wrap changed it since it was read; answers whether it did. */
export async function rewrapTranscriptDataKey(
  db: SqlRunner,
  row: TranscriptDataKeyRow,
  masterKeyId: string,
  wrapped: string,
): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE "TranscriptDataKey" SET "masterKeyId" = ${masterKeyId}, "wrapped" = ${wrapped}
    WHERE "orgId" = ${row.orgId}::uuid AND "version" = ${row.version} AND "masterKeyId" = ${row.masterKeyId}`;
  return changed > 0;
}

/**
 * Up to `take` messages still in clear text (written before sealing existed) after the id `after`, in id order,
 * with their organization: one walk of the primary key over the whole table, however many are sealed.
 */
export function clearTranscriptMessages(
  db: SqlRunner,
  after: string,
  take: number,
): Promise<{ id: string; orgId: string; text: string }[]> {
  return db.$queryRaw<{ id: string; orgId: string; text: string }[]>`
    SELECT m."id"::text AS "id", c."orgId"::text AS "orgId", m."text" FROM "ConversationMessage" m
    JOIN "Conversation" c ON c."id" = m."conversationId"
    WHERE m."id" > ${after}::uuid AND m."keyVersion" IS NULL ORDER BY m."id" LIMIT ${take}`;
}

/** Stores a clear message's sealed text, unless it was sealed meanwhile. */
export async function storeSealedMessage(db: SqlRunner, id: string, sealed: { text: string; keyVersion: number }): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE "ConversationMessage" SET "text" = ${sealed.text}, "keyVersion" = ${sealed.keyVersion}
    WHERE "id" = ${id}::uuid AND "keyVersion" IS NULL`;
  return changed > 0;
}

/** A redaction policy row as stored (prisma/schema.prisma RedactionPolicy). */
export interface RedactionPolicyRow {
  orgId: string;
  emails: boolean | null;
  phones: boolean | null;
  keepOriginals: boolean | null;
  updatedAt: Date;
}

/**
 * The redaction policy rows of an organization and of its account, in one statement (a turn's write reads them
 * inside its transaction, so a policy changed a moment before applies to the next turn).
 */
export function redactionPolicyRows(db: SqlRunner, orgId: string): Promise<RedactionPolicyRow[]> {
  return db.$queryRaw<RedactionPolicyRow[]>`
    SELECT "orgId"::text AS "orgId", "emails", "phones", "keepOriginals", "updatedAt" FROM "RedactionPolicy"
    WHERE "orgId" = ${orgId}::uuid OR "orgId" = (SELECT "parentId" FROM "Organization" WHERE "id" = ${orgId}::uuid)`;
}

/**
 * The same rows as a JSON array, for a statement that reads them beside what it is about (a turn's conversation:
 * calls/sql.ts conversationForTurn): `orgId` names the organization (a column of that statement). Read back with
 * redactionPolicyRowsOf.
 */
export function redactionPolicyRowsJson(orgId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT COALESCE(json_agg(json_build_object('orgId', p."orgId", 'emails', p."emails", 'phones', p."phones",
                                               'keepOriginals', p."keepOriginals", 'updatedAt', ${jsonInstant(Prisma.sql`p."updatedAt"`)})), '[]'::json)
    FROM "RedactionPolicy" p
    WHERE p."orgId" = ${orgId} OR p."orgId" = (SELECT o."parentId" FROM "Organization" o WHERE o."id" = ${orgId}))`;
}

/** The rows of a redactionPolicyRowsJson column (the drivers answer json parsed or as text). */
export function redactionPolicyRowsOf(json: unknown): RedactionPolicyRow[] {
  const rows = jsonColumn<(Omit<RedactionPolicyRow, 'updatedAt'> & { updatedAt: string })[]>(json);
  return rows.map((r) => ({ ...r, updatedAt: new Date(r.updatedAt) }));
}

/** The organizations a credential reaches, by id: its owner and, for an account, the account's children. */
export async function reachableOrganizationIds(db: SqlRunner, scope: { orgId: string; withChildren: boolean }): Promise<string[]> {
  if (!scope.withChildren) return [scope.orgId];
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT "id"::text AS "id" FROM "Organization" WHERE "id" = ${scope.orgId}::uuid OR "parentId" = ${scope.orgId}::uuid ORDER BY "id"`;
  return rows.map((r) => r.id);
}

/**
 * One organization's entries in chain order (at, then seq) after the position `after`, through the (orgId, at)
 * index: an export walks a range of years this way a page at a time.
 */
export function accessLogExportPage(
  db: SqlRunner,
  orgId: string,
  filter: AccessLogFilter,
  after: { at: Date; seq: number } | undefined,
  take: number,
): Promise<AccessLogRow[]> {
  const keyset = after ? Prisma.sql`AND ("at", "seq") > (${after.at.toISOString()}::timestamp(3), ${after.seq})` : Prisma.empty;
  return db.$queryRaw<AccessLogRow[]>`
    SELECT ${COLUMNS} FROM "AccessLogEntry"
    WHERE "orgId" = ${orgId}::uuid ${filterConditions(filter)} ${keyset}
    ORDER BY "at", "seq" LIMIT ${take}`;
}
