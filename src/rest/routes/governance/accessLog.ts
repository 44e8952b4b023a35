import {
  accessLogExportLine,
  exportAccessLog,
  exportAccessLogInput,
  accessLogPageResponse,
  accessLogVerificationResponse,
  listAccessLog,
  listAccessLogInput,
  verifyAccessLog,
  verifyAccessLogInput,
} from '../../../domain/governance/accessLog.js';
import { defineRoute } from '../../route.js';

export const accessLogRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/access-log',
    tag: 'Access log',
    summary: 'List who read which transcript, newest first',
    description:
      "One entry per answer that held transcript text, written before the text was read: when, the credential (kind, id, name), the organization and conversation, the surface, the request id and the client address. Append-only and hash-chained per organization (`GET /v1/access-log/verify`). Query: `limit` (1..100, default 20), `cursor`, `orgId`, `conversationId`, `credentialId`, `from`, `to` (ISO 8601 instants; `to` exclusive). Without `orgId`: every organization within the caller's reach.",
    scope: 'access-log:read',
    query: listAccessLogInput,
    response: accessLogPageResponse,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await listAccessLog(deps, actor, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/access-log/export',
    tag: 'Access log',
    summary: 'Export the access log of a range as NDJSON',
    description:
      "Every entry of the range, one JSON object per line (`application/x-ndjson`), written as it is read: organization by organization (by id), each oldest first in chain order, so that an archive can be verified line by line (`hash` = SHA-256 of `prevHash` and the entry). The same filters as the list (`orgId`, `conversationId`, `credentialId`, `from`, `to`), no paging. A refusal (scope, reach, a bad filter) comes before the first line, in the envelope; a failure after it ends the stream without its last newline, so a truncated export is never taken for a whole one. An organization's exports take turns with its other exports.",
    scope: 'access-log:read',
    stream: 'ndjson',
    query: exportAccessLogInput,
    response: accessLogExportLine,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ lines: await exportAccessLog(deps, actor, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/access-log/verify',
    tag: 'Access log',
    summary: "Verify the access log's hash chains over a range",
    description:
      'Recomputes the chain of every organization within reach (or `orgId`) over the entries in [`from`, `to`): each entry must follow the one before it (seq + 1, its `prevHash` the previous hash) and hash to its stored `hash`. Answers `{ok, entries, firstBroken}`; `firstBroken` names the first entry that does not hold.',
    scope: 'access-log:read',
    query: verifyAccessLogInput,
    response: accessLogVerificationResponse,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: await verifyAccessLog(deps, actor, query) }),
  }),
];
