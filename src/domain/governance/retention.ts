// How long an organization keeps what it holds (issue 36 §3): days per kind — transcripts (conversation messages),
// conversations, call requests, events, webhook deliveries, request logs — each 1..3650. A kind an organization
// leaves unset is its account's, else the default (docs/decisions.md §15). GET|PUT /v1/organizations/{orgId}/retention
// and their GraphQL twins; event retention.updated.
//
// The purge is durable work (jobs/queue.ts): a daily sweep walks the organizations and queues one purge per
// organization; a purge deletes what is past that organization's retention in bounded statements (PURGE_BATCH rows
// each, through indexes that start with the organization: governance/sql.ts), a bounded number per run, the rest in
// a job of its own, and records retention.purged with the counts when it is done. Never purged: the access log (kept
// six years whatever these say), call requests not yet in a final state, webhook deliveries pending a retry.
// Request logs are not stored by the service (they are log lines on standard output): that setting is recorded and
// answered for the log pipeline to apply (docs/operating.md "Retention").
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { enqueueJob, type ClaimedJob, type JobHandler, type JobOutcome } from '../../jobs/queue.js';
import { recordEvent, recordSettingsChange } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { inheritSettings, SETTING_SOURCES, type SettingSource } from './inheritedSettings.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { parseInput } from '../shared/errors.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import {
  type ConversationPosition,
  insertRetentionSweep,
  organizationIdsAfter,
  purgeRows,
  purgeStatements,
  purgeTranscripts,
} from './sql.js';

export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 3650;
const DAY_MS = 86_400_000;

/** The settings, as named on both surfaces. */
export const RETENTION_FIELDS = [
  'transcriptsDays',
  'conversationsDays',
  'callRequestsDays',
  'eventsDays',
  'webhookDeliveriesDays',
  'requestLogsDays',
] as const;
export type RetentionField = (typeof RETENTION_FIELDS)[number];
export type RetentionSettings = Record<RetentionField, number>;

/** Where a value comes from: the organization's own setting, its account's, or the default. */
export const RETENTION_SOURCES = SETTING_SOURCES;
export type RetentionSource = SettingSource;

/**
 * The defaults (docs/decisions.md §15). Events: the service-wide EVENT_RETENTION_DAYS (30 unless configured), which
 * also bounds any longer setting (the event log's own purge, events/queries.ts).
 */
export function defaultRetention(eventRetentionDays: number): RetentionSettings {
  return {
    transcriptsDays: 365,
    conversationsDays: 730,
    callRequestsDays: 730,
    eventsDays: Math.min(RETENTION_MAX_DAYS, Math.max(RETENTION_MIN_DAYS, eventRetentionDays)),
    webhookDeliveriesDays: 30,
    requestLogsDays: 30,
  };
}

export interface RetentionDeps extends DomainDeps {
  config: { eventRetentionDays: number };
}

export interface RetentionView extends RetentionSettings {
  orgId: string;
  /** Per setting: the organization's own, its account's (inheritedFrom), or the default. */
  sources: Record<RetentionField, RetentionSource>;
  /** The account whose settings some of these values are, or null. */
  inheritedFrom: string | null;
  /** When the organization's own settings were last written, or null (none set). */
  updatedAt: string | null;
}

const DAYS_ERROR = `must be an integer between ${RETENTION_MIN_DAYS} and ${RETENTION_MAX_DAYS} (days), or null to inherit`;
const daysInput = z
  .number({ error: DAYS_ERROR })
  .int({ error: DAYS_ERROR })
  .min(RETENTION_MIN_DAYS, DAYS_ERROR)
  .max(RETENTION_MAX_DAYS, DAYS_ERROR)
  .nullable()
  .optional();

