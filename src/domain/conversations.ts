// The conversations list (spec §2 "Conversation", §4; CONTRACT §3): one page of an organization's
// conversations, newest first, with the total count of the same filter.
import { z } from 'zod';
import type { DomainDeps } from './deps.js';
import type { Conversation, Prisma } from '../generated/prisma/client.js';
import { type Actor, assertReach, canReach, requireScope } from './access.js';
import { InvalidInput, NotFound, parseInput } from './errors.js';
import { viewSchema } from './viewSchema.js';

export const CONVERSATION_STATUSES = ['OPEN', 'CLOSED'] as const;
export const CONVERSATION_MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const;
export const CONVERSATIONS_DEFAULT_LIMIT = 20;
export const CONVERSATIONS_MAX_LIMIT = 100;
/** The largest offset accepted (the GraphQL Int range); beyond it a page is necessarily empty anyway. */
export const CONVERSATIONS_MAX_OFFSET = 2_147_483_647;

// The REST query arrives as strings, GraphQL arguments as numbers/booleans (or null when sent as
// null). Only well-formed strings are converted, so "abc", "1.5" or "" still fail with a clear message.
const absentToUndefined = (value: unknown) => (value === null ? undefined : value);

function integerParam(min: number, max: number, fallback: number) {
  const error = `must be an integer between ${min} and ${max}`;
  return z.preprocess(
    (value) => {
      const v = absentToUndefined(value);
      return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
    },
    z.number({ error }).int({ error, abort: true }).min(min, { error }).max(max, { error }).default(fallback),
  );
}

const booleanParam = z.preprocess((value) => {
  const v = absentToUndefined(value);
  return v === 'true' ? true : v === 'false' ? false : v;
}, z.boolean({ error: 'must be true or false' }).default(false));

const uuidFilter = z.preprocess(
  absentToUndefined,
  z.uuid({ error: 'must be a UUID' }).transform((id) => id.toLowerCase()).optional(),
);

/**
 * Query of GET /v1/conversations and the arguments of GraphQL `conversations`. Unknown query
 * parameters are a 400, so that a misspelt filter (`includeArchive=true`) never silently answers
 * a different list.
 */
export const listConversationsInput = z.strictObject({
  offset: integerParam(0, CONVERSATIONS_MAX_OFFSET, 0).describe('Items to skip.'),
  limit: integerParam(1, CONVERSATIONS_MAX_LIMIT, CONVERSATIONS_DEFAULT_LIMIT).describe('Page size.'),
  orgId: uuidFilter.describe("Filter by organization (the credential owner's by default); outside the caller's reach a 404."),
  botId: uuidFilter.describe("Filter by bot; outside the caller's reach a 404."),
  includeArchived: booleanParam.describe('Include archived conversations.'),
  includeChildren: booleanParam.describe("Include the child organizations' conversations; account organizations only (400 otherwise)."),
});
export type ListConversationsInput = z.input<typeof listConversationsInput>;

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

/** The answer of the conversations list (documentation of the response; see ConversationPage). */
export const conversationPageSchema = viewSchema<ConversationPage>()(
  z.object({
    conversations: z.array(
      z.object({
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
      }).meta({ id: 'Conversation' }),
    ).describe('Newest `startTime` first, ties by id.'),
    pagination: z.object({ offset: z.int(), limit: z.int(), totalCount: z.int().describe('Conversations matching the filter, on every page.') }),
  }).meta({ id: 'ConversationPage' }),
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
  pagination: { offset: number; limit: number; totalCount: number };
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

/**
 * One page of conversations. Without `orgId` the list is the credential owner's organization; with
 * `includeChildren` (account owners only, else 400) its child organizations are added. An `orgId` or
 * `botId` outside the caller's reach is a 404. Newest `startTime` first, ties by id; the count and
 * the page are read in one repeatable-read transaction so that they agree. Scope conversations:read.
 */
export async function listConversations(deps: DomainDeps, actor: Actor, input: unknown): Promise<ConversationPage> {
  const { db } = deps;
  requireScope(actor, 'conversations:read');
  const query = parseInput(listConversationsInput, input ?? {});
  if (query.includeChildren && !actor.ownerIsAccount) {
    throw InvalidInput.of('includeChildren', 'only the credential of an account organization may include child organizations');
  }
  const targetOrgId = query.orgId ?? actor.orgId;
  assertReach(actor, targetOrgId);
  const orgIds = [targetOrgId];
  if (query.includeChildren) {
    const children = await db.organization.findMany({ where: { parentId: targetOrgId }, select: { id: true } });
    orgIds.push(...children.map((c) => c.id).filter((id) => canReach(actor, id)));
  }
  if (query.botId) {
    const bot = await db.bot.findUnique({ where: { id: query.botId }, select: { orgId: true } });
    if (!bot || !canReach(actor, bot.orgId)) throw new NotFound('Bot');
  }

  const where: Prisma.ConversationWhereInput = {
    orgId: orgIds.length === 1 ? orgIds[0]! : { in: orgIds },
    ...(query.includeArchived ? {} : { archived: false }),
    ...(query.botId ? { botId: query.botId } : {}),
  };
  const [totalCount, rows] = await db.$transaction(
    [
      db.conversation.count({ where }),
      db.conversation.findMany({ where, orderBy: [{ startTime: 'desc' }, { id: 'asc' }], skip: query.offset, take: query.limit }),
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  return {
    conversations: rows.map(conversationView),
    pagination: { offset: query.offset, limit: query.limit, totalCount },
  };
}
