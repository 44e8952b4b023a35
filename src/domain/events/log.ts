// The event log (a transactional outbox): every domain write appends one event in the transaction of
// the change itself, so a change that committed is recorded, and a change that rolled back is not. An
// event says what changed (type, subject, the resource as answered after the change, and for updates
// the changed fields' values before), in which organization, when, and who did it (the credential's
// kind, id and name): the same rows are the audit trail and, later, what webhooks deliver.
// A write that changes nothing (disabling a disabled organization, an update to the same values)
// appends nothing.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Actor } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { jobInsertSql } from '../../jobs/queue.js';
import { type EventRow, hoursTimedCallsQueued, insertEvent } from './sql.js';

// The write side of availability.changed (schedule/availabilityEvents.ts looks): a write that can change what an
// organization's availability answers asks for a look at once, in the statement that records its event
// (recordEvent, below), so that a committed change is looked at even if the process dies the next
// instant. One row per organization ("AvailabilityStatus"): asking while a look is pending changes
// nothing. An organization a write asks for first gets an empty record: what it said last is then taken
// as CLOSED, what an organization without hours answers.

/** The event families whose writes can change an organization's availability state. */
export const AVAILABILITY_INPUTS: ReadonlySet<string> = new Set(['office_hours.*', 'special_hours.*', 'closure.*']);

/**
 * Durable work a write of an availability input queues with its event while the organization has queued calls
 * timed by its hours (`officeHoursOnly`): they are timed again (the calls context handles it, in bounded batches).
 * One job per such write: a job already running may have read the hours before this write.
 */
export const HOURS_CHANGED_JOB = 'availability_inputs.changed';

