// Call requests on GraphQL: polling and listing (call-requests:read), placing and canceling
// (call-requests:write), and the agent runtime's claim, heartbeat, start, complete and fail
// (calls:dispatch). Arguments go to the domain's schemas, so both surfaces give the same verdicts.
import {
  CALL_REQUEST_STATUSES,
  type CallRequestError,
  type CallRequestPage,
  type CallConsent,
  type CallRequestView,
  cancelCallRequest,
  createCallRequest,
  getCallRequest,
  CALL_FAILURE_CODES,
  listCallRequests,
} from '../../../domain/calls/callRequests.js';
import {
  CALL_DISPOSITIONS,
  type CallClaim,
  type ClaimAnswer,
  claimCallRequests,
  completeCallRequest,
  failCallRequest,
  heartbeatCallRequest,
  startCallRequest,
} from '../../../domain/calls/callDispatch.js';
import { enforceCallRequestPollInterval } from '../../../ratelimit/callRequestPolling.js';
import { builder } from '../../builder.js';
import { openLiveStream } from '../../liveStreams.js';
import { NodeRef } from '../node.js';
import { AvailabilityRef } from '../schedule/availability.js';
import { CallPurposeEnum, RetryPolicyInput, RetryPolicyRef } from './callingPolicy.js';
import type { CallAttempt } from '../../../domain/calls/callAttempts.js';
import { type CallRequestChange, watchCallRequests } from '../../../domain/calls/callRequestWatch.js';

export const CallRequestStatusEnum = builder.enumType('CallRequestStatus', {
  description: 'Where a call stands: queued, in_progress, then completed, failed, canceled or expired.',
  values: CALL_REQUEST_STATUSES,
});

export const CallDispositionEnum = builder.enumType('CallDisposition', {
  description:
    'What a call came to: booked, callback_requested (with callbackAt: a follow-up call), opt_out (the number goes on the suppression list), transferred, voicemail_left, information_given, declined, other.',
  values: CALL_DISPOSITIONS,
});

const CallFailureCodeEnum = builder.enumType('CallFailureCode', {
  description: 'Why a call failed.',
  values: CALL_FAILURE_CODES,
});

const CallRequestErrorRef = builder.objectRef<CallRequestError>('CallRequestError').implement({
  description: 'A public reason for the failure of a call request.',
  fields: (t) => ({
    category: t.exposeString('category', { description: 'The kind of failure, e.g. "request".' }),
    code: t.exposeString('code', { description: 'A machine-readable reason, e.g. "target_unavailable".' }),
    message: t.exposeString('message', { description: 'A human-readable reason.' }),
  }),
});

const CallAttemptRef = builder.objectRef<CallAttempt>('CallAttempt').implement({
  description: 'One claim of a call request that started or failed. A lease that ended unused is counted in claims, not listed.',
  fields: (t) => ({
    n: t.exposeInt('n', { description: '1, 2, … in order.' }),
    claimedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the runtime claimed it.', resolve: (a) => a.claimedAt }),
    startedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the call was answered.', resolve: (a) => a.startedAt }),
    endedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the outcome was reported.', resolve: (a) => a.endedAt }),
    outcome: t.string({
      nullable: true,
      description: 'completed, or the failure code (busy, no_answer, voicemail, …); null while under way.',
      resolve: (a) => a.outcome,
    }),
    error: t.field({
      type: CallRequestErrorRef,
      nullable: true,
      description: "The runtime's reason for a failure.",
      resolve: (a) => a.error,
    }),
    conversationId: t.id({ nullable: true, description: 'The conversation this attempt opened.', resolve: (a) => a.conversationId }),
  }),
});

const CallConsentRef = builder.objectRef<CallConsent>('CallConsent').implement({
  description: 'The consent recorded for a call.',
  fields: (t) => ({
    basis: t.exposeString('basis', { description: 'express_written, express, existing_relationship or emergency.' }),
    obtainedAt: t.field({ type: 'DateTime', description: 'When it was obtained.', resolve: (c) => c.obtainedAt }),
    source: t.exposeString('source', { description: 'Where it is recorded.' }),
  }),
});

export const CallConsentInput = builder.inputType('CallConsentInput', {
  description: 'The consent recorded for a call.',
  fields: (t) => ({
    basis: t.string({ required: true, description: 'express_written, express, existing_relationship or emergency.' }),
    obtainedAt: t.string({ required: true, description: 'ISO 8601 instant, not in the future.' }),
    source: t.string({ required: true, description: 'Where it is recorded (at most 200 characters).' }),
  }),
});

