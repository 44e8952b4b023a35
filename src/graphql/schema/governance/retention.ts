// Retention on GraphQL: the twins of GET|PUT /v1/organizations/{orgId}/retention. Arguments go to the domain's
// schema, so both surfaces give the same verdicts (a field out of range is named the same way).
import {
  getRetention,
  putRetention,
  RETENTION_SOURCES,
  type RetentionField,
  type RetentionSource,
  type RetentionView,
} from '../../../domain/governance/retention.js';
import { builder } from '../../builder.js';

const RetentionSourceEnum = builder.enumType('RetentionSource', {
  description: "Where a retention value comes from: the organization's own setting, its account's, or the default.",
  values: RETENTION_SOURCES,
});

const RetentionSourcesRef = builder.objectRef<Record<RetentionField, RetentionSource>>('RetentionSources').implement({
  description: 'Per retention setting, where its value comes from.',
  fields: (t) => ({
    transcriptsDays: t.field({
      type: RetentionSourceEnum,
      description: 'Where transcriptsDays comes from.',
      resolve: (s) => s.transcriptsDays,
    }),
    conversationsDays: t.field({
      type: RetentionSourceEnum,
      description: 'Where conversationsDays comes from.',
      resolve: (s) => s.conversationsDays,
    }),
    callRequestsDays: t.field({
      type: RetentionSourceEnum,
      description: 'Where callRequestsDays comes from.',
      resolve: (s) => s.callRequestsDays,
    }),
    eventsDays: t.field({ type: RetentionSourceEnum, description: 'Where eventsDays comes from.', resolve: (s) => s.eventsDays }),
    webhookDeliveriesDays: t.field({
      type: RetentionSourceEnum,
      description: 'Where webhookDeliveriesDays comes from.',
      resolve: (s) => s.webhookDeliveriesDays,
    }),
    requestLogsDays: t.field({
      type: RetentionSourceEnum,
      description: 'Where requestLogsDays comes from.',
      resolve: (s) => s.requestLogsDays,
    }),
  }),
});

const RetentionRef = builder.objectRef<RetentionView>('Retention').implement({
  description: 'How long an organization keeps what it holds, in days per kind (the access log is kept six years whatever these say).',
  fields: (t) => ({
    orgId: t.exposeID('orgId', { description: 'The organization.' }),
    transcriptsDays: t.exposeInt('transcriptsDays', { description: 'Conversation messages, after they were written.' }),
    conversationsDays: t.exposeInt('conversationsDays', { description: 'Conversations (with their messages), after they started.' }),
    callRequestsDays: t.exposeInt('callRequestsDays', { description: 'Call requests in a final state, after they were created.' }),
    eventsDays: t.exposeInt('eventsDays', { description: 'Events (bounded by the service-wide EVENT_RETENTION_DAYS).' }),
    webhookDeliveriesDays: t.exposeInt('webhookDeliveriesDays', { description: 'Webhook delivery records (not those pending a retry).' }),
    requestLogsDays: t.exposeInt('requestLogsDays', { description: 'Request logs: not stored by the service; for the log pipeline.' }),
    sources: t.field({ type: RetentionSourcesRef, description: 'Where each value comes from.', resolve: (r) => r.sources }),
    inheritedFrom: t.exposeID('inheritedFrom', { nullable: true, description: 'The account some values are inherited from, or null.' }),
    updatedAt: t.exposeString('updatedAt', { nullable: true, description: "When the organization's own settings were last written." }),
  }),
});

const RetentionInput = builder.inputType('RetentionInput', {
  description: 'Retention settings, each 1..3650 days, or null / absent to inherit; checked as PUT /v1/organizations/{orgId}/retention.',
  fields: (t) => ({
    transcriptsDays: t.int({ description: 'Conversation messages.' }),
    conversationsDays: t.int({ description: 'Conversations.' }),
    callRequestsDays: t.int({ description: 'Call requests in a final state.' }),
    eventsDays: t.int({ description: 'Events.' }),
    webhookDeliveriesDays: t.int({ description: 'Webhook deliveries.' }),
    requestLogsDays: t.int({ description: 'Request logs (for the log pipeline).' }),
  }),
});

builder.queryFields((t) => ({
  retention: t.field({
    type: RetentionRef,
    description: 'How long an organization keeps what it holds. Scope organizations:read.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id.' }) },
    resolve: async (_root, args, ctx) => getRetention(ctx.deps, await ctx.actor(), String(args.orgId)),
  }),
}));

builder.mutationFields((t) => ({
  setRetention: t.field({
    type: RetentionRef,
    description: "Replaces an organization's own retention settings (event retention.updated). Scope organizations:write.",
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({ type: RetentionInput, required: true, description: 'The settings.' }),
    },
    resolve: async (_root, args, ctx) => putRetention(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
}));
