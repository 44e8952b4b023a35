// API keys through the API (/v1/api-keys and the GraphQL twins, docs/decisions.md §2): create, list, roll,
// revoke. Scope credentials:write, and a credential grants only what it holds (credentialGrants.ts): a
// restricted key makes, rolls and revokes only keys within its own scopes, and only a full key makes or
// manages a full key. An account organization manages its children's keys (reach, access.ts); another
// tenant's key is a 404 like a missing one. At most LIST_LIMITS.apiKeys live keys per organization,
// counted under the organization's lock (listLimits.ts).
// The key is answered once and only its SHA-256 is stored, with its first and last four random
// characters for the masked form. A revoke or roll reaches every instance's read model through the
// change feed; each change is one event (without the key).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { instantInputSchema } from '../shared/timeFormats.js';
import { generateApiKey, hashSecret } from '../../crypto/secrets.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { type Actor, assertReach, isScope, SCOPES, type Scope } from '../shared/access.js';
import { FULL_GRANT, type Grant, requireCredentialsWrite, requireMayGrant, requireMayManage } from './credentialGrants.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { absentToUndefined } from '../shared/inputParams.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, LIST_LIMITS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { type SecretAnswerType, secretFields, showOnce, type WithSecret } from '../shared/shownOnce.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { lockLiveApiKey } from './sql.js';

/** How long a rolled key (or a rotated OAuth client secret) may keep working at most. */
export const MAX_ROLL_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
const KEY_BODY_START = 'svc-sk-v2-'.length;

export interface ApiKeyView {
  id: string;
  orgId: string;
  name: string;
  /** `svc-sk-v2-AbCd…wXyZ`: enough to tell keys apart, useless to authenticate. */
  masked: string;
  /** The scopes the key holds; every scope for a full key. */
  scopes: Scope[];
  /** False for a full key (every scope, including those added later). */
  restricted: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}
export type ApiKeyWithSecret = WithSecret<ApiKeyView, 'apiKey'>;

const apiKeyFields = {
  id: z.uuid(),
  orgId: z.uuid().describe('The organization the key acts for.'),
  name: z.string(),
  masked: z.string().describe('The key with its middle hidden (`svc-sk-v2-AbCd…wXyZ`); the key itself is never stored.'),
  scopes: z.array(z.enum(SCOPES)).describe('What the key may do; every scope for a full key.'),
  restricted: z
    .boolean()
    .describe('True when the key holds only `scopes`; false for a full key (every scope, including ones added later).'),
  createdAt: instantView(),
  lastUsedAt: instantView().nullable().describe('When the key last authenticated a request (recorded within a minute); null when never.'),
  expiresAt: instantView().nullable().describe('From this instant the key answers 401; null when it does not expire.'),
  revokedAt: instantView().nullable(),
};
export const apiKeyResponse = viewSchema<ApiKeyView>()(z.object(apiKeyFields).meta({ id: 'ApiKey' }));
export const apiKeyWithSecretResponse = viewSchema<ApiKeyWithSecret>()(
  z
    .object({ ...apiKeyFields, ...secretFields('apiKey', 'The key (`svc-sk-v2-…`)') })
    .meta({ id: 'ApiKeyWithSecret' satisfies SecretAnswerType }),
);
export const apiKeyListResponse = viewSchema<{ apiKeys: ApiKeyView[] }>()(
  z.object({ apiKeys: z.array(apiKeyResponse).describe('Newest first; revoked and expired keys are not listed.') }),
);