export const MetadataEntryRef = builder.objectRef<{ key: string; value: string }>('MetadataEntry').implement({
  description: 'One string pair of metadata.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key.' }),
    value: t.exposeString('value', { description: 'The value.' }),
  }),
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

// the fields of a call request, shared by CallRequest and the heartbeat's answer (which adds leaseUntil,
// as its REST twin does)
const callRequestFields = <S extends CallRequestView>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, S>) => ({
  id: t.id({ description: 'Call request id (UUID); the same as callRequestId.', resolve: (r) => r.callRequestId }),
  callRequestId: t.id({ description: 'Call request id (UUID).', resolve: (r) => r.callRequestId }),
  orgId: t.id({ description: 'The organization.', resolve: (r) => r.orgId }),
  botId: t.id({ nullable: true, description: 'The bot that talks.', resolve: (r) => r.botId }),
  phoneNumberId: t.id({ nullable: true, description: 'The caller id.', resolve: (r) => r.phoneNumberId }),
  to: t.string({ description: 'The number called, E.164.', resolve: (r) => r.to }),
  status: t.field({ type: CallRequestStatusEnum, description: 'The current status.', resolve: (r) => r.status }),
  officeHoursOnly: t.boolean({
    description: "Dispatched only while the organization's PHONE availability is OPEN.",
    resolve: (r) => r.officeHoursOnly,
  }),
  metadata: t.field({
    type: [MetadataEntryRef],
    description: 'The string pairs given at creation.',
    resolve: (r) => Object.entries(r.metadata).map(([key, value]) => ({ key, value })),
  }),
  createdAt: t.field({ type: 'DateTime', description: 'When the request was queued.', resolve: (r) => r.createdAt }),
  notBefore: t.field({ type: 'DateTime', nullable: true, description: 'Not dialed before this instant.', resolve: (r) => r.notBefore }),
  expiresAt: t.field({ type: 'DateTime', description: 'When the request expires if not started.', resolve: (r) => r.expiresAt }),
  startedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the call started.', resolve: (r) => r.startedAt }),
  finishedAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'When processing ended; null while pending.',
    resolve: (r) => r.finishedAt,
  }),
  claims: t.int({ description: 'Claims so far, a lease that ended unused included.', resolve: (r) => r.claims }),
  attempts: t.field({ type: [CallAttemptRef], description: 'One per claim that started or failed, in order.', resolve: (r) => r.attempts }),
  conversationId: t.id({
    nullable: true,
    description: "The conversation the call started; use it to track an initiated call's outcome.",
    resolve: (r) => r.conversationId,
  }),
  error: t.field({
    type: CallRequestErrorRef,
    nullable: true,
    description: 'The public reason for a failure; null otherwise.',
    resolve: (r) => r.error,
  }),
  dueAt: t.field({
    type: 'DateTime',
    description: "When it may next be handed out: the first instant the calling policy (in the callee's zone) allows.",
    resolve: (r) => r.dueAt,
  }),
  calleeTimezone: t.string({
    nullable: true,
    description: "The callee's IANA zone (null on older requests: the organization's).",
    resolve: (r) => r.calleeTimezone,
  }),
  purpose: t.field({ type: CallPurposeEnum, description: 'Why the call is placed.', resolve: (r) => r.purpose }),
  consent: t.field({ type: CallConsentRef, nullable: true, description: 'The consent given at creation.', resolve: (r) => r.consent }),
  retry: t.field({
    type: RetryPolicyRef,
    nullable: true,
    description: "The retry policy (the request's own, else the calling policy's at creation); null: one attempt.",
    resolve: (r) => r.retry,
  }),
  disposition: t.field({
    type: CallDispositionEnum,
    nullable: true,
    description: 'What the call came to, as the runtime completed it.',
    resolve: (r) => r.disposition,
  }),
  notes: t.string({ nullable: true, description: "The runtime's notes on the outcome.", resolve: (r) => r.notes }),
  data: t.field({ type: 'JSON', nullable: true, description: "The outcome's JSON object for programs.", resolve: (r) => r.data }),
  followUpOf: t.id({ nullable: true, description: 'The request whose callee asked for this call back.', resolve: (r) => r.followUpOf }),
  followUpId: t.id({
    nullable: true,
    description: 'The follow-up call request placed when this one completed with callback_requested.',
    resolve: (r) => r.followUpId,
  }),
  batchId: t.id({
    nullable: true,
    description: "The call batch it was placed with (a follow-up keeps its original's); null otherwise.",
    resolve: (r) => r.batchId,
  }),
  batchIndex: t.int({
    nullable: true,
    description: "Its recipient's index in the batch's recipients; null outside a batch.",
    resolve: (r) => r.batchIndex,
  }),
});

