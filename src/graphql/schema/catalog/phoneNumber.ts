import { attachPhoneNumber, LANGUAGES, listPhoneNumbers, type PhoneNumberView, VOICE_IDS } from '../../../domain/catalog/phoneNumbers.js';
import { builder } from '../../builder.js';
import { OrganizationRef } from '../organizations/organization.js';

const LanguageEnum = builder.enumType('Language', {
  description: 'The language a phone number answers in (ENGLISH appears in the specification).',
  values: LANGUAGES,
});

const VoiceIdEnum = builder.enumType('VoiceId', {
  description: 'The voice a phone number answers with (FRIENDLY_BRIGHT appears in the specification).',
  values: VOICE_IDS,
});

export const PhoneNumberRef = builder.objectRef<PhoneNumberView>('PhoneNumber').implement({
  description: "A phone number of an organization, attached to one of the organization's bots.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Phone number id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization the number belongs to.' }),
    botId: t.exposeID('botId', { nullable: true, description: 'The bot the number is attached to; null while unattached.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the number was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the number was last changed.' }),
    number: t.exposeString('number', { description: 'The phone number.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    language: t.expose('language', { type: LanguageEnum, description: 'The language the bot answers in.' }),
    outbound: t.exposeBoolean('outbound', { description: 'True when the number places outbound calls.' }),
    verifiedCallerId: t.exposeString('verifiedCallerId', { description: 'The verified caller id shown on outbound calls.' }),
    callbackForwardingNumber: t.exposeString('callbackForwardingNumber', { description: 'Where callbacks are forwarded.' }),
    voiceId: t.expose('voiceId', { type: VoiceIdEnum, description: 'The voice the bot speaks with.' }),
    speed: t.exposeFloat('speed', { description: 'Voice speed.' }),
    stability: t.exposeFloat('stability', { description: 'Voice stability.' }),
    similarity: t.exposeFloat('similarity', { description: 'Voice similarity.' }),
    style: t.exposeFloat('style', { description: 'Voice style.' }),
    customGreeting: t.exposeString('customGreeting', { description: 'The greeting while the office is open.' }),
    customClosedGreeting: t.exposeString('customClosedGreeting', {
      description: 'The greeting while the office is closed (a closure or break greeting replaces it).',
    }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  phoneNumbers: t.field({
    type: [PhoneNumberRef],
    description: "The organization's phone numbers, oldest first. Scope organizations:read.",
    resolve: async (org, _args, ctx) => listPhoneNumbers(ctx.deps, await ctx.actor(), org.id),
  }),
}));

builder.mutationFields((t) => ({
  attachPhoneNumber: t.field({
    type: PhoneNumberRef,
    description:
      "Attaches a phone number to a bot of the same organization (BAD_USER_INPUT naming botId otherwise). A phone number or bot outside the caller's reach is NOT_FOUND. Scope phone-numbers:write.",
    args: {
      phoneNumberId: t.arg.id({ required: true, description: 'The phone number to attach.' }),
      botId: t.arg.id({ required: true, description: 'The bot to attach it to; must belong to the same organization.' }),
    },
    resolve: async (_root, args, ctx) =>
      attachPhoneNumber(ctx.deps, await ctx.actor(), String(args.phoneNumberId), { botId: String(args.botId) }),
  }),
}));
