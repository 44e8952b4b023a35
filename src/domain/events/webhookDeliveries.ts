// An endpoint's deliveries (/v1/webhook-endpoints/{id}/deliveries and the GraphQL twins): pages of them
// filtered by status, event type and time; one with the log of its attempts; a test delivery; a retry of one.
// A delivery's row is written by the dispatcher or the deliveries lane (webhooks/delivery.ts), each attempt
// appended to its log in the statement that records it. Replays of many are in webhookReplays.ts.
// Scopes webhooks:read / webhooks:write.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { WebhookDelivery } from '../../generated/prisma/client.js';
import { type Actor, requireScope } from '../shared/access.js';
import { batchOf } from '../shared/batch.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { absentToUndefined, cursorParam, integerParam } from '../shared/inputParams.js';
import { openInstantIdCursor, pageCursorKey, sealCursor } from '../shared/pageCursors.js';
import { cursorPaginationView, instantView, viewSchema } from '../shared/viewSchema.js';
import { recordEvent } from './log.js';
import { instantParam, typeParam } from './queries.js';
import { type AttemptEntry, ATTEMPTS_KEPT, deliveriesAfter, lockWebhookDelivery } from './sql.js';
import { emptyWebhookInput, ownEndpoint, type WebhookDeps } from './webhookEndpoints.js';

export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 100;

/** What a delivery's `response` holds (REST and GraphQL describe it alike). */
export const DELIVERY_RESPONSE_DESCRIPTION =
  'The first 1 KB of the last answer; null for a private target (its answer is never kept, only its status and latency); ' +
  'without an answer, the error class: timeout, connection_refused, connection_reset, dns_failed, tls_failed, unreachable, ' +
  'connection_failed or target_not_allowed (refused by policy: failed at once, never retried).';
/** What an attempt's `errorClass` holds (REST and GraphQL describe it alike). */
export const ATTEMPT_ERROR_CLASS_DESCRIPTION =
  'Why there was no answer: timeout, connection_refused, connection_reset, dns_failed, tls_failed, unreachable, connection_failed, ' +
  'target_not_allowed (refused by policy), endpoint_disabled or event_past_retention (nothing was sent); null when the receiver answered.';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  statusCode: number | null;
  latencyMs: number | null;
  response: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** A delivery with the log of its attempts (GET …/deliveries/{id}). */
export interface WebhookDeliveryDetailView extends WebhookDeliveryView {
  attemptLog: AttemptEntry[];
}

type DeliveryRowFields = Omit<WebhookDelivery, 'attemptLog' | 'lockedUntil'>;

export function deliveryView(row: DeliveryRowFields): WebhookDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    statusCode: row.statusCode,
    latencyMs: row.latencyMs,
    response: row.response,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

const asAttemptLog = (log: unknown): AttemptEntry[] => (Array.isArray(log) ? (log as AttemptEntry[]) : []);

export function deliveryDetailView(row: WebhookDelivery): WebhookDeliveryDetailView {
  return { ...deliveryView(row), attemptLog: asAttemptLog(row.attemptLog) };
}

/**
 * The log of attempts of a delivery the caller was already shown (GraphQL `attemptLog` of a page's items: the
 * items of one operation are read together, per request).
 */
export async function attemptLogOf(deps: Pick<DomainDeps, 'db' | 'batch'>, delivery: WebhookDeliveryView): Promise<AttemptEntry[]> {
  if ('attemptLog' in delivery) return (delivery as WebhookDeliveryDetailView).attemptLog;
  return asAttemptLog(await batchOf(deps).webhookAttemptLogs.load(delivery.id));
}

const deliveryFields = {
  id: z.uuid(),
  endpointId: z.uuid(),
  eventId: z.uuid(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int().describe('Attempts made since it was created, retried or replayed (the schedule counts these).'),
  lastAttemptAt: instantView().nullable(),
  statusCode: z.int().nullable().describe('The status of the last answer; null when there was none.'),
  latencyMs: z.int().nullable(),
  response: z.string().nullable().describe(DELIVERY_RESPONSE_DESCRIPTION),
  nextAttemptAt: instantView().nullable().describe('When the next retry is due; null when none is.'),
  createdAt: instantView(),
};

export const webhookDeliveryResponse = viewSchema<WebhookDeliveryView>()(z.object(deliveryFields).meta({ id: 'WebhookDelivery' }));

export const webhookAttemptResponse = viewSchema<AttemptEntry>()(
  z
    .object({
      at: instantView().describe('When the attempt was made.'),
      statusCode: z.int().nullable().describe('The status the receiver answered; null when it did not.'),
      latencyMs: z.int().nullable().describe('From sending to the answer (or to giving up); null when nothing was sent.'),
      errorClass: z.string().nullable().describe(ATTEMPT_ERROR_CLASS_DESCRIPTION),
      response: z.string().nullable().describe("The first 1 KB of the answer; null without one, and for a private target's (never kept)."),
    })
    .meta({ id: 'WebhookDeliveryAttempt' }),
);

export const webhookDeliveryDetailResponse = viewSchema<WebhookDeliveryDetailView>()(
  z
    .object({
      ...deliveryFields,
      attemptLog: z
        .array(webhookAttemptResponse)
        .describe(`Its attempts, oldest first: every one, the newest ${ATTEMPTS_KEPT} kept (retries and replays continue the log).`),
    })
    .meta({ id: 'WebhookDeliveryDetail' }),
);

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryView[];
  pagination: { limit: number; nextCursor: string | null };
}

export const webhookDeliveryListResponse = viewSchema<WebhookDeliveryPage>()(
  z.object({
    deliveries: z
      .array(webhookDeliveryResponse)
      .describe('Newest first (by when its event occurred), ties by id; GET …/deliveries/{id} shows one with its attempts.'),
    pagination: cursorPaginationView(),
  }),
);

