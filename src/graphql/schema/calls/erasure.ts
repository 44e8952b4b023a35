// Erasure on request on GraphQL: the twins of POST /v1/erasure-requests and GET /v1/erasure-requests/{id}.
// Arguments go to the domain's schema, so both surfaces give the same verdicts (one identifier, a valid number).
import {
  createErasureRequest,
  ERASURE_KINDS,
  ERASURE_STATUSES,
  type ErasureCounts,
  type ErasureRequestView,
  getErasureRequest,
} from '../../../domain/calls/erasure.js';
import { builder } from '../../builder.js';

const ErasureKindEnum = builder.enumType('ErasureKind', {
  description: 'Which identifier named what to erase.',
  values: ERASURE_KINDS,
});

const ErasureStatusEnum = builder.enumType('ErasureStatus', {
  description: 'pending (queued), running, completed.',
  values: ERASURE_STATUSES,
});

const ErasureCountsRef = builder.objectRef<ErasureCounts>('ErasureCounts').implement({
  description: 'What an erasure removed or scrubbed so far.',
  fields: (t) => ({
    conversations: t.exposeInt('conversations', { description: 'Conversations deleted.' }),
    messages: t.exposeInt('messages', { description: 'Turns deleted with them.' }),
    callRequests: t.exposeInt('callRequests', { description: 'Call requests whose number became its keyed hash (status and times kept).' }),
    events: t.exposeInt('events', { description: 'Events scrubbed of the number or of the conversation.' }),
    webhookDeliveries: t.exposeInt('webhookDeliveries', { description: "Stored webhook receivers' answers scrubbed of the number." }),
    suppressions: t.exposeInt('suppressions', { description: 'Suppressions kept as the keyed hash (still honoured).' }),
    idempotentAnswers: t.exposeInt('idempotentAnswers', { description: 'Stored idempotent answers scrubbed of the number.' }),
  }),
});

const ErasureRequestRef = builder.objectRef<ErasureRequestView>('ErasureRequest').implement({
  description: "A patient's data erased on request: its progress and counts (the number erased is never answered back).",
  fields: (t) => ({
    erasureRequestId: t.exposeID('erasureRequestId', { description: 'The request.' }),
    orgId: t.exposeID('orgId', { description: 'The organization that asked: the erasure covers it and, for an account, its locations.' }),
    kind: t.field({ type: ErasureKindEnum, description: 'Which identifier named what to erase.', resolve: (r) => r.kind }),
    subjectId: t.exposeID('subjectId', {
      nullable: true,
      description: 'The conversation or call request erased; null for a phone number.',
    }),
    status: t.field({ type: ErasureStatusEnum, description: 'pending, running, completed.', resolve: (r) => r.status }),
    counts: t.field({ type: ErasureCountsRef, description: 'What was removed so far.', resolve: (r) => r.counts }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was asked for.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true, description: 'When the work began.' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it was completed.' }),
  }),
});

builder.queryFields((t) => ({
  erasureRequest: t.field({
    type: ErasureRequestRef,
    description: "One erasure request within the caller's reach (NOT_FOUND otherwise). Scope erasure:write.",
    args: { id: t.arg.id({ required: true, description: 'The erasure request.' }) },
    resolve: async (_root, args, ctx) => getErasureRequest(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createErasureRequest: t.field({
    type: ErasureRequestRef,
    description:
      "Erases a patient's data on request: exactly one of `phoneNumber`, `conversationId`, `callRequestId`, within the caller's reach; answers the request (pending), worked off by a durable job. The same rules as POST /v1/erasure-requests. Scope erasure:write.",
    args: {
      phoneNumber: t.arg.string({ description: 'A phone number with its country code (any punctuation).' }),
      conversationId: t.arg.id({ description: 'A conversation.' }),
      callRequestId: t.arg.id({ description: 'A call request.' }),
    },
    resolve: async (_root, args, ctx) =>
      createErasureRequest(ctx.deps, await ctx.actor(), {
        phoneNumber: args.phoneNumber ?? undefined,
        conversationId: args.conversationId == null ? undefined : String(args.conversationId),
        callRequestId: args.callRequestId == null ? undefined : String(args.callRequestId),
      }),
  }),
}));
