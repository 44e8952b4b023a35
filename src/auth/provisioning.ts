// Creating credentials (admin command line, demo data). The plaintext key or secret is answered
// once, here, and only its hash is stored.
import type { Prisma } from '../generated/prisma/client.js';
import { isScope, type Scope } from '../domain/access.js';
import type { DomainDeps } from '../domain/deps.js';
import { InvalidInput } from '../domain/errors.js';
import { uuidParam } from '../domain/ids.js';
import { isValidTimezone } from '../domain/localTime.js';
import type { Organization } from '../generated/prisma/client.js';
import { generateApiKey, generateClientId, generateClientSecret, hashSecret } from '../crypto/secrets.js';

// a client or a transaction (the demo data set is written in one)
export async function createApiKey(db: Prisma.TransactionClient, orgId: string, name = 'API key'): Promise<{ id: string; apiKey: string }> {
  const apiKey = generateApiKey();
  const row = await db.apiKey.create({ data: { orgId, name, prefix: apiKey.slice(0, 14), suffix: apiKey.slice(-4), hash: hashSecret(apiKey) } });
  return { id: row.id, apiKey };
}

export async function createOAuthClient(
  db: Prisma.TransactionClient,
  orgId: string,
  scopes: readonly string[],
  name = 'OAuth client',
): Promise<{ id: string; clientId: string; clientSecret: string; scopes: Scope[] }> {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw InvalidInput.of('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  const row = await db.oAuthClient.create({
    data: { orgId, name, clientId, secretHash: hashSecret(clientSecret), scopes: [...scopes] },
  });
  return { id: row.id, clientId, clientSecret, scopes: scopes as Scope[] };
}

/**
 * Credential and organization changes after creation. Each publishes its change, so that the read
 * model of this process forgets the credential at once and every other instance within the second.
 */
export async function revokeApiKey(deps: DomainDeps, id: string): Promise<{ id: string; revokedAt: Date }> {
  const row = await deps.db.apiKey.update({ where: { id: uuidParam('id', id) }, data: { revokedAt: new Date() }, select: { id: true, orgId: true, revokedAt: true } });
  deps.changes.publish({ kind: 'credentials', orgId: row.orgId });
  return { id: row.id, revokedAt: row.revokedAt! };
}

export async function revokeOAuthClient(deps: DomainDeps, clientId: string): Promise<{ clientId: string; revokedAt: Date }> {
  const row = await deps.db.oAuthClient.update({ where: { clientId }, data: { revokedAt: new Date() }, select: { clientId: true, orgId: true, revokedAt: true } });
  deps.changes.publish({ kind: 'credentials', orgId: row.orgId });
  return { clientId: row.clientId, revokedAt: row.revokedAt! };
}

/** Replaces an OAuth client's scopes; tokens already issued carry at most the new ones from now on. */
export async function setOAuthClientScopes(deps: DomainDeps, clientId: string, scopes: readonly string[]): Promise<{ clientId: string; scopes: Scope[] }> {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw InvalidInput.of('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  const row = await deps.db.oAuthClient.update({ where: { clientId }, data: { scopes: [...scopes] }, select: { clientId: true, orgId: true, scopes: true } });
  deps.changes.publish({ kind: 'credentials', orgId: row.orgId });
  return { clientId: row.clientId, scopes: row.scopes as Scope[] };
}

/**
 * Creates an organization; with a parent (an account organization), the parent's credentials reach it
 * at once (reach is read from the child's own record), and the parent's child count is refreshed.
 */
export async function createOrganization(
  deps: DomainDeps,
  input: { name: string; timezone: string; isAccount?: boolean; parentId?: string | null },
): Promise<Organization> {
  if (!isValidTimezone(input.timezone)) throw InvalidInput.of('timezone', `unknown IANA timezone "${input.timezone}"`);
  if (input.parentId) {
    const parent = await deps.db.organization.findUnique({ where: { id: uuidParam('parentId', input.parentId) } });
    if (!parent?.isAccount) throw InvalidInput.of('parentId', 'must name an account organization');
  }
  const org = await deps.db.organization.create({
    data: { name: input.name, timezone: input.timezone, isAccount: input.isAccount ?? false, parentId: input.parentId ?? null },
  });
  if (org.parentId) deps.changes.publish({ kind: 'organization', orgId: org.parentId });
  return org;
}
