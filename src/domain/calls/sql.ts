// SQL statements of the calls context written for the calling policy (issue 34): the claim under the
// organization family's capacity, its lock, and the counts the capacity is answered from.
import { Prisma } from '../../generated/prisma/client.js';

type Runner = Pick<Prisma.TransactionClient, '$queryRaw' | '$executeRaw'>;

const at = (d: Date) => d.toISOString();

/** An integer larger than any cap (a family whose account sets none is bounded per location only). */
const UNBOUNDED = 2_147_483_647;

/**
 * Serializes the claims of one organization family (an account and its locations, or one organization
 * alone) until the transaction ends, so that the calls in progress a claim counts are all there are.
 * Claims of other families do not wait.
 */
export async function lockCallCapacity(tx: Runner, rootId: string): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`call-capacity:${rootId}`}, 0))::text AS "locked"`;
}

/** Queued requests due now, grouped by organization and callee zone (the calling windows are checked per group). */
export function dueWindowGroups(
  db: Runner,
  scope: Prisma.Sql,
  now: Date,
): Promise<{ orgId: string; parentId: string | null; orgTimezone: string; zone: string }[]> {
  return db.$queryRaw`
    SELECT DISTINCT c."orgId"::text AS "orgId", o."parentId"::text AS "parentId", o."timezone" AS "orgTimezone",
      COALESCE(c."calleeTimezone", o."timezone") AS "zone"
    FROM "CallRequest" c JOIN "Organization" o ON o."id" = c."orgId"
    WHERE c."status" = 'queued' AND c."dueAt" <= ${at(now)}::timestamp(3) AND c."expiresAt" > ${at(now)}::timestamp(3) AND ${scope}`;
}

/**
 * Claims up to `max` due requests of the organizations in `scope` (all of family `rootId`) within
 * capacity, in one statement run under lockCallCapacity: per organization its cap (its own policy's
 * `maxConcurrentCalls`; none when only its account sets one; the default when neither does) less its
 * calls in progress, and over the family the account's cap less the family's calls in progress.
 */
export function claimWithinCapacity(
  tx: Runner,
  args: { rootId: string; scope: Prisma.Sql; now: Date; leaseUntil: Date; max: number; defaultCap: number },
): Promise<{ id: string }[]> {
  const { rootId, scope, now, leaseUntil, max, defaultCap } = args;
  return tx.$queryRaw`
    WITH family AS (
      SELECT o."id", o."parentId" FROM "Organization" o WHERE o."id" = ${rootId}::uuid OR o."parentId" = ${rootId}::uuid
    ), busy AS (
      SELECT c."orgId", count(*)::int AS n FROM "CallRequest" c
      WHERE c."status" = 'in_progress' AND c."orgId" IN (SELECT "id" FROM family) GROUP BY c."orgId"
    ), caps AS (
      SELECT f."id" AS "orgId", COALESCE(p."maxConcurrentCalls", CASE WHEN ap."orgId" IS NULL THEN ${defaultCap}::int END) AS cap
      FROM family f LEFT JOIN "CallingPolicy" p ON p."orgId" = f."id" LEFT JOIN "CallingPolicy" ap ON ap."orgId" = f."parentId"
    ), family_free AS (
      SELECT COALESCE((SELECT p."maxConcurrentCalls" FROM "CallingPolicy" p WHERE p."orgId" = ${rootId}::uuid), ${UNBOUNDED}::int)
        - COALESCE((SELECT sum(n) FROM busy), 0)::int AS free
    ), candidates AS (
      SELECT c."id", c."dueAt", k.cap, k.cap - COALESCE(b.n, 0) AS free,
        row_number() OVER (PARTITION BY c."orgId" ORDER BY c."dueAt", c."id") AS rank
      FROM "CallRequest" c JOIN caps k ON k."orgId" = c."orgId" LEFT JOIN busy b ON b."orgId" = c."orgId"
      WHERE c."status" = 'queued' AND c."dueAt" <= ${at(now)}::timestamp(3) AND c."expiresAt" > ${at(now)}::timestamp(3)
        AND ${scope}
        AND EXISTS (SELECT 1 FROM "Organization" o WHERE o."id" = c."orgId" AND o."communicationsEnabled")
    )
    UPDATE "CallRequest" SET "status" = 'in_progress', "leaseId" = gen_random_uuid(), "leaseUntil" = ${at(leaseUntil)}::timestamp(3),
      "attempts" = "attempts" + 1
    WHERE "id" IN (
      SELECT "id" FROM candidates WHERE cap IS NULL OR rank <= free ORDER BY "dueAt", "id"
      LIMIT GREATEST(0, LEAST(${max}::int, (SELECT free FROM family_free))))
      AND "status" = 'queued'
    RETURNING "id"::text AS "id"`;
}

/** Calls in progress and queued requests due now, per organization of the family `rootId`. */
export function capacityCounts(db: Runner, rootId: string, now: Date): Promise<{ orgId: string; inProgress: number; queuedDue: number }[]> {
  return db.$queryRaw`
    SELECT c."orgId"::text AS "orgId",
      count(*) FILTER (WHERE c."status" = 'in_progress')::int AS "inProgress",
      count(*) FILTER (WHERE c."status" = 'queued' AND c."dueAt" <= ${at(now)}::timestamp(3) AND c."expiresAt" > ${at(now)}::timestamp(3))::int AS "queuedDue"
    FROM "CallRequest" c
    WHERE c."orgId" IN (SELECT o."id" FROM "Organization" o WHERE o."id" = ${rootId}::uuid OR o."parentId" = ${rootId}::uuid)
      AND c."status" IN ('in_progress', 'queued')
    GROUP BY c."orgId"`;
}
