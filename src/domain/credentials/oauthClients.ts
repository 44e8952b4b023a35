// OAuth clients through the API (/v1/oauth-clients and the GraphQL twins): create (the secret answered
// once), list, rotate the secret with an overlap (the previous secret is still accepted by the token
// endpoint until a chosen time within 7 days: its hash is kept beside the new one), change scopes,
// revoke. Same rules as API keys (apiKeys.ts): scope credentials:write, and a credential grants only
// what it holds (credentialGrants.ts): no client is granted a scope its maker lacks, nor rotated,
// re-scoped or revoked by a credential lacking one of the client's scopes; an account manages its
// children's clients; another tenant's is a 404. At most LIST_LIMITS.oauthClients live clients per
// organization, counted under the organization's lock (listLimits.ts). A scope change or revoke reaches
// every instance's read model (tokens already issued carry at most the client's scopes from then on).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { generateClientId, generateClientSecret, hashSecret } from '../../crypto/secrets.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { type Actor, isScope, SCOPES, type Scope } from '../shared/access.js';
import { absent, instantInput, MAX_ROLL_OVERLAP_MS, scopesInput, targetOrg } from './apiKeys.js';
import { requireCredentialsWrite, requireMayGrant, requireMayManage } from './credentialGrants.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { absentToUndefined } from '../shared/inputParams.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, LIST_LIMITS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { type SecretAnswerType, secretFields, showOnce, type WithSecret } from '../shared/shownOnce.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { lockLiveOAuthClient } from './sql.js';

export interface OAuthClientView {
  id: string;
  orgId: string;
  name: string;
  clientId: string;
  scopes: Scope[];
  createdAt: string;
  /** Until when the previous secret is still accepted after a rotation; null when none is. */
  previousSecretExpiresAt: string | null;
  revokedAt: string | null;
}
export type OAuthClientWithSecret = WithSecret<OAuthClientView, 'clientSecret'>;

const clientFields = {
  id: z.uuid(),
  orgId: z.uuid().describe('The organization the client acts for.'),
  name: z.string(),
  clientId: z.string().describe('The `client_id` of the token request.'),
  scopes: z.array(z.enum(SCOPES)).describe('What its access tokens may do.'),
  createdAt: instantView(),
  previousSecretExpiresAt: instantView()
    .nullable()
    .describe('Until when the previous secret is still accepted after a rotation; null when none is.'),
  revokedAt: instantView().nullable(),
};
export const oauthClientResponse = viewSchema<OAuthClientView>()(z.object(clientFields).meta({ id: 'OAuthClient' }));
export const oauthClientWithSecretResponse = viewSchema<OAuthClientWithSecret>()(
  z
    .object({ ...clientFields, ...secretFields('clientSecret', 'The `client_secret`') })
    .meta({ id: 'OAuthClientWithSecret' satisfies SecretAnswerType }),
);
export const oauthClientListResponse = viewSchema<{ oauthClients: OAuthClientView[] }>()(
  z.object({ oauthClients: z.array(oauthClientResponse).describe('Newest first; revoked clients are not listed.') }),
);

export const createOAuthClientInput = z.strictObject({
  name: z
    .string({ error: 'is required (a name to tell the client apart)' })
    .trim()
    .min(1, { error: 'must not be blank' })
    .max(100, { error: 'must be at most 100 characters' }),
  scopes: scopesInput.describe('What its access tokens may do.'),
  orgId: z
    .preprocess(absent, z.string().optional())
    .describe("The organization the client acts for: the caller's own (default) or, for an account, a child."),
});
export const rotateOAuthClientSecretInput = z.strictObject({
  expiresAt: z
    .preprocess(absent, instantInput.optional())
    .describe('Until when the previous secret is still accepted: now (the default) up to 7 days ahead.'),
});
export const setOAuthClientScopesInput = z.strictObject({ scopes: scopesInput.describe('The new scopes (replacing the old).') });
export const emptyOAuthClientInput = z.strictObject({});
export const listOAuthClientsInput = z.strictObject({
  orgId: z
    .preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional())
    .describe("Whose clients: the caller's own organization (default) or, for an account, a child."),
});

