import { conversationPageSchema, listConversations, listConversationsInput } from '../../domain/conversations.js';
import { defineRoute } from '../route.js';

export const conversationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/conversations',
    tag: 'Conversations',
    summary: 'List conversations, newest first',
    description:
      "Query: `offset` (integer ≥ 0, default 0), `limit` (1..100, default 20), `orgId`, `botId`, `includeArchived` and `includeChildren` (`true`|`false`, default false). Without `orgId` the list is the credential owner's organization. `includeChildren=true` is for account organizations only (400 otherwise); an `orgId` or `botId` outside the caller's reach is a 404; unknown query parameters are a 400. Order: newest `startTime` first, ties by id.",
    scope: 'conversations:read',
    query: listConversationsInput,
    response: conversationPageSchema,
    errors: { 404: "The organization named by `orgId`, or the bot named by `botId`, is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listConversations(deps, actor, query) }),
  }),
];
