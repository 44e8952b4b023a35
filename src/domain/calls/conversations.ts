// The conversations list (spec §2 "Conversation", §4; docs/decisions.md §3): one page of an organization's
// conversations, newest first, with the total count of the same filter. Pages are asked by offset (the
// specification's form) or by cursor (REST `cursor`/`nextCursor`, the GraphQL connection): a cursor
// page is a keyset read (conversationPages.ts), as cheap deep in the list as at its start.
import { z } from 'zod';
import { instantInputSchema } from '../shared/timeFormats.js';
import type { KeyMaterial } from '../../crypto/derivedKeys.js';
import type { ScheduleDeps } from '../schedule/deps.js';
import type { Conversation, Prisma } from '../../generated/prisma/client.js';
import { type Actor, assertReach, canReach, requireScope } from '../shared/access.js';
import { childrenWithinReach } from '../organizations/organizations.js';
import { type ConversationPosition, type ConversationRange, type ConversationRowFilter, positionOf } from './conversationPages.js';
import { conversationsAfter, conversationsAtOffset } from './sql.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { viewSchema } from '../shared/viewSchema.js';
import { absentToUndefined, booleanParam, cursorParam, integerParam, optionalIntegerParam } from '../shared/inputParams.js';
import { openInstantIdCursor, sealCursor, pageCursorKey } from '../shared/pageCursors.js';

export const CONVERSATION_STATUSES = ['OPEN', 'CLOSED'] as const;
export const CONVERSATION_MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const;
export const CONVERSATIONS_DEFAULT_LIMIT = 20;
export const CONVERSATIONS_MAX_LIMIT = 100;
/** The largest offset accepted (the GraphQL Int range); beyond it a page is necessarily empty anyway. */
export const CONVERSATIONS_MAX_OFFSET = 2_147_483_647;

const uuidFilter = z.preprocess(
  absentToUndefined,
  z
    .uuid({ error: 'must be a UUID' })
    .transform((id) => id.toLowerCase())
    .optional(),
);

/**
 * Query of GET /v1/conversations and the arguments of GraphQL `conversations`. Unknown query
 * parameters are a 400, so that a misspelt filter (`includeArchive=true`) never silently answers
 * a different list.
 */
const conversationFilters = {
  orgId: uuidFilter.describe("Filter by organization (the credential owner's by default); outside the caller's reach a 404."),
  botId: uuidFilter.describe("Filter by bot; outside the caller's reach a 404."),
  includeArchived: booleanParam.describe('Include archived conversations.'),
  includeChildren: booleanParam.describe("Include the child organizations' conversations; account organizations only (400 otherwise)."),
  medium: z
    .preprocess(absentToUndefined, z.enum(CONVERSATION_MEDIUMS, { error: `must be one of ${CONVERSATION_MEDIUMS.join(', ')}` }).optional())
    .describe('Only this medium.'),
  status: z
    .preprocess(
      absentToUndefined,
      z.enum(CONVERSATION_STATUSES, { error: `must be one of ${CONVERSATION_STATUSES.join(', ')}` }).optional(),
    )
    .describe('Only this status.'),
  startedFrom: z
    .preprocess(
      (v) => (v instanceof Date ? v.toISOString() : absentToUndefined(v)),
      instantInputSchema('must be an ISO 8601 instant').optional(),
    )
    .describe('startTime at or after this instant.'),
  startedTo: z
    .preprocess(
      (v) => (v instanceof Date ? v.toISOString() : absentToUndefined(v)),
      instantInputSchema('must be an ISO 8601 instant').optional(),
    )
    .describe('startTime before this instant.'),
};

