import { createErasureInput, createErasureRequest, erasureRequestSchema, getErasureRequest } from '../../../domain/calls/erasure.js';
import { defineRoute } from '../../route.js';

export const erasureRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/erasure-requests',
    tag: 'Erasure',
    summary: "Erase a patient's data on request",
    description:
      "Exactly one of `phoneNumber` (with its country code, any punctuation), `conversationId` or `callRequestId`, within the credential's reach (an account's request covers its locations). Answers 202 with the request (status `pending`); a durable job then deletes the conversations and their turns, keeps call requests' status and times but replaces their number by a keyed hash, scrubs the number from events, stored webhook answers and stored idempotent answers, and keeps a suppression of the number as its keyed hash (a new call request to it is still refused). Follow it with GET /v1/erasure-requests/{erasureRequestId}. Events `erasure.requested`, `erasure.completed` (neither names the number).",
    scope: 'erasure:write',
    body: createErasureInput,
    // exactly one of its three fields
    bodyRequired: true,
    response: erasureRequestSchema,
    successStatus: 202,
    errors: {
      400: 'None or more than one of phoneNumber, conversationId, callRequestId; or a phone number without its country code.',
      404: "The conversation or call request is missing or outside the caller's reach.",
    },
    handler: async ({ actor, deps, body }) => ({ data: await createErasureRequest(deps, actor, body), status: 202 }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/erasure-requests/:erasureRequestId',
    tag: 'Erasure',
    summary: 'How far an erasure got',
    description:
      '`status` (pending, running, completed) and `counts` of what was removed so far. The number erased is never answered back. Scope `erasure:write` (reading an erasure is part of asking for one).',
    scope: 'erasure:write',
    response: erasureRequestSchema,
    errors: { 404: "The erasure request is missing or outside the caller's reach." },
    handler: async ({ actor, deps, params }) => ({ data: await getErasureRequest(deps, actor, params.erasureRequestId!) }),
  }),
];