const deliveryFilters = {
  status: z
    .preprocess(absentToUndefined, z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional())
    .describe('Only deliveries in this status.'),
  eventType: typeParam.describe('Event types, comma-separated; a family such as `closure.*` selects all of its types.'),
  from: instantParam.describe('Deliveries of events that occurred at or after this instant.'),
  to: instantParam.describe('Deliveries of events that occurred before this instant.'),
};

/** Query of GET /v1/webhook-endpoints/{id}/deliveries (GraphQL: `first`/`after` for `limit`/`cursor`). */
export const listWebhookDeliveriesInput = z.strictObject({
  limit: integerParam(1, DELIVERIES_MAX_LIMIT, DELIVERIES_DEFAULT_LIMIT).describe(
    `Page size (1..${DELIVERIES_MAX_LIMIT}, default ${DELIVERIES_DEFAULT_LIMIT}).`,
  ),
  cursor: cursorParam.describe('Continue after the page whose `pagination.nextCursor` this is (bound to the filters it was issued for).'),
  ...deliveryFilters,
});

/** One page of an endpoint's deliveries, newest first, by cursor. */
export async function listWebhookDeliveries(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  input?: unknown,
): Promise<WebhookDeliveryPage> {
  requireScope(actor, 'webhooks:read');
  const query = parseInput(listWebhookDeliveriesInput, input ?? {});
  const endpoint = await ownEndpoint(deps, actor, endpointId);
  const filters = {
    list: 'webhook-deliveries',
    endpointId: endpoint.id,
    status: query.status ?? null,
    eventTypes: query.eventType ?? null,
    from: query.from ? new Date(query.from).toISOString() : null,
    to: query.to ? new Date(query.to).toISOString() : null,
  };
  const key = pageCursorKey(deps.tokens.key);
  const after = query.cursor === undefined ? undefined : openInstantIdCursor(key, query.cursor, filters, 'cursor');
  const rows = await deliveriesAfter(deps.db, filters, after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    deliveries: page.map(deliveryView),
    pagination: {
      limit: query.limit,
      nextCursor: rows.length > query.limit && last ? sealCursor(key, { t: last.createdAt.getTime(), i: last.id }, filters) : null,
    },
  };
}

/** One delivery of the caller's endpoint, with the log of its attempts (404 for another endpoint's). */
export async function getWebhookDelivery(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryDetailView> {
  requireScope(actor, 'webhooks:read');
  const endpoint = await ownEndpoint(deps, actor, endpointId);
  const row = await deps.db.webhookDelivery.findFirst({ where: { id: uuidParam('deliveryId', deliveryId), endpointId: endpoint.id } });
  if (!row) throw new NotFound('Webhook delivery');
  return deliveryDetailView(row);
}

/**
 * Sends the endpoint a `webhook.test` event (recorded like any event, delivered to this endpoint only);
 * answers the delivery. Its row is written with the event, pending and due now, for the deliveries lane
 * (domain/events/webhooks/delivery.ts): the caller gets a delivery it can look up, which the dispatcher (which writes a
 * row only when an attempt ended) could not give it yet.
 */
export async function testWebhookEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  input?: unknown,
): Promise<WebhookDeliveryView> {
  requireScope(actor, 'webhooks:write');
  parseInput(emptyWebhookInput, input ?? {});
  const endpoint = await ownEndpoint(deps, actor, endpointId);
  if (!endpoint.enabled) throw InvalidInput.of('endpointId', 'the endpoint is disabled; enable it first');
  const delivery = await deps.db.$transaction(async (tx) => {
    const eventId = await recordEvent(tx, deps, actor, {
      type: 'webhook.test',
      orgId: actor.orgId,
      subject: { type: 'webhook_endpoint', id: endpoint.id },
      data: { endpointId: endpoint.id, message: 'A test event: the endpoint receives and verifies deliveries.' },
    });
    const now = deps.clock();
    return tx.webhookDelivery.create({
      data: {
        id: randomUUID(),
        endpointId: endpoint.id,
        eventId,
        eventType: 'webhook.test',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      },
    });
  });
  deps.jobs?.poke();
  return deliveryView(delivery);
}

/** Delivers a delivery that failed or was delivered once more, at once, with a fresh retry schedule. */
export async function retryWebhookDelivery(
  deps: WebhookDeps,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
  input?: unknown,
): Promise<WebhookDeliveryView> {
  requireScope(actor, 'webhooks:write');
  parseInput(emptyWebhookInput, input ?? {});
  const endpoint = await ownEndpoint(deps, actor, endpointId);
  const id = uuidParam('deliveryId', deliveryId);
  const now = deps.clock();
  const row = await deps.db.$transaction(async (tx) => {
    const rows = await lockWebhookDelivery(tx, endpoint.id, id);
    if (rows.length === 0) throw new NotFound('Webhook delivery');
    if (rows[0]!.status === 'pending') throw InvalidInput.of('deliveryId', 'the delivery is still pending; it is retried on its schedule');
    // pending and due now: the job queue's deliveries lane claims it (domain/events/webhooks/delivery.ts)
    const updated = await tx.webhookDelivery.update({
      where: { id },
      data: { status: 'pending', attempts: 0, nextAttemptAt: now, lockedUntil: null },
    });
    const view = deliveryView(updated);
    await recordEvent(tx, deps, actor, {
      type: 'webhook_delivery.retried',
      orgId: actor.orgId,
      subject: { type: 'webhook_delivery', id },
      data: view,
    });
    return view;
  });
  deps.jobs?.poke();
  return row;
}
