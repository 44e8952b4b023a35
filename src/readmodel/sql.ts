// The read model's statements: each kind of record loaded in ONE statement for any number of keys
// (loaders.ts turns the rows into records).
import type { SqlRunner } from '../db/sql.js';
import { ORGANIZATION_COLUMNS } from '../domain/organizations/sql.js';
import { CHILD_IDS_LIMIT, type OrganizationRecord } from '../domain/shared/readModel.js';

/** Organizations with their child count and first CHILD_IDS_LIMIT child ids (an organization without children reads no array). */
export function organizationRows(
  db: SqlRunner,
  ids: readonly string[],
): Promise<(Omit<OrganizationRecord, 'firstChildIds'> & { firstChildIds: string[] | null })[]> {
  return db.$queryRaw`
    SELECT ${ORGANIZATION_COLUMNS},
           -- only an account organization has children (a parent must be one): a location reads none, since with
           -- one account holding most rows the planner's estimate for "parentId" = x would scan the whole table
           COALESCE(k."childCount", 0) AS "childCount", COALESCE(k."archivedChildCount", 0) AS "archivedChildCount",
           CASE WHEN o."isAccount" THEN ARRAY(SELECT c."id"::text FROM "Organization" c WHERE c."parentId" = o."id" AND c."archivedAt" IS NULL
             ORDER BY c."createdAt", c."id" LIMIT ${CHILD_IDS_LIMIT}) END AS "firstChildIds"
    FROM "Organization" o
    -- the active and archived children counted in one pass
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE c."archivedAt" IS NULL)::int AS "childCount", count(*) FILTER (WHERE c."archivedAt" IS NOT NULL)::int AS "archivedChildCount"
      FROM "Organization" c WHERE o."isAccount" AND c."parentId" = o."id"
    ) k ON true
    WHERE o."id" = ANY(${[...ids]}::uuid[])`;
}

/** An organization's schedule as one row: each part a JSON array (parsed by some drivers, text from others). */
export interface ScheduleRow {
  orgId: string;
  timezone: string;
  officeHours: unknown;
  closures: unknown;
  specialHours: unknown;
  templates: unknown;
  phoneNumbers: unknown;
}

/**
 * The schedules of several organizations in one statement: the timed closures that end after
 * `closuresEndingAfter` (with every annual one), the special hours dated `specialFrom` or later.
 */
export function scheduleRows(
  db: SqlRunner,
  orgIds: readonly string[],
  closuresEndingAfter: Date,
  specialFrom: string,
): Promise<ScheduleRow[]> {
  return db.$queryRaw`
    SELECT o."id"::text AS "orgId", o."timezone",
      COALESCE((SELECT json_agg(json_build_object(
          'dayOfWeek', h."dayOfWeek", 'isClosed', h."isClosed", 'open', h."open", 'close', h."close",
          'breaks', COALESCE((SELECT json_agg(json_build_object('start', b."start", 'end', b."end", 'reason', b."reason", 'greeting', b."greeting"))
                              FROM "OfficeBreak" b WHERE b."officeHoursId" = h."id"), '[]'::json)))
        FROM "OfficeHours" h WHERE h."orgId" = o."id"), '[]'::json) AS "officeHours",
      COALESCE((SELECT json_agg(json_build_object(
          'id', c."id", 'description', c."description", 'createdAt', c."createdAt", 'startAt', c."startAt", 'endAt', c."endAt",
          'annualMonth', c."annualMonth", 'annualDay', c."annualDay", 'chatGreeting', c."chatGreeting", 'phoneGreeting', c."phoneGreeting"))
        FROM "Closure" c WHERE c."orgId" = o."id" AND (c."endAt" IS NULL OR c."endAt" > ${closuresEndingAfter})), '[]'::json) AS "closures",
      COALESCE((SELECT json_agg(json_build_object(
          'id', s."id", 'date', s."date", 'description', s."description", 'isClosed', s."isClosed", 'open', s."open", 'close', s."close", 'breaks', s."breaks"))
        FROM "SpecialHours" s WHERE s."orgId" = o."id" AND s."date" >= ${specialFrom}), '[]'::json) AS "specialHours",
      COALESCE((SELECT json_agg(json_build_object(
          'id', t."id", 'name', t."name", 'applicableMediums', t."applicableMediums", 'officeHoursAvailability', t."officeHoursAvailability")
          ORDER BY t."createdAt", t."id")
        FROM "WorkflowTemplate" t WHERE t."orgId" = o."id"), '[]'::json) AS "templates",
      COALESCE((SELECT json_agg(json_build_object('id', p."id", 'customGreeting', p."customGreeting", 'customClosedGreeting', p."customClosedGreeting"))
        FROM "PhoneNumber" p WHERE p."orgId" = o."id"), '[]'::json) AS "phoneNumbers"
    FROM "Organization" o
    WHERE o."id" = ANY(${[...orgIds]}::uuid[])`;
}
