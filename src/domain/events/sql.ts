// Every SQL statement of the events context: the event log's append, webhook endpoints' locks, and the
// webhook dispatcher's and deliveries lane's statements (webhooks/). The rest of its reads and writes go
// through Prisma's client. Column lists are written once, here.
import { Prisma, type WebhookDelivery } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';
import { afterInstantId } from '../shared/sql.js';
import { type LogEventRow, unreadEvents } from '../../changes/sql.js';
import type { LogPosition } from '../../changes/logPosition.js';

// ---- the event log (log.ts)

/** One event as the log stores it (the actor and subject already resolved; data and previous as JSON text). */
export interface EventRow {
  id: string;
  type: string;
  orgId: string;
  occurredAt: Date;
  actorKind: string;
  actorId: string | null;
  actorName: string | null;
  subjectType: string;
  subjectId: string;
  data: string;
  previous: string | null;
}

/**
 * The INSERT of one event's row, for a statement that writes it beside its subject's rows (a data-modifying
 * WITH of that statement: one statement is one transaction, with no round trips to open and commit one).
 */
export function eventInsertSql(event: EventRow): Prisma.Sql {
  return Prisma.sql`
      INSERT INTO "Event" ${EVENT_COLUMNS}
      VALUES (${eventValues(event, Prisma.sql`${event.data}::jsonb`)})
      RETURNING "id"`;
}

/**
 * The INSERT of one event's row for each row of `from` (a WITH of the same statement that yields one row or none):
 * the event is written only when its subject's row was, and `dataFrom` (a jsonb object over `from`'s columns) is
 * merged into its data, for what the statement itself decides (a turn's seq).
 */
export function eventInsertFromSql(event: EventRow, from: Prisma.Sql, dataFrom: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
      INSERT INTO "Event" ${EVENT_COLUMNS}
      SELECT ${eventValues(event, Prisma.sql`${event.data}::jsonb || ${dataFrom}`)}
      FROM ${from}
      RETURNING "id"`;
}

const EVENT_COLUMNS = Prisma.sql`("id", "type", "orgId", "occurredAt", "actorKind", "actorId", "actorName", "subjectType", "subjectId", "data", "previous")`;

/** An event row's values in EVENT_COLUMNS' order, its data as `data`. */
function eventValues(event: EventRow, data: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${event.id}::uuid, ${event.type}, ${event.orgId}::uuid, ${event.occurredAt.toISOString()}::timestamp(3), ${event.actorKind},
              ${event.actorId}, ${event.actorName}, ${event.subjectType}, ${event.subjectId}, ${data}, ${event.previous}::jsonb`;
}

/**
 * Appends one event; with `look`, in the same statement, has the organization's availability looked at
 * again (its "AvailabilityStatus" due now, made when it has none); with `alsoQueue` (a job's INSERT), queues
 * that job in the same statement.
 */
export async function insertEvent(
  tx: Pick<SqlRunner, '$executeRaw'>,
  event: EventRow,
  look: boolean,
  alsoQueue: Prisma.Sql = Prisma.empty,
): Promise<void> {
  const at = event.occurredAt.toISOString();
  await tx.$executeRaw`
    WITH ev AS (${eventInsertSql(event)})${alsoQueue === Prisma.empty ? Prisma.empty : Prisma.sql`, job AS (${alsoQueue})`}
    INSERT INTO "AvailabilityStatus" ("orgId", "states", "nextCheckAt")
    SELECT ${event.orgId}::uuid, '{}'::jsonb, ${at}::timestamp(3) FROM ev WHERE ${look}::boolean
    ON CONFLICT ("orgId") DO UPDATE SET "nextCheckAt" = LEAST("AvailabilityStatus"."nextCheckAt", EXCLUDED."nextCheckAt")`;
}

/**
 * Whether the organization, or one of its locations, has queued call requests timed by its hours
 * (`officeHoursOnly`): only then does a change of its hours queue their re-timing (log.ts HOURS_CHANGED_JOB).
 */
