import { CONVERSATION_STATUSES, type ConversationPage, type ConversationView, listConversations } from '../../domain/conversations.js';
import { builder } from '../builder.js';
import { MediumEnum } from './enums.js';

const ConversationStatusEnum = builder.enumType('ConversationStatus', {
  description: 'Whether a conversation is still going on (OPEN) or over (CLOSED).',
  values: CONVERSATION_STATUSES,
});

export const ConversationRef = builder.objectRef<ConversationView>('Conversation').implement({
  description: 'A conversation of a bot with a caller or visitor.',
  fields: (t) => ({
    id: t.exposeID('conversationId', { description: 'Conversation id (UUID); the same as conversationId.' }),
    conversationId: t.exposeID('conversationId', { description: 'Conversation id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization the conversation belongs to.' }),
    botId: t.exposeID('botId', { nullable: true, description: 'The bot that held the conversation.' }),
    conversationTags: t.exposeStringList('conversationTags', { description: 'Tags.' }),
    medium: t.expose('medium', { type: MediumEnum, description: 'The conversation type.' }),
    toNumber: t.exposeString('toNumber', { description: 'The number called or texted.' }),
    fromNumber: t.exposeString('fromNumber', { description: 'The number of the caller or sender.' }),
    summary: t.exposeString('summary', { description: 'A summary of the conversation.' }),
    topic: t.exposeString('topic', { description: 'The topic.' }),
    duration: t.exposeInt('duration', { description: 'Duration in seconds.' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When the conversation started.' }),
    endTime: t.expose('endTime', { type: 'DateTime', nullable: true, description: 'When it ended; null while it goes on.' }),
    status: t.expose('status', { type: ConversationStatusEnum, description: 'The conversation status.' }),
  }),
});

const ConversationPaginationRef = builder.objectRef<ConversationPage['pagination']>('ConversationPagination').implement({
  description: 'Where a page lies in the whole list.',
  fields: (t) => ({
    offset: t.exposeInt('offset', { description: 'Items skipped.' }),
    limit: t.exposeInt('limit', { description: 'The page size asked for.' }),
    totalCount: t.exposeInt('totalCount', { description: 'Conversations matching the filter, over all pages.' }),
  }),
});

const ConversationPageRef = builder.objectRef<ConversationPage>('ConversationPage').implement({
  description: 'One page of conversations, newest startTime first (ties by id).',
  fields: (t) => ({
    items: t.field({ type: [ConversationRef], description: 'The conversations of this page.', resolve: (page) => page.conversations }),
    pagination: t.expose('pagination', { type: ConversationPaginationRef, description: 'offset, limit and totalCount.' }),
  }),
});

builder.queryFields((t) => ({
  conversations: t.field({
    type: ConversationPageRef,
    description:
      "One page of conversations, newest first. Without orgId: the credential owner's organization (plus its children with includeChildren, account organizations only). An orgId or botId outside the caller's reach is NOT_FOUND. Scope conversations:read.",
    args: {
      offset: t.arg.int({ description: 'Items to skip (>= 0, default 0).' }),
      limit: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      orgId: t.arg.id({ description: 'Filter by organization.' }),
      botId: t.arg.id({ description: 'Filter by bot.' }),
      includeArchived: t.arg.boolean({ description: 'Include archived conversations (default false).' }),
      includeChildren: t.arg.boolean({ description: 'Include child-organization conversations; account organizations only (default false).' }),
    },
    // the arguments go to the domain's schema, which also parses the REST query strings
    resolve: async (_root, args, ctx) => listConversations(ctx.deps, await ctx.actor(), { ...args }),
  }),
}));
