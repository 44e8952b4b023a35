// Conversations written, not only read (docs/decisions.md §9): the agent runtime appends the turns of a call it
// started (POST /v1/call-requests/{id}/start opens the conversation) and ends it with its summary;
// inbound calls and chats are recorded the same way (POST /v1/conversations). One conversation is read
// with its transcript, in cursor pages of turns. `duration` is in seconds.
import { z } from 'zod';
import { absentToUndefined, booleanParam } from '../shared/inputParams.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import { randomUUID } from 'node:crypto';
import type { Conversation, ConversationMessage } from '../../generated/prisma/client.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import {
  CONVERSATION_MEDIUMS,
  type ConversationDeps,
  type ConversationView,
  conversationPageSchema,
  conversationView,
} from './conversations.js';
import type { ScheduleDeps } from '../schedule/deps.js';
import { Conflict, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { newEventRow, recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { loadReachableOrganization, reachableInTransaction } from '../organizations/organizations.js';
import { openCursor, PAGE_CURSOR_MAX_LENGTH, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { viewSchema } from '../shared/viewSchema.js';
import type { PatientWordsAnswerType } from '../shared/shownOnce.js';
import { appendConversationMessage, conversationForTurn, conversationWithTurns, lockConversationRow } from './sql.js';
import { type AccessLogSurface, recordTranscriptRead } from '../governance/accessLog.js';
import { redactTranscript } from '../governance/redaction.js';
import { turnRedaction } from '../governance/redactionPolicy.js';

/** Free text refused with a 400 when the database could not store it as sent (NUL, unpaired surrogates). */
const storable = (schema: z.ZodString) => schema.refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

export const MESSAGE_ROLES = ['agent', 'caller'] as const;
export const MAX_MESSAGE_LENGTH = 4_000;
export const MAX_TAGS = 20;
export const TRANSCRIPT_DEFAULT_LIMIT = 50;
export const TRANSCRIPT_MAX_LIMIT = 200;

const instantInput = z.preprocess(
  (v) => (v instanceof Date ? v.toISOString() : absentToUndefined(v)),
  instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-02T15:00:00Z').optional(),
);
/** The earliest instant a conversation or a turn may be recorded at. */
export const EARLIEST_RECORDED_AT = '2000-01-01T00:00:00Z';
/** How far past the app's clock one may be recorded at: another clock a little ahead, not a date years away. */
export const RECORDED_AT_MAX_AHEAD_MS = 24 * 60 * 60_000;

/**
 * A conversation's `startTime` or a turn's `at` lies between 2000-01-01 and a day past now (the app's clock):
 * a call in 1970 or 2999 is a client's bug, and such a time would sort first (newest first) in every list.
 */
function checkRecordedAt(field: string, value: string | undefined, now: Date): void {
  if (value === undefined) return;
  const ms = Date.parse(value);
  if (ms < Date.parse(EARLIEST_RECORDED_AT)) throw InvalidInput.of(field, `must be ${EARLIEST_RECORDED_AT} or later`);
  const latest = now.getTime() + RECORDED_AT_MAX_AHEAD_MS;
  if (ms > latest)
    throw InvalidInput.of(field, `must be at most 24 hours after the current time (at most ${new Date(latest).toISOString()})`);
}

const phoneText = z.preprocess(absentToUndefined, storable(z.string().max(32, 'must be at most 32 characters')).default(''));
const tags = z.preprocess(
  absentToUndefined,
  z
    .array(storable(z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters')), {
      error: 'must be a list of strings',
    })
    .max(MAX_TAGS, `must have at most ${MAX_TAGS} tags`)
    .optional(),
);

export const createConversationInput = z.strictObject({
  orgId: z
    .preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional())
    .describe("The organization (default: the bot's, else the credential owner's)."),
  botId: z.preprocess(absentToUndefined, z.uuid({ error: 'must be a UUID' }).optional()).describe('The bot that answered.'),
  medium: z.enum(CONVERSATION_MEDIUMS, { error: `must be one of ${CONVERSATION_MEDIUMS.join(', ')}` }),
  fromNumber: phoneText.describe('The caller or sender.'),
  toNumber: phoneText.describe('The number called or texted.'),
  startTime: instantInput.describe('From 2000-01-01T00:00:00Z to 24 hours after now; default now.'),
  tags,
});

export const addMessageInput = z.strictObject({
  role: z.enum(MESSAGE_ROLES, { error: 'must be agent or caller' }),
  text: storable(
    z
      .string({ error: 'is required' })
      .min(1, 'must not be empty')
      .max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`),
  ).describe(
    'What was said. Stored encrypted; a payment card number (13 to 19 digits passing the Luhn check, in groups split by spaces or dashes) is stored as `[card]` and a US social security number (3-2-4 digits split by dashes or spaces) as `[ssn]`.',
  ),
  at: instantInput.describe('When it was said, from 2000-01-01T00:00:00Z to 24 hours after now (default now).'),
});

export const endConversationInput = z.strictObject({
  status: z.preprocess(absentToUndefined, z.literal('CLOSED', { error: 'must be CLOSED' }).default('CLOSED')),
  summary: z.preprocess(absentToUndefined, storable(z.string().max(2_000, 'must be at most 2000 characters')).optional()),
  topic: z.preprocess(absentToUndefined, storable(z.string().max(255, 'must be at most 255 characters')).optional()),
  tags,
  duration: z
    .preprocess(
      absentToUndefined,
      z
        .number({ error: 'must be a whole number of seconds' })
        .int({ error: 'must be a whole number of seconds' })
        .min(0, 'must not be negative')
        .max(86_400 * 7, 'must be at most a week')
        .optional(),
    )
    .describe('Seconds (default: from startTime to now).'),
});

export interface MessageView {
  seq: number;
  role: (typeof MESSAGE_ROLES)[number];
  text: string;
  at: string;
}

/**
 * The answer of appending a turn: the turn, its words echoed (`textWithheld: false`). An idempotent replay of it
 * answers `text: null` and `textWithheld: true`: patients' words are never stored for a replay
 * (domain/shared/shownOnce.ts PATIENT_WORDS_FIELDS).
 */
export interface AddedMessageView extends Omit<MessageView, 'text'> {
  text: string | null;
  textWithheld: boolean;
}

export interface TranscriptPage {
  messages: MessageView[];
  nextCursor: string | null;
}

export interface ConversationWithTranscript {
  conversation: ConversationView;
  transcript: TranscriptPage;
}

const messageSchema = z
  .object({
    seq: z.int().describe('1, 2, … in the order written.'),
    role: z.enum(MESSAGE_ROLES),
    text: z.string().describe('What was said, as stored: card numbers and SSNs replaced by `[card]`, `[ssn]`.'),
    at: z.iso.datetime(),
  })
  .meta({ id: 'ConversationMessage' });
const conversationSchema = conversationPageSchema.shape.conversations.element;

export const conversationResponse = viewSchema<ConversationView>()(conversationSchema);
export const messageResponse = viewSchema<AddedMessageView>()(
  z
    .object({
      seq: z.int().describe('1, 2, … in the order written.'),
      role: z.enum(MESSAGE_ROLES),
      text: z
        .string()
        .nullable()
        .describe(
          'What was said, as stored (card numbers and SSNs replaced by `[card]`, `[ssn]`): in the first answer only; null in an idempotent replay (`textWithheld: true`).',
        ),
      at: z.iso.datetime(),
      textWithheld: z
        .boolean()
        .describe(
          "False in the first answer; true in an idempotent replay (`Idempotent-Replayed: true`), which answers the turn with `text: null`: a patient's words are never stored for a replay. Read them with GET /v1/conversations/{conversationId}.",
        ),
    })
    .meta({ id: 'AddedConversationMessage' satisfies PatientWordsAnswerType }),
);
export const conversationWithTranscriptResponse = viewSchema<ConversationWithTranscript>()(
  z.object({
    conversation: conversationSchema,
    transcript: z.object({
      messages: z.array(messageSchema).describe('In the order written.'),
      nextCursor: z.string().nullable().describe('The `cursor` of the next page of turns; null on the last.'),
    }),
  }),
);

export const transcriptQuery = z.strictObject({
  limit: z
    .preprocess(
      (v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : absentToUndefined(v)),
      z
        .number({ error: `must be an integer between 1 and ${TRANSCRIPT_MAX_LIMIT}` })
        .int({ error: `must be an integer between 1 and ${TRANSCRIPT_MAX_LIMIT}` })
        .min(1, `must be an integer between 1 and ${TRANSCRIPT_MAX_LIMIT}`)
        .max(TRANSCRIPT_MAX_LIMIT, `must be an integer between 1 and ${TRANSCRIPT_MAX_LIMIT}`)
        .default(TRANSCRIPT_DEFAULT_LIMIT),
    )
    .describe(`Turns per page (1..${TRANSCRIPT_MAX_LIMIT}, default ${TRANSCRIPT_DEFAULT_LIMIT}).`),
  cursor: z
    .preprocess(absentToUndefined, z.string().min(1).max(PAGE_CURSOR_MAX_LENGTH).optional())
    .describe('The `transcript.nextCursor` of the previous page.'),
  unredacted: booleanParam.describe(
    'Answer the words as said where the organization kept them (its redaction policy keeps originals); needs `transcripts:read_unredacted`, and the access-log entry says so.',
  ),
});

/** A turn as answered, with its words opened (`text`) from the sealed row. */
function messageView(row: ConversationMessage, text: string): MessageView {
  return { seq: row.seq, role: row.role as MessageView['role'], text, at: row.at.toISOString() };
}

const conversationEventData = (view: ConversationView) => view;

/** Records an inbound call or a chat (OPEN). Scope conversations:write. */
export async function createConversation(deps: ScheduleDeps, actor: Actor, input: unknown): Promise<ConversationView> {
  const data = parseInput(createConversationInput, input ?? {});
  requireScope(actor, 'conversations:write');
  checkRecordedAt('startTime', data.startTime, deps.clock());
  let orgId = data.orgId?.toLowerCase();
  const botId = data.botId?.toLowerCase() ?? null;
  if (botId) {
    const bot = await deps.db.bot.findUnique({ where: { id: botId }, select: { orgId: true } });
    if (!bot || !(await canReach(deps, actor, bot.orgId))) throw new NotFound('Bot');
    if (orgId && orgId !== bot.orgId) throw InvalidInput.of('botId', 'must be a bot of the organization orgId');
    orgId = bot.orgId;
  }
  const org = await loadReachableOrganization(deps, actor, orgId ?? actor.orgId);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const row = await tx.conversation.create({
      data: {
        orgId: org.id,
        botId,
        medium: data.medium,
        fromNumber: data.fromNumber,
        toNumber: data.toNumber,
        startTime: data.startTime ? new Date(data.startTime) : now,
        tags: data.tags ?? [],
        status: 'OPEN',
      },
    });
    const view = conversationView(row);
    await recordEvent(tx, deps, actor, {
      type: 'conversation.started',
      orgId: org.id,
      subject: { type: 'conversation', id: row.id },
      data: conversationEventData(view),
    });
    return view;
  });
}

/** Locks a conversation within reach (404 otherwise) for the rest of the transaction. */
async function lockConversation(
  tx: Parameters<Parameters<ScheduleDeps['db']['$transaction']>[0]>[0],
  actor: Actor,
  id: string,
): Promise<Conversation> {
  const row = await lockConversationRow(tx, id);
  if (!row || !(await reachableInTransaction(tx, actor, row.orgId))) throw new NotFound('Conversation');
  return row;
}

/** Appends one turn to an OPEN conversation (409 once it ended). Scope conversations:write. */
export async function addConversationMessage(
  deps: ScheduleDeps,
  actor: Actor,
  conversationId: string,
  input: unknown,
): Promise<AddedMessageView> {
  const data = parseInput(addMessageInput, input ?? {});
  requireScope(actor, 'conversations:write');
  const id = uuidParam('conversationId', conversationId);
  const now = deps.clock();
  checkRecordedAt('at', data.at, now);
  // no transaction: the conversation is read, the words redacted and sealed, then the turn and its event are
  // appended in one statement that also checks the conversation is still OPEN (appendConversationMessage)
  const conversation = await conversationForTurn(deps.db, id);
  if (!conversation || !(await canReach(deps, actor, conversation.orgId))) throw new NotFound('Conversation');
  const ended = () => new Conflict(`Conversation ${id} has ended; no turns can be added`);
  if (conversation.status !== 'OPEN') throw ended();
  // the words are stored without card numbers and SSNs (governance/redaction.ts), sealed with the organization's
  // data key (governance/transcriptKeys.ts), never in clear; the answer shows them as stored
  // (and, as the organization's policy says, without e-mail addresses and phone numbers, the words as said kept
  // sealed beside them: governance/redactionPolicy.ts)
  const messageId = randomUUID();
  const redaction = turnRedaction(conversation);
  const { text: words, redacted } = redactTranscript(data.text, redaction.options);
  const sealed = await deps.transcripts.seal(deps.db, conversation.orgId, messageId, words);
  const original =
    redaction.keepOriginals && redacted ? await deps.transcripts.seal(deps.db, conversation.orgId, messageId, data.text, 'original') : null;
  const at = data.at ? new Date(data.at) : now;
  // the event names the turn, never its words: events and webhook deliveries are read without transcripts:read
  // and without an access-log entry, so the text is read only through the logged reads (docs/decisions.md §13);
  // its seq is the one the statement gives the turn
  const event = newEventRow(deps, actor, {
    type: 'conversation.message_added',
    orgId: conversation.orgId,
    subject: { type: 'conversation', id },
    data: { role: data.role, at: at.toISOString(), length: words.length },
  });
  const row = await appendConversationMessage(
    deps.db,
    {
      id: messageId,
      conversationId: id,
      role: data.role,
      text: sealed.text,
      keyVersion: sealed.keyVersion,
      original: original?.text ?? null,
      at,
    },
    event,
  );
  // ended (or erased) between the read and the append
  if (!row) throw (await conversationForTurn(deps.db, id)) ? ended() : new NotFound('Conversation');
  return { ...messageView(row, words), textWithheld: false };
}

/** Ends an OPEN conversation with its summary (409 when it already ended). Scope conversations:write. */
export async function endConversation(deps: ScheduleDeps, actor: Actor, conversationId: string, input: unknown): Promise<ConversationView> {
  const data = parseInput(endConversationInput, input ?? {});
  requireScope(actor, 'conversations:write');
  const id = uuidParam('conversationId', conversationId);
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const conversation = await lockConversation(tx, actor, id);
    if (conversation.status !== 'OPEN') throw new Conflict(`Conversation ${id} has already ended`);
    const duration = data.duration ?? Math.max(0, Math.round((now.getTime() - conversation.startTime.getTime()) / 1000));
    const row = await tx.conversation.update({
      where: { id },
      data: {
        status: data.status,
        endTime: now,
        duration,
        ...(data.summary !== undefined ? { summary: data.summary } : {}),
        ...(data.topic !== undefined ? { topic: data.topic } : {}),
        ...(data.tags !== undefined ? { tags: data.tags } : {}),
      },
    });
    const view = conversationView(row);
    await recordEvent(tx, deps, actor, {
      type: 'conversation.ended',
      orgId: conversation.orgId,
      subject: { type: 'conversation', id },
      data: view,
      previous: { status: 'OPEN', endTime: null },
    });
    return view;
  });
}

/**
 * One conversation within reach with one page of its transcript. Scopes conversations:read and
 * transcripts:read (the answer holds what was said). The read is entered in the access log first
 * (domain/governance/accessLog.ts); when the entry cannot be written the answer is a 503, never the text.
 */
export async function getConversation(
  deps: ConversationDeps,
  actor: Actor,
  conversationId: string,
  query: unknown,
  surface: AccessLogSurface,
): Promise<ConversationWithTranscript> {
  requireScope(actor, 'conversations:read');
  requireScope(actor, 'transcripts:read');
  const id = uuidParam('conversationId', conversationId);
  const page = parseInput(transcriptQuery, query ?? {});
  if (page.unredacted) requireScope(actor, 'transcripts:read_unredacted');
  const key = pageCursorKey(deps.tokens.key);
  const filters = { list: 'transcript', conversationId: id };
  const after = page.cursor === undefined ? 0 : transcriptPosition(key, page.cursor, filters);
  // the conversation and its page of turns in one statement; the turns are opened only once the read is logged
  const found = await conversationWithTurns(deps.db, id, after, page.limit + 1);
  if (!found || !(await canReach(deps, actor, found.conversation.orgId))) throw new NotFound('Conversation');
  const { conversation, turns } = found;
  await recordTranscriptRead(deps, actor, { orgId: conversation.orgId, conversationId: id, surface, unredacted: page.unredacted });
  // one after the other: the first opens the organization's data key, the others find it kept
  const messages: MessageView[] = [];
  for (const row of turns.slice(0, page.limit)) {
    const original = page.unredacted && row.original !== null ? row.original : null;
    const text =
      original !== null
        ? await deps.transcripts.open(deps.db, conversation.orgId, row.id, { text: original, keyVersion: row.keyVersion }, 'original')
        : await deps.transcripts.open(deps.db, conversation.orgId, row.id, row);
    messages.push(messageView(row, text));
  }
  return {
    conversation: conversationView(conversation),
    transcript: {
      messages,
      nextCursor: turns.length > page.limit ? sealCursor(key, { s: messages.at(-1)!.seq }, filters) : null,
    },
  };
}

/** The seq a transcript cursor stands after (400 naming `cursor` when this service did not issue it for this list). */
function transcriptPosition(key: ReturnType<typeof pageCursorKey>, cursor: string, filters: Record<string, string>): number {
  const position = openCursor(key, cursor, filters, 'cursor') as { s?: unknown };
  if (typeof position?.s !== 'number' || !Number.isInteger(position.s))
    throw InvalidInput.of('cursor', 'is not a cursor this service issued (altered or made up); start again without it');
  return position.s;
}
