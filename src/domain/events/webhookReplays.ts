// Replays (POST /v1/webhook-endpoints/{id}/replays and the GraphQL twin): every failed delivery of an endpoint
// whose event occurred in [from, to) is delivered again, with a fresh retry schedule. The request is recorded
// (202, pending) with its durable job in one transaction; the job walks the endpoint's failed deliveries in
// (createdAt, id) order in bounded batches, each one transaction that makes its deliveries pending and moves the
// replay's position past them, so a delivery is replayed at most once by one replay, whatever restarts (a batch
// repeated after a crash starts after the position its commit left). A failed delivery whose event is past the
// organization's retention has nothing left to send: it is skipped (counted), not made pending. The
// request is recorded as `webhook_endpoint.replayed` (with the range); GET …/replays/{id} follows its progress.
// One replay of an endpoint runs at a time; its newest 50 are kept.
// Scope webhooks:write.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { WebhookReplay } from '../../generated/prisma/client.js';
import type { ClaimedJob, JobHandler, JobOutcome } from '../../jobs/queue.js';
import { enqueueJob } from '../../jobs/queue.js';
import { type Actor, requireScope } from '../shared/access.js';
import { Conflict, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { absentToUndefined } from '../shared/inputParams.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { recordEvent } from './log.js';
import { instantParam } from './queries.js';
import { lockUnfinishedReplay, lockWebhookEndpoint, pruneReplays, replayBatch } from './sql.js';
import { ownEndpoint, type WebhookDeps } from './webhookEndpoints.js';

export const WEBHOOK_REPLAY_JOB = 'webhook.replay';
/** Deliveries one batch walks at most (one transaction). */
export const REPLAY_BATCH_SIZE = 500;
/** The replays of an endpoint kept (the newest; older completed ones go when another is asked for). */
export const REPLAYS_KEPT = 50;
/** Batches one run of the job makes before it gives the queue back (it continues at once, after other due work). */
export const REPLAY_BATCHES_PER_RUN = 20;
export const REPLAY_STATUSES = ['pending', 'running', 'completed'] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];

export interface WebhookReplayView {
  id: string;
  endpointId: string;
  from: string;
  to: string;
  status: ReplayStatus;
  /** Failed deliveries made pending again so far. */
  replayed: number;
  /** Failed deliveries passed over: their event is past retention. */
  skipped: number;
  createdAt: string;
  completedAt: string | null;
}