export const CallRequestRef = builder.objectRef<CallRequestView>('CallRequest').implement({
  interfaces: [NodeRef],
  description:
    'A call placed by an integrator and worked by the agent runtime. A failed request is data (status failed with an error), not a GraphQL error.',
  fields: (t) => callRequestFields(t),
});

const CallRequestLeaseRef = builder.objectRef<CallRequestView & { leaseUntil: string }>('CallRequestLease').implement({
  description: 'A call request whose lease a heartbeat extended: the request, and when the lease now ends.',
  fields: (t) => ({
    ...callRequestFields(t),
    leaseUntil: t.expose('leaseUntil', { type: 'DateTime', description: 'The lease now ends then.' }),
  }),
});

export const CallRequestPageRef = builder.objectRef<CallRequestPage>('CallRequestPage').implement({
  description: 'One page of call requests, newest first.',
  fields: (t) => ({
    items: t.field({ type: [CallRequestRef], description: 'The requests of this page.', resolve: (p) => p.callRequests }),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next page; null on the last page.',
      resolve: (p) => p.pagination.nextCursor,
    }),
  }),
});

const CallClaimRef = builder.objectRef<CallClaim>('CallClaim').implement({
  description: 'A call handed to one runtime under a lease, with what the agent needs to say.',
  fields: (t) => ({
    leaseId: t.exposeID('leaseId', { description: 'Name it in heartbeat, start, complete and fail.' }),
    leaseUntil: t.expose('leaseUntil', { type: 'DateTime', description: 'The claim ends then unless a heartbeat extends it.' }),
    callRequest: t.expose('callRequest', { type: CallRequestRef, description: 'The request.' }),
    availability: t.expose('availability', {
      type: AvailabilityRef,
      description: "The organization's PHONE availability now (greeting, templates).",
    }),
  }),
});

const CallClaimCapacityRef = builder.objectRef<ClaimAnswer['capacity']>('CallClaimCapacity').implement({
  description: "The claimer's organization's cap on calls at once and its calls in progress, after the claim.",
  fields: (t) => ({
    limit: t.exposeInt('limit', {
      nullable: true,
      description: 'The cap that bounds the organization; null for an account that sets none (each location has its own).',
    }),
    inProgress: t.exposeInt('inProgress', { description: 'Calls in progress under that cap, this claim’s included.' }),
  }),
});

const CallClaimsRef = builder.objectRef<ClaimAnswer>('CallClaims').implement({
  description: 'What one claim handed out, and how much of the cap is left (the answer of POST /v1/dispatch/claim).',
  fields: (t) => ({
    claims: t.expose('claims', {
      type: [CallClaimRef],
      description: 'The calls handed out, in claim order (none when nothing is due or free).',
    }),
    capacity: t.expose('capacity', { type: CallClaimCapacityRef, description: 'The cap and the calls in progress after this claim.' }),
  }),
});

export const MetadataEntryInput = builder.inputType('MetadataEntryInput', {
  description: 'One string pair of metadata.',
  fields: (t) => ({
    key: t.string({ required: true, description: 'The key.' }),
    value: t.string({ required: true, description: 'The value.' }),
  }),
});

const CreateCallRequestInput = builder.inputType('CreateCallRequestInput', {
  description: 'A call to place; checked by the same rules as POST /v1/call-requests.',
  fields: (t) => ({
    botId: t.id({ required: true, description: 'The bot that talks.' }),
    phoneNumberId: t.id({ required: true, description: 'The caller id, attached to that bot.' }),
    to: t.string({ required: true, description: 'The number to call, E.164.' }),
    notBefore: t.string({ description: 'ISO 8601 instant; default now.' }),
    notAfter: t.string({ description: 'ISO 8601 instant; default now + 24 h.' }),
    officeHoursOnly: t.boolean({ description: 'Dispatch only while PHONE availability is OPEN.' }),
    metadata: t.field({ type: [MetadataEntryInput], description: 'Up to 20 string pairs (keys unique).' }),
    calleeTimezone: t.string({ description: "The callee's IANA zone (default: the organization's)." }),
    purpose: t.field({ type: CallPurposeEnum, description: 'Default informational.' }),
    consent: t.field({ type: CallConsentInput, description: 'Required for a purpose the calling policy lists in requireConsentFor.' }),
    retry: t.field({ type: RetryPolicyInput, description: "Tries again after busy, no_answer, voicemail; default the calling policy's." }),
  }),
});

