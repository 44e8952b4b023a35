// Office closures (spec §2 "Office closure", §4 "Closures", docs/decisions.md §3): one-time intervals
// (startAt..endAt, UTC) or annual all-day dates (in the organization's timezone).
import { z } from 'zod';
import type { ScheduleDeps } from './deps.js';
import { type Actor, requireScope } from '../shared/access.js';
import { Conflict, NotFound, parseInput, unknownKeysMessage } from '../shared/errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import { uuidParam } from '../shared/ids.js';
import { batchOf } from '../shared/batch.js';
import { changedFields, recordEvent } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import {
  CLOSURE_INSTANT_PATTERN,
  closureInstantMs,
  closureInstantSchema,
  formatClosureInstant,
  nonBlankText,
} from '../shared/timeFormats.js';
import { viewSchema } from '../shared/viewSchema.js';
import { type ClosureRow, deleteClosureRow, lockClosure } from './sql.js';

/** Names unknown properties instead of zod's generic text (closure bodies are closed, spec §4). */
export function closedObjectError(what: string) {
  return (iss: { code?: string; keys?: string[]; input?: unknown }) =>
    iss.code === 'unrecognized_keys' ? unknownKeysMessage(iss.keys ?? []) : `must be ${what}`;
}

/** Days in a month, counting 29 February (an annual closure on it applies in leap years only). */
const MAX_DAY_OF_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

export const annualDateSchema = z
  .strictObject(
    {
      month: z
        .int({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer 1..12') })
        .min(1, 'must be an integer 1..12')
        .max(12, 'must be an integer 1..12'),
      day: z
        .int({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer 1..31') })
        .min(1, 'must be an integer 1..31')
        .max(31, 'must be an integer 1..31'),
    },
    { error: closedObjectError('an object {month, day}') },
  )
  .superRefine((value, ctx) => {
    if (value.day > MAX_DAY_OF_MONTH[value.month - 1]!) {
      ctx.addIssue({
        code: 'custom',
        path: ['day'],
        message: `is not a day of month ${value.month} (${value.month}/${value.day} is not a calendar date)`,
      });
    }
  });

const description = nonBlankText(255);

/** The closure's form: exactly one of annualDate, or startAt with endAt (null counts as absent). */
function checkClosureForm(
  value: { annualDate?: unknown; startAt?: string | null | undefined; endAt?: string | null | undefined },
  ctx: z.RefinementCtx,
): void {
  const annual = value.annualDate !== undefined && value.annualDate !== null;
  const hasStart = value.startAt !== undefined && value.startAt !== null;
  const hasEnd = value.endAt !== undefined && value.endAt !== null;
  if (annual && (hasStart || hasEnd)) {
    ctx.addIssue({
      code: 'custom',
      path: ['annualDate'],
      message: 'cannot be combined with startAt/endAt: a closure is either annual or timed',
    });
    return;
  }
  if (!annual && !hasStart && !hasEnd) {
    ctx.addIssue({ code: 'custom', path: [], message: 'send either annualDate, or startAt and endAt' });
    return;
  }
  if (hasStart && !hasEnd) ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'is required with startAt' });
  if (hasEnd && !hasStart) ctx.addIssue({ code: 'custom', path: ['startAt'], message: 'is required with endAt' });
  if (hasStart && hasEnd) {
    const start = closureInstantMs(value.startAt!);
    const end = closureInstantMs(value.endAt!);
    if (start !== null && end !== null && end <= start) ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'must be after startAt' });
  }
}

const formFields = {
  startAt: closureInstantSchema.nullable().optional(),
  endAt: closureInstantSchema.nullable().optional(),
  annualDate: annualDateSchema.nullable().optional(),
};

/** Create: the greeting keys are required; null means "not configured" (docs/decisions.md §3). */
export const createClosureSchema = z
  .strictObject(
    {
      description,
      chatGreeting: nonBlankText(500, { required: 'is required (send null when not configured)' }).nullable(),
      phoneGreeting: nonBlankText(500, { required: 'is required (send null when not configured)' }).nullable(),
      ...formFields,
    },
    { error: closedObjectError('an object (send a JSON, form or multipart body)') },
  )
  .superRefine(checkClosureForm);

/** Update: description and the form are required; omitted greetings are kept; null or blank is refused. */
export const updateClosureSchema = z
  .strictObject(
    {
      description,
      chatGreeting: nonBlankText(500, { null: 'cannot be null on update (omit it to keep the current greeting)' }).optional(),
      phoneGreeting: nonBlankText(500, { null: 'cannot be null on update (omit it to keep the current greeting)' }).optional(),
      ...formFields,
    },
    { error: closedObjectError('an object (send a JSON, form or multipart body)') },
  )
  .superRefine(checkClosureForm);

