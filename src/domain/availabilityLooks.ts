// The write side of availability.changed (availabilityEvents.ts looks): a write that can change what
// an organization's availability answers asks for a look at once, in the write's own transaction, so
// that a committed change is looked at even if the process dies the next instant. One row per
// organization ("AvailabilityStatus"): asking again while a look is pending changes nothing.
import type { Prisma } from '../generated/prisma/client.js';

/** The event families whose writes can change an organization's availability state. */
export const AVAILABILITY_INPUTS: ReadonlySet<string> = new Set(['office_hours.*', 'special_hours.*', 'closure.*']);

/**
 * Asks for a look at `orgId`'s availability at `now` (or keeps an earlier one). An organization never
 * looked at gets an empty record: what it said last is then taken as CLOSED, what an organization
 * without hours answers (availabilityEvents.ts).
 */
export async function requestAvailabilityLook(tx: Pick<Prisma.TransactionClient, '$executeRaw'>, orgId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await tx.$executeRaw`
    INSERT INTO "AvailabilityStatus" ("orgId", "states", "nextCheckAt") VALUES (${orgId}::uuid, '{}'::jsonb, ${at}::timestamp(3))
    ON CONFLICT ("orgId") DO UPDATE SET "nextCheckAt" = LEAST("AvailabilityStatus"."nextCheckAt", EXCLUDED."nextCheckAt")`;
}
