import {
  callRequestPageSchema,
  callRequestSchema,
  cancelCallRequest,
  cancelCallRequestInput,
  createCallRequest,
  createCallRequestInput,
  getCallRequest,
  listCallRequests,
  listCallRequestsInput,
} from '../../../domain/calls/callRequests.js';
import {
  claimCallRequests,
  claimInput,
  claimResponse,
  completeCallRequest,
  completeInput,
  failCallRequest,
  failInput,
  heartbeatCallRequest,
  heartbeatInput,
  heartbeatResponse,
  startCallRequest,
  startInput,
} from '../../../domain/calls/callDispatch.js';
import { enforceCallRequestPollInterval } from '../../../ratelimit/callRequestPolling.js';
import { defineRoute } from '../../route.js';

const LEASE_409 = 'The lease is not held: it ended, the request was claimed by another runtime, canceled or finished.';

export const callRequestRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests',
    tag: 'Calls',
    summary: 'Place a call',
    description:
      "`botId` and `phoneNumberId` (the caller id, attached to that bot) of one organization within reach; `to` in E.164. The request is queued until `notBefore` (default now) and expires when not started by `notAfter` (default now + 24 h). With `officeHoursOnly` it is dispatched only while the organization's PHONE availability is OPEN. `retry` `{on, maxAttempts (1..10), intervalsMinutes}` tries again after busy, no_answer or voicemail (default: the calling policy's `retry`). A disabled organization is a 409.",
    scope: 'call-requests:write',
    body: createCallRequestInput,
    response: callRequestSchema,
    errors: { 404: "The bot or the phone number is missing or outside the caller's reach." },
    handler: async ({ actor, deps, body }) => ({ data: await createCallRequest(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/call-requests',
    tag: 'Calls',
    summary: 'List call requests, newest first',
    description:
      'Cursor pages (`limit`, `cursor`) and filters `status`, `botId`, `batchId`, `disposition`, `createdFrom`, `createdTo`; `orgId` defaults to the credential owner.',
    scope: 'call-requests:read',
    query: listCallRequestsInput,
    response: callRequestPageSchema,
    errors: { 404: "The organization named by `orgId`, or the bot named by `botId`, is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listCallRequests(deps, actor, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/call-requests/:callRequestId',
    tag: 'Calls',
    summary: 'Poll a call request',
    description:
      'A failed request is a 200 with `status: "failed"` and `error {category, code, message}`. Draws on the per-second polling budget; a pending request (queued, in_progress) may be polled at most every 10 seconds.',
    scope: 'call-requests:read',
    budget: 'callRequestPoll',
    response: callRequestSchema,
    handler: async ({ actor, deps, params }) => {
      const data = await getCallRequest(deps, actor, params.callRequestId!);
      await enforceCallRequestPollInterval(deps, actor, data.callRequestId, data.status); // needs the status
      return { data };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests/:callRequestId/cancel',
    tag: 'Calls',
    summary: 'Cancel a call not yet started',
    description: 'Queued, or claimed but not started; otherwise a 409.',
    scope: 'call-requests:write',
    body: cancelCallRequestInput,
    response: callRequestSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await cancelCallRequest(deps, actor, params.callRequestId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/dispatch/claim',
    tag: 'Dispatch',
    summary: 'Claim due calls (agent runtime)',
    description:
      'Hands out up to `max` due requests within reach, each to exactly one claimer, under a lease of `leaseSeconds`, with the PHONE availability (greeting, templates) the agent needs. Keep the lease with heartbeats; a lease that ends re-queues the request, and after 3 it fails with `dispatch_timeout`.',
    scope: 'calls:dispatch',
    body: claimInput,
    response: claimResponse,
    handler: async ({ actor, deps, body }) => ({ data: await claimCallRequests(deps, actor, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests/:callRequestId/heartbeat',
    tag: 'Dispatch',
    summary: 'Extend the lease of a claimed call',
    scope: 'calls:dispatch',
    body: heartbeatInput,
    response: heartbeatResponse,
    description: LEASE_409,
    handler: async ({ actor, deps, params, body }) => ({ data: await heartbeatCallRequest(deps, actor, params.callRequestId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests/:callRequestId/start',
    tag: 'Dispatch',
    summary: 'The call was answered: open its conversation',
    description: `Creates the conversation (medium PHONE) and sets \`conversationId\`. 409: already started, or ${LEASE_409}`,
    scope: 'calls:dispatch',
    body: startInput,
    response: callRequestSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await startCallRequest(deps, actor, params.callRequestId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests/:callRequestId/complete',
    tag: 'Dispatch',
    summary: 'The call ended normally',
    description: `After start, with what the call came to: \`disposition\` (booked, callback_requested, opt_out, transferred, voicemail_left, information_given, declined, other), \`notes\` (≤ 2,000 characters), \`data\` (a JSON object ≤ 16 KB). \`opt_out\` lists the number; \`callback_requested\` with \`callbackAt\` (not in the past, before notAfter) places a follow-up request (\`followUpOf\`, event call_request.queued), due at the first allowed instant at or after it. 409: not started, or ${LEASE_409}`,
    scope: 'calls:dispatch',
    body: completeInput,
    response: callRequestSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await completeCallRequest(deps, actor, params.callRequestId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/call-requests/:callRequestId/fail',
    tag: 'Dispatch',
    summary: 'The call could not be placed or held',
    description: `\`error {category (default "request"), code, message}\` with code one of target_unavailable, busy, no_answer, voicemail, rejected, dispatch_timeout. The attempt is listed in \`attempts\`; an outcome the request's \`retry\` names, with attempts left, queues it again at the first allowed instant at or after the outcome + the interval (events call_request.attempt_failed, call_request.retry_scheduled), else it ends failed (call_request.failed). 409: ${LEASE_409}`,
    scope: 'calls:dispatch',
    body: failInput,
    response: callRequestSchema,
    handler: async ({ actor, deps, params, body }) => ({ data: await failCallRequest(deps, actor, params.callRequestId!, body) }),
  }),
];