export function clientView(row: OAuthClient, now: Date): OAuthClientView {
  const overlap =
    row.previousSecretHash && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    clientId: row.clientId,
    scopes: SCOPES.filter((s) => row.scopes.includes(s)),
    createdAt: row.createdAt.toISOString(),
    previousSecretExpiresAt: overlap?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

const ordered = (scopes: readonly string[]): Scope[] => SCOPES.filter((s) => scopes.includes(s) && isScope(s));

type Tx = Parameters<Parameters<DomainDeps['db']['$transaction']>[0]>[0];

/** A live client within the actor's reach, locked for the change; NotFound otherwise. */
async function lockReachableClient(tx: Tx, actor: Actor, id: string): Promise<OAuthClient> {
  const rows = await lockLiveOAuthClient(tx, id);
  const row = rows.length ? await tx.oAuthClient.findUnique({ where: { id } }) : null;
  if (!row) throw new NotFound('OAuth client');
  if (row.orgId !== actor.orgId) {
    const org = await tx.organization.findUnique({ where: { id: row.orgId }, select: { parentId: true } });
    if (!(actor.ownerIsAccount && org?.parentId === actor.orgId)) throw new NotFound('OAuth client');
  }
  return row;
}

export async function createOAuthClient(deps: DomainDeps, actor: Actor, input: unknown): Promise<OAuthClientWithSecret> {
  requireCredentialsWrite(actor);
  const data = parseInput(createOAuthClientInput, input ?? {});
  requireMayGrant(actor, { full: false, scopes: data.scopes });
  const orgId = await targetOrg(deps, actor, data.orgId);
  const now = deps.clock();
  const clientSecret = generateClientSecret();
  const view = await deps.db.$transaction(async (tx) => {
    await lockOrganizationForLimit(tx, orgId);
    assertRoomFor('oauthClients', await tx.oAuthClient.count({ where: { orgId, revokedAt: null } }));
    const row = await tx.oAuthClient.create({
      data: {
        id: randomUUID(),
        orgId,
        name: data.name,
        clientId: generateClientId(),
        secretHash: hashSecret(clientSecret),
        scopes: ordered(data.scopes),
        createdAt: now,
      },
    });
    const view = clientView(row, now);
    await recordEvent(tx, deps, actor, { type: 'oauth_client.created', orgId, subject: { type: 'oauth_client', id: row.id }, data: view });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  return showOnce(view, 'clientSecret', clientSecret);
}

export async function listOAuthClients(deps: DomainDeps, actor: Actor, input: unknown): Promise<OAuthClientView[]> {
  requireCredentialsWrite(actor);
  const data = parseInput(listOAuthClientsInput, input ?? {});
  const orgId = await targetOrg(deps, actor, data.orgId);
  const now = deps.clock();
  const rows = await deps.db.oAuthClient.findMany({
    where: { orgId, revokedAt: null },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: LIST_LIMITS.oauthClients,
  });
  return rows.map((row) => clientView(row, now));
}

/** A new secret, answered once; the previous one is still accepted until `expiresAt` (now by default, at most 7 days ahead). */
export async function rotateOAuthClientSecret(deps: DomainDeps, actor: Actor, id: string, input: unknown): Promise<OAuthClientWithSecret> {
  requireCredentialsWrite(actor);
  const data = parseInput(rotateOAuthClientSecretInput, input ?? {});
  const clientRowId = uuidParam('id', id);
  const now = deps.clock();
  const until = data.expiresAt ? new Date(data.expiresAt) : now;
  if (until < now) throw InvalidInput.of('expiresAt', 'must not be in the past');
  if (until.getTime() > now.getTime() + MAX_ROLL_OVERLAP_MS) throw InvalidInput.of('expiresAt', 'must be within 7 days');
  const clientSecret = generateClientSecret();
  const view = await deps.db.$transaction(async (tx) => {
    const old = await lockReachableClient(tx, actor, clientRowId);
    requireMayManage(actor, { full: false, scopes: old.scopes });
    const row = await tx.oAuthClient.update({
      where: { id: clientRowId },
      data: { secretHash: hashSecret(clientSecret), previousSecretHash: old.secretHash, previousSecretExpiresAt: until },
    });
    const view = clientView(row, now);
    await recordEvent(tx, deps, actor, {
      type: 'oauth_client.secret_rotated',
      orgId: row.orgId,
      subject: { type: 'oauth_client', id: row.id },
      data: view,
    });
    return view;
  });
  return showOnce(view, 'clientSecret', clientSecret);
}

export async function setOAuthClientScopes(deps: DomainDeps, actor: Actor, id: string, input: unknown): Promise<OAuthClientView> {
  requireCredentialsWrite(actor);
  const data = parseInput(setOAuthClientScopesInput, input ?? {});
  const clientRowId = uuidParam('id', id);
  requireMayGrant(actor, { full: false, scopes: data.scopes });
  const now = deps.clock();
  const { view, changed } = await deps.db.$transaction(async (tx) => {
    const old = await lockReachableClient(tx, actor, clientRowId);
    requireMayManage(actor, { full: false, scopes: old.scopes });
    const row = await tx.oAuthClient.update({ where: { id: clientRowId }, data: { scopes: ordered(data.scopes) } });
    const view = clientView(row, now);
    const before = ordered(old.scopes);
    const changed = before.join(' ') !== view.scopes.join(' ');
    if (changed) {
      await recordEvent(tx, deps, actor, {
        type: 'oauth_client.scopes_changed',
        orgId: row.orgId,
        subject: { type: 'oauth_client', id: row.id },
        data: view,
        previous: { scopes: before },
      });
    }
    return { view, changed };
  });
  // a change is published only with its event: other instances hear of it from that event (changes/eventTail.ts)
  if (changed) deps.changes.publish({ kind: 'credentials', orgId: view.orgId });
  return view;
}

export async function revokeOAuthClient(deps: DomainDeps, actor: Actor, id: string, input?: unknown): Promise<OAuthClientView> {
  requireCredentialsWrite(actor);
  parseInput(emptyOAuthClientInput, input ?? {});
  const clientRowId = uuidParam('id', id);
  const now = deps.clock();
  const view = await deps.db.$transaction(async (tx) => {
    requireMayManage(actor, { full: false, scopes: (await lockReachableClient(tx, actor, clientRowId)).scopes });
    const row = await tx.oAuthClient.update({ where: { id: clientRowId }, data: { revokedAt: now } });
    const view = clientView(row, now);
    await recordEvent(tx, deps, actor, {
      type: 'oauth_client.revoked',
      orgId: row.orgId,
      subject: { type: 'oauth_client', id: row.id },
      data: view,
    });
    return view;
  });
  deps.changes.publish({ kind: 'credentials', orgId: view.orgId });
  return view;
}