export const listConversationsInput = z
  .strictObject({
    offset: optionalIntegerParam(0, CONVERSATIONS_MAX_OFFSET).describe('Items to skip (default 0). Not with `cursor`.'),
    cursor: cursorParam.describe(
      'Continue after the page whose `pagination.nextCursor` this is (opaque; bound to the filters it was issued for). Not with `offset`.',
    ),
    limit: integerParam(1, CONVERSATIONS_MAX_LIMIT, CONVERSATIONS_DEFAULT_LIMIT).describe('Page size.'),
    ...conversationFilters,
  })
  .refine((query) => query.offset === undefined || query.cursor === undefined, {
    path: ['cursor'],
    error: 'cannot be combined with offset; send one of them',
  });
export type ListConversationsInput = z.input<typeof listConversationsInput>;

/** The arguments of GraphQL `conversationsConnection` (a Relay connection): `first`/`after` and the filters. */
export const conversationsConnectionInput = z.strictObject({
  first: integerParam(1, CONVERSATIONS_MAX_LIMIT, CONVERSATIONS_DEFAULT_LIMIT),
  after: cursorParam,
  ...conversationFilters,
});

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

/** The answer of the conversations list (documentation of the response; see ConversationPage). */
export const conversationPageSchema = viewSchema<ConversationPage>()(
  z
    .object({
      conversations: z
        .array(
          z
            .object({
              conversationId: z.uuid(),
              orgId: z.uuid(),
              botId: z.uuid().nullable(),
              conversationTags: z.array(z.string()),
              medium: z.enum(CONVERSATION_MEDIUMS),
              toNumber: z.string(),
              fromNumber: z.string(),
              summary: z.string(),
              topic: z.string(),
              duration: z.int().describe('Seconds.'),
              startTime: instant,
              endTime: instant.nullable(),
              status: z.enum(CONVERSATION_STATUSES),
            })
            .meta({ id: 'Conversation' }),
        )
        .describe('Newest `startTime` first, ties by id.'),
      pagination: z.object({
        offset: z.int().nullable().describe('Items skipped; null for a page asked by `cursor`.'),
        limit: z.int(),
        totalCount: z.int().describe('Conversations matching the filters, over all pages.'),
        nextCursor: z.string().nullable().describe('The `cursor` of the next page; null on the last page.'),
      }),
    })
    .meta({ id: 'ConversationPage' }),
);

export interface ConversationView {
  conversationId: string;
  orgId: string;
  botId: string | null;
  conversationTags: string[];
  medium: (typeof CONVERSATION_MEDIUMS)[number];
  toNumber: string;
  fromNumber: string;
  summary: string;
  topic: string;
  /** Seconds. */
  duration: number;
  startTime: string;
  endTime: string | null;
  status: (typeof CONVERSATION_STATUSES)[number];
}

export interface ConversationPage {
  conversations: ConversationView[];
  /** `offset` is null for a page asked by cursor; `nextCursor` null on the last page. */
  pagination: { offset: number | null; limit: number; totalCount: number; nextCursor: string | null };
}

