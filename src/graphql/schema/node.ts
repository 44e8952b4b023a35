// Global object identification (issue 38, "GraphQL for dashboards"): a `Node` interface with `node(id)` and
// `nodes(ids)`, so that a client cache (Relay, urql, Apollo) can normalize and refetch any object by its id. The
// ids stay the UUIDs REST uses; `__typename` says which kind an object is. One statement finds which table holds
// each id; then each object is read by the same domain function, with the same scope, reach and budget, as its
// own query field (`bot(id)` for a Bot, and so on). Another tenant's id answers null, exactly like a missing one.
import { type Actor, reaches } from '../../domain/shared/access.js';
import { InvalidInput, NotFound } from '../../domain/shared/errors.js';
import { uuidParam } from '../../domain/shared/ids.js';
import type { NodeTable } from '../../domain/shared/sql.js';
import { batchOf } from '../../domain/shared/batch.js';
import { readOrganization } from '../../domain/organizations/organizations.js';
import { getBot } from '../../domain/catalog/bots.js';
import { getPhoneNumber } from '../../domain/catalog/phoneNumbers.js';
import { getInsurance } from '../../domain/catalog/insurances.js';
import { getTemplate } from '../../domain/catalog/templates.js';
import { getCallRequest } from '../../domain/calls/callRequests.js';
import { getCallBatch } from '../../domain/calls/callBatches.js';
import { getConversationSummary } from '../../domain/calls/conversations.js';
import { getWebhookEndpoint } from '../../domain/events/webhookEndpoints.js';
import { getEvent } from '../../domain/events/queries.js';
import { enforceCallRequestPollInterval } from '../../ratelimit/callRequestPolling.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { limitRootField } from '../rateLimits.js';

/** The most ids `nodes` takes at once. */
export const MAX_NODE_IDS = 100;

interface NodeKind {
  /** The GraphQL type an object of the table is. */
  type: string;
  /** The field whose rate-limit budget a read draws on (the kind's own query field, and so its REST twin's). */
  budget: [typeName: string, fieldName: string];
  read: (ctx: GraphQLContext, actor: Actor, id: string) => Promise<object>;
}

const KINDS: Record<NodeTable, NodeKind> = {
  Organization: {
    type: 'Organization',
    budget: ['Query', 'organization'],
    read: (ctx, actor, id) => readOrganization(ctx.deps, actor, id),
  },
  Bot: { type: 'Bot', budget: ['Query', 'bot'], read: (ctx, actor, id) => getBot(ctx.deps, actor, id) },
  PhoneNumber: { type: 'PhoneNumber', budget: ['Query', 'phoneNumber'], read: (ctx, actor, id) => getPhoneNumber(ctx.deps, actor, id) },
  Insurance: { type: 'Insurance', budget: ['Organization', 'insurances'], read: (ctx, actor, id) => getInsurance(ctx.deps, actor, id) },
  WorkflowTemplate: { type: 'WorkflowTemplate', budget: ['Query', 'template'], read: (ctx, actor, id) => getTemplate(ctx.deps, actor, id) },
  CallRequest: {
    type: 'CallRequest',
    budget: ['Query', 'callRequest'],
    // a poll like callRequest(id)'s: the same interval between two looks at one request
    read: async (ctx, actor, id) => {
      const view = await getCallRequest(ctx.deps, actor, id);
      await enforceCallRequestPollInterval(ctx.deps, actor, view.callRequestId, view.status);
      return view;
    },
  },
  CallBatch: { type: 'CallBatch', budget: ['Query', 'callBatch'], read: (ctx, actor, id) => getCallBatch(ctx.deps, actor, id) },
  Conversation: {
    type: 'Conversation',
    budget: ['Query', 'conversation'],
    read: (ctx, actor, id) => getConversationSummary(ctx.deps, actor, id),
  },
  WebhookEndpoint: {
    type: 'WebhookEndpoint',
    budget: ['Query', 'webhookEndpoint'],
    read: (ctx, actor, id) => getWebhookEndpoint(ctx.deps, actor, id),
  },
  Event: { type: 'Event', budget: ['Query', 'event'], read: (ctx, actor, id) => getEvent(ctx.deps, actor, id) },
};

/** The type of each object `node`/`nodes` answered: the interface's resolveType reads it (the objects are the domain's views). */
const typeOfNode = new WeakMap<object, string>();

export const NodeRef = builder.interfaceRef<object>('Node').implement({
  description:
    'An object with a global id: the UUID its REST route uses. `__typename` says which kind it is; `node(id)` and `nodes(ids)` fetch any of them again.',
  fields: (t) => ({
    // each kind answers its own `id` (a call request's view names it callRequestId); this one serves those that hold `id`
    id: t.id({ description: 'The object id (UUID).', resolve: (parent) => (parent as { id: string }).id }),
  }),
  resolveType: (value) => typeOfNode.get(value) ?? null,
});

/**
 * The objects named by `ids` in their order: null for an id no table holds or one outside the caller's reach (a
 * missing object and another tenant's read the same); an error in place of an object the credential may not read.
 */
async function resolveNodes(ctx: GraphQLContext, rawIds: readonly unknown[], field: string): Promise<(object | Error | null)[]> {
  const ids = rawIds.map((raw, i) => uuidParam(field === 'id' ? 'id' : `${field}.${i}`, raw));
  const actor = await ctx.actor();
  // every alias's ids in one statement; then the reads a few at a time for the whole operation (batch.ts inTurn)
  const batch = batchOf(ctx.deps);
  const rows = await batch.nodeTables.loadMany(ids);
  return Promise.all(
    ids.map(async (id, i) => {
      const row = rows[i];
      if (row instanceof Error) throw row;
      // outside reach is decided first, before a budget is drawn or a scope checked: what another tenant holds, and
      // of which kind, must not show in the answer (a budget in its extensions, a FORBIDDEN for a kind not held)
      if (!row || !reaches(actor, { id: row.orgId, parentId: row.parentId })) return null;
      const kind = KINDS[row.table];
      try {
        await limitRootField(ctx, actor.orgId, kind.budget[0], kind.budget[1], { id });
        const object = await batch.inTurn(() => kind.read(ctx, actor, id));
        typeOfNode.set(object, kind.type);
        return object;
      } catch (error) {
        if (error instanceof NotFound) return null;
        // in a list, the item alone fails (graphql-js puts an Error item at its path); `node` throws it
        if (error instanceof Error) return error;
        throw error;
      }
    }),
  );
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description:
      "Any object by its id (Relay's global object identification): null when no object has it or it is outside the caller's reach. Reading it takes the scope its own query field takes and draws on that field's budget.",
    args: { id: t.arg.id({ required: true, description: 'The object id (UUID).' }) },
    resolve: async (_root, args, ctx) => {
      const [object] = await resolveNodes(ctx, [args.id], 'id');
      if (object instanceof Error) throw object;
      return object ?? null;
    },
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `Objects by their ids, in the order asked (at most ${MAX_NODE_IDS}); each item as \`node(id)\` would answer it.`,
    args: { ids: t.arg.idList({ required: true, description: `Object ids (UUIDs), at most ${MAX_NODE_IDS}.` }) },
    resolve: async (_root, args, ctx) => {
      if (args.ids.length > MAX_NODE_IDS) throw InvalidInput.of('ids', `must have at most ${MAX_NODE_IDS} ids`);
      return resolveNodes(ctx, args.ids, 'ids');
    },
  }),
}));
