import {
  CONVERSATION_STATUSES,
  type ConversationConnection,
  type ConversationPage,
  type ConversationView,
  conversationsConnection,
  listConversations,
} from '../../../domain/calls/conversations.js';
import {
  addConversationMessage,
  createConversation,
  endConversation,
  getConversation,
  MESSAGE_ROLES,
  type AddedMessageView,
  type MessageView,
  TRANSCRIPT_DEFAULT_LIMIT,
  TRANSCRIPT_MAX_LIMIT,
  type ConversationWithTranscript,
  type TranscriptPage,
} from '../../../domain/calls/conversationWrites.js';
import { type ArgBuilderOf, builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { MediumEnum } from '../enums.js';
import type { PatientWordsAnswerType } from '../../../domain/shared/shownOnce.js';

const ConversationStatusEnum = builder.enumType('ConversationStatus', {
  description: 'Whether a conversation is still going on (OPEN) or over (CLOSED).',
  values: CONVERSATION_STATUSES,
});

export const ConversationRef = builder.objectRef<ConversationView>('Conversation').implement({
  interfaces: [NodeRef],
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
    // `conversations` pages by offset only, so offset is always set here (null only for a REST cursor page)
    offset: t.int({ description: 'Items skipped.', resolve: (p) => p.offset ?? 0 }),
    limit: t.exposeInt('limit', { description: 'The page size asked for.' }),
    totalCount: t.exposeInt('totalCount', { description: 'Conversations matching the filter, over all pages.' }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'A cursor to continue after this page with conversationsConnection(after:) or REST ?cursor=; null on the last page.',
    }),
  }),
});

const ConversationPageRef = builder.objectRef<ConversationPage>('ConversationPage').implement({
  description: 'One page of conversations, newest startTime first (ties by id).',
  fields: (t) => ({
    items: t.field({ type: [ConversationRef], description: 'The conversations of this page.', resolve: (page) => page.conversations }),
    pagination: t.expose('pagination', { type: ConversationPaginationRef, description: 'offset, limit and totalCount.' }),
  }),
});

/** The filters of both ways to list conversations (by offset and by cursor): the domain reads them alike. */
const filterArgs = (arg: ArgBuilderOf) => ({
  orgId: arg.id({ description: 'Filter by organization.' }),
  botId: arg.id({ description: 'Filter by bot.' }),
  includeArchived: arg.boolean({ description: 'Include archived conversations (default false).' }),
  includeChildren: arg.boolean({
    description: 'Include child-organization conversations; account organizations only (default false).',
  }),
  medium: arg({ type: MediumEnum, description: 'Only this medium.' }),
  status: arg({ type: ConversationStatusEnum, description: 'Only this status.' }),
  startedFrom: arg.string({ description: 'startTime at or after this instant (ISO 8601).' }),
  startedTo: arg.string({ description: 'startTime before this instant (ISO 8601).' }),
});

builder.queryFields((t) => ({
  conversations: t.field({
    type: ConversationPageRef,
    description:
      "One page of conversations, newest first. Without orgId: the credential owner's organization (plus its children with includeChildren, account organizations only). An orgId or botId outside the caller's reach is NOT_FOUND. Scope conversations:read.",
    args: {
      offset: t.arg.int({ description: 'Items to skip (>= 0, default 0).' }),
      limit: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      ...filterArgs(t.arg),
    },
    // the arguments go to the domain's schema, which also parses the REST query strings
    resolve: async (_root, args, ctx) => listConversations(ctx.deps, await ctx.actor(), { ...args }),
  }),
}));

export const PageInfoRef = builder.objectRef<ConversationConnection['pageInfo']>('PageInfo').implement({
  description: 'Where a page of a connection lies (Relay cursor connections specification).',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether more items follow this page.' }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description:
        'True when the page was asked for with `after` (items precede it); paging is forward only, start again without `after` to go back.',
    }),
    startCursor: t.exposeString('startCursor', { nullable: true, description: "The first edge's cursor; null on an empty page." }),
    endCursor: t.exposeString('endCursor', {
      nullable: true,
      description: "The last edge's cursor, to pass as `after` for the next page; null on an empty page.",
    }),
  }),
});

