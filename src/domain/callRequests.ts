// Queued call requests (spec §2 "Call request", §3): polling one request of an organization within reach.
// The polling budget and the minimum poll interval (CONTRACT §3) wrap this function; it only reads.
import { z } from 'zod';
import type { DomainDeps } from './deps.js';
import type { CallRequest } from '../generated/prisma/client.js';
import { type Actor, canReach, requireScope } from './access.js';
import { NotFound } from './errors.js';
import { uuidParam } from './ids.js';
import { viewSchema } from './viewSchema.js';

export const CALL_REQUEST_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'expired'] as const;
export type CallRequestStatus = (typeof CALL_REQUEST_STATUSES)[number];

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

/** The call request record as answered (documentation of the response; see CallRequestView). */
export const callRequestSchema = viewSchema<CallRequestView>()(
  z.object({
    callRequestId: z.uuid(),
    status: z.enum(CALL_REQUEST_STATUSES),
    createdAt: instant,
    expiresAt: instant,
    finishedAt: instant.nullable().describe('When processing ended; null while pending.'),
    conversationId: z.uuid().nullable().describe("The conversation the call started; use it to track an initiated call's outcome."),
    error: z
      .object({ category: z.string(), code: z.string(), message: z.string() })
      .nullable()
      .describe('A public reason for failure (status failed); null otherwise.'),
  }).meta({ id: 'CallRequest' }),
);

/** A public reason for a failure (spec §2); present on `failed` requests only. */
export interface CallRequestError {
  category: string;
  code: string;
  message: string;
}

export interface CallRequestView {
  callRequestId: string;
  status: CallRequestStatus;
  createdAt: string;
  expiresAt: string;
  /** When processing ended (completed, failed); null while pending. */
  finishedAt: string | null;
  /** The conversation the call started; null until there is one. */
  conversationId: string | null;
  error: CallRequestError | null;
}

/**
 * The record as answered at `now`. A request still pending when its `expiresAt` has passed will never be
 * placed, so it reads as `expired` (finished at its expiry) rather than `queued` forever.
 */
export function callRequestView(row: CallRequest, now: Date): CallRequestView {
  const failed = row.errorCategory !== null || row.errorCode !== null || row.errorMessage !== null;
  const lapsed = (row.status === 'queued' || row.status === 'in_progress') && row.expiresAt.getTime() <= now.getTime();
  return {
    callRequestId: row.id,
    status: lapsed ? 'expired' : row.status,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    finishedAt: lapsed ? row.expiresAt.toISOString() : (row.finishedAt?.toISOString() ?? null),
    conversationId: row.conversationId,
    error: failed ? { category: row.errorCategory ?? 'request', code: row.errorCode ?? 'unknown', message: row.errorMessage ?? '' } : null,
  };
}

/** One call request owned by an organization within reach, else 404. A failed request is data, not an error. */
export async function getCallRequest(deps: DomainDeps, actor: Actor, callRequestId: string): Promise<CallRequestView> {
  const { db } = deps;
  requireScope(actor, 'call-requests:read');
  const id = uuidParam('callRequestId', callRequestId);
  const row = await db.callRequest.findUnique({ where: { id } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Call request');
  return callRequestView(row, deps.clock());
}
