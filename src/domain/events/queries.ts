// Reading the event log (GET /v1/events, Query.events and their single-event twins): the events of
// the organizations within the caller's reach, newest first, one page at a time by an opaque cursor
// (pageCursors.ts), filtered by type (names, or families such as `closure.*`), organization, subject
// and time. The log keeps EVENT_RETENTION_DAYS: older events are neither answered nor kept (purged
// opportunistically here, at most once an hour per process). Scope events:read.
import { z } from 'zod';
import { absentToUndefined, cursorParam, integerParam } from '../shared/inputParams.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import type { KeyMaterial } from '../../crypto/derivedKeys.js';
import type { Event, Prisma } from '../../generated/prisma/client.js';
import { type Actor, assertReach, canReach, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { EVENT_FAMILIES, EVENT_TYPES, type EventActor, type EventActorKind } from './log.js';
import { openCursor, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { cursorPaginationView, instantView, viewSchema } from '../shared/viewSchema.js';

export const EVENTS_DEFAULT_LIMIT = 20;
export const EVENTS_MAX_LIMIT = 100;
export const DEFAULT_EVENT_RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** What reading the log needs besides the database: the key its cursors are sealed with, and how long events are kept. */
export interface EventDeps extends DomainDeps {
  tokens: { key: KeyMaterial };
  config: { eventRetentionDays: number };
}

export interface EventView {
  id: string;
  type: string;
  orgId: string;
  occurredAt: string;
  actor: EventActor;
  subject: { type: string; id: string };
  data: unknown;
  previous: Record<string, unknown> | null;
}

export interface EventPage {
  events: EventView[];
  pagination: { limit: number; nextCursor: string | null };
}

export function eventView(row: Event): EventView {
  return {
    id: row.id,
    type: row.type,
    orgId: row.orgId,
    occurredAt: row.occurredAt.toISOString(),
    actor: { kind: row.actorKind as EventActorKind, id: row.actorId, name: row.actorName },
    subject: { type: row.subjectType, id: row.subjectId },
    data: row.data,
    previous: (row.previous as Record<string, unknown> | null) ?? null,
  };
}

const eventFields = {
  id: z.uuid(),
  type: z.string().describe('The event type (docs/rest.md "Event catalogue"), e.g. closure.created.'),
  orgId: z.uuid().describe('The organization the change belongs to.'),
  occurredAt: instantView(),
  actor: z
    .object({
      kind: z.enum(['apiKey', 'oauthClient', 'admin', 'system']),
      id: z.string().nullable().describe('The API key or OAuth client id; null for the service itself.'),
      name: z.string().nullable().describe("The credential's name."),
    })
    .describe('Who made the change.'),
  subject: z.object({ type: z.string(), id: z.string() }).describe('What changed.'),
  data: z.unknown().describe('The resource as answered after the change (for a deletion: as it was).'),
  previous: z.record(z.string(), z.unknown()).nullable().describe("Updates: the changed fields' values before the change; null otherwise."),
};

export const eventResponse = viewSchema<EventView>()(z.object(eventFields).meta({ id: 'Event' }));
export const eventPageResponse = viewSchema<EventPage>()(
  z.object({
    events: z.array(eventResponse).describe('Newest first.'),
    pagination: cursorPaginationView(),
  }),
);

// The REST query arrives as strings, GraphQL arguments typed (or null when sent as null).
const absent = absentToUndefined;
const limitParam = integerParam(1, EVENTS_MAX_LIMIT, EVENTS_DEFAULT_LIMIT);
/** Event types, comma-separated, each a name or a family such as `closure.*` (sorted, without repeats). */
export const typeParam = z.preprocess(
  absent,
  z
    .string()
    .max(1_000, { error: 'must be at most 1000 characters' })
    .transform((value, ctx) => {
      const types = [
        ...new Set(
          value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
      for (const type of types) {
        if (!(EVENT_TYPES as readonly string[]).includes(type) && !EVENT_FAMILIES.has(type)) {
          ctx.addIssue({ code: 'custom', message: `"${type.slice(0, 60)}" is not an event type nor a family such as closure.*` });
          return z.NEVER;
        }
      }
      if (types.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'must name at least one event type' });
        return z.NEVER;
      }
      return types.sort();
    })
    .optional(),
);
/** An optional instant filter. */
export const instantParam = z.preprocess(absent, instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-01T00:00:00Z').optional());

const eventFilters = {
  type: typeParam.describe('Event types, comma-separated; a family such as `closure.*` selects all of its types.'),
  orgId: z
    .preprocess(
      absent,
      z
        .uuid({ error: 'must be a UUID' })
        .transform((id) => id.toLowerCase())
        .optional(),
    )
    .describe("Only this organization's events (outside the caller's reach a 404). By default every organization within reach."),
  subjectId: z
    .preprocess(absent, z.string().max(100, { error: 'must be at most 100 characters' }).optional())
    .describe('Only the events of this subject (a closure id, …).'),
  from: instantParam.describe('Events that occurred at or after this instant.'),
  to: instantParam.describe('Events that occurred before this instant.'),
};

/** Query of GET /v1/events. Unknown parameters are a 400 (a misspelt filter never answers another list). */
export const listEventsInput = z.strictObject({
  cursor: cursorParam.describe(
    'Continue after the page whose `pagination.nextCursor` this is (opaque; bound to the filters it was issued for).',
  ),
  limit: limitParam.describe('Page size.'),
  ...eventFilters,
});

/** The arguments of GraphQL `events` (a Relay connection). */
export const eventsConnectionInput = z.strictObject({ first: limitParam, after: cursorParam, ...eventFilters });

type Filters = Pick<z.output<typeof listEventsInput>, 'type' | 'orgId' | 'subjectId' | 'from' | 'to'>;

async function scopeOf(
  deps: EventDeps,
  actor: Actor,
  filters: Filters,
): Promise<{ where: Prisma.EventWhereInput; cursorFilters: unknown }> {
  if (filters.orgId) await assertReach(deps, actor, filters.orgId);
  // an account's own and its children's events, through the parent relation: one condition whatever the
  // number of locations (never a list of every child id)
  const organizations: Prisma.EventWhereInput = filters.orgId
    ? { orgId: filters.orgId }
    : actor.ownerIsAccount
      ? { OR: [{ orgId: actor.orgId }, { org: { parentId: actor.orgId } }] }
      : { orgId: actor.orgId };
  const exact = filters.type?.filter((t) => !t.endsWith('.*')) ?? [];
  const families = filters.type?.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1)) ?? [];
  const retained = new Date(deps.clock().getTime() - deps.config.eventRetentionDays * DAY_MS);
  const from = filters.from ? new Date(filters.from) : undefined;
  const where: Prisma.EventWhereInput = {
    AND: [organizations],
    occurredAt: { gte: from && from > retained ? from : retained, ...(filters.to ? { lt: new Date(filters.to) } : {}) },
    ...(filters.subjectId ? { subjectId: filters.subjectId } : {}),
    ...(filters.type
      ? { OR: [...(exact.length ? [{ type: { in: exact } }] : []), ...families.map((prefix) => ({ type: { startsWith: prefix } }))] }
      : {}),
  };
  return {
    where,
    cursorFilters: {
      list: 'events',
      orgId: filters.orgId ?? null,
      owner: actor.orgId,
      type: filters.type ?? null,
      subjectId: filters.subjectId ?? null,
      from: filters.from ?? null,
      to: filters.to ?? null,
    },
  };
}

function positionAfter(deps: EventDeps, cursorFilters: unknown, cursor: string, field: string): bigint {
  const position = openCursor(pageCursorKey(deps.tokens.key), cursor, cursorFilters, field) as { s?: unknown };
  if (typeof position?.s !== 'string' || !/^\d{1,19}$/.test(position.s)) {
    throw InvalidInput.of(field, 'is not a cursor this service issued (altered or made up); start again without it');
  }
  return BigInt(position.s);
}

const sealPosition = (deps: EventDeps, cursorFilters: unknown, row: Event) =>
  sealCursor(pageCursorKey(deps.tokens.key), { s: row.seq.toString() }, cursorFilters);

async function eventsAfter(deps: EventDeps, where: Prisma.EventWhereInput, after: bigint | undefined, take: number): Promise<Event[]> {
  void purgeExpiredEvents(deps);
  return deps.db.event.findMany({
    where: after === undefined ? where : { AND: [where, { seq: { lt: after } }] },
    orderBy: { seq: 'desc' },
    take,
  });
}

/** One page of events, newest first; `nextCursor` continues after it. Scope events:read. */
export async function listEvents(deps: EventDeps, actor: Actor, input: unknown): Promise<EventPage> {
  requireScope(actor, 'events:read');
  const query = parseInput(listEventsInput, input ?? {});
  const scope = await scopeOf(deps, actor, query);
  const after = query.cursor === undefined ? undefined : positionAfter(deps, scope.cursorFilters, query.cursor, 'cursor');
  const rows = await eventsAfter(deps, scope.where, after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(eventView),
    pagination: {
      limit: query.limit,
      nextCursor: rows.length > query.limit ? sealPosition(deps, scope.cursorFilters, page.at(-1)!) : null,
    },
  };
}

export interface EventConnection {
  edges: { cursor: string; node: EventView }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** The same list as a Relay connection (GraphQL `events`); cursors are REST's `nextCursor`. Scope events:read. */
export async function eventsConnection(deps: EventDeps, actor: Actor, input: unknown): Promise<EventConnection> {
  requireScope(actor, 'events:read');
  const query = parseInput(eventsConnectionInput, input ?? {});
  const scope = await scopeOf(deps, actor, query);
  const after = query.after === undefined ? undefined : positionAfter(deps, scope.cursorFilters, query.after, 'after');
  const rows = await eventsAfter(deps, scope.where, after, query.first + 1);
  const edges = rows.slice(0, query.first).map((row) => ({ cursor: sealPosition(deps, scope.cursorFilters, row), node: eventView(row) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > query.first,
      hasPreviousPage: after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** One event; an event of an organization outside reach (or past retention) is a 404 like a missing one. Scope events:read. */
export async function getEvent(deps: EventDeps, actor: Actor, eventId: string): Promise<EventView> {
  requireScope(actor, 'events:read');
  const row = await deps.db.event.findUnique({ where: { id: uuidParam('eventId', eventId) } });
  const retained = deps.clock().getTime() - deps.config.eventRetentionDays * DAY_MS;
  if (!row || row.occurredAt.getTime() < retained || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Event');
  return eventView(row);
}

const lastPurge = new WeakMap<object, number>();

/** Deletes events past retention, at most once an hour per process (several instances purging is harmless). */
async function purgeExpiredEvents(deps: EventDeps): Promise<void> {
  const now = deps.clock().getTime();
  const last = lastPurge.get(deps.db);
  // either direction: a test clock may move backwards
  if (last !== undefined && Math.abs(now - last) < PURGE_INTERVAL_MS) return;
  lastPurge.set(deps.db, now);
  try {
    await deps.db.event.deleteMany({ where: { occurredAt: { lt: new Date(now - deps.config.eventRetentionDays * DAY_MS) } } });
  } catch {
    // housekeeping: the read goes on (the filter leaves expired events out anyway)
  }
}
