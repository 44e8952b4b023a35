// Webhook endpoints (/v1/webhook-endpoints and the GraphQL twins): the credential owner's receivers of
// events. An account organization's endpoint also receives its children's events. The signing secret is
// answered once, when the endpoint is made or its secret rotated, and stored encrypted; after a rotation
// the previous secret still signs for 24 h (both signatures are sent). Each change is recorded in the
// event log like any other, without the secret. Scopes webhooks:read / webhooks:write.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { KeyMaterial } from '../../crypto/derivedKeys.js';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { encryptSecret, newWebhookSecret } from './webhooks/secrets.js';
import { type HostLookup, targetProblem } from './webhooks/targets.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { changedFields, EVENT_FAMILIES, EVENT_TYPES, type EventWriter, recordEvent } from './log.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { uuidParam } from '../shared/ids.js';
import { type SecretAnswerType, secretFields, showOnce, type WithSecret } from '../shared/shownOnce.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { lockWebhookEndpoint } from './sql.js';

export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** What a target URL may be (REST and GraphQL describe it alike). */
export const TARGET_URL_DESCRIPTION =
  'https:// to a public address (its name resolving to public addresses only); ' +
  'http:// and private addresses only with WEBHOOK_ALLOW_PRIVATE_TARGETS.';

export interface WebhookDeps extends DomainDeps {
  tokens: { key: KeyMaterial };
  config: { webhookAllowPrivateTargets: boolean };
  /** How a target's name is resolved when it is saved (DNS unless a test sets its own). */
  resolveHost?: HostLookup;
  /** This instance's job queue: poked when a delivery is made due now (a test send, a retry), not left to its next poll. */
  jobs?: { poke(): void };
}