const ConversationEdgeRef = builder.objectRef<ConversationConnection['edges'][number]>('ConversationEdge').implement({
  description: 'A conversation and the cursor of its position in the list.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description: 'Opaque; pass as `after` to continue after this conversation (with the same filters).',
    }),
    node: t.expose('node', { type: ConversationRef, description: 'The conversation.' }),
  }),
});

const ConversationConnectionRef = builder.objectRef<ConversationConnection>('ConversationConnection').implement({
  description: 'Conversations, newest startTime first (ties by id), one page at a time by cursor (a Relay connection).',
  fields: (t) => ({
    edges: t.expose('edges', { type: [ConversationEdgeRef], description: 'The conversations of this page with their cursors.' }),
    pageInfo: t.expose('pageInfo', { type: PageInfoRef, description: 'hasNextPage, endCursor and the rest.' }),
    totalCount: t.int({
      description: 'Conversations matching the filters, over all pages (counted only when selected).',
      resolve: (c) => c.totalCount(),
    }),
  }),
});

builder.queryFields((t) => ({
  conversationsConnection: t.field({
    type: ConversationConnectionRef,
    description:
      'Conversations page by page with cursors (Relay): `first` after the cursor `after`; a page deep in the list costs what the first costs. A cursor is opaque, tamper-checked and bound to the filters it came from (other filters, or an altered cursor, are BAD_USER_INPUT on `after`). Same filters, order and reach as `conversations`. Scope conversations:read.',
    args: {
      first: t.arg.int({ description: 'Page size (1..100, default 20).' }),
      after: t.arg.string({ description: 'Continue after this cursor (an edge cursor or pageInfo.endCursor of the previous page).' }),
      ...filterArgs(t.arg),
    },
    resolve: async (_root, args, ctx) => conversationsConnection(ctx.deps, await ctx.actor(), { ...args }),
  }),
}));

const MessageRoleEnum = builder.enumType('MessageRole', { description: 'Who said a turn.', values: MESSAGE_ROLES });

const ConversationMessageRef = builder.objectRef<MessageView>('ConversationMessage').implement({
  description: 'One turn of a conversation.',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: '1, 2, … in the order written.' }),
    role: t.expose('role', { type: MessageRoleEnum, description: 'agent or caller.' }),
    text: t.exposeString('text', { description: 'What was said, as stored: card numbers and SSNs replaced by `[card]`, `[ssn]`.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When it was said.' }),
  }),
});

const AddedConversationMessageRef = builder
  .objectRef<AddedMessageView>('AddedConversationMessage' satisfies PatientWordsAnswerType)
  .implement({
    description:
      "A turn just appended: its words echoed in this answer only (null in an idempotent replay: a patient's words are never stored for a replay).",
    fields: (t) => ({
      seq: t.exposeInt('seq', { description: '1, 2, … in the order written.' }),
      role: t.expose('role', { type: MessageRoleEnum, description: 'agent or caller.' }),
      text: t.exposeString('text', {
        nullable: true,
        description:
          'What was said, as stored (card numbers and SSNs replaced by `[card]`, `[ssn]`): in the first answer only; null in an idempotent replay (`textWithheld: true`).',
      }),
      at: t.expose('at', { type: 'DateTime', description: 'When it was said.' }),
      textWithheld: t.exposeBoolean('textWithheld', {
        description:
          "False in the first answer; true in an idempotent replay (`Idempotent-Replayed: true`), which answers the turn with `text: null`: a patient's words are never stored for a replay. Read them with the `conversation` query.",
      }),
    }),
  });