export function hoursTimedCallsQueued(orgId: string): Prisma.Sql {
  // each side an equality on orgId, which the partial index of such calls answers (schema.prisma): its
  // cost does not grow with what other organizations have queued
  return Prisma.sql`(EXISTS (
      SELECT 1 FROM "CallRequest" c WHERE c."orgId" = ${orgId}::uuid AND c."status" = 'queued' AND c."officeHoursOnly")
    OR EXISTS (
      SELECT 1 FROM "Organization" o JOIN "CallRequest" c ON c."orgId" = o."id"
      WHERE o."parentId" = ${orgId}::uuid AND c."status" = 'queued' AND c."officeHoursOnly"))`;
}

// ---- webhook endpoints (webhookEndpoints.ts)

/** Locks one organization's webhook endpoint; answers its id and its (encrypted) secret, none when it is not there. */
export function lockWebhookEndpoint(tx: SqlRunner, orgId: string, id: string): Promise<{ id: string; secret: string }[]> {
  return tx.$queryRaw`SELECT "id", "secret" FROM "WebhookEndpoint" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid FOR UPDATE`;
}

/** Locks one endpoint's delivery; answers its status, none when it is not there. */
export function lockWebhookDelivery(tx: SqlRunner, endpointId: string, id: string): Promise<{ status: string }[]> {
  return tx.$queryRaw`SELECT "status" FROM "WebhookDelivery" WHERE "id" = ${id}::uuid AND "endpointId" = ${endpointId}::uuid FOR UPDATE`;
}

// ---- an endpoint's deliveries and their replays (webhookDeliveries.ts, webhookReplays.ts)

/** The filters of a page of an endpoint's deliveries: event types are names or families (`closure.*`). */
export interface DeliveryListFilter {
  endpointId: string;
  status: string | null;
  eventTypes: string[] | null;
  from: string | null;
  to: string | null;
}

/** Types named exactly, and families as LIKE patterns (`closure.*` → `closure.%`). */
function eventTypeCondition(types: string[] | null): Prisma.Sql {
  if (!types) return Prisma.empty;
  const exact = types.filter((t) => !t.endsWith('.*'));
  const families = types.filter((t) => t.endsWith('.*')).map((t) => `${t.slice(0, -1)}%`);
  return Prisma.sql`AND ("eventType" = ANY(${exact}::text[]) OR "eventType" LIKE ANY(${families}::text[]))`;
}

/**
 * One page of an endpoint's deliveries, newest first (createdAt desc, ties by id), after the position `after`;
 * the log of attempts is left out (the list does not show it).
 */
export function deliveriesAfter(
  db: SqlRunner,
  filter: DeliveryListFilter,
  after: { t: number; i: string } | undefined,
  take: number,
): Promise<Omit<WebhookDelivery, 'attemptLog' | 'lockedUntil'>[]> {
  const status = filter.status ? Prisma.sql`AND "status" = ${filter.status}` : Prisma.empty;
  const from = filter.from ? Prisma.sql`AND "createdAt" >= ${filter.from}::timestamp(3)` : Prisma.empty;
  const to = filter.to ? Prisma.sql`AND "createdAt" < ${filter.to}::timestamp(3)` : Prisma.empty;
  const keyset = afterInstantId('createdAt', after);
  return db.$queryRaw`
    SELECT "id", "endpointId", "eventId", "eventType", "status", "attempts", "lastAttemptAt", "statusCode", "latencyMs", "response",
           "nextAttemptAt", "createdAt"
    FROM "WebhookDelivery" WHERE "endpointId" = ${filter.endpointId}::uuid ${status} ${eventTypeCondition(filter.eventTypes)} ${from} ${to} ${keyset}
    ORDER BY "createdAt" DESC, "id" ASC LIMIT ${take}::int`;
}

/** Deletes an endpoint's completed replays but its newest `keep` (each new replay keeps the history bounded). */
export async function pruneReplays(tx: SqlRunner, endpointId: string, keep: number): Promise<void> {
  await tx.$executeRaw`DELETE FROM "WebhookReplay" WHERE "endpointId" = ${endpointId}::uuid AND "status" = 'completed'
    AND "id" NOT IN (SELECT "id" FROM "WebhookReplay" WHERE "endpointId" = ${endpointId}::uuid ORDER BY "createdAt" DESC, "id" DESC LIMIT ${keep}::int)`;
}

