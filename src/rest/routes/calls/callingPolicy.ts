import { callCapacityResponse, getCallCapacity } from '../../../domain/calls/callCapacity.js';
import { callingPolicyInput, callingPolicyResponse, getCallingPolicy, putCallingPolicy } from '../../../domain/calls/callingPolicy.js';
import { defineRoute } from '../../route.js';

export const callingPolicyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/calling-policy',
    tag: 'Calls',
    summary: 'The calling policy that applies to an organization',
    description:
      "Its own, else its account's (`inheritedFrom` names the account), else the default (`isDefault`: every day 08:00–21:00 in the callee's zone, no blocked dates, 10 calls at once, consent required for marketing).",
    scope: 'organizations:read',
    response: callingPolicyResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getCallingPolicy(deps, actor, params.orgId!) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/organizations/:orgId/calling-policy',
    tag: 'Calls',
    summary: "Set an organization's calling policy",
    description:
      "`windows` (wall-clock `HH:mm` in the callee's zone, end after start, `24:00` allowed, not overlapping; a day without one has no calls), `blockedDates` (callee's local dates, at most 366), `maxConcurrentCalls` (1..100000; an account's bounds the sum over its locations), `requireConsentFor`, `retry` (the default retry policy of call requests that set none: `{on, maxAttempts (1..10), intervalsMinutes}`). An account's policy applies to its locations that set none. Event `calling_policy.updated`.",
    scope: 'organizations:write',
    body: callingPolicyInput,
    response: callingPolicyResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await putCallingPolicy(deps, actor, params.orgId!, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/call-capacity',
    tag: 'Calls',
    summary: 'Calls at once: the cap, the calls in progress, the requests due',
    scope: 'call-requests:read',
    response: callCapacityResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getCallCapacity(deps, actor, params.orgId!) }),
  }),
];
