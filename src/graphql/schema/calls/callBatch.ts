// Call batches on GraphQL: the twins of POST /v1/call-batches, GET /v1/call-batches (callBatches), GET
// /v1/call-batches/{id} (with its requests, the twin of GET …/call-requests, as a field) and POST …/cancel.
// Arguments go to the domain's schemas, so both surfaces give the same verdicts (a bad recipient is named by
// index: recipients.12.to).
import { type CallBatchCounts, type CallBatchView, SKIP_REASONS, type SkippedRecipient } from '../../../domain/calls/callBatchProgress.js';
import {
  CALL_BATCH_STATUSES,
  type CallBatchPage,
  cancelCallBatch,
  createCallBatch,
  type CreatedCallBatch,
  getCallBatch,
  listCallBatches,
  listCallBatchRequests,
} from '../../../domain/calls/callBatches.js';
import { CALL_DISPOSITIONS } from '../../../domain/calls/callAttempts.js';
import { CALL_REQUEST_STATUSES } from '../../../domain/calls/callRequests.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { CallPurposeEnum, RetryPolicyInput, RetryPolicyRef } from './callingPolicy.js';
import {
  CallConsentInput,
  CallDispositionEnum,
  CallRequestPageRef,
  CallRequestStatusEnum,
  MetadataEntryInput,
  MetadataEntryRef,
} from './callRequest.js';

const SkipReasonEnum = builder.enumType('CallBatchSkipReason', {
  description:
    'Why a recipient was not called: suppressed (on the do-not-call list) or duplicate (its number was given before in the batch).',
  values: SKIP_REASONS,
});

const SkippedRecipientRef = builder.objectRef<SkippedRecipient>('CallBatchSkippedRecipient').implement({
  description: 'A recipient of a batch that was not called.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: "Its index in the batch's recipients." }),
    reason: t.field({ type: SkipReasonEnum, description: 'Why.', resolve: (s) => s.reason }),
  }),
});

const StatusCountRef = builder
  .objectRef<{ status: (typeof CALL_REQUEST_STATUSES)[number]; count: number }>('CallBatchStatusCount')
  .implement({
    description: "A batch's requests in one status.",
    fields: (t) => ({
      status: t.field({ type: CallRequestStatusEnum, description: 'The status.', resolve: (c) => c.status }),
      count: t.exposeInt('count', { description: 'Requests in it.' }),
    }),
  });

const DispositionCountRef = builder
  .objectRef<{ disposition: (typeof CALL_DISPOSITIONS)[number]; count: number }>('CallBatchDispositionCount')
  .implement({
    description: "A batch's completed requests with one disposition.",
    fields: (t) => ({
      disposition: t.field({ type: CallDispositionEnum, description: 'The disposition.', resolve: (c) => c.disposition }),
      count: t.exposeInt('count', { description: 'Requests completed with it.' }),
    }),
  });

const CountsRef = builder.objectRef<CallBatchCounts>('CallBatchCounts').implement({
  description: "A batch's requests counted now.",
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Its call requests, follow-ups included.' }),
    byStatus: t.field({
      type: [StatusCountRef],
      description: 'Per status (every status, zeros included).',
      resolve: (c) => CALL_REQUEST_STATUSES.map((status) => ({ status, count: c.byStatus[status] })),
    }),
    byDisposition: t.field({
      type: [DispositionCountRef],
      description: 'Per disposition of the completed ones (every disposition, zeros included).',
      resolve: (c) => CALL_DISPOSITIONS.map((disposition) => ({ disposition, count: c.byDisposition[disposition] })),
    }),
  }),
});

const PlacementRef = builder.objectRef<{ index: number; callRequestId: string }>('CallBatchPlacement').implement({
  description: 'A call request a batch placed, and the index of its recipient.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: "The recipient's index." }),
    callRequestId: t.exposeID('callRequestId', { description: 'The call request.' }),
  }),
});