export const retentionInput = z.strictObject({
  transcriptsDays: daysInput.describe('Days a conversation message (transcript text) is kept after it was written.'),
  conversationsDays: daysInput.describe('Days a conversation (with its messages) is kept after it started.'),
  callRequestsDays: daysInput.describe('Days a call request in a final state is kept after it was created.'),
  eventsDays: daysInput.describe('Days an event is kept (bounded by the service-wide EVENT_RETENTION_DAYS).'),
  webhookDeliveriesDays: daysInput.describe('Days a webhook delivery record is kept (those pending a retry are kept).'),
  requestLogsDays: daysInput.describe('Days request logs are kept: not stored by the service, applied by the log pipeline.'),
});

const sourceSchema = z.enum(RETENTION_SOURCES);
export const retentionResponse = viewSchema<RetentionView>()(
  z
    .object({
      orgId: z.uuid(),
      transcriptsDays: z.int(),
      conversationsDays: z.int(),
      callRequestsDays: z.int(),
      eventsDays: z.int(),
      webhookDeliveriesDays: z.int(),
      requestLogsDays: z.int(),
      sources: z
        .object({
          transcriptsDays: sourceSchema,
          conversationsDays: sourceSchema,
          callRequestsDays: sourceSchema,
          eventsDays: sourceSchema,
          webhookDeliveriesDays: sourceSchema,
          requestLogsDays: sourceSchema,
        })
        .describe("Per setting: `own`, `account` (the account's, `inheritedFrom`) or `default`."),
      inheritedFrom: z.uuid().nullable().describe('The account some values are inherited from, or null.'),
      updatedAt: instantView().nullable().describe("When the organization's own settings were last written; null: none set."),
    })
    .meta({ id: 'Retention' }),
);

type RetentionRow = { orgId: string; updatedAt: Date } & Record<RetentionField, number | null>;
type RetentionReader = Pick<DomainDeps['db'], 'retentionPolicy'>;

/** The settings that apply to an organization, with where each comes from. */
export async function effectiveRetention(
  db: RetentionReader,
  deps: { config: { eventRetentionDays: number } },
  org: { id: string; parentId: string | null },
): Promise<RetentionView> {
  const ids = org.parentId ? [org.id, org.parentId] : [org.id];
  const rows = (await db.retentionPolicy.findMany({ where: { orgId: { in: ids } } })) as RetentionRow[];
  const own = rows.find((r) => r.orgId === org.id);
  const applied = inheritSettings<RetentionField, number>(RETENTION_FIELDS, org, rows, defaultRetention(deps.config.eventRetentionDays));
  return {
    orgId: org.id,
    ...applied.values,
    sources: applied.sources,
    inheritedFrom: applied.inheritedFrom,
    updatedAt: own ? own.updatedAt.toISOString() : null,
  };
}

