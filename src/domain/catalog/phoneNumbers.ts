// Phone numbers (spec §2 "Phone number", §4): listing an organization's numbers, reading one, changing its
// settings (what its voice says and how), and attaching a number to a bot of the same organization.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import type { PhoneNumber, Prisma } from '../../generated/prisma/client.js';
import { type Actor, reaches, requireScope } from '../shared/access.js';
import { Conflict, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { uuidParam } from '../shared/ids.js';
import { batchOf } from '../shared/batch.js';
import { changedFields, recordEvent } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { viewSchema } from '../shared/viewSchema.js';
import { e164Schema } from '../shared/e164.js';
import { isUniqueViolation } from '../shared/databaseErrors.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { liveCallsUsingNumber, lockBotForShare, lockPhoneNumber, phoneNumberOwner, phoneNumberWithParent } from './sql.js';

export const LANGUAGES = ['ENGLISH', 'SPANISH', 'FRENCH', 'GERMAN'] as const;
export const VOICE_IDS = ['FRIENDLY_BRIGHT', 'CALM_WARM', 'PROFESSIONAL_CLEAR'] as const;

/**
 * The voice settings' ranges (the specification leaves them open): those of the speech engines these settings
 * name (stability, similarity boost and style exaggeration from 0 to 1; speed from 0.7 to 1.2 times normal).
 */
export const VOICE_RANGES = { speed: [0.7, 1.2], stability: [0, 1], similarity: [0, 1], style: [0, 1] } as const;
export const PHONE_NUMBER_NAME_MAX = 200;
export const GREETING_MAX = 1000;

const ranged = ([min, max]: readonly [number, number]) =>
  z
    .number({ error: `must be a number from ${min} to ${max}` })
    .min(min, { error: `must be a number from ${min} to ${max}` })
    .max(max, { error: `must be a number from ${min} to ${max}` });
const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });
const numberOrNone = z.union([z.literal(''), e164Schema], {
  error: 'must be a phone number in E.164 form, e.g. +14155552671, or "" for none',
});
const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

const settings = {
  name: text(PHONE_NUMBER_NAME_MAX).optional(),
  language: z.enum(LANGUAGES, { error: oneOf(LANGUAGES) }).optional(),
  voiceId: z.enum(VOICE_IDS, { error: oneOf(VOICE_IDS) }).optional(),
  speed: ranged(VOICE_RANGES.speed).optional(),
  stability: ranged(VOICE_RANGES.stability).optional(),
  similarity: ranged(VOICE_RANGES.similarity).optional(),
  style: ranged(VOICE_RANGES.style).optional(),
  customGreeting: text(GREETING_MAX).optional(),
  customClosedGreeting: text(GREETING_MAX).optional(),
  outbound: z.boolean({ error: 'must be true or false' }).optional(),
  verifiedCallerId: numberOrNone.optional(),
  callbackForwardingNumber: numberOrNone.optional(),
};

/**
 * Body of POST /v1/organizations/{orgId}/phone-numbers and the GraphQL RegisterPhoneNumberInput: the number
 * (E.164 of a real number plan, kept in canonical form), optionally the bot of the organization it answers
 * for, and any settings (the rest take their defaults).
 */
export const registerPhoneNumberInput = z.strictObject({
  number: e164Schema,
  botId: z.uuid({ error: 'must be a UUID' }).optional(),
  ...settings,
});
export type RegisterPhoneNumberInput = z.input<typeof registerPhoneNumberInput>;

/**
 * Body of PATCH /v1/phone-numbers/{phoneNumberId} and the GraphQL UpdatePhoneNumberInput: only the provided
 * settings change; a body naming none is a 400. Greetings and the name take "" to clear; the two numbers take
 * E.164 (kept in canonical form) or "" for none.
 */
export const updatePhoneNumberInput = z.strictObject(settings).refine((input) => Object.values(input).some((v) => v !== undefined), {
  error: 'nothing to update: send at least one setting',
});
export type UpdatePhoneNumberInput = z.input<typeof updatePhoneNumberInput>;

