// The calling policy and calls at once on GraphQL: the twins of GET|PUT /v1/organizations/{orgId}/calling-policy
// and GET …/call-capacity. Arguments go to the domain's schemas, so both surfaces give the same verdicts.
import { type CallCapacityView, getCallCapacity } from '../../../domain/calls/callCapacity.js';
import {
  CALL_PURPOSES,
  type CallingPolicyView,
  type CallWindowView,
  getCallingPolicy,
  putCallingPolicy,
} from '../../../domain/calls/callingPolicy.js';
import { RETRYABLE_OUTCOMES, type RetryPolicy } from '../../../domain/calls/callAttempts.js';
import { builder } from '../../builder.js';
import { DayOfWeekEnum } from '../enums.js';

export const CallPurposeEnum = builder.enumType('CallPurpose', {
  description: 'Why a call is placed: informational (default) or marketing.',
  values: CALL_PURPOSES,
});

export const RetryableOutcomeEnum = builder.enumType('RetryableOutcome', {
  description: 'An outcome a retry policy may try again after.',
  values: RETRYABLE_OUTCOMES,
});

export const RetryPolicyRef = builder.objectRef<RetryPolicy>('RetryPolicy').implement({
  description:
    'When a call is tried again: after these outcomes, up to maxAttempts in all, the k-th interval after attempt k (the last repeats).',
  fields: (t) => ({
    on: t.field({ type: [RetryableOutcomeEnum], description: 'The outcomes tried again.', resolve: (p) => p.on }),
    maxAttempts: t.exposeInt('maxAttempts', { description: 'Attempts in all (1..10).' }),
    intervalsMinutes: t.exposeIntList('intervalsMinutes', { description: 'Minutes from an outcome to the earliest retry.' }),
  }),
});

export const RetryPolicyInput = builder.inputType('RetryPolicyInput', {
  description: 'A retry policy; checked by the same rules on both surfaces.',
  fields: (t) => ({
    on: t.field({ type: [RetryableOutcomeEnum], description: 'Default all of busy, no_answer, voicemail.' }),
    maxAttempts: t.int({ required: true, description: 'Attempts in all (1..10; 1: no retry).' }),
    intervalsMinutes: t.intList({ description: 'Minutes (at least 1 each); after attempt k the k-th, the last repeating.' }),
  }),
});

const CallWindowRef = builder.objectRef<CallWindowView>('CallWindow').implement({
  description: "A wall-clock window of one weekday in the callee's zone.",
  fields: (t) => ({
    dayOfWeek: t.field({ type: DayOfWeekEnum, description: 'The weekday.', resolve: (w) => w.dayOfWeek }),
    start: t.exposeString('start', { description: 'HH:mm.' }),
    end: t.exposeString('end', { description: 'HH:mm (24:00 for the end of the day), after start.' }),
  }),
});

const CallingPolicyRef = builder.objectRef<CallingPolicyView>('CallingPolicy').implement({
  description: "When and how often an organization may call patients: its own policy, its account's, or the default.",
  fields: (t) => ({
    orgId: t.exposeID('orgId', { description: 'The organization.' }),
    windows: t.field({ type: [CallWindowRef], description: "Windows in the callee's zone.", resolve: (p) => p.windows }),
    blockedDates: t.exposeStringList('blockedDates', { description: "The callee's local dates without calls." }),
    maxConcurrentCalls: t.exposeInt('maxConcurrentCalls', { description: 'Calls in progress at once.' }),
    requireConsentFor: t.field({
      type: [CallPurposeEnum],
      description: 'Purposes that need consent.',
      resolve: (p) => p.requireConsentFor,
    }),
    retry: t.field({
      type: RetryPolicyRef,
      nullable: true,
      description: 'The default retry policy of its call requests; null: one attempt each.',
      resolve: (p) => p.retry,
    }),
    inheritedFrom: t.exposeID('inheritedFrom', { nullable: true, description: 'The account whose policy applies, or null.' }),
    isDefault: t.exposeBoolean('isDefault', { description: 'No policy is set for the organization or its account.' }),
  }),
});

const CallCapacityRef = builder.objectRef<CallCapacityView>('CallCapacity').implement({
  description: 'Calls at once: the cap that bounds the organization, its calls in progress, its requests due.',
  fields: (t) => ({
    limit: t.exposeInt('limit', { nullable: true, description: 'The cap (null: an account that sets none).' }),
    inProgress: t.exposeInt('inProgress', { description: 'Calls in progress under that cap.' }),
    queuedDue: t.exposeInt('queuedDue', { description: 'Queued requests due now.' }),
  }),
});

const CallWindowInput = builder.inputType('CallWindowInput', {
  description: "A wall-clock window in the callee's zone.",
  fields: (t) => ({
    dayOfWeek: t.field({ type: DayOfWeekEnum, required: true, description: 'The weekday.' }),
    start: t.string({ required: true, description: 'HH:mm.' }),
    end: t.string({ required: true, description: 'HH:mm, after start; 24:00 allowed.' }),
  }),
});

const CallingPolicyInput = builder.inputType('CallingPolicyInput', {
  description: 'A calling policy; checked by the same rules as PUT /v1/organizations/{orgId}/calling-policy.',
  fields: (t) => ({
    windows: t.field({ type: [CallWindowInput], required: true, description: 'The windows.' }),
    blockedDates: t.stringList({ description: 'Local dates YYYY-MM-DD (at most 366).' }),
    maxConcurrentCalls: t.int({ required: true, description: 'Calls at once (1..100000).' }),
    requireConsentFor: t.field({ type: [CallPurposeEnum], description: 'Default [marketing].' }),
    retry: t.field({ type: RetryPolicyInput, description: 'The default retry policy of call requests that set none (default none).' }),
  }),
});

builder.queryFields((t) => ({
  callingPolicy: t.field({
    type: CallingPolicyRef,
    description: 'The calling policy that applies to an organization. Scope organizations:read.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id.' }) },
    resolve: async (_root, args, ctx) => getCallingPolicy(ctx.deps, await ctx.actor(), String(args.orgId)),
  }),
  callCapacity: t.field({
    type: CallCapacityRef,
    description: 'Calls at once of an organization. Scope call-requests:read.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id.' }) },
    resolve: async (_root, args, ctx) => getCallCapacity(ctx.deps, await ctx.actor(), String(args.orgId)),
  }),
}));

builder.mutationFields((t) => ({
  setCallingPolicy: t.field({
    type: CallingPolicyRef,
    description: "Sets an organization's calling policy (event calling_policy.updated). Scope organizations:write.",
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({ type: CallingPolicyInput, required: true, description: 'The policy.' }),
    },
    resolve: async (_root, args, ctx) => putCallingPolicy(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
}));
