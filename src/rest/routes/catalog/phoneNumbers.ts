import {
  attachPhoneNumber,
  attachPhoneNumberInput,
  getPhoneNumber,
  listPhoneNumbers,
  updatePhoneNumber,
  updatePhoneNumberInput,
  VOICE_RANGES,
  phoneNumberListResponse,
  phoneNumberSchema,
} from '../../../domain/catalog/phoneNumbers.js';
import { defineRoute } from '../../route.js';

export const phoneNumberRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/phone-numbers',
    tag: 'Phone numbers',
    summary: "List an organization's phone numbers",
    description: '`data` = `{phoneNumbers: [phoneNumber]}`, oldest first.',
    scope: 'organizations:read',
    response: phoneNumberListResponse,
    handler: async ({ actor, deps, params }) => ({ data: { phoneNumbers: await listPhoneNumbers(deps, actor, params.orgId!) } }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/phone-numbers/:phoneNumberId',
    tag: 'Phone numbers',
    summary: 'Get one phone number with its settings',
    description: "A number that is missing or outside the caller's reach is a 404.",
    scope: 'organizations:read',
    response: phoneNumberSchema,
    handler: async ({ actor, deps, params }) => ({ data: await getPhoneNumber(deps, actor, params.phoneNumberId!) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/phone-numbers/:phoneNumberId',
    tag: 'Phone numbers',
    summary: "Change a phone number's settings (only the provided ones)",
    description: `Any of \`name\` (at most 200 characters), \`language\`, \`voiceId\`, \`speed\` (${VOICE_RANGES.speed.join(' to ')}), \`stability\`, \`similarity\`, \`style\` (each 0 to 1), \`customGreeting\`, \`customClosedGreeting\` (at most 1000 characters; \`""\` clears), \`outbound\`, \`verifiedCallerId\` and \`callbackForwardingNumber\` (E.164, kept in canonical form; \`""\` for none). A value out of range is a 400 naming the field; a body naming no setting is a 400. Event \`phone_number.updated\` with the values replaced; availability answers take a new greeting at once.`,
    scope: 'phone-numbers:write',
    body: updatePhoneNumberInput,
    response: phoneNumberSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await updatePhoneNumber(deps, actor, params.phoneNumberId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/phone-numbers/:phoneNumberId/attach',
    tag: 'Phone numbers',
    summary: 'Attach a phone number to a bot',
    description:
      "The bot must belong to the phone number's organization (400 naming `botId` otherwise). A phone number or bot that is missing or outside the caller's reach is a 404.",
    scope: 'phone-numbers:write',
    body: attachPhoneNumberInput,
    response: phoneNumberSchema,
    handler: async ({ actor, deps, params, body }) => ({
      data: await attachPhoneNumber(deps, actor, params.phoneNumberId!, body),
      message: 'Phone number attached',
    }),
  }),
];
