// The suppression (do-not-call) list on GraphQL: the twins of GET|POST /v1/suppressions, POST /v1/suppressions/bulk
// and DELETE /v1/suppressions/{number}. Arguments go to the domain's schemas, so both surfaces give the same verdicts.
import {
  addSuppression,
  addSuppressions,
  type BulkSuppressionAnswer,
  listSuppressions,
  removeSuppression,
  SUPPRESSION_SOURCES,
  type SuppressionPage,
  type SuppressionView,
} from '../../../domain/calls/suppressions.js';
import { builder } from '../../builder.js';

const SuppressionSourceEnum = builder.enumType('SuppressionSource', {
  description: 'How a number came on the suppression list: api (one add), bulk, or opt_out (a call completed with disposition opt_out).',
  values: SUPPRESSION_SOURCES,
});

const SuppressionRef = builder.objectRef<SuppressionView>('Suppression').implement({
  description: "A number an organization must not call; an account's entries apply to all its locations.",
  fields: (t) => ({
    suppressionId: t.exposeID('suppressionId', { description: 'The entry.' }),
    orgId: t.exposeID('orgId', { description: 'The organization whose list holds it.' }),
    number: t.exposeString('number', { description: 'E.164.' }),
    reason: t.exposeString('reason', { description: 'Why it must not be called.' }),
    source: t.field({ type: SuppressionSourceEnum, description: 'How it came on the list.', resolve: (s) => s.source }),
    callRequestId: t.exposeID('callRequestId', { nullable: true, description: 'The call whose callee opted out (source opt_out).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
  }),
});

const SuppressionPageRef = builder.objectRef<SuppressionPage>('SuppressionPage').implement({
  description: 'One page of the suppression list, in number order.',
  fields: (t) => ({
    items: t.field({ type: [SuppressionRef], description: 'The entries of this page.', resolve: (p) => p.suppressions }),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next page; null on the last page.',
      resolve: (p) => p.pagination.nextCursor,
    }),
  }),
});

const BulkSuppressionResultRef = builder.objectRef<BulkSuppressionAnswer>('BulkSuppressionResult').implement({
  description: 'What a bulk add did.',
  fields: (t) => ({
    added: t.exposeInt('added', { description: 'Numbers newly on the list.' }),
    unchanged: t.exposeInt('unchanged', { description: 'Numbers already on it, or given more than once.' }),
  }),
});

builder.queryFields((t) => ({
  suppressions: t.field({
    type: SuppressionPageRef,
    description: "The credential owner's suppression list, in number order, by cursor. Scope call-requests:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'The nextCursor of the previous page.' }),
      number: t.arg.string({ description: 'Only the entry of this number (any punctuation).' }),
    },
    resolve: async (_root, { first, after, number }, ctx) =>
      listSuppressions(ctx.deps, await ctx.actor(), { limit: first, cursor: after, number }),
  }),
}));

builder.mutationFields((t) => ({
  addSuppression: t.field({
    type: SuppressionRef,
    description: "Puts a number on the credential owner's suppression list (event suppression.added). Scope call-requests:write.",
    args: {
      number: t.arg.string({ required: true, description: 'The number with its country code; stored in E.164.' }),
      reason: t.arg.string({ description: 'Why (at most 200 characters).' }),
    },
    resolve: async (_root, args, ctx) => addSuppression(ctx.deps, await ctx.actor(), args),
  }),
  addSuppressions: t.field({
    type: BulkSuppressionResultRef,
    description: 'Puts up to 10,000 numbers on the suppression list, all or none (event suppression.added). Scope call-requests:write.',
    args: {
      numbers: t.arg.stringList({ required: true, description: 'The numbers; an invalid one refuses the whole list.' }),
      reason: t.arg.string({ description: 'Why (at most 200 characters).' }),
    },
    resolve: async (_root, args, ctx) => addSuppressions(ctx.deps, await ctx.actor(), args),
  }),
  removeSuppression: t.field({
    type: SuppressionRef,
    description: 'Takes a number off the suppression list (event suppression.removed). Scope call-requests:write.',
    args: { number: t.arg.string({ required: true, description: 'The number (any punctuation), or the suppressionId.' }) },
    resolve: async (_root, { number }, ctx) => removeSuppression(ctx.deps, await ctx.actor(), number),
  }),
}));
