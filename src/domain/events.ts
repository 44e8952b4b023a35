// The event log (a transactional outbox): every domain write appends one event in the transaction of
// the change itself, so a change that committed is recorded, and a change that rolled back is not. An
// event says what changed (type, subject, the resource as answered after the change, and for updates
// the changed fields' values before), in which organization, when, and who did it (the credential's
// kind, id and name): the same rows are the audit trail and, later, what webhooks deliver.
// A write that changes nothing (disabling a disabled organization, an update to the same values)
// appends nothing.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.js';
import type { Actor } from './access.js';
import type { DomainDeps } from './deps.js';

/** The event catalogue (README "Events"). A prefix such as `closure.*` selects a family when filtering. */
export const EVENT_TYPES = [
  'organization.disabled',
  'organization.enabled',
  'office_hours.updated',
  'special_hours.created',
  'special_hours.updated',
  'special_hours.deleted',
  'closure.created',
  'closure.updated',
  'closure.deleted',
  'template.created',
  'template.updated',
  'phone_number.attached',
  'insurance.updated',
  'workflows.imported',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type EventActorKind = 'apiKey' | 'oauthClient' | 'admin' | 'system';

export interface EventActor {
  kind: EventActorKind;
  id: string | null;
  name: string | null;
}

export interface EventSubject {
  type: 'organization' | 'office_hours' | 'special_hours' | 'closure' | 'template' | 'phone_number' | 'insurance' | 'bot';
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

/** Who an event says acted: the credential behind the request (or the service itself, for `system`). */
export function eventActorOf(actor: Actor | null): EventActor {
  if (!actor) return { kind: 'system', id: null, name: null };
  return { kind: actor.credential.kind === 'oauth' ? 'oauthClient' : 'apiKey', id: actor.credential.id, name: actor.credential.name };
}

/** The transaction a write runs in (or the client itself, for a single-statement caller that has none). */
export type EventWriter = Pick<Prisma.TransactionClient, 'event'>;

/**
 * Appends one event, inside the caller's transaction: call it with the transaction client after the
 * write succeeded and before the transaction ends.
 */
export async function recordEvent(tx: EventWriter, deps: Pick<DomainDeps, 'clock'>, actor: Actor | null, event: NewEvent): Promise<void> {
  const who = eventActorOf(actor);
  await tx.event.create({
    data: {
      id: randomUUID(),
      type: event.type,
      orgId: event.orgId,
      occurredAt: deps.clock(),
      actorKind: who.kind,
      actorId: who.id,
      actorName: who.name,
      subjectType: event.subject.type,
      subjectId: event.subject.id,
      data: jsonOf(event.data),
      ...(event.previous ? { previous: jsonOf(event.previous) } : {}),
    },
    select: { id: true },
  });
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

function jsonOf(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}