export function replayView(row: WebhookReplay): WebhookReplayView {
  return {
    id: row.id,
    endpointId: row.endpointId,
    from: row.from.toISOString(),
    to: row.to.toISOString(),
    status: row.status as ReplayStatus,
    replayed: row.replayed,
    skipped: row.skipped,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

export const webhookReplayResponse = viewSchema<WebhookReplayView>()(
  z
    .object({
      id: z.uuid(),
      endpointId: z.uuid(),
      from: instantView().describe('Failed deliveries of events that occurred at or after this instant …'),
      to: instantView().describe('… and before this one are delivered again.'),
      status: z.enum(REPLAY_STATUSES).describe('pending (queued), running, completed (every delivery in range walked).'),
      replayed: z.int().min(0).describe('Failed deliveries made pending again so far (each once).'),
      skipped: z.int().min(0).describe("Failed deliveries passed over: their event is past the organization's retention."),
      createdAt: instantView(),
      completedAt: instantView().nullable(),
    })
    .meta({ id: 'WebhookReplay' }),
);

export const createWebhookReplayInput = z.strictObject({
  from: z
    .preprocess(absentToUndefined, instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-01T00:00:00Z'))
    .describe('Replay the failed deliveries of events that occurred at or after this instant.'),
  to: instantParam.describe('… and before this one (default: now).'),
});

/** POST /v1/webhook-endpoints/{id}/replays: records the replay (pending) and its job; 409 while another is under way. */
export async function createWebhookReplay(deps: WebhookDeps, actor: Actor, endpointId: string, input: unknown): Promise<WebhookReplayView> {
  requireScope(actor, 'webhooks:write');
  const data = parseInput(createWebhookReplayInput, input ?? {});
  const id = uuidParam('endpointId', endpointId);
  const now = deps.clock();
  const from = new Date(data.from);
  const to = data.to === undefined ? now : new Date(data.to);
  if (from.getTime() >= to.getTime())
    throw InvalidInput.of(data.to === undefined ? 'from' : 'to', 'the range is empty: from must be before to');
  const view = await deps.db.$transaction(async (tx) => {
    // under the endpoint's lock: two replays asked at once cannot both start
    const locked = await lockWebhookEndpoint(tx, actor.orgId, id);
    if (locked.length === 0) throw new NotFound('Webhook endpoint');
    const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    if (!endpoint.enabled) throw InvalidInput.of('endpointId', 'the endpoint is disabled; enable it first');
    const running = await tx.webhookReplay.findFirst({ where: { endpointId: id, status: { not: 'completed' } }, select: { id: true } });
    if (running) throw new Conflict(`A replay of this endpoint is under way (${running.id}); wait for it to complete`);
    await pruneReplays(tx, id, REPLAYS_KEPT - 1);
    const row = await tx.webhookReplay.create({
      data: {
        id: randomUUID(),
        endpointId: id,
        orgId: actor.orgId,
        from,
        to,
        status: 'pending',
        createdAt: now,
      },
    });
    const view = replayView(row);
    await recordEvent(tx, deps, actor, {
      type: 'webhook_endpoint.replayed',
      orgId: actor.orgId,
      subject: { type: 'webhook_endpoint', id },
      data: view,
    });
    await enqueueJob(tx, now, { id: row.id, kind: WEBHOOK_REPLAY_JOB, payload: { replayId: row.id }, runAt: now });
    return view;
  });
  deps.jobs?.poke();
  return view;
}

/** GET /v1/webhook-endpoints/{id}/replays/{replayId}: one replay of the caller's endpoint (404 otherwise). */
export async function getWebhookReplay(deps: WebhookDeps, actor: Actor, endpointId: string, replayId: string): Promise<WebhookReplayView> {
  requireScope(actor, 'webhooks:read');
  const endpoint = await ownEndpoint(deps, actor, endpointId);
  const row = await deps.db.webhookReplay.findFirst({ where: { id: uuidParam('replayId', replayId), endpointId: endpoint.id } });
  if (!row) throw new NotFound('Webhook replay');
  return replayView(row);
}

/**
 * One run of a replay's job: batches until the walk ends (completed) or the run's batches are spent (it continues
 * at once, after other due work).
 */
export async function runWebhookReplay(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'jobs'>,
  replayId: string,
  options: { batchSize?: number; batchesPerRun?: number } = {},
): Promise<JobOutcome> {
  const batch = options.batchSize ?? REPLAY_BATCH_SIZE;
  for (let left = options.batchesPerRun ?? REPLAY_BATCHES_PER_RUN; ; left--) {
    if (left <= 0) return { retryAt: deps.clock(), error: 'continued: the batches of one run are spent', label: 'continued' };
    const step = await deps.db.$transaction(async (tx) => {
      // a replay completed (or gone with its endpoint) has nothing left to do
      if (!(await lockUnfinishedReplay(tx, replayId))) return { done: true, replayed: 0 };
      const row = await tx.webhookReplay.findUniqueOrThrow({ where: { id: replayId } });
      const now = deps.clock();
      const done = await replayBatch(tx, row, now, batch);
      const finished = done.walked < batch;
      await tx.webhookReplay.update({
        where: { id: replayId },
        data: {
          status: finished ? 'completed' : 'running',
          replayed: { increment: done.replayed },
          skipped: { increment: done.skipped },
          ...(done.last ? { positionAt: done.last.createdAt, positionId: done.last.id } : {}),
          ...(finished ? { completedAt: now } : {}),
        },
      });
      return { done: finished, replayed: done.replayed };
    });
    // the deliveries lane claims what was made due now (on this instance at once, on others at their next poll)
    if (step.replayed > 0) deps.jobs?.poke();
    if (step.done) return { done: true };
  }
}

/** The durable work of replays, by job kind; the runtime registers it on its queue. */
export function webhookReplayJobHandlers(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'jobs'>,
  options: { batchSize?: number; batchesPerRun?: number } = {},
): Record<string, JobHandler> {
  return {
    [WEBHOOK_REPLAY_JOB]: (job: ClaimedJob) => runWebhookReplay(deps, String((job.payload as { replayId?: unknown }).replayId), options),
  };
}
