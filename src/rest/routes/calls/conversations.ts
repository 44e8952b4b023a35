import { conversationPageSchema, listConversations, listConversationsInput } from '../../../domain/calls/conversations.js';
import {
  addConversationMessage,
  addMessageInput,
  conversationResponse,
  conversationWithTranscriptResponse,
  createConversation,
  createConversationInput,
  endConversation,
  endConversationInput,
  getConversation,
  messageResponse,
  transcriptQuery,
} from '../../../domain/calls/conversationWrites.js';
import { defineRoute } from '../../route.js';

export const conversationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/conversations',
    tag: 'Conversations',
    summary: 'List conversations, newest first',
    description:
      "Query: `offset` (integer ≥ 0, default 0), `limit` (1..100, default 20), `orgId`, `botId`, `includeArchived` and `includeChildren` (`true`|`false`, default false), `medium`, `status`, and a `startTime` range `startedFrom`..`startedTo`. Without `orgId` the list is the credential owner's organization. `includeChildren=true` is for account organizations only (400 otherwise); an `orgId` or `botId` outside the caller's reach is a 404; unknown query parameters are a 400. Order: newest `startTime` first, ties by id.",
    scope: 'conversations:read',
    query: listConversationsInput,
    response: conversationPageSchema,
    errors: { 404: "The organization named by `orgId`, or the bot named by `botId`, is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listConversations(deps, actor, query) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations',
    tag: 'Conversations',
    summary: 'Record an inbound call or a chat',
    description:
      "Opens a conversation (status OPEN) of the bot's organization (or `orgId`, default the credential owner's). Add turns with `…/messages`, end it with `…/end`.",
    scope: 'conversations:write',
    body: createConversationInput,
    response: conversationResponse,
    errors: { 404: "The organization or the bot is missing or outside the caller's reach." },
    handler: async ({ actor, deps, body }) => ({ data: await createConversation(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:conversationId',
    tag: 'Conversations',
    summary: 'Get a conversation with its transcript',
    description:
      'The transcript comes in cursor pages of turns (`limit`, `cursor`), oldest first, as stored (redacted: `GET /v1/organizations/{orgId}/redaction`). Needs `conversations:read` and `transcripts:read`; every answer is entered in the access log first (`GET /v1/access-log`), and a read whose entry cannot be written is refused with 503. With `unredacted=true` (and the scope `transcripts:read_unredacted`), a turn whose original the organization kept is answered as said, and the entry is marked `unredacted`.',
    scope: 'transcripts:read',
    query: transcriptQuery,
    response: conversationWithTranscriptResponse,
    errors: {
      403: 'The credential lacks conversations:read or transcripts:read (or, with `unredacted=true`, transcripts:read_unredacted).',
    },
    handler: async ({ actor, deps, params, query }) => ({
      data: await getConversation(deps, actor, params.conversationId!, query, 'rest'),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:conversationId/messages',
    tag: 'Conversations',
    summary: 'Append a turn',
    description: '`{role: agent|caller, text, at?}`; while the conversation is OPEN (409 once it ended).',
    scope: 'conversations:write',
    body: addMessageInput,
    response: messageResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await addConversationMessage(deps, actor, params.conversationId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:conversationId/end',
    tag: 'Conversations',
    summary: 'End a conversation',
    description:
      '`{status: CLOSED, summary, topic, tags, duration}`; `duration` in seconds (default: from startTime to now). 409 when it already ended.',
    scope: 'conversations:write',
    body: endConversationInput,
    response: conversationResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await endConversation(deps, actor, params.conversationId!, body) }),
  }),
];