export interface WebhookEndpointView {
  id: string;
  orgId: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  /** Why the service disabled it (an answer 410 Gone); null otherwise. */
  disabledReason: string | null;
  /** Until when the previous secret still signs after a rotation; null when none does. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookEndpointWithSecret = WithSecret<WebhookEndpointView, 'secret'>;

export function endpointView(row: WebhookEndpoint, now: Date): WebhookEndpointView {
  const overlap =
    row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    orgId: row.orgId,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    previousSecretExpiresAt: overlap?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Records that the service disabled an endpoint (it answered 410 Gone, or every delivery failed for 5
 * days): `webhook_endpoint.disabled` by the system, in the transaction that disabled it (domain/events/webhooks/delivery.ts
 * calls it through its `onDisabled` hook, being below the domain).
 */
export async function recordEndpointDisabled(tx: EventWriter, deps: Pick<WebhookDeps, 'clock'>, row: WebhookEndpoint): Promise<void> {
  await recordEvent(tx, deps, null, {
    type: 'webhook_endpoint.disabled',
    orgId: row.orgId,
    subject: { type: 'webhook_endpoint', id: row.id },
    data: endpointView(row, deps.clock()),
  });
}

const endpointFields = {
  id: z.uuid(),
  orgId: z.uuid().describe('The owner: the credential owner’s organization.'),
  url: z.string().describe('Where events are POSTed.'),
  description: z.string(),
  eventTypes: z.array(z.string()).describe('Event type names, families such as `closure.*`, or `*`.'),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe('Why the service disabled the endpoint (it answered 410 Gone, or every delivery failed for 5 days); null otherwise.'),
  previousSecretExpiresAt: instantView()
    .nullable()
    .describe('Until when the previous secret still signs after a rotation; null when none does.'),
  createdAt: instantView(),
  updatedAt: instantView(),
};
export const webhookEndpointResponse = viewSchema<WebhookEndpointView>()(z.object(endpointFields).meta({ id: 'WebhookEndpoint' }));
export const webhookEndpointWithSecretResponse = viewSchema<WebhookEndpointWithSecret>()(
  z
    .object({ ...endpointFields, ...secretFields('secret', 'The signing secret (`whsec_…`)') })
    .meta({ id: 'WebhookEndpointWithSecret' satisfies SecretAnswerType }),
);
export const webhookEndpointListResponse = viewSchema<{ webhookEndpoints: WebhookEndpointView[] }>()(
  z.object({ webhookEndpoints: z.array(webhookEndpointResponse).describe('Oldest first.') }),
);
export const deletedWebhookEndpointResponse = viewSchema<{ id: string; deleted: true }>()(
  z.object({ id: z.uuid(), deleted: z.literal(true) }),
);

const eventTypesField = z
  .array(z.string().max(100), { error: 'must be a list of event types' })
  .min(1, { error: 'must name at least one event type (or *)' })
  .max(50, { error: 'must name at most 50 event types' })
  .superRefine((types, ctx) => {
    for (const type of types) {
      if (type !== '*' && !(EVENT_TYPES as readonly string[]).includes(type) && !EVENT_FAMILIES.has(type)) {
        ctx.addIssue({ code: 'custom', message: `"${type.slice(0, 60)}" is not an event type, a family such as closure.*, nor *` });
      }
    }
  });
const urlField = z.string({ error: 'must be a URL' }).max(2_000, { error: 'must be at most 2000 characters' });
const absent = (v: unknown) => (v === null ? undefined : v);

export const createWebhookEndpointInput = z.strictObject({
  url: urlField.describe(TARGET_URL_DESCRIPTION),
  description: z.preprocess(absent, z.string().max(500, { error: 'must be at most 500 characters' }).optional()),
  eventTypes: z.preprocess(absent, eventTypesField.optional()).describe('Default `["*"]`: every event.'),
  enabled: z.preprocess(absent, z.boolean({ error: 'must be true or false' }).optional()),
});
export const updateWebhookEndpointInput = z.strictObject({
  url: z.preprocess(absent, urlField.optional()),
  description: z.preprocess(absent, z.string().max(500, { error: 'must be at most 500 characters' }).optional()),
  eventTypes: z.preprocess(absent, eventTypesField.optional()),
  enabled: z.preprocess(absent, z.boolean({ error: 'must be true or false' }).optional()),
});
export const emptyWebhookInput = z.strictObject({});

/** Refuses a URL that may not be a target: its form, its host as written, and the addresses its name resolves to now. */
async function checkUrl(deps: WebhookDeps, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  const problem = await targetProblem(url, deps.config.webhookAllowPrivateTargets, deps.resolveHost);
  if (problem) throw InvalidInput.of('url', problem);
}

/** The caller's own endpoint (another organization's is a 404, as if absent). */
export async function ownEndpoint(deps: WebhookDeps, actor: Actor, endpointId: string): Promise<WebhookEndpoint> {
  const row = await deps.db.webhookEndpoint.findFirst({ where: { id: uuidParam('endpointId', endpointId), orgId: actor.orgId } });
  if (!row) throw new NotFound('Webhook endpoint');
  return row;
}

export async function createWebhookEndpoint(deps: WebhookDeps, actor: Actor, input: unknown): Promise<WebhookEndpointWithSecret> {
  requireScope(actor, 'webhooks:write');
  const data = parseInput(createWebhookEndpointInput, input ?? {});
  await checkUrl(deps, data.url);
  const now = deps.clock();
  const secret = newWebhookSecret();
  const view = await deps.db.$transaction(async (tx) => {
    // counted under the organization's lock: concurrent creates cannot pass the limit together
    await lockOrganizationForLimit(tx, actor.orgId);
    assertRoomFor('webhookEndpoints', await tx.webhookEndpoint.count({ where: { orgId: actor.orgId } }));
    const row = await tx.webhookEndpoint.create({
      data: {
        id: randomUUID(),
        orgId: actor.orgId,
        url: data.url,
        description: data.description ?? '',
        eventTypes: data.eventTypes ?? ['*'],
        enabled: data.enabled ?? true,
        secret: encryptSecret(deps.tokens.key, secret),
        createdAt: now,
        updatedAt: now,
      },
    });
    const view = endpointView(row, now);
    await recordEvent(tx, deps, actor, {
      type: 'webhook_endpoint.created',
      orgId: actor.orgId,
      subject: { type: 'webhook_endpoint', id: row.id },
      data: view,
    });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  return showOnce(view, 'secret', secret);
}

export async function listWebhookEndpoints(deps: WebhookDeps, actor: Actor): Promise<WebhookEndpointView[]> {
  requireScope(actor, 'webhooks:read');
  const now = deps.clock();
  const rows = await deps.db.webhookEndpoint.findMany({ where: { orgId: actor.orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map((row) => endpointView(row, now));
}

export async function getWebhookEndpoint(deps: WebhookDeps, actor: Actor, endpointId: string): Promise<WebhookEndpointView> {
  requireScope(actor, 'webhooks:read');
  return endpointView(await ownEndpoint(deps, actor, endpointId), deps.clock());
}

export async function updateWebhookEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  input: unknown,
): Promise<WebhookEndpointView> {
  requireScope(actor, 'webhooks:write');
  const data = parseInput(updateWebhookEndpointInput, input ?? {});
  await checkUrl(deps, data.url);
  const id = uuidParam('endpointId', endpointId);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const locked = await lockWebhookEndpoint(tx, actor.orgId, id);
    if (locked.length === 0) throw new NotFound('Webhook endpoint');
    const before = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        ...(data.url !== undefined ? { url: data.url } : {}),
        ...(data.description !== undefined ? { description: data.description } : {}),
        ...(data.eventTypes !== undefined ? { eventTypes: data.eventTypes } : {}),
        // enabling again clears the reason the service disabled it
        ...(data.enabled !== undefined ? { enabled: data.enabled, ...(data.enabled ? { disabledReason: null } : {}) } : {}),
        updatedAt: now,
      },
    });
    const view = endpointView(row, now);
    const previous = changedFields(endpointView(before, now), view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'webhook_endpoint.updated',
        orgId: actor.orgId,
        subject: { type: 'webhook_endpoint', id },
        data: view,
        previous,
      });
    return view;
  });
}