/** Body of POST /v1/phone-numbers/{phoneNumberId}/attach and the GraphQL attachPhoneNumber arguments. */
export const attachPhoneNumberInput = z.strictObject({
  botId: z.uuid({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a UUID') }),
});
export type AttachPhoneNumberInput = z.infer<typeof attachPhoneNumberInput>;

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

/** The phone number record as answered (documentation of the response; see PhoneNumberView). */
export const phoneNumberSchema = viewSchema<PhoneNumberView>()(
  z
    .object({
      id: z.uuid(),
      orgId: z.uuid(),
      botId: z.uuid().nullable().describe('The bot the number is attached to; null while unattached.'),
      createdAt: instant,
      updatedAt: instant,
      number: z.string(),
      name: z.string(),
      language: z.enum(LANGUAGES),
      outbound: z.boolean(),
      verifiedCallerId: z.string(),
      callbackForwardingNumber: z.string(),
      voiceId: z.enum(VOICE_IDS),
      speed: z.number(),
      stability: z.number(),
      similarity: z.number(),
      style: z.number(),
      customGreeting: z.string().describe('The greeting while the office is open.'),
      customClosedGreeting: z.string().describe('The greeting while the office is closed.'),
    })
    .meta({ id: 'PhoneNumber' }),
);
export const deletedPhoneNumberResponse = viewSchema<{ id: string; deleted: true }>()(z.object({ id: z.uuid(), deleted: z.literal(true) }));
export const phoneNumberListResponse = viewSchema<{ phoneNumbers: PhoneNumberView[] }>()(
  z.object({ phoneNumbers: z.array(phoneNumberSchema).describe('Oldest first.') }),
);

export interface PhoneNumberView {
  id: string;
  orgId: string;
  /** Null while the number is not attached to a bot. */
  botId: string | null;
  createdAt: string;
  updatedAt: string;
  number: string;
  name: string;
  language: (typeof LANGUAGES)[number];
  outbound: boolean;
  verifiedCallerId: string;
  callbackForwardingNumber: string;
  voiceId: (typeof VOICE_IDS)[number];
  speed: number;
  stability: number;
  similarity: number;
  style: number;
  customGreeting: string;
  customClosedGreeting: string;
}

export function phoneNumberView(row: PhoneNumber): PhoneNumberView {
  return {
    id: row.id,
    orgId: row.orgId,
    botId: row.botId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    number: row.number,
    name: row.name,
    language: row.language,
    outbound: row.outbound,
    verifiedCallerId: row.verifiedCallerId,
    callbackForwardingNumber: row.callbackForwardingNumber,
    voiceId: row.voiceId,
    speed: row.speed,
    stability: row.stability,
    similarity: row.similarity,
    style: row.style,
    customGreeting: row.customGreeting,
    customClosedGreeting: row.customClosedGreeting,
  };
}

/** The organization's phone numbers, oldest first. Scope organizations:read (route table). */
export async function listPhoneNumbers(deps: DomainDeps, actor: Actor, orgId: string): Promise<PhoneNumberView[]> {
  requireScope(actor, 'organizations:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const rows = await batchOf(deps).phoneNumbers.load(org.id); // oldest first
  return rows.map(phoneNumberView);
}

/** One phone number within the caller's reach (another tenant's is a 404, like a missing one). Scope organizations:read. */
export async function getPhoneNumber(deps: DomainDeps, actor: Actor, phoneNumberId: string): Promise<PhoneNumberView> {
  requireScope(actor, 'organizations:read');
  const id = uuidParam('phoneNumberId', phoneNumberId);
  // one statement: the number and the parent its reach is decided from
  const [row] = await phoneNumberWithParent(deps.db, id);
  if (!row || !reaches(actor, { id: row.orgId, parentId: row.parentId })) throw new NotFound('Phone number');
  return phoneNumberView(row);
}

/**
 * Changes the provided settings of a phone number within the caller's reach; event phone_number.updated
 * with the values replaced. The greetings feed availability answers, so a change is published to the read
 * model. Scope phone-numbers:write.
 */
export async function updatePhoneNumber(deps: DomainDeps, actor: Actor, phoneNumberId: string, input: unknown): Promise<PhoneNumberView> {
  requireScope(actor, 'phone-numbers:write');
  const id = uuidParam('phoneNumberId', phoneNumberId);
  const changes = parseInput(updatePhoneNumberInput, input ?? {});
  const { view, changed } = await deps.db.$transaction(async (tx) => {
    // locked and read first: the event records the values it replaces, and reach is decided in the same statement
    const [locked] = await lockPhoneNumber(tx, id);
    if (!locked || !reaches(actor, { id: locked.orgId, parentId: locked.parentId })) throw new NotFound('Phone number');
    const before = phoneNumberView(locked);
    const view = phoneNumberView(await tx.phoneNumber.update({ where: { id }, data: changes }));
    const previous = changedFields(before, view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'phone_number.updated',
        orgId: locked.orgId,
        subject: { type: 'phone_number', id },
        data: view,
        previous,
      });
    return { view, changed: previous !== null };
  });
  if (changed) deps.changes.publish({ kind: 'phoneNumbers', orgId: view.orgId });
  return view;
}

/** The answer to a number that is already registered: the same to every tenant, naming no owner. */
const ALREADY_REGISTERED = 'This number is already registered';

/**
 * Registers a number the organization owns. A number is registered once across the service: a second
 * registration, by anyone, is a 409 that says no more than that (whose it is stays theirs). At most
 * LIST_LIMITS.phoneNumbers per organization, counted under its lock. Scope phone-numbers:write.
 */
export async function registerPhoneNumber(deps: DomainDeps, actor: Actor, orgId: string, input: unknown): Promise<PhoneNumberView> {
  requireScope(actor, 'phone-numbers:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const { botId, ...data } = parseInput(registerPhoneNumberInput, input ?? {});
  const view = await deps.db
    .$transaction(async (tx) => {
      await lockOrganizationForLimit(tx, org.id);
      assertRoomFor('phoneNumbers', await tx.phoneNumber.count({ where: { orgId: org.id } }));
      if (botId !== undefined) {
        const [bot] = await lockBotForShare(tx, botId.toLowerCase());
        if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
        if (bot.orgId !== org.id) throw InvalidInput.of('botId', 'must be a bot of the same organization');
      }
      // the unique index decides between two registrations at once; this read answers the common case first
      if (await tx.phoneNumber.findFirst({ where: { number: data.number }, select: { id: true } })) throw new Conflict(ALREADY_REGISTERED);
      const view = phoneNumberView(await tx.phoneNumber.create({ data: { ...data, orgId: org.id, botId: botId?.toLowerCase() ?? null } }));
      await recordEvent(tx, deps, actor, {
        type: 'phone_number.created',
        orgId: org.id,
        subject: { type: 'phone_number', id: view.id },
        data: view,
      });
      return view;
    }, LIMIT_TRANSACTION_OPTIONS)
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new Conflict(ALREADY_REGISTERED);
      throw error;
    });
  deps.changes.publish({ kind: 'phoneNumbers', orgId: view.orgId });
  return view;
}

/** Detaches a number from its bot (it stays registered, answering for no bot). Event phone_number.detached. */
export async function detachPhoneNumber(deps: DomainDeps, actor: Actor, phoneNumberId: string): Promise<PhoneNumberView> {
  requireScope(actor, 'phone-numbers:write');
  const id = uuidParam('phoneNumberId', phoneNumberId);
  const { view, changed } = await deps.db.$transaction(async (tx) => {
    const [locked] = await lockPhoneNumber(tx, id);
    if (!locked || !reaches(actor, { id: locked.orgId, parentId: locked.parentId })) throw new NotFound('Phone number');
    if (locked.botId === null) return { view: phoneNumberView(locked), changed: false };
    return { view: await detachLockedNumber(tx, deps, actor, locked), changed: true };
  });
  if (changed) deps.changes.publish({ kind: 'phoneNumbers', orgId: view.orgId });
  return view;
}

/**
 * Detaches a number the transaction holds locked and attached, with its event (detaching one number, and the
 * numbers of a bot deleted, go through here). The caller publishes the change once the transaction committed.
 */
export async function detachLockedNumber(
  tx: Prisma.TransactionClient,
  deps: Pick<DomainDeps, 'clock'>,
  actor: Actor,
  locked: PhoneNumber,
): Promise<PhoneNumberView> {
  const view = phoneNumberView(await tx.phoneNumber.update({ where: { id: locked.id }, data: { botId: null } }));
  await recordEvent(tx, deps, actor, {
    type: 'phone_number.detached',
    orgId: locked.orgId,
    subject: { type: 'phone_number', id: locked.id },
    data: view,
    previous: { botId: locked.botId },
  });
  return view;
}

/**
 * Removes a number. Refused (409, with how many) while calls waiting or in progress use it as their caller
 * id: cancel them first. Past calls keep the id they were placed with. Event phone_number.deleted.
 */
export async function deletePhoneNumber(deps: DomainDeps, actor: Actor, phoneNumberId: string): Promise<{ id: string; deleted: true }> {
  requireScope(actor, 'phone-numbers:write');
  const id = uuidParam('phoneNumberId', phoneNumberId);
  const orgId = await deps.db.$transaction(async (tx) => {
    const [locked] = await lockPhoneNumber(tx, id);
    if (!locked || !reaches(actor, { id: locked.orgId, parentId: locked.parentId })) throw new NotFound('Phone number');
    // counted with the number locked; a call placed after the delete commits finds no number (a 404)
    const [{ live }] = (await liveCallsUsingNumber(tx, id)) as [{ live: number }];
    if (live > 0)
      throw new Conflict(
        `${live} call request${live === 1 ? ' is' : 's are'} queued or in progress with this number as caller id; cancel them first`,
      );
    await tx.phoneNumber.delete({ where: { id } });
    await recordEvent(tx, deps, actor, {
      type: 'phone_number.deleted',
      orgId: locked.orgId,
      subject: { type: 'phone_number', id },
      data: phoneNumberView(locked),
    });
    return locked.orgId;
  });
  deps.changes.publish({ kind: 'phoneNumbers', orgId });
  return { id, deleted: true };
}

/**
 * Attaches a phone number to a bot. A phone number or bot that is missing or outside the caller's
 * reach is a 404 (a foreign tenant's bot is indistinguishable from a missing one); a bot within reach
 * that belongs to another organization than the number is a 400 naming botId.
 */
export async function attachPhoneNumber(deps: DomainDeps, actor: Actor, phoneNumberId: string, input: unknown): Promise<PhoneNumberView> {
  const { db } = deps;
  requireScope(actor, 'phone-numbers:write');
  const id = uuidParam('phoneNumberId', phoneNumberId);
  const { botId: rawBotId } = parseInput(attachPhoneNumberInput, input ?? {});
  const botId = rawBotId.toLowerCase();

  // checked and written in one transaction with the bot row share-locked, so that the bot cannot move or
  // vanish between the check and the write
  const { view, changed } = await db.$transaction(async (tx) => {
    // reach is decided from the organizations' parents read in the same statements (no read outside the transaction)
    const phones = await phoneNumberOwner(tx, id);
    const phone = phones[0];
    if (!phone || !reaches(actor, { id: phone.orgId, parentId: phone.parentId })) throw new NotFound('Phone number');
    const bots = await lockBotForShare(tx, botId);
    const bot = bots[0];
    if (!bot || !reaches(actor, { id: bot.orgId, parentId: bot.parentId })) throw new NotFound('Bot');
    if (bot.orgId !== phone.orgId) throw InvalidInput.of('botId', "must be a bot of the phone number's organization");
    const updated = await tx.phoneNumber.update({ where: { id }, data: { botId } });
    const view = phoneNumberView(updated);
    // attaching changes only the bot
    const previous = changedFields({ ...view, botId: phone.botId }, view);
    if (previous) {
      await recordEvent(tx, deps, actor, {
        type: 'phone_number.attached',
        orgId: phone.orgId,
        subject: { type: 'phone_number', id },
        data: view,
        previous,
      });
    }
    return { view, changed: previous !== null };
  });
  // a change is published only with its event: other instances hear of it from that event (changes/eventTail.ts)
  if (changed) deps.changes.publish({ kind: 'phoneNumbers', orgId: view.orgId });
  return view;
}
