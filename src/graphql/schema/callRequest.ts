import { CALL_REQUEST_STATUSES, type CallRequestError, type CallRequestView, getCallRequest } from '../../domain/callRequests.js';
import { enforceCallRequestPollInterval } from '../../ratelimit/callRequestPolling.js';
import { builder } from '../builder.js';

const CallRequestStatusEnum = builder.enumType('CallRequestStatus', {
  description: 'Where a queued call stands: queued, in_progress, completed, failed or expired.',
  values: CALL_REQUEST_STATUSES,
});

const CallRequestErrorRef = builder.objectRef<CallRequestError>('CallRequestError').implement({
  description: 'A public reason for the failure of a call request.',
  fields: (t) => ({
    category: t.exposeString('category', { description: 'The kind of failure, e.g. "request".' }),
    code: t.exposeString('code', { description: 'A machine-readable reason, e.g. "target_unavailable".' }),
    message: t.exposeString('message', { description: 'A human-readable reason.' }),
  }),
});

export const CallRequestRef = builder.objectRef<CallRequestView>('CallRequest').implement({
  description: 'A queued call. A failed request is data (status failed with an error), not a GraphQL error.',
  fields: (t) => ({
    id: t.exposeID('callRequestId', { description: 'Call request id (UUID); the same as callRequestId.' }),
    callRequestId: t.exposeID('callRequestId', { description: 'Call request id (UUID).' }),
    status: t.expose('status', { type: CallRequestStatusEnum, description: 'The current status.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the request was queued.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the request expires if not processed.' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true, description: 'When processing ended; null while pending.' }),
    conversationId: t.exposeID('conversationId', {
      nullable: true,
      description: "The conversation the call started; use it to track an initiated call's outcome.",
    }),
    error: t.expose('error', { type: CallRequestErrorRef, nullable: true, description: 'The public reason for a failure; null otherwise.' }),
  }),
});

builder.queryFields((t) => ({
  callRequest: t.field({
    type: CallRequestRef,
    nullable: true,
    description:
      "Polls a call request owned by an organization within the caller's reach (NOT_FOUND otherwise). Shares the polling budget of its REST twin. Scope call-requests:read.",
    args: { id: t.arg.id({ required: true, description: 'Call request id.' }) },
    resolve: async (_root, args, ctx) => {
      const actor = await ctx.actor();
      const view = await getCallRequest(ctx.deps, actor, String(args.id));
      await enforceCallRequestPollInterval(ctx.deps, actor, view.callRequestId, view.status); // needs the status
      return view;
    },
  }),
}));
