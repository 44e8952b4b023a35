// Every SQL statement of the credentials context; the rest of its reads and writes go through Prisma's client.
import type { SqlRunner } from '../../db/sql.js';

/** Locks an API key that is not revoked; answers its id (none when it is revoked or not there). */
export function lockLiveApiKey(tx: SqlRunner, id: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`SELECT "id" FROM "ApiKey" WHERE "id" = ${id}::uuid AND "revokedAt" IS NULL FOR UPDATE`;
}

/** Locks an OAuth client that is not revoked; answers its id (none when it is revoked or not there). */
export function lockLiveOAuthClient(tx: SqlRunner, id: string): Promise<{ id: string }[]> {
  return tx.$queryRaw`SELECT "id" FROM "OAuthClient" WHERE "id" = ${id}::uuid AND "revokedAt" IS NULL FOR UPDATE`;
}