const TranscriptPageRef = builder.objectRef<TranscriptPage>('TranscriptPage').implement({
  description: 'One page of turns, oldest first.',
  fields: (t) => ({
    messages: t.expose('messages', { type: [ConversationMessageRef], description: 'The turns of this page.' }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
  }),
});

const ConversationDetailRef = builder.objectRef<ConversationWithTranscript>('ConversationDetail').implement({
  description: 'A conversation with one page of its transcript.',
  fields: (t) => ({
    conversation: t.expose('conversation', { type: ConversationRef, description: 'The conversation.' }),
    transcript: t.expose('transcript', { type: TranscriptPageRef, description: 'One page of turns, oldest first.' }),
  }),
});

const CreateConversationInput = builder.inputType('CreateConversationInput', {
  description: 'An inbound call or a chat to record; checked by the same rules as POST /v1/conversations.',
  fields: (t) => ({
    orgId: t.id({ description: "The organization (default: the bot's, else the credential owner's)." }),
    botId: t.id({ description: 'The bot that answered.' }),
    medium: t.field({ type: MediumEnum, required: true, description: 'The medium.' }),
    fromNumber: t.string({ description: 'The caller or sender.' }),
    toNumber: t.string({ description: 'The number called or texted.' }),
    startTime: t.string({ description: 'ISO 8601 instant, from 2000-01-01T00:00:00Z to 24 hours after now; default now.' }),
    tags: t.stringList({ description: 'Tags.' }),
  }),
});

const EndConversationInput = builder.inputType('EndConversationInput', {
  description: 'How a conversation ended; duration in seconds.',
  fields: (t) => ({
    summary: t.string({ description: 'A summary.' }),
    topic: t.string({ description: 'The topic.' }),
    tags: t.stringList({ description: 'Tags (replace the current ones).' }),
    duration: t.int({ description: 'Seconds (default: from startTime to now).' }),
  }),
});

builder.queryFields((t) => ({
  conversation: t.field({
    type: ConversationDetailRef,
    description:
      "One conversation within the caller's reach (NOT_FOUND otherwise), with a page of its transcript (`first` turns after the cursor `after`). Scopes conversations:read and transcripts:read; every answer is entered in the access log first (UNAVAILABLE when it cannot be).",
    args: {
      id: t.arg.id({ required: true, description: 'Conversation id.' }),
      first: t.arg.int({ description: `Turns per page (1..${TRANSCRIPT_MAX_LIMIT}, default ${TRANSCRIPT_DEFAULT_LIMIT}).` }),
      after: t.arg.string({ description: 'The transcript.nextCursor of the previous page.' }),
      unredacted: t.arg.boolean({
        description:
          'Answer the words as said where the organization kept them (its redaction policy keeps originals). Needs transcripts:read_unredacted; the access-log entry says so.',
      }),
    },
    resolve: async (_root, args, ctx) =>
      getConversation(
        ctx.deps,
        await ctx.actor(),
        String(args.id),
        { limit: args.first, cursor: args.after, unredacted: args.unredacted },
        'graphql',
      ),
  }),
}));

builder.mutationFields((t) => ({
  createConversation: t.field({
    type: ConversationRef,
    description: 'Records an inbound call or a chat (OPEN). Scope conversations:write.',
    args: { input: t.arg({ type: CreateConversationInput, required: true, description: 'The conversation.' }) },
    resolve: async (_root, { input }, ctx) => createConversation(ctx.deps, await ctx.actor(), { ...input }),
  }),
  addConversationMessage: t.field({
    type: AddedConversationMessageRef,
    description: 'Appends a turn to an OPEN conversation. Scope conversations:write.',
    args: {
      id: t.arg.id({ required: true, description: 'Conversation id.' }),
      role: t.arg({ type: MessageRoleEnum, required: true, description: 'agent or caller.' }),
      text: t.arg.string({
        required: true,
        description: 'What was said. Stored encrypted, card numbers and US social security numbers replaced by `[card]`, `[ssn]`.',
      }),
      at: t.arg.string({ description: 'When (ISO 8601, from 2000-01-01T00:00:00Z to 24 hours after now; default now).' }),
    },
    resolve: async (_root, { id, ...input }, ctx) => addConversationMessage(ctx.deps, await ctx.actor(), String(id), input),
  }),
  endConversation: t.field({
    type: ConversationRef,
    description: 'Ends an OPEN conversation (status CLOSED). Scope conversations:write.',
    args: {
      id: t.arg.id({ required: true, description: 'Conversation id.' }),
      input: t.arg({ type: EndConversationInput, required: true, description: 'Summary, topic, tags, duration.' }),
    },
    resolve: async (_root, { id, input }, ctx) => endConversation(ctx.deps, await ctx.actor(), String(id), { ...input }),
  }),
}));
