// Phone numbers (spec §2 "Phone number", §4): listing an organization's numbers and attaching a
// number to a bot of the same organization.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import type { PhoneNumber } from '../../generated/prisma/client.js';
import { type Actor, reaches, requireScope } from '../shared/access.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { batchOf } from '../shared/batch.js';
import { changedFields, recordEvent } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { viewSchema } from '../shared/viewSchema.js';
import { lockBotForShare, phoneNumberOwner } from './sql.js';

export const LANGUAGES = ['ENGLISH', 'SPANISH', 'FRENCH', 'GERMAN'] as const;
export const VOICE_IDS = ['FRIENDLY_BRIGHT', 'CALM_WARM', 'PROFESSIONAL_CLEAR'] as const;

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
