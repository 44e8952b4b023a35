import { callBatchSchema } from '../../../domain/calls/callBatchProgress.js';
import {
  callBatchPageSchema,
  cancelCallBatch,
  cancelCallBatchInput,
  createCallBatch,
  createCallBatchInput,
  getCallBatch,
  listCallBatchRequests,
  listCallBatchRequestsInput,
  listCallBatches,
  listCallBatchesInput,
  MAX_BATCH_RECIPIENTS,
} from '../../../domain/calls/callBatches.js';
import { callRequestPageSchema } from '../../../domain/calls/callRequests.js';
import { z } from 'zod';
import { defineRoute } from '../../route.js';

const createdBatchSchema = callBatchSchema.extend({
  callRequests: z
    .array(z.object({ index: z.int(), callRequestId: z.uuid() }))
    .describe('The call requests placed, in recipient order: the index of each one’s recipient.'),
});

export const callBatchRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/call-batches',
    tag: 'Calls',
    summary: `Place up to ${MAX_BATCH_RECIPIENTS.toLocaleString('en-US')} calls at once (a campaign)`,
    description:
      'Shared defaults (`botId`, `phoneNumberId`, `purpose`, `consent`, `notBefore`, `notAfter`, `officeHoursOnly`, `retry`, `metadata`) and 1 to 5,000 `recipients` `{to, calleeTimezone, metadata, consent, notBefore}`. Each recipient becomes a call request checked by the rules of POST /v1/call-requests. All or nothing: a bad recipient answers 400 naming the first 20 bad rows by index (`recipients.12.to`) and nothing is placed. Suppressed numbers and numbers given before in the batch are not called: `skipped: [{index, reason}]`. A batch whose every recipient is skipped is created completed. At most 20 batches of an organization are in progress at once (409). Events `call_batch.created`, later `call_batch.completed`.',
    scope: 'call-requests:write',
    body: createCallBatchInput,
    response: createdBatchSchema,
    errors: { 404: "The bot or the phone number is missing or outside the caller's reach." },
    handler: async ({ actor, deps, body }) => ({ data: await createCallBatch(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/call-batches',
    tag: 'Calls',
    summary: 'List call batches, newest first',
    description:
      'Each batch as `GET /v1/call-batches/{id}` answers it, its requests counted per status and disposition. Cursor pages (`limit`, `cursor`) and filters `status` (`in_progress`: completedAt null; `completed`: completedAt set, canceled ones included; `canceled`: canceledAt set), `createdFrom`, `createdTo`; `orgId` defaults to the credential owner.',
    scope: 'call-requests:read',
    query: listCallBatchesInput,
    response: callBatchPageSchema,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listCallBatches(deps, actor, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/call-batches/:callBatchId',
    tag: 'Calls',
    summary: 'A call batch and its progress',
    description: 'Its requests counted per status and per disposition, and `completedAt` once every one is final.',
    scope: 'call-requests:read',
    response: callBatchSchema,
    handler: async ({ actor, deps, params }) => ({ data: await getCallBatch(deps, actor, params.callBatchId!) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/call-batches/:callBatchId/call-requests',
    tag: 'Calls',
    summary: "A call batch's requests, newest first",
    description: 'Cursor pages (`limit`, `cursor`) and filters `status`, `disposition`.',
    scope: 'call-requests:read',
    query: listCallBatchRequestsInput,
    response: callRequestPageSchema,
    handler: async ({ actor, deps, params, query }) => ({ data: await listCallBatchRequests(deps, actor, params.callBatchId!, query) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-batches/:callBatchId/cancel',
    tag: 'Calls',
    summary: 'Cancel what a call batch has not started',
    description:
      'Its queued requests, and those claimed but not started, end canceled; calls under way finish. Event `call_batch.canceled`, then `call_batch.completed` once nothing is pending. A completed batch is a 409.',
    scope: 'call-requests:write',
    body: cancelCallBatchInput,
    response: callBatchSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await cancelCallBatch(deps, actor, params.callBatchId!, body) }),
  }),
];