export const absent = (v: unknown) => (v === null ? undefined : v);
export const instantInput = instantInputSchema('must be an ISO 8601 instant such as 2026-12-01T00:00:00Z');
export const scopesInput = z
  .array(z.string(), { error: 'must be a list of scopes' })
  .min(1, { error: 'must name at least one scope' })
  .max(SCOPES.length * 2, { error: 'lists too many scopes' })
  .superRefine((scopes, ctx) => {
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown scope(s): ${unknown.map((s) => s.slice(0, 40)).join(', ')}` });
  });

export const createApiKeyInput = z.strictObject({
  name: z
    .string({ error: 'is required (a name to tell the key apart)' })
    .trim()
    .min(1, { error: 'must not be blank' })
    .max(100, { error: 'must be at most 100 characters' }),
  scopes: z
    .preprocess(absent, scopesInput.optional())
    .describe(
      "A restricted key holds only these (at most the creating credential's own); " +
        'omitted: a full key (every scope, including ones added later), which only a full key may create.',
    ),
  expiresAt: z.preprocess(absent, instantInput.optional()).describe('From this instant the key answers 401; omitted: it does not expire.'),
  orgId: z
    .preprocess(absent, z.string().optional())
    .describe("The organization the key acts for: the caller's own (default) or, for an account, a child."),
});
export const rollApiKeyInput = z.strictObject({
  expiresAt: z
    .preprocess(absent, instantInput.optional())
    .describe('Until when the old key keeps working: now (the default) up to 7 days ahead.'),
});
export const emptyApiKeyInput = z.strictObject({});
export const listApiKeysInput = z.strictObject({
  orgId: z
    .preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional())
    .describe("Whose keys: the caller's own organization (default) or, for an account, a child."),
});

export function maskedKey(prefix: string, suffix: string): string {
  return `${prefix}…${suffix}`;
}

export function apiKeyView(row: ApiKey, deps: Pick<DomainDeps, 'keyUsage'>): ApiKeyView {
  const pending = deps.keyUsage?.pendingUse(row.id) ?? null;
  const lastUsed = pending && (!row.lastUsedAt || pending > row.lastUsedAt) ? pending : row.lastUsedAt;
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    masked: maskedKey(row.prefix, row.suffix),
    scopes: row.restricted ? row.scopes.filter(isScope) : [...SCOPES],
    restricted: row.restricted,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: lastUsed?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** The key's stored parts: its hash, and its first and last four random characters for the mask. */
function newKeyData(): { apiKey: string; prefix: string; suffix: string; hash: string } {
  const apiKey = generateApiKey();
  return { apiKey, prefix: apiKey.slice(0, KEY_BODY_START + 4), suffix: apiKey.slice(-4), hash: hashSecret(apiKey) };
}

/** What a key holds: every scope (a full key) or its list. */
function grantOf(row: Pick<ApiKey, 'restricted' | 'scopes'>): Grant {
  return row.restricted ? { full: false, scopes: row.scopes } : FULL_GRANT;
}

/** Live keys: neither revoked nor expired at `now` (the keys that authenticate, and that the list shows). */
function liveKeys(orgId: string, now: Date) {
  return { orgId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

export async function targetOrg(deps: DomainDeps, actor: Actor, orgId: string | undefined): Promise<string> {
  if (orgId === undefined || orgId === actor.orgId) return actor.orgId;
  await assertReach(deps, actor, uuidParam('orgId', orgId));
  return orgId;
}

/** A live (not revoked) key within the actor's reach, locked for the change; NotFound otherwise. */
async function lockReachableKey(
  tx: Parameters<Parameters<DomainDeps['db']['$transaction']>[0]>[0],
  actor: Actor,
  id: string,
): Promise<ApiKey> {
  const rows = await lockLiveApiKey(tx, id);
  const row = rows.length ? await tx.apiKey.findUnique({ where: { id } }) : null;
  if (!row) throw new NotFound('API key');
  if (row.orgId !== actor.orgId) {
    const org = await tx.organization.findUnique({ where: { id: row.orgId }, select: { id: true, parentId: true } });
    if (!(actor.ownerIsAccount && org?.parentId === actor.orgId)) throw new NotFound('API key');
  }
  return row;
}

export async function createApiKey(deps: DomainDeps, actor: Actor, input: unknown): Promise<ApiKeyWithSecret> {
  requireCredentialsWrite(actor);
  const data = parseInput(createApiKeyInput, input ?? {});
  const now = deps.clock();
  if (data.expiresAt !== undefined && new Date(data.expiresAt) <= now) throw InvalidInput.of('expiresAt', 'must be in the future');
  const scopes = data.scopes ? SCOPES.filter((s) => data.scopes!.includes(s)) : null;
  requireMayGrant(actor, scopes === null ? FULL_GRANT : { full: false, scopes });
  const orgId = await targetOrg(deps, actor, data.orgId);
  const key = newKeyData();
  const view = await deps.db.$transaction(async (tx) => {
    await lockOrganizationForLimit(tx, orgId);
    assertRoomFor('apiKeys', await tx.apiKey.count({ where: liveKeys(orgId, now) }));
    const row = await tx.apiKey.create({
      data: {
        id: randomUUID(),
        orgId,
        name: data.name,
        prefix: key.prefix,
        suffix: key.suffix,
        hash: key.hash,
        restricted: scopes !== null,
        scopes: scopes ?? [],
        expiresAt: data.expiresAt ? new Date(data.expiresAt) : null,
        createdAt: now,
      },
    });
    const view = apiKeyView(row, deps);
    await recordEvent(tx, deps, actor, { type: 'api_key.created', orgId, subject: { type: 'api_key', id: row.id }, data: view });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  return showOnce(view, 'apiKey', key.apiKey);
}

export async function listApiKeys(deps: DomainDeps, actor: Actor, input: unknown): Promise<ApiKeyView[]> {
  requireCredentialsWrite(actor);
  const data = parseInput(listApiKeysInput, input ?? {});
  const orgId = await targetOrg(deps, actor, data.orgId);
  const rows = await deps.db.apiKey.findMany({
    where: liveKeys(orgId, deps.clock()),
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: LIST_LIMITS.apiKeys,
  });
  return rows.map((row) => apiKeyView(row, deps));
}

/**
 * A new key with the old one's name, scopes and expiry; the old one keeps working until `expiresAt`
 * (now by default, at most 7 days ahead, never later than its own expiry). A roll that keeps both
 * working adds a live key, so it needs room under the limit; one that ends the old key now does not.
 */
export async function rollApiKey(deps: DomainDeps, actor: Actor, keyId: string, input: unknown): Promise<ApiKeyWithSecret> {
  requireCredentialsWrite(actor);
  const data = parseInput(rollApiKeyInput, input ?? {});
  const id = uuidParam('keyId', keyId);
  const now = deps.clock();
  const oldUntil = data.expiresAt ? new Date(data.expiresAt) : now;
  if (oldUntil < now) throw InvalidInput.of('expiresAt', 'must not be in the past');
  if (oldUntil.getTime() > now.getTime() + MAX_ROLL_OVERLAP_MS) throw InvalidInput.of('expiresAt', 'must be within 7 days');
  const key = newKeyData();
  const view = await deps.db.$transaction(async (tx) => {
    const old = await lockReachableKey(tx, actor, id);
    if (old.expiresAt && old.expiresAt <= now) throw new NotFound('API key');
    requireMayManage(actor, grantOf(old));
    const expires = old.expiresAt && old.expiresAt < oldUntil ? old.expiresAt : oldUntil;
    if (expires > now) {
      await lockOrganizationForLimit(tx, old.orgId);
      const remedy = 'roll without an overlap (the old key ending now), or revoke one first';
      assertRoomFor('apiKeys', await tx.apiKey.count({ where: liveKeys(old.orgId, now) }), 1, remedy);
    }
    const rolled = await tx.apiKey.update({ where: { id }, data: { expiresAt: expires } });
    const row = await tx.apiKey.create({
      data: {
        id: randomUUID(),
        orgId: old.orgId,
        name: old.name,
        prefix: key.prefix,
        suffix: key.suffix,
        hash: key.hash,
        restricted: old.restricted,
        scopes: old.scopes,
        expiresAt: old.expiresAt,
        createdAt: now,
      },
    });
    const view = apiKeyView(row, deps);
    await recordEvent(tx, deps, actor, {
      type: 'api_key.rolled',
      orgId: old.orgId,
      subject: { type: 'api_key', id },
      data: { rolled: apiKeyView(rolled, deps), replacement: view },
      previous: { expiresAt: old.expiresAt?.toISOString() ?? null },
    });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  deps.changes.publish({ kind: 'credentials', orgId: view.orgId });
  return showOnce(view, 'apiKey', key.apiKey);
}

export async function revokeApiKey(deps: DomainDeps, actor: Actor, keyId: string, input?: unknown): Promise<ApiKeyView> {
  requireCredentialsWrite(actor);
  parseInput(emptyApiKeyInput, input ?? {});
  const id = uuidParam('keyId', keyId);
  const now = deps.clock();
  const view = await deps.db.$transaction(async (tx) => {
    requireMayManage(actor, grantOf(await lockReachableKey(tx, actor, id)));
    const row = await tx.apiKey.update({ where: { id }, data: { revokedAt: now } });
    const view = apiKeyView(row, deps);
    await recordEvent(tx, deps, actor, { type: 'api_key.revoked', orgId: row.orgId, subject: { type: 'api_key', id }, data: view });
    return view;
  });
  deps.changes.publish({ kind: 'credentials', orgId: view.orgId });
  return view;
}