const CallBatchRef = builder.objectRef<CallBatchView & Partial<Pick<CreatedCallBatch, 'callRequests'>>>('CallBatch').implement({
  interfaces: [NodeRef],
  description: "Many calls placed in one request (a campaign): the shared defaults, the recipients skipped, and its requests' progress.",
  fields: (t) => ({
    id: t.id({ description: 'Call batch id (UUID); the same as callBatchId.', resolve: (b) => b.callBatchId }),
    callBatchId: t.exposeID('callBatchId', { description: 'Call batch id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization.' }),
    botId: t.exposeID('botId', { description: 'The bot that talks.' }),
    phoneNumberId: t.exposeID('phoneNumberId', { description: 'The caller id.' }),
    purpose: t.field({ type: CallPurposeEnum, description: 'Why the calls are placed.', resolve: (b) => b.purpose }),
    officeHoursOnly: t.exposeBoolean('officeHoursOnly', {
      description: "Dispatched only while the organization's PHONE availability is OPEN.",
    }),
    notBefore: t.field({ type: 'DateTime', nullable: true, description: "The batch's notBefore.", resolve: (b) => b.notBefore }),
    notAfter: t.field({ type: 'DateTime', description: 'Its requests expire when not started by then.', resolve: (b) => b.notAfter }),
    metadata: t.field({
      type: [MetadataEntryRef],
      description: "The batch's metadata.",
      resolve: (b) => Object.entries(b.metadata).map(([key, value]) => ({ key, value })),
    }),
    retry: t.field({ type: RetryPolicyRef, nullable: true, description: 'The retry policy of its requests.', resolve: (b) => b.retry }),
    recipients: t.exposeInt('recipients', { description: 'Recipients given.' }),
    placed: t.exposeInt('placed', { description: 'Recipients that became call requests.' }),
    skipped: t.field({ type: [SkippedRecipientRef], description: 'Recipients not called, by index.', resolve: (b) => b.skipped }),
    counts: t.field({ type: CountsRef, description: 'Its requests counted now.', resolve: (b) => b.counts }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was placed.', resolve: (b) => b.createdAt }),
    canceledAt: t.field({ type: 'DateTime', nullable: true, description: 'When it was canceled.', resolve: (b) => b.canceledAt }),
    completedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the last of its requests reached a final state; null while any is pending.',
      resolve: (b) => b.completedAt,
    }),
    placedRequests: t.field({
      type: [PlacementRef],
      nullable: true,
      description: 'The requests placed, in recipient order: on the answer of createCallBatch only (null elsewhere).',
      resolve: (b) => b.callRequests ?? null,
    }),
    callRequests: t.field({
      type: CallRequestPageRef,
      description: 'Its requests, newest first, by cursor (the twin of GET /v1/call-batches/{id}/call-requests). Scope call-requests:read.',
      args: {
        first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
        after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
        status: t.arg({ type: CallRequestStatusEnum, description: 'Only this status.' }),
        disposition: t.arg({ type: CallDispositionEnum, description: 'Only requests completed with this disposition.' }),
      },
      resolve: async (b, { first, after, ...filters }, ctx) =>
        listCallBatchRequests(ctx.deps, await ctx.actor(), b.callBatchId, { ...filters, limit: first, cursor: after }),
    }),
  }),
});

const CallBatchStatusEnum = builder.enumType('CallBatchStatus', {
  description:
    'A filter of the list of batches: in_progress (completedAt null), completed (completedAt set, canceled ones included), canceled (canceledAt set).',
  values: CALL_BATCH_STATUSES,
});

const CallBatchPageRef = builder.objectRef<CallBatchPage>('CallBatchPage').implement({
  description: 'One page of call batches, newest first.',
  fields: (t) => ({
    items: t.field({ type: [CallBatchRef], description: 'The batches of this page.', resolve: (p) => p.callBatches }),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next page; null on the last page.',
      resolve: (p) => p.pagination.nextCursor,
    }),
  }),
});

