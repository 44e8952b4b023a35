// How the read model fills itself: each kind of record in ONE statement for any number of keys, so that
// a cold cache costs a constant number of round trips however many organizations an operation touches.
import {
  compileSchedule,
  type ClosureRule,
  type DayOfWeek,
  type DaySchedule,
  type Medium,
  type PhoneGreetings,
  type SpecialDayRule,
  type TemplateRule,
} from '../domain/schedule/availability.js';
import { minutesOf } from '../domain/shared/timeFormats.js';
import type { Db } from '../db/client.js';
import { type ApiKeyRecord, CHILD_IDS_LIMIT, type OAuthClientRecord, type OrganizationRecord } from '../domain/shared/readModel.js';
import type { OrgSchedule } from '../domain/schedule/records.js';

/** JSON values come back parsed from some drivers and as text from others. */
function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A `timestamp(3)` (stored in UTC, without zone) as json_build_object writes it: "2026-03-10T13:00:00.123". */
function utc(value: string | null): Date | null {
  return value === null ? null : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
}

/**
 * Organizations with their child count and first CHILD_IDS_LIMIT child ids: a record's size and its
 * load time do not grow with an account's number of locations (the index on (parentId, createdAt, id)
 * counts them and reads the first ones without a sort).
 */
export async function loadOrganizations(db: Db, ids: readonly string[]): Promise<Map<string, OrganizationRecord>> {
  // the record's own fields, as the row gives them (an organization without children reads no array)
  const rows = await db.$queryRaw<(Omit<OrganizationRecord, 'firstChildIds'> & { firstChildIds: string[] | null })[]>`
    SELECT o."id"::text AS "id", o."name", o."timezone", o."isAccount", o."communicationsEnabled", o."parentId"::text AS "parentId",
           -- only an account organization has children (a parent must be one): a location reads none, since with
           -- one account holding most rows the planner's estimate for "parentId" = x would scan the whole table
           CASE WHEN o."isAccount" THEN (SELECT count(*)::int FROM "Organization" c WHERE c."parentId" = o."id") ELSE 0 END AS "childCount",
           CASE WHEN o."isAccount" THEN ARRAY(SELECT c."id"::text FROM "Organization" c WHERE c."parentId" = o."id" ORDER BY c."createdAt", c."id" LIMIT ${CHILD_IDS_LIMIT}) END AS "firstChildIds",
           o."createdAt", o."updatedAt"
    FROM "Organization" o
    WHERE o."id" = ANY(${[...ids]}::uuid[])`;
  return new Map(rows.map((r) => [r.id, { ...r, childCount: Number(r.childCount), firstChildIds: r.firstChildIds ?? [] }]));
}

export async function loadApiKeys(db: Db, hashes: readonly string[]): Promise<Map<string, ApiKeyRecord>> {
  const rows = await db.apiKey.findMany({
    where: { hash: { in: [...hashes] } },
    select: { id: true, orgId: true, name: true, hash: true, revokedAt: true, restricted: true, scopes: true, expiresAt: true },
  });
  return new Map(
    rows.map((r) => [
      r.hash,
      {
        id: r.id,
        orgId: r.orgId,
        name: r.name,
        hash: r.hash,
        revoked: r.revokedAt !== null,
        scopes: r.restricted ? r.scopes : null,
        expiresAtMs: r.expiresAt?.getTime() ?? null,
      },
    ]),
  );
}

export async function loadOAuthClients(db: Db, clientIds: readonly string[]): Promise<Map<string, OAuthClientRecord>> {
  const rows = await db.oAuthClient.findMany({
    where: { clientId: { in: [...clientIds] } },
    select: { id: true, clientId: true, name: true, orgId: true, scopes: true, revokedAt: true },
  });
  return new Map(
    rows.map((r) => [
      r.clientId,
      { id: r.id, clientId: r.clientId, name: r.name, orgId: r.orgId, scopes: r.scopes, revoked: r.revokedAt !== null },
    ]),
  );
}

interface ScheduleRow {
  orgId: string;
  timezone: string;
  officeHours: unknown;
  closures: unknown;
  specialHours: unknown;
  templates: unknown;
  phoneNumbers: unknown;
}

type ClosureJson = Omit<ClosureRule, 'createdAt' | 'startAt' | 'endAt'> & {
  createdAt: string;
  startAt: string | null;
  endAt: string | null;
};

/**
 * The schedules of several organizations in one statement. Only the timed closures that end after
 * `closuresEndingAfter` are read (with every annual one): those are all that can apply from then on, so
 * an organization with years of past closures costs what one with none costs. Special hours likewise: only
 * those dated from the day before that instant's UTC date on (no zone's local date is earlier).
 */
export async function loadSchedules(db: Db, orgIds: readonly string[], closuresEndingAfter: Date): Promise<Map<string, OrgSchedule>> {
  const specialFrom = new Date(closuresEndingAfter.getTime() - 86_400_000).toISOString().slice(0, 10);
  const rows = await db.$queryRaw<ScheduleRow[]>`
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
  const schedules = new Map<string, OrgSchedule>();
  for (const row of rows) {
    const officeHours = json<DaySchedule[]>(row.officeHours).map((day) => ({
      ...day,
      dayOfWeek: day.dayOfWeek as DayOfWeek,
      breaks: [...day.breaks].sort((a, b) => minutesOf(a.start) - minutesOf(b.start)),
    }));
    const closures: ClosureRule[] = json<ClosureJson[]>(row.closures).map((c) => ({
      ...c,
      createdAt: utc(c.createdAt)!,
      startAt: utc(c.startAt),
      endAt: utc(c.endAt),
    }));
    const specialHours = json<SpecialDayRule[]>(row.specialHours).map((day) => ({
      ...day,
      breaks: [...json<SpecialDayRule['breaks']>(day.breaks)].sort((a, b) => minutesOf(a.start) - minutesOf(b.start)),
    }));
    const templates = json<
      { id: string; name: string; applicableMediums: Medium[] | null; officeHoursAvailability: 'OPEN' | 'CLOSED' | null }[]
    >(row.templates).map((t): TemplateRule => ({
      id: t.id,
      name: t.name,
      applicableMediums: t.applicableMediums ?? [],
      officeHoursAvailability: t.officeHoursAvailability,
    }));
    const phones = json<({ id: string } & PhoneGreetings)[]>(row.phoneNumbers);
    schedules.set(row.orgId, {
      orgId: row.orgId,
      timezone: row.timezone,
      officeHours,
      compiled: compileSchedule({ timezone: row.timezone, officeHours, specialHours, closures }),
      validFromMs: closuresEndingAfter.getTime(),
      templates,
      phoneGreetings: new Map(
        phones.map((p) => [p.id, { customGreeting: p.customGreeting, customClosedGreeting: p.customClosedGreeting }]),
      ),
      answers: new Map(),
    });
  }
  return schedules;
}
