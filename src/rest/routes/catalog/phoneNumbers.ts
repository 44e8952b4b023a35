import {
  attachPhoneNumber,
  attachPhoneNumberInput,
  listPhoneNumbers,
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