const RecipientInput = builder.inputType('CallBatchRecipientInput', {
  description: 'One recipient of a batch; checked by the same rules as a call of POST /v1/call-requests.',
  fields: (t) => ({
    to: t.string({ required: true, description: 'The number to call, E.164.' }),
    calleeTimezone: t.string({ description: "The callee's IANA zone (default: the organization's)." }),
    metadata: t.field({ type: [MetadataEntryInput], description: "String pairs, with the batch's (the recipient's win)." }),
    consent: t.field({ type: CallConsentInput, description: "This recipient's consent (default the batch's)." }),
    notBefore: t.string({ description: "ISO 8601 instant (default the batch's)." }),
  }),
});

const CreateCallBatchInput = builder.inputType('CreateCallBatchInput', {
  description: 'Calls to place at once; checked by the same rules as POST /v1/call-batches.',
  fields: (t) => ({
    botId: t.id({ required: true, description: 'The bot that talks.' }),
    phoneNumberId: t.id({ required: true, description: 'The caller id, attached to that bot.' }),
    purpose: t.field({ type: CallPurposeEnum, description: 'Default informational.' }),
    consent: t.field({ type: CallConsentInput, description: 'The consent of every recipient without its own.' }),
    notBefore: t.string({ description: 'ISO 8601 instant; default now.' }),
    notAfter: t.string({ description: 'ISO 8601 instant; default now + 24 h.' }),
    officeHoursOnly: t.boolean({ description: 'Dispatch only while PHONE availability is OPEN.' }),
    retry: t.field({ type: RetryPolicyInput, description: "Tries again after busy, no_answer, voicemail; default the calling policy's." }),
    metadata: t.field({ type: [MetadataEntryInput], description: 'Up to 20 string pairs, on the batch and each of its requests.' }),
    recipients: t.field({ type: [RecipientInput], required: true, description: '1 to 5,000 recipients; all are placed or none.' }),
  }),
});

type Entries = readonly { key: string; value: string }[] | null | undefined;
const pairs = (entries: Entries) => (entries == null ? entries : Object.fromEntries(entries.map((e) => [e.key, e.value])));

builder.queryFields((t) => ({
  callBatch: t.field({
    type: CallBatchRef,
    nullable: true,
    description: "A call batch and its progress, within the caller's reach (NOT_FOUND otherwise). Scope call-requests:read.",
    args: { id: t.arg.id({ required: true, description: 'Call batch id.' }) },
    resolve: async (_root, args, ctx) => getCallBatch(ctx.deps, await ctx.actor(), String(args.id)),
  }),
  callBatches: t.field({
    type: CallBatchPageRef,
    description:
      "Call batches of an organization (the credential owner's by default), newest first, by cursor, each with its counts (the twin of GET /v1/call-batches). Scope call-requests:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
      orgId: t.arg.id({ description: 'The organization.' }),
      status: t.arg({ type: CallBatchStatusEnum, description: 'Only batches in this state.' }),
      createdFrom: t.arg.string({ description: 'Created at or after (ISO 8601).' }),
      createdTo: t.arg.string({ description: 'Created before (ISO 8601).' }),
    },
    resolve: async (_root, { first, after, ...filters }, ctx) =>
      listCallBatches(ctx.deps, await ctx.actor(), { ...filters, limit: first, cursor: after }),
  }),
}));

builder.mutationFields((t) => ({
  createCallBatch: t.field({
    type: CallBatchRef,
    description:
      'Places up to 5,000 calls at once, all or none; suppressed and repeated numbers are skipped (skipped). Scope call-requests:write.',
    args: { input: t.arg({ type: CreateCallBatchInput, required: true, description: 'The batch.' }) },
    resolve: async (_root, { input }, ctx) =>
      createCallBatch(ctx.deps, await ctx.actor(), {
        ...input,
        metadata: pairs(input.metadata),
        recipients: input.recipients.map((r) => ({ ...r, metadata: pairs(r.metadata) })),
      }),
  }),
  cancelCallBatch: t.field({
    type: CallBatchRef,
    description: 'Cancels what a call batch has not started (CONFLICT when completed). Scope call-requests:write.',
    args: { id: t.arg.id({ required: true, description: 'Call batch id.' }) },
    resolve: async (_root, args, ctx) => cancelCallBatch(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));
