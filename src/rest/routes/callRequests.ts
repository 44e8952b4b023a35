import { callRequestSchema, getCallRequest } from '../../domain/callRequests.js';
import { enforceCallRequestPollInterval } from '../../ratelimit/callRequestPolling.js';
import { defineRoute } from '../route.js';

export const callRequestRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/call-requests/:callRequestId',
    tag: 'Calls',
    summary: 'Poll a call request',
    description:
      'A failed request is a 200 with `status: "failed"` and `error {category, code, message}`. Draws on the per-second polling budget; a pending request may be polled at most every 10 seconds.',
    scope: 'call-requests:read',
    budget: 'callRequestPoll',
    response: callRequestSchema,
    handler: async ({ actor, deps, params }) => {
      const data = await getCallRequest(deps, actor, params.callRequestId!);
      await enforceCallRequestPollInterval(deps, actor, data.callRequestId, data.status); // needs the status
      return { data };
    },
  }),
];