const CallFailureInput = builder.inputType('CallFailureInput', {
  description: 'Why a call failed.',
  fields: (t) => ({
    category: t.string({ description: 'Default "request".' }),
    code: t.field({ type: CallFailureCodeEnum, required: true, description: 'The reason.' }),
    message: t.string({ required: true, description: 'A human-readable reason.' }),
  }),
});

builder.queryFields((t) => ({
  callRequest: t.field({
    type: CallRequestRef,
    nullable: true,
    description:
      "Polls a call request owned by an organization within the caller's reach (NOT_FOUND otherwise). Shares the polling budget of its REST twin. Scope call-requests:read.",
    args: { id: t.arg.id({ required: true, description: 'Call request id.' }) },
    resolve: async (_root, args, ctx) => {
      const actor = await ctx.actor();
      const view = await getCallRequest(ctx.deps, actor, String(args.id));
      await enforceCallRequestPollInterval(ctx.deps, actor, view.callRequestId, view.status); // needs the status
      return view;
    },
  }),
  callRequests: t.field({
    type: CallRequestPageRef,
    description: "Call requests of an organization (the credential owner's by default), newest first, by cursor. Scope call-requests:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
      orgId: t.arg.id({ description: 'The organization.' }),
      status: t.arg({ type: CallRequestStatusEnum, description: 'Only this status.' }),
      botId: t.arg.id({ description: 'Only this bot.' }),
      batchId: t.arg.id({ description: 'Only requests of this call batch (see also CallBatch.callRequests).' }),
      disposition: t.arg({ type: CallDispositionEnum, description: 'Only requests completed with this disposition.' }),
      createdFrom: t.arg.string({ description: 'Created at or after (ISO 8601).' }),
      createdTo: t.arg.string({ description: 'Created before (ISO 8601).' }),
    },
    resolve: async (_root, { first, after, ...filters }, ctx) =>
      listCallRequests(ctx.deps, await ctx.actor(), { ...filters, limit: first, cursor: after }),
  }),
}));

const leaseArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  id: t.arg.id({ required: true, description: 'Call request id.' }),
  leaseId: t.arg.id({ required: true, description: 'The leaseId of your claim.' }),
});

