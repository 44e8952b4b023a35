import {
  createWebhookEndpoint,
  DELIVERY_RESPONSE_DESCRIPTION,
  TARGET_URL_DESCRIPTION,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookSecret,
  testWebhookEndpoint,
  updateWebhookEndpoint,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
} from '../../../domain/events/webhookEndpoints.js';
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
  values: ['pending', 'delivered', 'failed'] as const,
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
    description: "An endpoint's deliveries, newest first (at most 50). Scope webhooks:read.",
    args: { endpointId: t.arg.id({ required: true, description: 'Endpoint id.' }) },
    resolve: async (_root, args, ctx) => listWebhookDeliveries(ctx.deps, await ctx.actor(), String(args.endpointId)),
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
}));