export type CreateClosureInput = z.input<typeof createClosureSchema>;
export type UpdateClosureInput = z.input<typeof updateClosureSchema>;

interface ClosureBase {
  id: string;
  description: string;
  chatGreeting: string | null;
  phoneGreeting: string | null;
}
export type TimedClosureView = ClosureBase & { startAt: string; endAt: string };
export type AnnualClosureView = ClosureBase & { annualDate: { month: number; day: number } };
export type ClosureView = TimedClosureView | AnnualClosureView;

// the documented answers (the OpenAPI document), checked against the view types
const closureViewFields = {
  id: z.uuid(),
  description: z.string(),
  chatGreeting: z.string().nullable().describe('What the chat agent says during the closure; null when not configured.'),
  phoneGreeting: z.string().nullable().describe('What the phone agent says during the closure; null when not configured.'),
};
const closureInstantView = z.string().regex(CLOSURE_INSTANT_PATTERN).describe('UTC, `YYYY-MM-DDTHH:mm:00Z`');

/** A closure as answered by create, get, update and list: timed or annual. */
export const closureResponse = viewSchema<ClosureView>()(
  z
    .union([
      z
        .object({ ...closureViewFields, startAt: closureInstantView, endAt: closureInstantView })
        .meta({ id: 'TimedClosure', description: 'A one-time closure from `startAt` to `endAt` (UTC).' }),
      z
        .object({ ...closureViewFields, annualDate: z.object({ month: z.int().min(1).max(12), day: z.int().min(1).max(31) }) })
        .meta({ id: 'AnnualClosure', description: "A closure every year on `annualDate`, all day in the organization's timezone." }),
    ])
    .meta({ id: 'Closure' }),
);
export const closureListResponse = viewSchema<{ closures: ClosureView[] }>()(
  z.object({ closures: z.array(closureResponse).describe('Newest first.') }),
);
export const deletedClosureResponse = viewSchema<{ id: string; deleted: true }>()(z.object({ id: z.uuid(), deleted: z.literal(true) }));

export function closureView(row: ClosureRow): ClosureView {
  const base = { id: row.id, description: row.description, chatGreeting: row.chatGreeting, phoneGreeting: row.phoneGreeting };
  if (row.annualMonth !== null && row.annualDay !== null) return { ...base, annualDate: { month: row.annualMonth, day: row.annualDay } };
  return { ...base, startAt: formatClosureInstant(row.startAt!), endAt: formatClosureInstant(row.endAt!) };
}

/** The stored columns of a validated form: the other form's columns are cleared (an update may switch forms). */
function formColumns(input: { annualDate?: { month: number; day: number } | null; startAt?: string | null; endAt?: string | null }) {
  if (input.annualDate) return { annualMonth: input.annualDate.month, annualDay: input.annualDate.day, startAt: null, endAt: null };
  return {
    annualMonth: null,
    annualDay: null,
    startAt: new Date(closureInstantMs(input.startAt!)!),
    endAt: new Date(closureInstantMs(input.endAt!)!),
  };
}

const FIRST_STORABLE_MS = Date.parse('0001-01-01T00:00:00Z');
const LAST_STORABLE_MS = Date.parse('9999-12-31T23:59:00Z');

/** How many timed closures may lie within TIMED_CLOSURE_WINDOW_DAYS of one another (docs/lists.md). */
export const TIMED_CLOSURES_PER_WINDOW = 100;
/** The window of that bound: a timeline's longest range. */
export const TIMED_CLOSURE_WINDOW_DAYS = 31;

/**
 * Refuses a timed closure [startMs, endMs) when TIMED_CLOSURES_PER_WINDOW others already lie within
 * TIMED_CLOSURE_WINDOW_DAYS before its start or after its end: then no window of that many days holds more
 * than the bound (a window meeting this closure lies inside that span), so a timeline's closure edges stay
 * few, however the closures are spread. Counted under the organization's lock, like the list limit.
 */
async function assertRoomInWindow(
  tx: Prisma.TransactionClient,
  orgId: string,
  startMs: number,
  endMs: number,
  selfId: string | null,
): Promise<void> {
  const reach = TIMED_CLOSURE_WINDOW_DAYS * 86_400_000;
  // within the instants a closure can hold (the database has no year 0)
  const from = new Date(Math.max(startMs - reach, FIRST_STORABLE_MS));
  const to = new Date(Math.min(endMs + reach, LAST_STORABLE_MS));
  const nearby = await tx.closure.count({
    where: { orgId, startAt: { lt: to }, endAt: { gt: from }, ...(selfId ? { id: { not: selfId } } : {}) },
  });
  if (nearby >= TIMED_CLOSURES_PER_WINDOW) {
    throw new Conflict(
      `An organization may have at most ${TIMED_CLOSURES_PER_WINDOW} timed closures within ${TIMED_CLOSURE_WINDOW_DAYS} days of one another ` +
        `(${nearby} already lie between ${formatClosureInstant(from)} and ${formatClosureInstant(to)}); delete or move some first`,
    );
  }
}

