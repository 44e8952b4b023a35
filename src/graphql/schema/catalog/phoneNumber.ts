import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  attachPhoneNumber,
  deletePhoneNumber,
  detachPhoneNumber,
  getPhoneNumber,
  registerPhoneNumber,
  GREETING_MAX,
  LANGUAGES,
  listPhoneNumbers,
  PHONE_NUMBER_NAME_MAX,
  type PhoneNumberView,
  updatePhoneNumber,
  VOICE_IDS,
  VOICE_RANGES,
} from '../../../domain/catalog/phoneNumbers.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
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
  interfaces: [NodeRef],
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

const range = (field: keyof typeof VOICE_RANGES) => `${VOICE_RANGES[field][0]} to ${VOICE_RANGES[field][1]}`;

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The settings a registration may set and an update may change (the same domain rules check both). */
const settingFields = (t: PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>) => ({
  name: t.string({ description: `Display name, at most ${PHONE_NUMBER_NAME_MAX} characters.` }),
  language: t.field({ type: LanguageEnum, description: 'The language the bot answers in.' }),
  voiceId: t.field({ type: VoiceIdEnum, description: 'The voice the bot speaks with.' }),
  speed: t.float({ description: `Voice speed, ${range('speed')}.` }),
  stability: t.float({ description: `Voice stability, ${range('stability')}.` }),
  similarity: t.float({ description: `Voice similarity, ${range('similarity')}.` }),
  style: t.float({ description: `Voice style, ${range('style')}.` }),
  customGreeting: t.string({ description: `The greeting while the office is open, at most ${GREETING_MAX} characters; "" clears it.` }),
  customClosedGreeting: t.string({
    description: `The greeting while the office is closed, at most ${GREETING_MAX} characters; "" clears it.`,
  }),
  outbound: t.boolean({ description: 'Whether the number places outbound calls.' }),
  verifiedCallerId: t.string({ description: 'The verified caller id (E.164), or "" for none.' }),
  callbackForwardingNumber: t.string({ description: 'Where callbacks are forwarded (E.164), or "" for none.' }),
});

const UpdatePhoneNumberInput = builder.inputType('UpdatePhoneNumberInput', {
  description: 'Only the provided settings change; at least one is required. Checked by the same rules as PATCH /v1/phone-numbers/{id}.',
  fields: settingFields,
});

const RegisterPhoneNumberInput = builder.inputType('RegisterPhoneNumberInput', {
  description:
    'A number the organization owns, with any settings. Checked by the same rules as POST /v1/organizations/{orgId}/phone-numbers.',
  fields: (t) => ({
    number: t.string({ required: true, description: 'The number, E.164 (kept in canonical form); registered once across the service.' }),
    botId: t.id({ description: 'A bot of the same organization the number answers for.' }),
    ...settingFields(t),
  }),
});

builder.queryFields((t) => ({
  phoneNumber: t.field({
    type: PhoneNumberRef,
    nullable: true,
    description: "A phone number within the caller's reach (NOT_FOUND otherwise). Scope organizations:read.",
    args: { id: t.arg.id({ required: true, description: 'Phone number id.' }) },
    resolve: async (_root, args, ctx) => getPhoneNumber(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  registerPhoneNumber: t.field({
    type: PhoneNumberRef,
    description: `Registers a number the organization owns; CONFLICT when it is already registered (naming no owner) or the organization has ${LIST_LIMITS.phoneNumbers} numbers. Scope phone-numbers:write.`,
    args: {
      orgId: t.arg.id({ required: true, description: 'The organization.' }),
      input: t.arg({ type: RegisterPhoneNumberInput, required: true, description: 'The number and its settings.' }),
    },
    resolve: async (_root, args, ctx) =>
      registerPhoneNumber(ctx.deps, await ctx.actor(), String(args.orgId), {
        ...args.input,
        botId: args.input.botId == null ? undefined : String(args.input.botId),
      }),
  }),
  detachPhoneNumber: t.field({
    type: PhoneNumberRef,
    description:
      "Detaches a phone number from its bot; it stays registered. NOT_FOUND outside the caller's reach. Scope phone-numbers:write.",
    args: { phoneNumberId: t.arg.id({ required: true, description: 'The phone number.' }) },
    resolve: async (_root, args, ctx) => detachPhoneNumber(ctx.deps, await ctx.actor(), String(args.phoneNumberId)),
  }),
  deletePhoneNumber: t.boolean({
    description: 'Removes a phone number; CONFLICT while calls queued or in progress use it as their caller id. Scope phone-numbers:write.',
    args: { phoneNumberId: t.arg.id({ required: true, description: 'The phone number.' }) },
    resolve: async (_root, args, ctx) => (await deletePhoneNumber(ctx.deps, await ctx.actor(), String(args.phoneNumberId))).deleted,
  }),
  updatePhoneNumber: t.field({
    type: PhoneNumberRef,
    description:
      "Changes the provided settings of a phone number within the caller's reach (NOT_FOUND otherwise); a value out of range is BAD_USER_INPUT naming it. Scope phone-numbers:write.",
    args: {
      phoneNumberId: t.arg.id({ required: true, description: 'The phone number.' }),
      input: t.arg({ type: UpdatePhoneNumberInput, required: true, description: 'The settings to change.' }),
    },
    resolve: async (_root, args, ctx) =>
      // the input goes to the domain as sent (omitted fields absent), where it is validated once
      updatePhoneNumber(ctx.deps, await ctx.actor(), String(args.phoneNumberId), { ...args.input }),
  }),
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