/** A Relay connection of conversations (GraphQL `conversationsConnection`). */
export interface ConversationConnection {
  edges: { cursor: string; node: ConversationView }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Counted only when asked for (a count reads every matching row's index entry). */
  totalCount(): Promise<number>;
}

/** What the conversations list needs besides the database: the signing key its cursors' MAC key derives from. */
export interface ConversationDeps extends ScheduleDeps {
  tokens: { key: KeyMaterial };
}

/**
 * One conversation's list fields, by id (GraphQL `node`): no transcript, so no access-log entry. Scope
 * conversations:read; outside reach a 404 like a missing one.
 */
export async function getConversationSummary(deps: ScheduleDeps, actor: Actor, conversationId: string): Promise<ConversationView> {
  requireScope(actor, 'conversations:read');
  const id = uuidParam('id', conversationId);
  const row = await deps.db.conversation.findUnique({ where: { id } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Conversation');
  return conversationView(row);
}

export function conversationView(row: Conversation): ConversationView {
  return {
    conversationId: row.id,
    orgId: row.orgId,
    botId: row.botId,
    conversationTags: row.tags,
    medium: row.medium,
    toNumber: row.toNumber,
    fromNumber: row.fromNumber,
    summary: row.summary,
    topic: row.topic,
    duration: row.duration,
    startTime: row.startTime.toISOString(),
    endTime: row.endTime?.toISOString() ?? null,
    status: row.status,
  };
}

type Filters = Pick<
  z.output<typeof listConversationsInput>,
  'orgId' | 'botId' | 'includeArchived' | 'includeChildren' | 'medium' | 'status' | 'startedFrom' | 'startedTo'
>;

/** What a list of the given filters covers, once reach is checked: a Prisma filter and the index ranges. */
interface ConversationScope {
  where: Prisma.ConversationWhereInput;
  ranges: ConversationRange[];
  /** What a cursor is bound to: the resolved filters (the organization defaults to the owner's). */
  cursorFilters: {
    list: 'conversations';
    orgId: string;
    botId: string | null;
    includeArchived: boolean;
    includeChildren: boolean;
    rows?: ConversationRowFilter;
  };
}

/**
 * Without `orgId` the list is the credential owner's organization; with `includeChildren` (account
 * owners only, else 400) its child organizations are added. An `orgId` or `botId` outside the caller's
 * reach is a 404.
 */
async function conversationScope(deps: ScheduleDeps, actor: Actor, query: Filters): Promise<ConversationScope> {
  const { db } = deps;
  if (query.includeChildren && !actor.ownerIsAccount) {
    throw InvalidInput.of('includeChildren', 'only the credential of an account organization may include child organizations');
  }
  const targetOrgId = query.orgId ?? actor.orgId;
  await assertReach(deps, actor, targetOrgId);
  // the children are within reach only under the caller's own account (a location's children, if any,
  // are not): then the list is named through the parent relation, never by listing the children
  const withChildren = query.includeChildren && childrenWithinReach(actor, { id: targetOrgId });
  let botInList = true;
  let botOrgId: string | undefined;
  if (query.botId) {
    const bot = await db.bot.findUnique({ where: { id: query.botId }, select: { orgId: true, org: { select: { parentId: true } } } });
    if (!bot || !(await canReach(deps, actor, bot.orgId))) throw new NotFound('Bot');
    botOrgId = bot.orgId;
    botInList = bot.orgId === targetOrgId || (withChildren && bot.org.parentId === targetOrgId);
  }

  const rows: ConversationRowFilter = {
    ...(query.medium ? { medium: query.medium } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.startedFrom ? { from: Date.parse(query.startedFrom) } : {}),
    ...(query.startedTo ? { to: Date.parse(query.startedTo) } : {}),
  };
  const filtered = Object.keys(rows).length > 0;
  const where: Prisma.ConversationWhereInput = {
    ...(withChildren ? { OR: [{ orgId: targetOrgId }, { org: { parentId: targetOrgId } }] } : { orgId: targetOrgId }),
    ...(query.includeArchived ? {} : { archived: false }),
    ...(query.botId ? { botId: query.botId } : {}),
    ...(rows.medium ? { medium: rows.medium as ConversationView['medium'] } : {}),
    ...(rows.status ? { status: rows.status as ConversationView['status'] } : {}),
    ...(rows.from !== undefined || rows.to !== undefined
      ? {
          startTime: {
            ...(rows.from !== undefined ? { gte: new Date(rows.from) } : {}),
            ...(rows.to !== undefined ? { lt: new Date(rows.to) } : {}),
          },
        }
      : {}),
  };
  const archivedStates = query.includeArchived ? [false, true] : [false];
  // a bot's conversations are its organization's: one range per archived state, or none when the bot's
  // organization is not among the listed ones
  const ranges: ConversationRange[] = query.botId
    ? botInList
      ? archivedStates.map((archived) => ({ orgId: botOrgId!, botId: query.botId!, archived, ...(filtered ? { where: rows } : {}) }))
      : []
    : archivedStates.map((archived) => ({ orgId: targetOrgId, archived, withChildren, ...(filtered ? { where: rows } : {}) }));
  return {
    where,
    ranges,
    cursorFilters: {
      list: 'conversations',
      orgId: targetOrgId,
      botId: query.botId ?? null,
      includeArchived: query.includeArchived,
      includeChildren: query.includeChildren,
      ...(filtered ? { rows } : {}),
    },
  };
}

function sealPosition(deps: ConversationDeps, scope: ConversationScope, row: Conversation): string {
  return sealCursor(pageCursorKey(deps.tokens.key), positionOf(row), scope.cursorFilters);
}

function openPosition(deps: ConversationDeps, scope: ConversationScope, cursor: string, field: string): ConversationPosition {
  return openInstantIdCursor(pageCursorKey(deps.tokens.key), cursor, scope.cursorFilters, field);
}

/**
 * One page of conversations, by offset (default) or by `cursor`. Newest `startTime` first, ties by id.
 * `nextCursor` continues after the page in both cases, so a client may start with offsets and go on
 * with cursors. By offset, the count and the page are read in one repeatable-read transaction so that
 * they agree. Scope conversations:read.
 */
export async function listConversations(deps: ConversationDeps, actor: Actor, input: unknown): Promise<ConversationPage> {
  const { db } = deps;
  requireScope(actor, 'conversations:read');
  const query = parseInput(listConversationsInput, input ?? {});
  const scope = await conversationScope(deps, actor, query);

  if (query.cursor !== undefined) {
    const after = openPosition(deps, scope, query.cursor, 'cursor');
    const [rows, totalCount] = await Promise.all([
      conversationsAfter(db, scope.ranges, after, query.limit + 1),
      db.conversation.count({ where: scope.where }),
    ]);
    const page = rows.slice(0, query.limit);
    return {
      conversations: page.map(conversationView),
      pagination: {
        offset: null,
        limit: query.limit,
        totalCount,
        nextCursor: rows.length > query.limit ? sealPosition(deps, scope, page.at(-1)!) : null,
      },
    };
  }

  const offset = query.offset ?? 0;
  const [totalCount, rows] =
    scope.ranges.length === 0
      ? [0, []]
      : await db.$transaction(
          [db.conversation.count({ where: scope.where }), conversationsAtOffset(db, scope.ranges, query.limit, offset)],
          {
            isolationLevel: 'RepeatableRead',
          },
        );
  const hasMore = rows.length > 0 && offset + rows.length < totalCount;
  return {
    conversations: rows.map(conversationView),
    pagination: { offset, limit: query.limit, totalCount, nextCursor: hasMore ? sealPosition(deps, scope, rows.at(-1)!) : null },
  };
}

/**
 * The same list as a Relay connection: `first` conversations after the cursor `after`, each edge with
 * its own cursor. `hasNextPage` is exact (one row more is read); `hasPreviousPage` is true when `after`
 * was given. Cursors are the same as REST's `nextCursor`. Scope conversations:read.
 */
export async function conversationsConnection(deps: ConversationDeps, actor: Actor, input: unknown): Promise<ConversationConnection> {
  requireScope(actor, 'conversations:read');
  const query = parseInput(conversationsConnectionInput, input ?? {});
  const scope = await conversationScope(deps, actor, query);
  const after = query.after === undefined ? undefined : openPosition(deps, scope, query.after, 'after');
  const rows = await conversationsAfter(deps.db, scope.ranges, after, query.first + 1);
  const edges = rows.slice(0, query.first).map((row) => ({ cursor: sealPosition(deps, scope, row), node: conversationView(row) }));
  let counted: Promise<number> | undefined;
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > query.first,
      hasPreviousPage: after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: () => (counted ??= deps.db.conversation.count({ where: scope.where })),
  };
}