export async function deleteWebhookEndpoint(deps: WebhookDeps, actor: Actor, endpointId: string): Promise<{ id: string; deleted: true }> {
  requireScope(actor, 'webhooks:write');
  const id = uuidParam('endpointId', endpointId);
  const now = deps.clock();
  await deps.db.$transaction(async (tx) => {
    const rows = await lockWebhookEndpoint(tx, actor.orgId, id);
    if (rows.length === 0) throw new NotFound('Webhook endpoint');
    const row = await tx.webhookEndpoint.delete({ where: { id } });
    await recordEvent(tx, deps, actor, {
      type: 'webhook_endpoint.deleted',
      orgId: actor.orgId,
      subject: { type: 'webhook_endpoint', id },
      data: endpointView(row, now),
    });
  });
  return { id, deleted: true };
}

/** A new secret; the previous one still signs for 24 h (both signatures are sent meanwhile). */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  input?: unknown,
): Promise<WebhookEndpointWithSecret> {
  requireScope(actor, 'webhooks:write');
  parseInput(emptyWebhookInput, input ?? {});
  const id = uuidParam('endpointId', endpointId);
  const now = deps.clock();
  const secret = newWebhookSecret();
  const view = await deps.db.$transaction(async (tx) => {
    const rows = await lockWebhookEndpoint(tx, actor.orgId, id);
    if (rows.length === 0) throw new NotFound('Webhook endpoint');
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        secret: encryptSecret(deps.tokens.key, secret),
        previousSecret: rows[0]!.secret,
        previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
        updatedAt: now,
      },
    });
    const view = endpointView(row, now);
    await recordEvent(tx, deps, actor, {
      type: 'webhook_endpoint.secret_rotated',
      orgId: actor.orgId,
      subject: { type: 'webhook_endpoint', id },
      data: view,
    });
    return view;
  });
  return showOnce(view, 'secret', secret);
}
