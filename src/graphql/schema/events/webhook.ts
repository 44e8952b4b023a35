import {
  createWebhookEndpoint,
  TARGET_URL_DESCRIPTION,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
} from '../../../domain/events/webhookEndpoints.js';
import {
  ATTEMPT_ERROR_CLASS_DESCRIPTION,
  attemptLogOf,
  DELIVERY_RESPONSE_DESCRIPTION,
  DELIVERY_STATUSES,
  getWebhookDelivery,
  listWebhookDeliveries,
  retryWebhookDelivery,
  testWebhookEndpoint,
  type WebhookDeliveryPage,
  type WebhookDeliveryView,
} from '../../../domain/events/webhookDeliveries.js';
import { createWebhookReplay, getWebhookReplay, REPLAY_STATUSES, type WebhookReplayView } from '../../../domain/events/webhookReplays.js';
import type { AttemptEntry } from '../../../domain/events/sql.js';
import { type SecretAnswerType, secretDescriptions } from '../../../domain/shared/shownOnce.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

// the fields of both endpoint types (the one with its secret adds `secret`)
const endpointFields = <S extends WebhookEndpointView>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, S>) => ({
  id: t.id({ description: 'Endpoint id (UUID).', resolve: (e) => e.id }),
  orgId: t.id({ description: "The owner: the credential owner's organization.", resolve: (e) => e.orgId }),
  url: t.string({ description: 'Where events are POSTed.', resolve: (e) => e.url }),
  description: t.string({ description: 'A note.', resolve: (e) => e.description }),
  eventTypes: t.stringList({ description: 'Event type names, families such as `closure.*`, or `*`.', resolve: (e) => e.eventTypes }),
  enabled: t.boolean({ description: 'False while no event is sent to it.', resolve: (e) => e.enabled }),
  disabledReason: t.string({
    nullable: true,
    description: 'Why the service disabled it (an answer 410 Gone); null otherwise.',
    resolve: (e) => e.disabledReason,
  }),
  previousSecretExpiresAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'Until when the previous secret still signs after a rotation.',
    resolve: (e) => e.previousSecretExpiresAt,
  }),
  createdAt: t.field({ type: 'DateTime', description: 'When it was made.', resolve: (e) => e.createdAt }),
  updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (e) => e.updatedAt }),
});

const WebhookEndpointRef = builder.objectRef<WebhookEndpointView>('WebhookEndpoint').implement({
  interfaces: [NodeRef],
  description: 'A receiver of events (Standard Webhooks signed POSTs). Its secret is shown only when made or rotated.',
  fields: (t) => endpointFields(t),
});

const signingSecret = secretDescriptions('secret', 'The signing secret (`whsec_…`)');
const withSecretName = 'WebhookEndpointWithSecret' satisfies SecretAnswerType;
const WebhookEndpointWithSecretRef = builder.objectRef<WebhookEndpointWithSecret>(withSecretName).implement({
  description: 'An endpoint just made or rotated, with its signing secret: shown only in this answer (null in an idempotent replay).',
  fields: (t) => ({
    ...endpointFields(t),
    secret: t.exposeString('secret', { nullable: true, description: signingSecret.secret }),
    secretShownOnce: t.exposeBoolean('secretShownOnce', { description: signingSecret.shownOnce }),
  }),
});

const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'pending until delivered (a 2xx) or failed (after the last retry, or 410 Gone).',
  values: DELIVERY_STATUSES,
});

const WebhookDeliveryAttemptRef = builder.objectRef<AttemptEntry>('WebhookDeliveryAttempt').implement({
  description: 'One attempt of a delivery.',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'When the attempt was made.' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The status the receiver answered; null when it did not.' }),
    latencyMs: t.exposeInt('latencyMs', {
      nullable: true,
      description: 'From sending to the answer (or to giving up); null when nothing was sent.',
    }),
    errorClass: t.exposeString('errorClass', { nullable: true, description: ATTEMPT_ERROR_CLASS_DESCRIPTION }),
    response: t.exposeString('response', {
      nullable: true,
      description: "The first 1 KB of the answer; null without one, and for a private target's (never kept).",
    }),
  }),
});

