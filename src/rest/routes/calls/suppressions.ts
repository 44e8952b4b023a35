import {
  addSuppression,
  addSuppressionInput,
  addSuppressions,
  bulkSuppressionResponse,
  bulkSuppressionsInput,
  listSuppressions,
  listSuppressionsInput,
  removeSuppression,
  suppressionPageSchema,
  suppressionSchema,
} from '../../../domain/calls/suppressions.js';
import { defineRoute } from '../../route.js';

export const suppressionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/suppressions',
    tag: 'Calls',
    summary: 'Put a number on the suppression (do-not-call) list',
    description:
      "The credential owner's list; an account's list applies to all its locations. `number` with its country code in any punctuation, stored in E.164 (`+1 (202) 555-0143` is `+12025550143`). A number already on the list keeps its entry. A call request to a listed number answers 409 `suppressed`, and queued ones are never handed out. Event `suppression.added`.",
    scope: 'call-requests:write',
    body: addSuppressionInput,
    response: suppressionSchema,
    handler: async ({ actor, deps, body }) => ({ data: await addSuppression(deps, actor, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/suppressions/bulk',
    tag: 'Calls',
    summary: 'Put up to 10,000 numbers on the suppression list, all or none',
    description:
      'An invalid number refuses the whole list (400 naming the first 20 bad rows by index; nothing stored). The same number twice is one entry. One `suppression.added` event names the numbers newly added.',
    scope: 'call-requests:write',
    body: bulkSuppressionsInput,
    response: bulkSuppressionResponse,
    handler: async ({ actor, deps, body }) => ({ data: await addSuppressions(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/suppressions',
    tag: 'Calls',
    summary: "The credential owner's suppression list, in number order",
    description: 'Cursor pages (`limit`, `cursor`); `number` (any punctuation) answers only its entry.',
    scope: 'call-requests:read',
    query: listSuppressionsInput,
    response: suppressionPageSchema,
    handler: async ({ actor, deps, query }) => ({ data: await listSuppressions(deps, actor, query) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/suppressions/:number',
    tag: 'Calls',
    summary: 'Take a number off the suppression list',
    description:
      "The credential owner's entry, named by its number (any punctuation; `+` may be sent as `%2B`) or its `suppressionId`. Event `suppression.removed`.",
    scope: 'call-requests:write',
    response: suppressionSchema,
    errors: { 404: "The number is not on the credential owner's list." },
    handler: async ({ actor, deps, params }) => ({ data: await removeSuppression(deps, actor, params.number!) }),
  }),
];