builder.mutationFields((t) => ({
  createCallRequest: t.field({
    type: CallRequestRef,
    description: 'Places a call (queued). Scope call-requests:write.',
    args: { input: t.arg({ type: CreateCallRequestInput, required: true, description: 'The call.' }) },
    resolve: async (_root, { input }, ctx) => {
      const metadata = input.metadata == null ? input.metadata : Object.fromEntries(input.metadata.map((e) => [e.key, e.value]));
      return createCallRequest(ctx.deps, await ctx.actor(), { ...input, metadata });
    },
  }),
  cancelCallRequest: t.field({
    type: CallRequestRef,
    description: 'Cancels a call not yet started (CONFLICT otherwise). Scope call-requests:write.',
    args: { id: t.arg.id({ required: true, description: 'Call request id.' }) },
    resolve: async (_root, args, ctx) => cancelCallRequest(ctx.deps, await ctx.actor(), String(args.id)),
  }),
  claimCalls: t.field({
    type: CallClaimsRef,
    description:
      'Agent runtime: claims up to `max` due calls under a lease, at most what the cap on calls at once leaves free, and says how much is left. Scope calls:dispatch.',
    args: {
      max: t.arg.int({ description: 'At most this many (1..50, default 1).' }),
      leaseSeconds: t.arg.int({ description: 'Lease length (10..3600, default 60).' }),
    },
    resolve: async (_root, args, ctx) => claimCallRequests(ctx.deps, await ctx.actor(), { ...args }),
  }),
  claimCallRequests: t.field({
    type: [CallClaimRef],
    deprecationReason: 'Use claimCalls: the same claim, answering the capacity left beside the calls.',
    description: 'Agent runtime: claims up to `max` due calls under a lease. Scope calls:dispatch.',
    args: {
      max: t.arg.int({ description: 'At most this many (1..50, default 1).' }),
      leaseSeconds: t.arg.int({ description: 'Lease length (10..3600, default 60).' }),
    },
    resolve: async (_root, args, ctx) => (await claimCallRequests(ctx.deps, await ctx.actor(), { ...args })).claims,
  }),
  heartbeatCallRequest: t.field({
    type: CallRequestLeaseRef,
    description: 'Agent runtime: extends the lease; answers the request and when the lease now ends. Scope calls:dispatch.',
    args: { ...leaseArgs(t), leaseSeconds: t.arg.int({ description: 'Lease length from now (10..3600, default 60).' }) },
    resolve: async (_root, { id, ...rest }, ctx) =>
      heartbeatCallRequest(ctx.deps, await ctx.actor(), String(id), { ...rest, leaseId: String(rest.leaseId) }),
  }),
  startCallRequest: t.field({
    type: CallRequestRef,
    description: 'Agent runtime: the call was answered; opens its conversation. Scope calls:dispatch.',
    args: leaseArgs(t),
    resolve: async (_root, { id, leaseId }, ctx) => startCallRequest(ctx.deps, await ctx.actor(), String(id), { leaseId: String(leaseId) }),
  }),
  completeCallRequest: t.field({
    type: CallRequestRef,
    description: 'Agent runtime: the call ended normally. Scope calls:dispatch.',
    args: {
      ...leaseArgs(t),
      disposition: t.arg({
        type: CallDispositionEnum,
        description: 'What the call came to; opt_out lists the number; callback_requested with callbackAt places a follow-up.',
      }),
      notes: t.arg.string({ description: 'Notes for people (at most 2,000 characters).' }),
      data: t.arg({ type: 'JSON', description: 'A JSON object for programs (at most 16 KB serialized).' }),
      callbackAt: t.arg.string({
        description: "With callback_requested: ISO 8601 instant, not in the past, before the request's notAfter.",
      }),
    },
    resolve: async (_root, { id, leaseId, ...outcome }, ctx) =>
      completeCallRequest(ctx.deps, await ctx.actor(), String(id), { leaseId: String(leaseId), ...outcome }),
  }),
  failCallRequest: t.field({
    type: CallRequestRef,
    description: 'Agent runtime: the call could not be placed or held. Scope calls:dispatch.',
    args: { ...leaseArgs(t), error: t.arg({ type: CallFailureInput, required: true, description: 'Why.' }) },
    resolve: async (_root, { id, leaseId, error }, ctx) =>
      failCallRequest(ctx.deps, await ctx.actor(), String(id), { leaseId: String(leaseId), error }),
  }),
}));

const CallRequestChangeRef = builder.objectRef<CallRequestChange>('CallRequestChange').implement({
  description: 'One transition of a call request, as its event recorded it.',
  fields: (t) => ({
    eventId: t.id({ description: 'The event (the same id the event log and webhooks carry).', resolve: (c) => c.eventId }),
    type: t.string({
      description:
        'The event type: call_request.queued, started, lease_extended, attempt_failed, retry_scheduled, completed, failed, canceled or expired.',
      resolve: (c) => c.type,
    }),
    occurredAt: t.field({ type: 'DateTime', description: 'When it happened.', resolve: (c) => c.occurredAt }),
    callRequest: t.field({
      type: CallRequestRef,
      description: 'The request as it was after the transition.',
      resolve: (c) => c.callRequest,
    }),
  }),
});

builder.subscriptionField('callRequestChanged', (t) =>
  t.field({
    type: CallRequestChangeRef,
    description:
      "Every transition of an organization's call requests from the subscription on, made on any instance, in order, each once: nothing is sent at first (read callRequests after subscribing). A subscriber more than 10,000 transitions behind gets UNAVAILABLE and subscribes again. A revoked credential, a lost scope or a lost reach ends the stream. At most SUBSCRIPTIONS_PER_CREDENTIAL streams per credential. Scope call-requests:read.",
    args: { orgId: t.arg.id({ required: true, description: 'Organization id.' }) },
    subscribe: async (_root, args, ctx) => {
      const actor = await ctx.actor();
      const stream = await watchCallRequests(ctx.deps, actor, String(args.orgId), { reauthenticate: () => ctx.reauthenticate() });
      return openLiveStream(ctx, actor.credential.id, stream);
    },
    resolve: (change: CallRequestChange) => change,
  }),
);