const WebhookDeliveryRef = builder.objectRef<WebhookDeliveryView>('WebhookDelivery').implement({
  description: 'One event to one endpoint, with its last attempt.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Delivery id (UUID).' }),
    endpointId: t.exposeID('endpointId', { description: 'The endpoint.' }),
    eventId: t.exposeID('eventId', { description: 'The event (the webhook-id header).' }),
    eventType: t.exposeString('eventType', { description: 'The event type.' }),
    status: t.expose('status', { type: WebhookDeliveryStatusEnum, description: 'pending, delivered or failed.' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts so far.' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true, description: 'When the last attempt was made.' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The status of the last answer; null when there was none.' }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true, description: 'How long the last attempt took.' }),
    response: t.exposeString('response', { nullable: true, description: DELIVERY_RESPONSE_DESCRIPTION }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the next retry is due.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was recorded.' }),
    attemptLog: t.field({
      type: [WebhookDeliveryAttemptRef],
      description: 'Its attempts, oldest first; retries and replays continue the log (the newest 20 kept).',
      resolve: (d, _args, ctx) => attemptLogOf(ctx.deps, d),
    }),
  }),
});

const WebhookDeliveryPageRef = builder.objectRef<WebhookDeliveryPage>('WebhookDeliveryPage').implement({
  description: "One page of an endpoint's deliveries, newest first.",
  fields: (t) => ({
    items: t.field({ type: [WebhookDeliveryRef], description: 'The deliveries of this page.', resolve: (p) => p.deliveries }),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next page; null on the last page.',
      resolve: (p) => p.pagination.nextCursor,
    }),
  }),
});

const WebhookReplayStatusEnum = builder.enumType('WebhookReplayStatus', {
  description: 'pending (queued), running, completed (every failed delivery in range walked).',
  values: REPLAY_STATUSES,
});

