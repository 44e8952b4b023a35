import {
  getRedactionPolicy,
  putRedactionPolicy,
  redactionPolicyInput,
  redactionPolicyResponse,
} from '../../../domain/governance/redactionPolicy.js';
import { defineRoute } from '../../route.js';

const SETTINGS =
  "`emails` (e-mail addresses stored as `[email]`), `phones` (phone numbers stored as `[phone]`, a number said without its country code read in the region of the conversation's numbers, else the US) and `keepOriginals` (the words as said kept sealed beside the redacted text, readable with `GET /v1/conversations/{conversationId}?unredacted=true` and the scope `transcripts:read_unredacted`)";

export const redactionPolicyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organizations/:orgId/redaction',
    tag: 'Redaction',
    summary: "An organization's redaction policy",
    description: `What a turn loses before it is stored, beyond card numbers and SSNs (always \`[card]\`, \`[ssn]\`): ${SETTINGS}. Each is the organization's own setting, else its account's (\`sources\`, \`inheritedFrom\`), else off.`,
    scope: 'organizations:read',
    response: redactionPolicyResponse,
    handler: async ({ actor, deps, params }) => ({ data: await getRedactionPolicy(deps, actor, params.orgId!) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/organizations/:orgId/redaction',
    tag: 'Redaction',
    summary: "Set an organization's redaction policy",
    description: `Replaces the organization's own settings: ${SETTINGS}, each true, false, or absent / null to inherit the account's (else off). An account's policy applies to its locations that set none. The policy applies to turns written after it; stored turns are not rewritten. Event \`redaction_policy.updated\`.`,
    scope: 'organizations:write',
    body: redactionPolicyInput,
    response: redactionPolicyResponse,
    handler: async ({ actor, deps, params, body }) => ({ data: await putRedactionPolicy(deps, actor, params.orgId!, body) }),
  }),
];