/** The event catalogue (docs/rest.md "Event catalogue"). A prefix such as `closure.*` selects a family when filtering. */
export const EVENT_TYPES = [
  'organization.created',
  'organization.updated',
  'organization.disabled',
  'organization.enabled',
  'organization.archived',
  'organization.unarchived',
  'office_hours.updated',
  'special_hours.created',
  'special_hours.updated',
  'special_hours.deleted',
  'closure.created',
  'closure.updated',
  'closure.deleted',
  'template.created',
  'template.updated',
  'template.deleted',
  'phone_number.created',
  'phone_number.attached',
  'phone_number.detached',
  'phone_number.updated',
  'phone_number.deleted',
  'insurance.created',
  'insurance.updated',
  'insurance.deleted',
  'availability.changed',
  'workflows.imported',
  'workflows.replaced',
  'bot.created',
  'bot.updated',
  'bot.deleted',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.disabled',
  'webhook_endpoint.replayed',
  'webhook_delivery.retried',
  'webhook.test',
  'call_request.queued',
  'call_request.started',
  'call_request.lease_extended',
  'call_request.completed',
  'call_request.attempt_failed',
  'call_request.retry_scheduled',
  'call_request.failed',
  'call_request.canceled',
  'call_request.expired',
  'call_batch.created',
  'call_batch.canceled',
  'call_batch.completed',
  'calling_policy.updated',
  'retention.updated',
  'retention.purged',
  'redaction_policy.updated',
  'suppression.added',
  'suppression.removed',
  'conversation.started',
  'conversation.message_added',
  'conversation.ended',
  'erasure.requested',
  'erasure.completed',
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'oauth_client.created',
  'oauth_client.secret_rotated',
  'oauth_client.scopes_changed',
  'oauth_client.revoked',
  'oauth_client.token_revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The families a filter or a subscription may name instead of one type (`closure.*`). */
export const EVENT_FAMILIES: ReadonlySet<string> = new Set(EVENT_TYPES.map((type) => `${type.slice(0, type.indexOf('.'))}.*`));

export type EventActorKind = 'apiKey' | 'oauthClient' | 'admin' | 'system';

export interface EventActor {
  kind: EventActorKind;
  id: string | null;
  name: string | null;
}

export interface EventSubject {
  type:
    | 'organization'
    | 'office_hours'
    | 'special_hours'
    | 'closure'
    | 'template'
    | 'phone_number'
    | 'insurance'
    | 'bot'
    | 'webhook_endpoint'
    | 'webhook_delivery'
    | 'call_request'
    | 'call_batch'
    | 'calling_policy'
    | 'retention'
    | 'redaction_policy'
    | 'suppression'
    | 'suppression_list'
    | 'conversation'
    | 'erasure_request'
    | 'api_key'
    | 'oauth_client';
  id: string;
}

/** What a write tells the log; the log adds the id, the time and the actor. */
export interface NewEvent {
  type: EventType;
  orgId: string;
  subject: EventSubject;
  /** The resource as answered after the change. */
  data: unknown;
  /** Updates: the changed fields' values before the change. */
  previous?: Record<string, unknown>;
}

/** Who the event log names for a change made with the admin command line (directly or through a running service). */
export const ADMIN_ACTOR: EventActor = Object.freeze({ kind: 'admin', id: null, name: 'admin command line' });

/** Who an event says acted: the credential behind the request (or the service itself, for `system`; the admin command line). */
export function eventActorOf(actor: Actor | EventActor | null): EventActor {
  if (!actor) return { kind: 'system', id: null, name: null };
  if (!('credential' in actor)) return actor;
  return { kind: actor.credential.kind === 'oauth' ? 'oauthClient' : 'apiKey', id: actor.credential.id, name: actor.credential.name };
}

/** The transaction a write runs in. */
export type EventWriter = Pick<Prisma.TransactionClient, '$executeRaw'>;

/**
 * Appends one event, inside the caller's transaction: call it with the transaction client after the
 * write succeeded and before the transaction ends. Webhooks read it from the log once it committed
 * (domain/events/webhooks/dispatcher.ts), so what committed is delivered even if the process dies the next instant;
 * a write that can change availability asks for a look in the same statement (AVAILABILITY_INPUTS, above).
 * Answers the event's id.
 */
export async function recordEvent(
  tx: EventWriter,
  deps: Pick<DomainDeps, 'clock'>,
  actor: Actor | EventActor | null,
  event: NewEvent,
): Promise<string> {
  const row = eventRowOf(deps, actor, event);
  // a write that can change the organization's availability has it looked at again, committed with the write (AVAILABILITY_INPUTS,
  // above), and what its hours timed timed again (HOURS_CHANGED_JOB)
  const hours = changesAvailability(event);
  const retime = hours
    ? jobInsertSql(
        row.occurredAt,
        { id: randomUUID(), kind: HOURS_CHANGED_JOB, payload: { orgId: event.orgId, after: null } },
        hoursTimedCallsQueued(event.orgId),
      )
    : undefined;
  await insertEvent(tx, row, hours, retime);
  return row.id;
}

const familyOf = (type: string) => `${type.slice(0, type.indexOf('.'))}.*`;

/** Whether an event's write can change its organization's availability: an input's, or a move to another time zone. */
const changesAvailability = (event: NewEvent) =>
  AVAILABILITY_INPUTS.has(familyOf(event.type)) || (event.type === 'organization.updated' && event.previous?.timezone !== undefined);

/**
 * The row recordEvent appends, for a write that appends it in a statement of its own (eventInsertSql in
 * events/sql.ts). Such a statement does not have availability looked at again: an event of a family that
 * changes availability (AVAILABILITY_INPUTS) is refused here and goes through recordEvent.
 */
export function newEventRow(deps: Pick<DomainDeps, 'clock'>, actor: Actor | EventActor | null, event: NewEvent): EventRow {
  if (changesAvailability(event)) throw new Error(`${event.type} changes availability: record it with recordEvent`);
  return eventRowOf(deps, actor, event);
}

function eventRowOf(deps: Pick<DomainDeps, 'clock'>, actor: Actor | EventActor | null, event: NewEvent): EventRow {
  const who = eventActorOf(actor);
  return {
    id: randomUUID(),
    type: event.type,
    orgId: event.orgId,
    occurredAt: deps.clock(),
    actorKind: who.kind,
    actorId: who.id,
    actorName: who.name,
    subjectType: event.subject.type,
    subjectId: event.subject.id,
    data: JSON.stringify(event.data),
    previous: event.previous ? JSON.stringify(event.previous) : null,
  };
}

/**
 * The fields of `before` whose value differs in `after` (compared as JSON), with their old values
 * (`updatedAt` aside); null when nothing changed (then the write appends no event).
 */
export function changedFields(beforeView: object, afterView: object): Record<string, unknown> | null {
  const before = beforeView as Record<string, unknown>;
  const after = afterView as Record<string, unknown>;
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    if (key === 'updatedAt') continue; // moves on every write: not a change of its own
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key] ?? null;
  }
  for (const key of Object.keys(before)) {
    if (!(key in after)) previous[key] = before[key];
  }
  return Object.keys(previous).length > 0 ? previous : null;
}

/**
 * Records the change of an organization's settings (`calling_policy.updated`, `retention.updated`, …): the settings
 * after it as `data`, the fields that changed as `previous`, the organization as the subject; nothing when nothing
 * changed. Answers whether it recorded.
 */
export async function recordSettingsChange(
  tx: EventWriter,
  deps: Pick<DomainDeps, 'clock'>,
  actor: Actor,
  change: { type: EventType; subjectType: EventSubject['type']; orgId: string },
  before: object,
  after: object,
): Promise<boolean> {
  const previous = changedFields(before, after);
  if (!previous) return false;
  await recordEvent(tx, deps, actor, {
    type: change.type,
    orgId: change.orgId,
    subject: { type: change.subjectType, id: change.orgId },
    data: after,
    previous,
  });
  return true;
}
