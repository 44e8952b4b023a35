// Creating credentials (admin command line, demo data). The plaintext key or secret is answered
// once, here, and only its hash is stored.
import type { Prisma } from '../generated/prisma/client.js';
import { isScope, type Scope } from '../domain/shared/access.js';
import type { DomainDeps } from '../domain/shared/deps.js';
import { InvalidInput } from '../domain/shared/errors.js';
import { uuidParam } from '../domain/shared/ids.js';
import { isValidTimezone } from '../domain/shared/localTime.js';
import type { Bot, Organization } from '../generated/prisma/client.js';
import { apiKeyView } from '../domain/credentials/apiKeys.js';
import { ADMIN_ACTOR, recordEvent } from '../domain/events/log.js';
import { clientView } from '../domain/credentials/oauthClients.js';
import { botView } from '../domain/catalog/bots.js';
import { generateApiKey, generateClientId, generateClientSecret, hashSecret } from '../crypto/secrets.js';

// a client or a transaction (the demo data set is written in one)
export async function createApiKey(db: Prisma.TransactionClient, orgId: string, name = 'API key'): Promise<{ id: string; apiKey: string }> {
  const apiKey = generateApiKey();
  const row = await db.apiKey.create({
    data: { orgId, name, prefix: apiKey.slice(0, 14), suffix: apiKey.slice(-4), hash: hashSecret(apiKey) },
  });
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
 * The admin command line's changes (admin/commands.ts). Each runs in one transaction with its event, whose
 * actor is the admin command line (the audit trail names who changed what), and publishes its change, so that
 * the read model of this process forgets the credential at once; every other instance reads the event from the
 * log (at once when this process's notice reaches it, else at its next poll, within the second).
 */
export async function adminCreateApiKey(deps: DomainDeps, orgId: string, name: string): Promise<{ id: string; apiKey: string }> {
  return deps.db.$transaction(async (tx) => {
    const key = await createApiKey(tx, uuidParam('org', orgId), name);
    const row = await tx.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'api_key.created',
      orgId: row.orgId,
      subject: { type: 'api_key', id: row.id },
      data: apiKeyView(row, deps),
    });
    return key;
  });
}

export async function adminCreateOAuthClient(
  deps: DomainDeps,
  orgId: string,
  scopes: readonly string[],
  name: string,
): Promise<{ id: string; clientId: string; clientSecret: string; scopes: Scope[] }> {
  return deps.db.$transaction(async (tx) => {
    const client = await createOAuthClient(tx, uuidParam('org', orgId), scopes, name);
    const row = await tx.oAuthClient.findUniqueOrThrow({ where: { id: client.id } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'oauth_client.created',
      orgId: row.orgId,
      subject: { type: 'oauth_client', id: row.id },
      data: clientView(row, deps.clock()),
    });
    return client;
  });
}

export async function revokeApiKey(deps: DomainDeps, id: string): Promise<{ id: string; revokedAt: Date }> {
  const row = await deps.db.$transaction(async (tx) => {
    const revoked = await tx.apiKey.update({ where: { id: uuidParam('id', id) }, data: { revokedAt: deps.clock() } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'api_key.revoked',
      orgId: revoked.orgId,
      subject: { type: 'api_key', id: revoked.id },
      data: apiKeyView(revoked, deps),
    });
    return revoked;
  });
  deps.changes.publish({ kind: 'credentials', orgId: row.orgId });
  return { id: row.id, revokedAt: row.revokedAt! };
}

export async function revokeOAuthClient(deps: DomainDeps, clientId: string): Promise<{ clientId: string; revokedAt: Date }> {
  const row = await deps.db.$transaction(async (tx) => {
    const revoked = await tx.oAuthClient.update({ where: { clientId }, data: { revokedAt: deps.clock() } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'oauth_client.revoked',
      orgId: revoked.orgId,
      subject: { type: 'oauth_client', id: revoked.id },
      data: clientView(revoked, deps.clock()),
    });
    return revoked;
  });
  deps.changes.publish({ kind: 'credentials', orgId: row.orgId });
  return { clientId: row.clientId, revokedAt: row.revokedAt! };
}

/** Replaces an OAuth client's scopes; tokens already issued carry at most the new ones from now on. */
export async function setOAuthClientScopes(
  deps: DomainDeps,
  clientId: string,
  scopes: readonly string[],
): Promise<{ clientId: string; scopes: Scope[] }> {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw InvalidInput.of('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  const row = await deps.db.$transaction(async (tx) => {
    const before = await tx.oAuthClient.findUniqueOrThrow({ where: { clientId }, select: { scopes: true } });
    const changed = await tx.oAuthClient.update({ where: { clientId }, data: { scopes: [...scopes] } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'oauth_client.scopes_changed',
      orgId: changed.orgId,
      subject: { type: 'oauth_client', id: changed.id },
      data: clientView(changed, deps.clock()),
      previous: { scopes: before.scopes },
    });
    return changed;
  });
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
  const org = await deps.db.$transaction(async (tx) => {
    const created = await tx.organization.create({
      data: { name: input.name, timezone: input.timezone, isAccount: input.isAccount ?? false, parentId: input.parentId ?? null },
    });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'organization.created',
      orgId: created.id,
      subject: { type: 'organization', id: created.id },
      data: organizationCreatedView(created),
    });
    return created;
  });
  if (org.parentId) deps.changes.publish({ kind: 'organization', orgId: org.parentId });
  return org;
}

/** A bot of an organization, made with the admin command line. */
export async function adminCreateBot(deps: DomainDeps, orgId: string, name: string): Promise<Bot> {
  return deps.db.$transaction(async (tx) => {
    const bot = await tx.bot.create({ data: { orgId: uuidParam('org', orgId), name } });
    await recordEvent(tx, deps, ADMIN_ACTOR, {
      type: 'bot.created',
      orgId: bot.orgId,
      subject: { type: 'bot', id: bot.id },
      data: { ...botView(bot), workflows: 0 },
    });
    return bot;
  });
}

/** The organization as its creation event records it (no caller's reach applies to the admin). */
function organizationCreatedView(org: Organization) {
  return {
    id: org.id,
    name: org.name,
    timezone: org.timezone,
    isAccount: org.isAccount,
    communicationsEnabled: org.communicationsEnabled,
    parentId: org.parentId,
    createdAt: org.createdAt.toISOString(),
    updatedAt: org.updatedAt.toISOString(),
  };
}