/** GET …/retention: the settings that apply (scope organizations:read). */
export async function getRetention(deps: RetentionDeps, actor: Actor, orgId: string): Promise<RetentionView> {
  requireScope(actor, 'organizations:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  return effectiveRetention(deps.db, deps, org);
}

/**
 * PUT …/retention: the organization's own settings, replaced (a setting absent or null is unset: inherited). Scope
 * organizations:write (docs/decisions.md §15); event retention.updated when what applies changed.
 */
export async function putRetention(deps: RetentionDeps, actor: Actor, orgId: string, input: unknown): Promise<RetentionView> {
  const data = parseInput(retentionInput, input ?? {});
  requireScope(actor, 'organizations:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const now = deps.clock();
  const row = Object.fromEntries(RETENTION_FIELDS.map((f) => [f, data[f] ?? null])) as Record<RetentionField, number | null>;
  return deps.db.$transaction(async (tx) => {
    const before = await effectiveRetention(tx, deps, org);
    await tx.retentionPolicy.upsert({
      where: { orgId: org.id },
      create: { orgId: org.id, ...row, updatedAt: now },
      update: { ...row, updatedAt: now },
    });
    const view = await effectiveRetention(tx, deps, org);
    await recordSettingsChange(tx, deps, actor, { type: 'retention.updated', subjectType: 'retention', orgId: org.id }, before, view);
    return view;
  });
}

// ---- The purge

/** Durable work (jobs/queue.ts): the daily walk over organizations, and one organization's purge. */
export const RETENTION_SWEEP_JOB = 'retention.sweep';
export const RETENTION_PURGE_JOB = 'retention.purge';
/** The first sweep's id: instances that start at once add one sweep, not one each. */
const FIRST_SWEEP_ID = '5e7e4710-7e7e-4e7e-8e7e-7e7e7e7e7e36';
export const SWEEP_INTERVAL_MS = DAY_MS;

export interface PurgeOptions {
  /** Rows deleted by one statement (default 1,000). */
  batchSize?: number;
  /** Statements one run of a purge job makes before the rest continues in a job of its own (default 20). */
  statementsPerRun?: number;
  /** Organizations a sweep run queues purges for before it continues in a job of its own (default 500). */
  organizationsPerSweep?: number;
  /**
   * How long a sweep waits before queueing the next organizations (default 60 s): the purges it queued run meanwhile,
   * so that a large deployment's purges are spread out instead of all due at once (ocs_jobs_oldest_pending_age_seconds).
   */
  sweepStepMs?: number;
}

/** What one purge deleted, by kind (the data of retention.purged). */
export interface PurgeCounts {
  transcripts: number;
  conversations: number;
  callRequests: number;
  events: number;
  webhookDeliveries: number;
}
export const PURGE_KINDS = ['transcripts', 'conversations', 'callRequests', 'events', 'webhookDeliveries'] as const;
const noCounts = (): PurgeCounts => ({ transcripts: 0, conversations: 0, callRequests: 0, events: 0, webhookDeliveries: 0 });

/** Adds the first sweep, due now, unless a sweep is waiting (the runtime calls it at start). */
export async function scheduleRetentionSweep(deps: Pick<DomainDeps, 'db' | 'clock'>): Promise<void> {
  await insertRetentionSweep(deps.db, FIRST_SWEEP_ID, RETENTION_SWEEP_JOB, deps.clock());
}

const uuidOf = (value: unknown) =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value) ? value : null;

/** The id of an organization's purge job queued by a sweep: one waiting purge per organization, however many sweeps. */
function purgeJobId(orgId: string): string {
  const h = createHash('sha256').update(`retention.purge:${orgId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function sweep(deps: RetentionDeps, job: ClaimedJob, options: Required<PurgeOptions>): Promise<JobOutcome> {
  const after = uuidOf((job.payload as { after?: unknown } | null)?.after);
  const ids = await organizationIdsAfter(deps.db, after, options.organizationsPerSweep);
  const now = deps.clock();
  if (ids.length > 0) {
    await deps.db.job.createMany({
      data: ids.map((orgId) => ({ id: purgeJobId(orgId), kind: RETENTION_PURGE_JOB, payload: { orgId }, runAt: now, createdAt: now })),
      skipDuplicates: true,
    });
  }
  const more = ids.length === options.organizationsPerSweep;
  // the walk goes on once these purges had their turn, or the next sweep is a day after this one ended
  await enqueueJob(deps.db, now, {
    kind: RETENTION_SWEEP_JOB,
    payload: { after: more ? ids.at(-1)! : null },
    runAt: new Date(now.getTime() + (more ? options.sweepStepMs : SWEEP_INTERVAL_MS)),
  });
  return { done: true };
}

async function purge(deps: RetentionDeps, job: ClaimedJob, options: Required<PurgeOptions>): Promise<JobOutcome> {
  const payload = (job.payload ?? {}) as {
    orgId?: unknown;
    counts?: Partial<PurgeCounts>;
    kind?: unknown;
    position?: ConversationPosition;
  };
  const orgId = uuidOf(payload.orgId);
  if (!orgId) return { failed: 'malformed payload' };
  const org = await deps.db.organization.findUnique({ where: { id: orgId }, select: { id: true, parentId: true } });
  if (!org) return { done: true }; // gone, and its rows with it
  const counts = { ...noCounts(), ...payload.counts };
  const settings = await effectiveRetention(deps.db, deps, org);
  const now = deps.clock().getTime();
  const before = (days: number) => new Date(now - days * DAY_MS);
  const cutoffs = {
    transcripts: before(settings.transcriptsDays),
    conversations: before(settings.conversationsDays),
    callRequests: before(settings.callRequestsDays),
    // the service-wide event retention bounds a longer setting (the log's own purge deletes past it anyway)
    events: before(Math.min(settings.eventsDays, deps.config.eventRetentionDays)),
    webhookDeliveries: before(settings.webhookDeliveriesDays),
  };
  const { batchSize: limit } = options;
  // one kind after another, each until a statement deletes less than a batch (nothing of that kind is left)
  let statements = 0;
  // a continuation starts at the kind its run stopped at: the kinds before it are done
  const from = Math.max(0, PURGE_KINDS.indexOf(payload.kind as (typeof PURGE_KINDS)[number]));
  // where the transcripts walk stopped (the conversations before it hold nothing past retention any more)
  let position: ConversationPosition | null =
    payload.position && typeof payload.position.startTime === 'string' && uuidOf(payload.position.id) ? payload.position : null;
  for (const kind of PURGE_KINDS.slice(from)) {
    for (;;) {
      if (statements >= options.statementsPerRun) {
        // the rest in a job of its own: other work (and other organizations' purges) take turns meanwhile
        await enqueueJob(deps.db, deps.clock(), {
          kind: RETENTION_PURGE_JOB,
          payload: { orgId, counts, kind, position },
          runAt: deps.clock(),
        });
        return { done: true, label: 'continued' };
      }
      let deleted: number;
      if (kind === 'transcripts') {
        const result = await purgeTranscripts(deps.db, purgeStatements.transcripts(orgId, cutoffs, limit, position));
        deleted = result.deleted;
        position = result.at ?? position;
      } else deleted = await purgeRows(deps.db, purgeStatements[kind](orgId, cutoffs, limit));
      statements += 1;
      counts[kind] += deleted;
      await new Promise((resolve) => setImmediate(resolve));
      if (deleted < limit) break;
    }
  }
  if (PURGE_KINDS.some((kind) => counts[kind] > 0)) {
    await deps.db.$transaction(async (tx) => {
      await recordEvent(tx, deps, null, {
        type: 'retention.purged',
        orgId,
        subject: { type: 'retention', id: orgId },
        data: {
          orgId,
          counts,
          before: Object.fromEntries(PURGE_KINDS.map((kind) => [kind, cutoffs[kind].toISOString()])),
        },
      });
    });
  }
  return { done: true };
}

/** The durable work of retention, by job kind; the runtime registers them on its queue. */
export function retentionJobHandlers(deps: RetentionDeps, options: PurgeOptions = {}): Record<string, JobHandler> {
  const o: Required<PurgeOptions> = {
    batchSize: options.batchSize ?? 1_000,
    statementsPerRun: options.statementsPerRun ?? 20,
    organizationsPerSweep: options.organizationsPerSweep ?? 500,
    sweepStepMs: options.sweepStepMs ?? 60_000,
  };
  return {
    [RETENTION_SWEEP_JOB]: (job) => sweep(deps, job, o),
    [RETENTION_PURGE_JOB]: (job) => purge(deps, job, o),
  };
}

/** Queues one organization's purge now (tests, the admin command line); answers the job's id. */
export async function queueRetentionPurge(deps: Pick<DomainDeps, 'db' | 'clock'>, orgId: string): Promise<string> {
  return enqueueJob(deps.db, deps.clock(), { kind: RETENTION_PURGE_JOB, payload: { orgId }, id: randomUUID() });
}
