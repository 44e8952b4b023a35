import { getRetention, putRetention, retentionInput, retentionResponse } from '../../../domain/governance/retention.js';
import { defineRoute } from '../../route.js';

const KINDS =
  '`transcriptsDays` (conversation messages, by when written), `conversationsDays` (by start, with their messages), `callRequestsDays` (final states only, by creation), `eventsDays` (bounded by the service-wide `EVENT_RETENTION_DAYS`), `webhookDeliveriesDays` (those pending a retry are kept) and `requestLogsDays` (not stored by the service: for the log pipeline)';

export const retentionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/retention',
    tag: 'Retention',
    summary: 'How long an organization keeps what it holds',
    description: `Days per kind: ${KINDS}. Each is the organization's own setting, else its account's (\`sources\`, \`inheritedFrom\`), else the default (transcripts 365, conversations and call requests 730, events EVENT_RETENTION_DAYS, webhook deliveries and request logs 30). The access log is kept six years whatever these say.`,
    scope: 'organizations:read',
    response: retentionResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getRetention(deps, actor, params.orgId!) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/organizations/:orgId/retention',
    tag: 'Retention',
    summary: "Set an organization's retention",
    description: `Replaces the organization's own settings: ${KINDS}, each an integer 1..3650, or absent / null to inherit the account's (else the default). An account's settings apply to its locations that set none. What is older is purged by a daily durable job, in bounded batches (event \`retention.purged\` with counts). Event \`retention.updated\`.`,
    scope: 'organizations:write',
    body: retentionInput,
    response: retentionResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await putRetention(deps, actor, params.orgId!, body) }),
  }),
];