/** Locks a replay that has not completed; answers whether there was one. */
export async function lockUnfinishedReplay(tx: SqlRunner, id: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "WebhookReplay" WHERE "id" = ${id}::uuid AND "status" <> 'completed' FOR UPDATE`;
  return rows.length > 0;
}

/** What one batch of a replay did: deliveries made pending, skipped (event past retention), and the last one walked. */
export interface ReplayBatch {
  replayed: number;
  skipped: number;
  last: { createdAt: Date; id: string } | null;
  walked: number;
}

/**
 * One batch of a replay (in its transaction, the replay's row locked): the endpoint's next `batch` failed
 * deliveries in [from, to) after the replay's position, in (createdAt, id) order, locked; those whose event is
 * still kept are made pending, due now, with a fresh retry schedule; the others are skipped.
 */
export async function replayBatch(
  tx: SqlRunner,
  replay: { endpointId: string; from: Date; to: Date; positionAt: Date | null; positionId: string | null },
  now: Date,
  batch: number,
): Promise<ReplayBatch> {
  const after =
    replay.positionAt && replay.positionId
      ? Prisma.sql`AND (d."createdAt", d."id") > (${replay.positionAt.toISOString()}::timestamp(3), ${replay.positionId}::uuid)`
      : Prisma.empty;
  const rows = await tx.$queryRaw<{ id: string; createdAt: Date; kept: boolean }[]>`
    SELECT d."id"::text AS "id", d."createdAt", EXISTS (SELECT 1 FROM "Event" ev WHERE ev."id" = d."eventId") AS "kept"
    FROM "WebhookDelivery" d
    WHERE d."endpointId" = ${replay.endpointId}::uuid AND d."status" = 'failed'
      AND d."createdAt" >= ${replay.from.toISOString()}::timestamp(3) AND d."createdAt" < ${replay.to.toISOString()}::timestamp(3) ${after}
    ORDER BY d."createdAt", d."id" LIMIT ${batch}::int FOR UPDATE OF d`;
  const kept = rows.filter((r) => r.kept).map((r) => r.id);
  if (kept.length > 0)
    await tx.$executeRaw`UPDATE "WebhookDelivery" SET "status" = 'pending', "attempts" = 0, "nextAttemptAt" = ${now.toISOString()}::timestamp(3),
      "lockedUntil" = NULL WHERE "id" = ANY(${kept}::uuid[])`;
  const last = rows.at(-1);
  return {
    replayed: kept.length,
    skipped: rows.length - kept.length,
    last: last ? { createdAt: last.createdAt, id: last.id } : null,
    walked: rows.length,
  };
}

// ---- the webhook dispatcher (webhooks/dispatcher.ts)

/** An event read from the log with the endpoints subscribed to it (none: nothing to send). */
export interface DispatchEventRow extends LogEventRow {
  endpoints:
    | {
        id: string;
        orgId: string;
        url: string;
        secret: string;
        previousSecret: string | null;
        previousSecretExpiresAt: string | null;
        failingSince: string | null;
      }[]
    | null;
}

/** The next `limit` events the dispatcher at `position` has not read, each with the endpoints that want it. */
export function unreadDispatchEvents(db: SqlRunner, position: LogPosition, limit: number): Promise<DispatchEventRow[]> {
  return db.$queryRaw`
    WITH ev AS (${unreadEvents(position, Prisma.sql`"seq", "id", "type", "orgId", "occurredAt", "data"`, limit)})
    SELECT ev."seq"::text AS "seq", ev."id"::text AS "id", ev."type", ev."orgId"::text AS "orgId", ev."occurredAt",
           CASE WHEN m."endpoints" IS NULL THEN NULL ELSE ev."data" END AS "data", m."endpoints"
    FROM ev LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', e."id", 'orgId', e."orgId", 'url', e."url", 'secret', e."secret",
               'previousSecret', e."previousSecret",
               'previousSecretExpiresAt', e."previousSecretExpiresAt", 'failingSince', e."failingSince")) AS "endpoints"
      FROM "WebhookEndpoint" e
      -- later events only: none before it was made, and, in the minute after (where the clocks of a write and
      -- of the endpoint's creation may tie), none at or before its own webhook_endpoint.created in the log
      WHERE e."enabled" AND e."createdAt" <= ev."occurredAt"
        AND NOT (ev."occurredAt" < e."createdAt" + interval '1 minute' AND EXISTS (
          SELECT 1 FROM "Event" c WHERE c."orgId" = e."orgId" AND c."seq" >= ev."seq"
            AND c."type" = 'webhook_endpoint.created' AND c."subjectId" = e."id"::text))
        AND (e."orgId" = ev."orgId" OR e."orgId" = (SELECT o."parentId" FROM "Organization" o WHERE o."id" = ev."orgId"))
        AND ('*' = ANY(e."eventTypes") OR ev."type" = ANY(e."eventTypes") OR split_part(ev."type", '.', 1) || '.*' = ANY(e."eventTypes"))
        -- a test event's one delivery is written with it (domain/events/webhookEndpoints.ts testWebhookEndpoint)
        AND ev."type" <> 'webhook.test'
    ) m ON true
    ORDER BY ev."seq" LIMIT ${limit}`;
}

/**
 * Takes (or keeps) the dispatch lease for `owner` until `until` when no one else holds it past `now`; answers
 * the cursor, none when another holds it. With no row yet (a database emptied behind the service's back; the
 * migration makes it): from the oldest event the log holds, or, with none, after the last seq taken (a seq
 * skipped would hold the cursor as a gap).
 */
export function takeDispatchLease(db: SqlRunner, owner: string, now: Date, until: Date): Promise<{ cursor: string }[]> {
  return db.$queryRaw`
    INSERT INTO "WebhookDispatch" ("id", "cursor", "owner", "leaseUntil")
    VALUES (1, COALESCE((SELECT min("seq") - 1 FROM "Event"), pg_sequence_last_value(pg_get_serial_sequence('"Event"', 'seq')::regclass), 0),
            ${owner}, ${until.toISOString()}::timestamp(3))
    ON CONFLICT ("id") DO UPDATE SET "owner" = EXCLUDED."owner", "leaseUntil" = EXCLUDED."leaseUntil"
    WHERE "WebhookDispatch"."owner" = ${owner} OR "WebhookDispatch"."owner" IS NULL
       OR "WebhookDispatch"."leaseUntil" IS NULL OR "WebhookDispatch"."leaseUntil" <= ${now.toISOString()}::timestamp(3)
    RETURNING "cursor"::text AS "cursor"`;
}

/** Gives the dispatch lease up, if `owner` holds it. */
export async function releaseDispatchLease(db: SqlRunner, owner: string): Promise<void> {
  await db.$executeRaw`UPDATE "WebhookDispatch" SET "owner" = NULL, "leaseUntil" = NULL WHERE "id" = 1 AND "owner" = ${owner}`;
}

/** One attempt as a delivery's log keeps it (WebhookDelivery.attemptLog), oldest first. */
export interface AttemptEntry {
  at: string;
  statusCode: number | null;
  latencyMs: number | null;
  /** Why there was no answer (a timeout, a refused connection, …); null when there was one. */
  errorClass: string | null;
  /** The first 1 KB of the answer; null without one, and for a private target's (never kept). */
  response: string | null;
}

/** The attempts a delivery's log keeps: the newest, the oldest dropped first (retries and replays can repeat without end). */
export const ATTEMPTS_KEPT = 20;

/** `log` (a jsonb array) with `entry` (jsonb) appended, its oldest entry dropped when it holds ATTEMPTS_KEPT already. */
const withAttempt = (log: Prisma.Sql, entry: Prisma.Sql) =>
  Prisma.sql`(CASE WHEN jsonb_array_length(${log}) >= ${ATTEMPTS_KEPT}::int THEN ${log} - 0 ELSE ${log} END) || jsonb_build_array(${entry})`;

/** A delivery's row as the dispatcher writes it: what its first attempt recorded, or pending, handed to the lane. */
export interface DispatchedDelivery {
  endpointId: string;
  event: { id: string; type: string; occurredAt: Date };
  status: string;
  attempts: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  latencyMs: number | null;
  response: string | null;
  /** Its first attempt's entry; null when it was handed to the lane untried. */
  entry: AttemptEntry | null;
}

/**
 * Inserts the deliveries (of endpoints that still exist: one deleted meanwhile has none to list) and moves
 * the dispatch cursor up to `cursor` if `owner` still holds the lease, in one statement.
 */
export async function writeDispatched(db: SqlRunner, owner: string, cursor: number, rows: readonly DispatchedDelivery[]): Promise<void> {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  await db.$executeRaw`
    WITH v AS (
      SELECT * FROM unnest(${rows.map((r) => r.endpointId)}::uuid[], ${rows.map((r) => r.event.id)}::uuid[], ${rows.map((r) => r.event.type)}::text[],
                           ${rows.map((r) => r.status)}::text[], ${rows.map((r) => r.attempts)}::int[], ${rows.map((r) => iso(r.lastAttemptAt))}::timestamp(3)[],
                           ${rows.map((r) => iso(r.nextAttemptAt))}::timestamp(3)[], ${rows.map((r) => r.statusCode)}::int[], ${rows.map((r) => r.latencyMs)}::int[],
                           ${rows.map((r) => r.response)}::text[], ${rows.map((r) => iso(r.event.occurredAt))}::timestamp(3)[],
                           ${rows.map((r) => JSON.stringify(r.entry ? [r.entry] : []))}::jsonb[])
        AS v("endpointId", "eventId", "eventType", "status", "attempts", "lastAttemptAt", "nextAttemptAt", "statusCode", "latencyMs", "response", "createdAt", "attemptLog")
    ), inserted AS (
      INSERT INTO "WebhookDelivery" ("id", "endpointId", "eventId", "eventType", "status", "attempts", "lastAttemptAt", "nextAttemptAt", "statusCode", "latencyMs", "response", "createdAt", "attemptLog")
      SELECT gen_random_uuid(), v.* FROM v WHERE EXISTS (SELECT 1 FROM "WebhookEndpoint" e WHERE e."id" = v."endpointId")
    )
    UPDATE "WebhookDispatch" SET "cursor" = GREATEST("cursor", ${cursor}::bigint) WHERE "id" = 1 AND "owner" = ${owner}`;
}

// ---- the deliveries lane (webhooks/delivery.ts)

/** A delivery as an attempt needs it: its row, its endpoint's and its event's (null past retention). */
export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  endpointId: string;
  /** The endpoint's owner: whose share of the delivery slots the attempt takes. */
  endpointOrgId: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  eventId: string | null;
  eventType: string | null;
  occurredAt: Date | null;
  orgId: string | null;
  data: unknown;
}

/** The columns of a DeliveryRow, of `d` (the delivery), `e` (its endpoint) and `ev` (its event). */
const DELIVERY_COLUMNS = Prisma.sql`d."id"::text AS "id", d."status", d."attempts",
  e."id"::text AS "endpointId", e."orgId"::text AS "endpointOrgId", e."url", e."enabled", e."secret",
  e."previousSecret", e."previousSecretExpiresAt", e."failingSince",
  ev."id"::text AS "eventId", ev."type" AS "eventType", ev."occurredAt", ev."orgId"::text AS "orgId", ev."data"`;
/** The delivery `d` with its endpoint `e` and its event `ev` (gone past retention). */
const DELIVERY_JOINS = Prisma.sql`JOIN "WebhookEndpoint" e ON e."id" = d."endpointId" LEFT JOIN "Event" ev ON ev."id" = d."eventId"`;

/** The deliveries `ids`, as attempts read them. */
export function deliveryRows(db: SqlRunner, ids: readonly string[]): Promise<DeliveryRow[]> {
  return db.$queryRaw`SELECT ${DELIVERY_COLUMNS} FROM "WebhookDelivery" d ${DELIVERY_JOINS} WHERE d."id" = ANY(${[...ids]}::uuid[])`;
}

/** A delivered attempt's outcome. */
export interface Delivered {
  id: string;
  at: Date;
  statusCode: number;
  latencyMs: number;
  response: string | null;
  entry: AttemptEntry;
}

/** Records delivered attempts, one statement for all of them (each ends its lease). */
export async function recordDelivered(db: SqlRunner, list: readonly Delivered[]): Promise<void> {
  await db.$executeRaw`
    UPDATE "WebhookDelivery" AS d
    SET "status" = 'delivered', "attempts" = d."attempts" + 1, "lastAttemptAt" = v."at", "nextAttemptAt" = NULL, "lockedUntil" = NULL,
        "statusCode" = v."code", "latencyMs" = v."ms", "response" = v."response",
        "attemptLog" = ${withAttempt(Prisma.sql`d."attemptLog"`, Prisma.sql`v."entry"`)}
    FROM unnest(${list.map((x) => x.id)}::uuid[], ${list.map((x) => x.at.toISOString())}::timestamp(3)[], ${list.map((x) => x.statusCode)}::int[],
                ${list.map((x) => x.latencyMs)}::int[], ${list.map((x) => x.response)}::text[], ${list.map((x) => JSON.stringify(x.entry))}::jsonb[])
      AS v("id", "at", "code", "ms", "response", "entry")
    WHERE d."id" = v."id"`;
}

/** What an attempt leaves on its delivery's row. */
export interface AttemptOutcomeRow {
  status: string;
  attempts: number;
  lastAttemptAt: Date;
  /** When it is tried again (pending), else null. */
  nextAttemptAt: Date | null;
  statusCode: number | null;
  latencyMs: number | null;
  /** The first 1 KB of the answer, or the class of error why there was none; null for a private target's answer (never kept). */
  response: string | null;
  /** The attempt as the delivery's log keeps it. */
  entry: AttemptEntry;
}

/** Records one attempt on its delivery, its entry appended to the log, in one statement (ending its lease). */
export async function recordAttempt(db: SqlRunner, id: string, r: AttemptOutcomeRow): Promise<void> {
  await db.$executeRaw`
    UPDATE "WebhookDelivery" SET "status" = ${r.status}, "attempts" = ${r.attempts}::int, "lastAttemptAt" = ${r.lastAttemptAt.toISOString()}::timestamp(3),
      "nextAttemptAt" = ${r.nextAttemptAt?.toISOString() ?? null}::timestamp(3), "statusCode" = ${r.statusCode}::int, "latencyMs" = ${r.latencyMs}::int,
      "response" = ${r.response}, "lockedUntil" = NULL,
      "attemptLog" = ${withAttempt(Prisma.sql`"attemptLog"`, Prisma.sql`${JSON.stringify(r.entry)}::jsonb`)}
    WHERE "id" = ${id}::uuid`;
}

/** A claimed delivery, and how many candidates the fair claim looked at (0 for the plain one). */
export type ClaimedDeliveryRow = DeliveryRow & { candidates: number };

/** Claims up to `limit` pending deliveries due at `now`, oldest first, under a lease until `lockedUntil`. */
export function claimDeliveries(db: SqlRunner, limit: number, now: Date, lockedUntil: Date): Promise<ClaimedDeliveryRow[]> {
  return db.$queryRaw`
    WITH d AS (
      UPDATE "WebhookDelivery" SET "lockedUntil" = ${lockedUntil.toISOString()}::timestamp(3)
      WHERE "id" IN (
        SELECT "id" FROM "WebhookDelivery"
        WHERE "status" = 'pending' AND "nextAttemptAt" <= ${now.toISOString()}::timestamp(3)
          AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${now.toISOString()}::timestamp(3))
        ORDER BY "nextAttemptAt" LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING "id", "status", "attempts", "endpointId", "eventId")
    SELECT ${DELIVERY_COLUMNS}, 0 AS "candidates"
    FROM d ${DELIVERY_JOINS}`;
}

/** What a fair claim may take: the room left per organization and per endpoint (those absent have the full limit). */
export interface FairClaim {
  /** How many due deliveries it looks at. */
  window: number;
  organizations: Map<string, number>;
  endpoints: Map<string, number>;
  limits: { perOrganization: number; perEndpoint: number };
}

/**
 * Claims up to `limit` pending deliveries due at `now` among the first `fair.window`, nothing of an
 * organization or an endpoint without room, within each the room it has left, organizations interleaved
 * (each one's oldest first, then each one's second …).
 */
export function claimDeliveriesFairly(
  db: SqlRunner,
  limit: number,
  now: Date,
  lockedUntil: Date,
  fair: FairClaim,
): Promise<ClaimedDeliveryRow[]> {
  const full = (rooms: Map<string, number>) => [...rooms].filter(([, room]) => room <= 0).map(([id]) => id);
  const open = (rooms: Map<string, number>) => [...rooms].filter(([, room]) => room > 0);
  const orgs = open(fair.organizations);
  const endpoints = open(fair.endpoints);
  const at = now.toISOString();
  return db.$queryRaw`
    WITH c AS (
      SELECT d."id", d."endpointId", e."orgId", d."nextAttemptAt"
      FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
      WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${at}::timestamp(3)
        AND (d."lockedUntil" IS NULL OR d."lockedUntil" <= ${at}::timestamp(3))
        AND e."orgId" <> ALL(${full(fair.organizations)}::uuid[]) AND d."endpointId" <> ALL(${full(fair.endpoints)}::uuid[])
      ORDER BY d."nextAttemptAt" LIMIT ${fair.window}
      FOR UPDATE OF d SKIP LOCKED
    ), r AS (
      SELECT c."id", c."nextAttemptAt",
             row_number() OVER (PARTITION BY c."orgId" ORDER BY c."nextAttemptAt", c."id") AS "nOrg",
             row_number() OVER (PARTITION BY c."endpointId" ORDER BY c."nextAttemptAt", c."id") AS "nEndpoint",
             COALESCE(o."room", ${fair.limits.perOrganization}) AS "orgRoom",
             COALESCE(p."room", ${fair.limits.perEndpoint}) AS "endpointRoom"
      FROM c
      LEFT JOIN unnest(${orgs.map(([id]) => id)}::uuid[], ${orgs.map(([, room]) => room)}::int[]) AS o("orgId", "room")
        ON o."orgId" = c."orgId"
      LEFT JOIN unnest(${endpoints.map(([id]) => id)}::uuid[], ${endpoints.map(([, room]) => room)}::int[]) AS p("endpointId", "room")
        ON p."endpointId" = c."endpointId"
    ), chosen AS (
      SELECT "id" FROM r WHERE "nOrg" <= "orgRoom" AND "nEndpoint" <= "endpointRoom" ORDER BY "nOrg", "nextAttemptAt" LIMIT ${limit}
    ), d AS (
      UPDATE "WebhookDelivery" SET "lockedUntil" = ${lockedUntil.toISOString()}::timestamp(3)
      WHERE "id" IN (SELECT "id" FROM chosen)
      RETURNING "id", "status", "attempts", "endpointId", "eventId")
    SELECT ${DELIVERY_COLUMNS}, (SELECT count(*) FROM c)::int AS "candidates"
    FROM d ${DELIVERY_JOINS}`;
}

/** The events after the dispatch cursor (not handed out yet, whichever instance dispatches), and the oldest one's time. */
export async function undispatchedEvents(db: SqlRunner): Promise<{ count: number; oldest: Date | null } | undefined> {
  const [row] = await db.$queryRaw<{ count: number; oldest: Date | null }[]>`
    SELECT count(*)::int AS "count", min("occurredAt") AS "oldest" FROM "Event"
    WHERE "seq" > COALESCE((SELECT "cursor" FROM "WebhookDispatch" WHERE "id" = 1), 0)`;
  return row;
}