const WebhookReplayRef = builder.objectRef<WebhookReplayView>('WebhookReplay').implement({
  description: "A replay of an endpoint's failed deliveries of a time range: each made pending again, at most once.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Replay id (UUID).' }),
    endpointId: t.exposeID('endpointId', { description: 'The endpoint.' }),
    from: t.expose('from', { type: 'DateTime', description: 'Failed deliveries of events that occurred at or after this instant …' }),
    to: t.expose('to', { type: 'DateTime', description: '… and before this one.' }),
    status: t.expose('status', { type: WebhookReplayStatusEnum, description: 'pending, running or completed.' }),
    replayed: t.exposeInt('replayed', { description: 'Failed deliveries made pending again so far.' }),
    skipped: t.exposeInt('skipped', { description: "Failed deliveries passed over: their event is past the organization's retention." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was asked for.' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When the walk ended.' }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A new endpoint.',
  fields: (t) => ({
    url: t.string({ required: true, description: TARGET_URL_DESCRIPTION }),
    description: t.string({ description: 'A note.' }),
    eventTypes: t.stringList({ description: 'Names, families such as `closure.*`, or `*` (the default).' }),
    enabled: t.boolean({ description: 'Default true.' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'The fields to change.',
  fields: (t) => ({
    url: t.string({ description: 'https:// to a public address, as on create.' }),
    description: t.string({ description: 'A note.' }),
    eventTypes: t.stringList({ description: 'Names, families such as `closure.*`, or `*`.' }),
    enabled: t.boolean({ description: 'true also clears a disabledReason.' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpointRef],
    description: "The credential owner's webhook endpoints, oldest first. Scope webhooks:read.",
    resolve: async (_root, _args, ctx) => listWebhookEndpoints(ctx.deps, await ctx.actor()),
  }),
  webhookEndpoint: t.field({
    type: WebhookEndpointRef,
    description: 'One webhook endpoint of the credential owner (another one is NOT_FOUND). Scope webhooks:read.',
    args: { id: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => getWebhookEndpoint(ctx.deps, await ctx.actor(), String(args.id)),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDeliveryRef],
    description: "An endpoint's newest 50 deliveries. Scope webhooks:read.",
    deprecationReason: 'Use webhookDeliveryPage: cursor pages, with filters.',
    args: { endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => (await listWebhookDeliveries(ctx.deps, await ctx.actor(), String(args.endpointId))).deliveries,
  }),
  webhookDeliveryPage: t.field({
    type: WebhookDeliveryPageRef,
    description:
      "An endpoint's deliveries, newest first, by cursor (the twin of GET /v1/webhook-endpoints/{id}/deliveries). Scope webhooks:read.",
    args: {
      endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }),
      first: t.arg.int({ description: 'Page size (1..100, default 50).' }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
      status: t.arg({ type: WebhookDeliveryStatusEnum, description: 'Only deliveries in this status.' }),
      eventType: t.arg.string({ description: 'Event types, comma-separated; a family such as `closure.*` selects all of its types.' }),
      from: t.arg.string({ description: 'Deliveries of events that occurred at or after (ISO 8601).' }),
      to: t.arg.string({ description: 'Deliveries of events that occurred before (ISO 8601).' }),
    },
    resolve: async (_root, { endpointId, first, after, ...filters }, ctx) =>
      listWebhookDeliveries(ctx.deps, await ctx.actor(), String(endpointId), { ...filters, limit: first, cursor: after }),
  }),
  webhookDelivery: t.field({
    type: WebhookDeliveryRef,
    description: 'One delivery of an endpoint, with its attempts (`attemptLog`). Scope webhooks:read.',
    args: {
      endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }),
      id: t.arg.id({ required: true, description: 'Delivery id.' }),
    },
    resolve: async (_root, args, ctx) => getWebhookDelivery(ctx.deps, await ctx.actor(), String(args.endpointId), String(args.id)),
  }),
  webhookReplay: t.field({
    type: WebhookReplayRef,
    description: 'How far a replay got. Scope webhooks:read.',
    args: {
      endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }),
      id: t.arg.id({ required: true, description: 'Replay id.' }),
    },
    resolve: async (_root, args, ctx) => getWebhookReplay(ctx.deps, await ctx.actor(), String(args.endpointId), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecretRef,
    description: 'Creates a webhook endpoint; the answer shows its signing secret once. Scope webhooks:write.',
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true, description: 'The endpoint.' }) },
    resolve: async (_root, args, ctx) => createWebhookEndpoint(ctx.deps, await ctx.actor(), { ...args.input }),
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    description: 'Updates the given fields of an endpoint. Scope webhooks:write.',
    args: {
      id: t.arg.id({ required: true, description: 'Endpoint id.' }),
      input: t.arg({ type: UpdateWebhookEndpointInput, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, args, ctx) => updateWebhookEndpoint(ctx.deps, await ctx.actor(), String(args.id), { ...args.input }),
  }),
  deleteWebhookEndpoint: t.field({
    type: 'Boolean',
    description: 'Deletes an endpoint and its deliveries; true when deleted. Scope webhooks:write.',
    args: { id: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => (await deleteWebhookEndpoint(ctx.deps, await ctx.actor(), String(args.id))).deleted,
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointWithSecretRef,
    description: 'A new signing secret, shown once; the previous one still signs for 24 hours. Scope webhooks:write.',
    args: { id: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => rotateWebhookSecret(ctx.deps, await ctx.actor(), String(args.id)),
  }),
  testWebhookEndpoint: t.field({
    type: WebhookDeliveryRef,
    description: 'Sends the endpoint a webhook.test event; answers the delivery. Scope webhooks:write.',
    args: { id: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => testWebhookEndpoint(ctx.deps, await ctx.actor(), String(args.id)),
  }),
  retryWebhookDelivery: t.field({
    type: WebhookDeliveryRef,
    description: 'Delivers a failed (or delivered) delivery again, now. Scope webhooks:write.',
    args: {
      endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }),
      deliveryId: t.arg.id({ required: true, description: 'Delivery id.' }),
    },
    resolve: async (_root, args, ctx) =>
      retryWebhookDelivery(ctx.deps, await ctx.actor(), String(args.endpointId), String(args.deliveryId)),
  }),
  replayWebhookDeliveries: t.field({
    type: WebhookReplayRef,
    description:
      'Delivers every failed delivery of events that occurred in [from, to) again, each at most once, by a durable job; answers the replay (pending). Scope webhooks:write.',
    args: {
      endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }),
      from: t.arg.string({ required: true, description: 'From this instant (ISO 8601) …' }),
      to: t.arg.string({ description: '… to this one (default now).' }),
    },
    resolve: async (_root, { endpointId, ...input }, ctx) => createWebhookReplay(ctx.deps, await ctx.actor(), String(endpointId), input),
  }),
}));
