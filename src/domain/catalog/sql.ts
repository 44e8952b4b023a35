// Every SQL statement of the catalog context (bots, templates, workflows, phone numbers, insurances); the rest
// of its reads and writes go through Prisma's client.
import { type Bot, type Insurance, type PhoneNumber, Prisma } from '../../generated/prisma/client.js';
import type { SqlRunner } from '../../db/sql.js';

/** A row's organization and that organization's parent: reach is decided from them in the statement that locks the row. */
export type OwnedRow = { orgId: string; parentId: string | null };

/** Share-locks a bot (it cannot move or vanish until the transaction ends) and answers its organization and that one's parent. */
export function lockBotForShare(tx: SqlRunner, botId: string): Promise<(OwnedRow & { id: string })[]> {
  return tx.$queryRaw`
    SELECT b."id", b."orgId"::text AS "orgId", o."parentId"::text AS "parentId"
    FROM "Bot" b JOIN "Organization" o ON o."id" = b."orgId" WHERE b."id" = ${botId}::uuid FOR SHARE OF b`;
}

/**
 * A bot with its organization's parent (none when it is not there): reach is decided from them. `lock`: the bot's
 * row locked (FOR UPDATE) until the transaction ends.
 */
export function botWithParent(db: SqlRunner, botId: string, lock = false): Promise<(Bot & { parentId: string | null })[]> {
  return db.$queryRaw`
    SELECT b.*, o."parentId"::text AS "parentId"
    FROM "Bot" b JOIN "Organization" o ON o."id" = b."orgId" WHERE b."id" = ${botId}::uuid ${lock ? Prisma.sql`FOR UPDATE OF b` : Prisma.empty}`;
}

/**
 * A bot's call requests queued or in progress, locked (a claim passes over them until the transaction ends;
 * one a claim holds is waited for, so that what is counted is what the claim left), oldest first.
 */
export function lockLiveCallsOfBot(tx: SqlRunner, orgId: string, botId: string): Promise<{ id: string }[]> {
  // the organization's pending requests by its (orgId, status) index; a bot's calls are its organization's
  return tx.$queryRaw`
    SELECT "id"::text AS "id" FROM "CallRequest" WHERE "orgId" = ${orgId}::uuid AND "status" IN ('queued', 'in_progress') AND "botId" = ${botId}::uuid
    ORDER BY "createdAt", "id" FOR UPDATE`;
}

/** The bots created from a template (at most `limit`, oldest first): a template in use is not deleted. */
export function botsOfTemplate(tx: SqlRunner, templateId: string, limit: number): Promise<{ id: string; name: string }[]> {
  return tx.$queryRaw`
    SELECT "id"::text AS "id", "name" FROM "Bot" WHERE "templateId" = ${templateId}::uuid ORDER BY "createdAt", "id" LIMIT ${limit}::int`;
}

/** A phone number's organization, that one's parent, and its bot. */
export function phoneNumberOwner(tx: SqlRunner, phoneNumberId: string): Promise<(OwnedRow & { botId: string | null })[]> {
  return tx.$queryRaw`
    SELECT p."orgId"::text AS "orgId", o."parentId"::text AS "parentId", p."botId"::text AS "botId"
    FROM "PhoneNumber" p JOIN "Organization" o ON o."id" = p."orgId" WHERE p."id" = ${phoneNumberId}::uuid`;
}

/** A phone number with its organization's parent (none when it is not there): reach is decided from them. */
export function phoneNumberWithParent(db: SqlRunner, phoneNumberId: string): Promise<(PhoneNumber & { parentId: string | null })[]> {
  return db.$queryRaw`
    SELECT p.*, o."parentId"::text AS "parentId"
    FROM "PhoneNumber" p JOIN "Organization" o ON o."id" = p."orgId" WHERE p."id" = ${phoneNumberId}::uuid`;
}

/** The same, the phone number's row locked (FOR UPDATE) until the transaction ends. */
export function lockPhoneNumber(tx: SqlRunner, phoneNumberId: string): Promise<(PhoneNumber & { parentId: string | null })[]> {
  return tx.$queryRaw`
    SELECT p.*, o."parentId"::text AS "parentId"
    FROM "PhoneNumber" p JOIN "Organization" o ON o."id" = p."orgId" WHERE p."id" = ${phoneNumberId}::uuid FOR UPDATE OF p`;
}

/** How many call requests are queued or in progress with this number as their caller id. */
export function liveCallsUsingNumber(tx: SqlRunner, phoneNumberId: string): Promise<{ live: number }[]> {
  return tx.$queryRaw`
    SELECT count(*)::int AS "live" FROM "CallRequest"
    WHERE "phoneNumberId" = ${phoneNumberId}::uuid AND "status" IN ('queued', 'in_progress')`;
}

/** Locks one organization's template; answers its id (none when it is not there). */
export function lockTemplate(tx: SqlRunner, orgId: string, id: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`SELECT id FROM "WorkflowTemplate" WHERE id = ${id}::uuid AND "orgId" = ${orgId}::uuid FOR UPDATE`;
}

/** Locks one organization's insurance and reads it (none when it is not there). */
export function lockInsurance(tx: SqlRunner, orgId: string, id: string): Promise<Insurance[]> {
  return tx.$queryRaw`SELECT * FROM "Insurance" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid FOR UPDATE`;
}

/** Deletes one organization's insurance and answers it as it was (none when it is not there). */
export function deleteInsuranceRow(tx: SqlRunner, orgId: string, id: string): Promise<Insurance[]> {
  return tx.$queryRaw`DELETE FROM "Insurance" WHERE "id" = ${id}::uuid AND "orgId" = ${orgId}::uuid RETURNING *`;
}
