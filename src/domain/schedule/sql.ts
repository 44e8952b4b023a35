// Every SQL statement of the schedule context (office hours, special hours, closures, availability.changed);
// the rest of its reads and writes go through Prisma's client. Column lists are written once, here.
import { Prisma } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';
import type { AvailabilityState, Medium, SpecialDayRule } from './availability.js';

// ---- office hours

/** Makes the organization's row for a day if it has none (a closed day), so that it can be locked like any other. */
export function ensureOfficeHoursDay(tx: SqlRunner, orgId: string, dayOfWeek: string, id: string): Promise<number> {
  return tx.$executeRaw`
    INSERT INTO "OfficeHours" ("id", "orgId", "dayOfWeek", "isClosed", "open", "close", "updatedAt")
    VALUES (${id}::uuid, ${orgId}::uuid, ${dayOfWeek}::"DayOfWeek", true, NULL, NULL, now())
    ON CONFLICT ("orgId", "dayOfWeek") DO NOTHING`;
}

/** Locks one day's row for the rest of the transaction; answers its id. */
export function lockOfficeHoursDay(tx: SqlRunner, orgId: string, dayOfWeek: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`
    SELECT "id" FROM "OfficeHours" WHERE "orgId" = ${orgId}::uuid AND "dayOfWeek" = ${dayOfWeek}::"DayOfWeek" FOR UPDATE`;
}

/** Locks every day's row of the organization, in one order (by day), as lockOfficeHoursDay locks one of them. */
export async function lockOfficeHoursWeek(tx: SqlRunner, orgId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "OfficeHours" WHERE "orgId" = ${orgId}::uuid ORDER BY "dayOfWeek" FOR UPDATE`;
}

// ---- special hours

/** A special-hours row as stored: a day's rule with its breaks still JSON. */
export type SpecialHoursRow = Omit<SpecialDayRule, 'breaks'> & { breaks: unknown };
const SPECIAL_HOURS_COLUMNS = Prisma.sql`"id", "date", "description", "isClosed", "open", "close", "breaks"`;

/** Deletes one organization's special-hours day; answers it as it was (none when it is not there). */
export function deleteSpecialHoursRow(tx: SqlRunner, orgId: string, id: string): Promise<SpecialHoursRow[]> {
  return tx.$queryRaw`
    DELETE FROM "SpecialHours" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid RETURNING ${SPECIAL_HOURS_COLUMNS}`;
}

// ---- closures

export type ClosureRow = {
  id: string;
  description: string;
  chatGreeting: string | null;
  phoneGreeting: string | null;
  startAt: Date | null;
  endAt: Date | null;
  annualMonth: number | null;
  annualDay: number | null;
};
const CLOSURE_COLUMNS = Prisma.sql`"id", "description", "chatGreeting", "phoneGreeting", "startAt", "endAt", "annualMonth", "annualDay"`;

/** Locks one organization's closure and reads it (none when it is not there). */
export function lockClosure(tx: SqlRunner, orgId: string, id: string): Promise<ClosureRow[]> {
  return tx.$queryRaw`SELECT ${CLOSURE_COLUMNS} FROM "Closure" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid FOR UPDATE`;
}

/** Deletes one organization's closure; answers it as it was (none when it is not there). */
export function deleteClosureRow(tx: SqlRunner, orgId: string, id: string): Promise<ClosureRow[]> {
  return tx.$queryRaw`DELETE FROM "Closure" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid RETURNING ${CLOSURE_COLUMNS}`;
}

// ---- availability.changed (availabilityEvents.ts)

/** What availability.changed said last, per medium: the state and since when (the start of its interval). */
export type AvailabilityStates = Partial<Record<Medium, { state: AvailabilityState; since: string }>>;

/** Gives every organization without an "AvailabilityStatus" row one, due at `at`, with no states; answers how many. */
export function adoptAvailabilityStatuses(db: SqlRunner, at: Date): Promise<number> {
  return db.$executeRaw`
    INSERT INTO "AvailabilityStatus" ("orgId", "states", "nextCheckAt")
    SELECT o."id", NULL, ${at.toISOString()}::timestamp(3) FROM "Organization" o
    WHERE NOT EXISTS (SELECT 1 FROM "AvailabilityStatus" s WHERE s."orgId" = o."id")
    ON CONFLICT ("orgId") DO NOTHING`;
}

/** Claims up to `limit` rows due at `at` (FOR UPDATE SKIP LOCKED: another instance's look skips them). */
export function claimDueAvailabilityStatuses(
  tx: SqlRunner,
  at: Date,
  limit: number,
): Promise<{ orgId: string; states: AvailabilityStates | null; dueAt: Date }[]> {
  return tx.$queryRaw`
    SELECT "orgId"::text AS "orgId", "states", "nextCheckAt" AS "dueAt" FROM "AvailabilityStatus"
    WHERE "nextCheckAt" <= ${at.toISOString()}::timestamp(3)
    ORDER BY "nextCheckAt" LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`;
}

/** Writes what a look said and when to look again. */
export async function saveAvailabilityStatus(tx: SqlRunner, orgId: string, states: AvailabilityStates, nextCheckAt: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE "AvailabilityStatus" SET "states" = ${JSON.stringify(states)}::jsonb, "nextCheckAt" = ${nextCheckAt.toISOString()}::timestamp(3)
    WHERE "orgId" = ${orgId}::uuid`;
}