export async function createClosure(deps: ScheduleDeps, actor: Actor, orgId: string, input: unknown): Promise<ClosureView> {
  const { db } = deps;
  // validation first, as on GraphQL where plugin-zod checks the argument before the resolver runs
  const data = parseInput(createClosureSchema, input);
  requireScope(actor, 'closures:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const view = await db.$transaction(async (tx) => {
    await lockOrganizationForLimit(tx, org.id);
    assertRoomFor('closures', await tx.closure.count({ where: { orgId: org.id } }));
    const form = formColumns(data);
    if (form.startAt && form.endAt) await assertRoomInWindow(tx, org.id, form.startAt.getTime(), form.endAt.getTime(), null);
    const row = await tx.closure.create({
      data: { orgId: org.id, description: data.description, chatGreeting: data.chatGreeting, phoneGreeting: data.phoneGreeting, ...form },
    });
    const view = closureView(row);
    await recordEvent(tx, deps, actor, { type: 'closure.created', orgId: org.id, subject: { type: 'closure', id: row.id }, data: view });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
  deps.changes.publish({ kind: 'closures', orgId: org.id });
  return view;
}

export async function updateClosure(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  closureId: string,
  input: unknown,
): Promise<ClosureView> {
  const { db } = deps;
  const data = parseInput(updateClosureSchema, input);
  requireScope(actor, 'closures:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('closureId', closureId);
  // the row is locked and read first (the event records the values it replaces), then updated with a
  // statement that answers the row it wrote: a closure of another organization is never touched, and
  // omitted greetings stay
  const form = formColumns(data);
  const result = await db.$transaction(async (tx) => {
    // a closure moved in time is counted against its new window under the organization's lock, as a create is
    if (form.startAt && form.endAt) await lockOrganizationForLimit(tx, org.id);
    const locked = await lockClosure(tx, org.id, id);
    if (locked.length === 0) throw new NotFound('Closure');
    if (form.startAt && form.endAt) await assertRoomInWindow(tx, org.id, form.startAt.getTime(), form.endAt.getTime(), id);
    const row = await tx.closure.update({
      where: { id, orgId: org.id },
      data: {
        description: data.description,
        ...(data.chatGreeting !== undefined ? { chatGreeting: data.chatGreeting } : {}),
        ...(data.phoneGreeting !== undefined ? { phoneGreeting: data.phoneGreeting } : {}),
        ...form,
      },
    });
    const view = closureView(row);
    const previous = changedFields(closureView(locked[0]!), view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'closure.updated',
        orgId: org.id,
        subject: { type: 'closure', id },
        data: view,
        previous,
      });
    return { view, changed: previous !== null };
  });
  if (result.changed) deps.changes.publish({ kind: 'closures', orgId: org.id });
  return result.view;
}

export async function listClosures(deps: ScheduleDeps, actor: Actor, orgId: string): Promise<ClosureView[]> {
  requireScope(actor, 'closures:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  // newest first, ties by id (batched per request: GraphQL asks for many organizations' closures at once)
  const rows = await batchOf(deps).closures.load(org.id);
  return rows.map(closureView);
}

export async function getClosure(deps: ScheduleDeps, actor: Actor, orgId: string, closureId: string): Promise<ClosureView> {
  const { db } = deps;
  requireScope(actor, 'closures:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const row = await db.closure.findFirst({ where: { id: uuidParam('closureId', closureId), orgId: org.id } });
  if (!row) throw new NotFound('Closure');
  return closureView(row);
}

export async function deleteClosure(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  closureId: string,
): Promise<{ id: string; deleted: true }> {
  const { db } = deps;
  requireScope(actor, 'closures:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('closureId', closureId);
  await db.$transaction(async (tx) => {
    // one statement that answers what it deleted (the event's data: the closure as it was)
    const deleted = await deleteClosureRow(tx, org.id, id);
    if (deleted.length === 0) throw new NotFound('Closure');
    await recordEvent(tx, deps, actor, {
      type: 'closure.deleted',
      orgId: org.id,
      subject: { type: 'closure', id },
      data: closureView(deleted[0]!),
    });
  });
  deps.changes.publish({ kind: 'closures', orgId: org.id });
  return { id, deleted: true };
}
