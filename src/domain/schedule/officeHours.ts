// Office hours: one record per day of the week with recurring breaks (spec §2 "Office hours",
// §4 rules 1-7, docs/decisions.md §3). Times are local `HH:mm` in the organization's timezone.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ScheduleDeps } from './deps.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { ensureOfficeHoursDay, lockOfficeHoursDay, lockOfficeHoursWeek } from './sql.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DayOfWeek } from './availability.js';
import { closedObjectError } from './closures.js';
import { InvalidInput, type Issue, parseInput } from '../shared/errors.js';
import { changedFields, recordEvent } from '../events/log.js';
import { loadSchedule } from './availabilityQuery.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { isLocalTime, localTimeSchema, minutesOf, nonBlankText } from '../shared/timeFormats.js';
import { viewSchema } from '../shared/viewSchema.js';

export const DAYS_OF_WEEK = [
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
  'SUNDAY',
] as const satisfies readonly DayOfWeek[];

export const dayOfWeekSchema = z.enum(DAYS_OF_WEEK, {
  error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${DAYS_OF_WEEK.join(', ')}`),
});

/**
 * Breaks of one day at most (a day of the week or a special day). A clinic pauses a few times a day; the
 * bound keeps what one day costs to evaluate, and a timeline's length, small (docs/lists.md): a week of
 * one-minute breaks made every 31-day timeline tens of thousands of intervals.
 */
export const MAX_BREAKS_PER_DAY = 24;

export const officeBreakSchema = z
  .strictObject(
    { start: localTimeSchema, end: localTimeSchema, reason: nonBlankText(500), greeting: nonBlankText(500) },
    { error: closedObjectError('an object {start, end, reason, greeting}') },
  )
  // rule 4
  .superRefine((value, ctx) => {
    if (!isLocalTime(value.start) || !isLocalTime(value.end)) return; // already reported
    if (minutesOf(value.start) >= minutesOf(value.end)) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
  });

type BreakTimes = { start: string; end: string };

/** Rule 5 for breaks against open/close: each inside [open, close]; none overlapping (adjacent is fine). */
function breakIssues(breaks: readonly BreakTimes[], open: string, close: string, path: (index: number) => string): Issue[] {
  const issues: Issue[] = [];
  const openMin = minutesOf(open);
  const closeMin = minutesOf(close);
  breaks.forEach((b, i) => {
    if (minutesOf(b.start) < openMin || minutesOf(b.end) > closeMin) {
      issues.push({ path: path(i), message: `must lie within open ${open} and close ${close} (is ${b.start}-${b.end})` });
    }
  });
  const order = breaks.map((b, i) => ({ b, i })).sort((x, y) => minutesOf(x.b.start) - minutesOf(y.b.start));
  let latest: { b: BreakTimes; i: number } | undefined;
  for (const current of order) {
    if (latest && minutesOf(current.b.start) < minutesOf(latest.b.end)) {
      issues.push({ path: path(current.i), message: `overlaps ${path(latest.i)} (${latest.b.start}-${latest.b.end})` });
    }
    if (!latest || minutesOf(current.b.end) > minutesOf(latest.b.end)) latest = current;
  }
  return issues;
}

/** The fields of a day's hours, shared by a day of the week and a special date (rules 1-5 of spec §4). */
export const dayHoursFields = {
  isClosed: z.boolean({ error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : 'must be true or false') }),
  open: localTimeSchema.nullable().optional(),
  close: localTimeSchema.nullable().optional(),
  // a longer list is refused before its items are read
  breaks: z
    .array(officeBreakSchema, { error: 'must be an array of breaks' })
    .max(MAX_BREAKS_PER_DAY, { error: `must have at most ${MAX_BREAKS_PER_DAY} breaks a day` })
    .optional(),
};

type DayHoursValue = { isClosed: boolean; open?: string | null; close?: string | null; breaks?: { start: string; end: string }[] };

/** Rules 1, 2 and 5 of spec §4 and docs/decisions.md §3 (no overnight span) across the fields of a day's hours. */
export function checkDayHours(value: DayHoursValue, ctx: z.RefinementCtx): void {
  if (value.isClosed) {
    // rule 1
    if (value.breaks && value.breaks.length > 0)
      ctx.addIssue({ code: 'custom', path: ['breaks'], message: 'must be empty when isClosed is true' });
    return;
  }
  // rule 2
  if (value.open == null) ctx.addIssue({ code: 'custom', path: ['open'], message: 'is required when isClosed is false' });
  if (value.close == null) ctx.addIssue({ code: 'custom', path: ['close'], message: 'is required when isClosed is false' });
  if (!isLocalTime(value.open) || !isLocalTime(value.close)) return; // missing or already reported
  // docs/decisions.md §3: no overnight spans
  if (minutesOf(value.open) >= minutesOf(value.close)) {
    ctx.addIssue({ code: 'custom', path: ['close'], message: `must be after open (${value.open}); an overnight span is not allowed` });
    return;
  }
  // rule 5
  // only breaks with valid times take part (the others are already reported); indexes stay those sent
  const breaks = Array.isArray(value.breaks) ? value.breaks : [];
  const checked = breaks.flatMap((b, i) =>
    b && isLocalTime(b.start) && isLocalTime(b.end) && minutesOf(b.start) < minutesOf(b.end) ? [{ b, i }] : [],
  );
  const issues = breakIssues(
    checked.map((c) => c.b),
    value.open,
    value.close,
    (k) => `breaks.${checked[k]!.i}`,
  );
  for (const issue of issues) {
    ctx.addIssue({ code: 'custom', path: issue.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)), message: issue.message });
  }
}

/**
 * Rules 6 and 7: when `breaks` is omitted the breaks kept must be allowed by the new hours (a closed day has
 * none; an open day's fit inside open..close). Kept breaks never overlap one another: they passed rule 5.
 */
export function keptBreaksCheck(kept: readonly BreakTimes[], isClosed: boolean, open: string | null, close: string | null): void {
  if (kept.length > 0 && isClosed) {
    throw InvalidInput.of('breaks', 'the day has breaks; send breaks: [] to close it (a closed day has no breaks)');
  }
  if (kept.length > 0 && open !== null && close !== null) {
    const outside = kept.filter((b) => minutesOf(b.start) < minutesOf(open) || minutesOf(b.end) > minutesOf(close));
    if (outside.length > 0) {
      throw new InvalidInput(
        outside.map((b) => ({
          path: 'breaks',
          message: `the kept break ${b.start}-${b.end} must lie within open ${open} and close ${close}; send breaks to replace the breaks`,
        })),
      );
    }
  }
}

export const setOfficeHoursSchema = z
  .strictObject(
    { dayOfWeek: dayOfWeekSchema, ...dayHoursFields },
    { error: closedObjectError('an object (send a JSON, form or multipart body)') },
  )
  .superRefine(checkDayHours);

export type SetOfficeHoursInput = z.input<typeof setOfficeHoursSchema>;

export const officeHoursQuerySchema = z.object({ dayOfWeek: dayOfWeekSchema.optional() });

export interface OfficeBreakView {
  start: string;
  end: string;
  reason: string;
  greeting: string;
}

export interface OfficeHoursView {
  dayOfWeek: DayOfWeek;
  isClosed: boolean;
  open: string | null;
  close: string | null;
  breaks: OfficeBreakView[];
}

// the documented answers (the OpenAPI document), checked against the view types
const localTimeView = z
  .string()
  .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/)
  .describe("Local time `HH:mm` in the organization's timezone.");
export const officeBreakResponse = viewSchema<OfficeBreakView>()(
  z.object({ start: localTimeView, end: localTimeView, reason: z.string(), greeting: z.string() }).meta({ id: 'OfficeBreak' }),
);
/** One day's office hours; an unconfigured day is answered as closed. */
export const officeHoursResponse = viewSchema<OfficeHoursView>()(
  z
    .object({
      dayOfWeek: z.enum(DAYS_OF_WEEK),
      isClosed: z.boolean(),
      open: localTimeView.nullable().describe('Null on a closed day.'),
      close: localTimeView.nullable().describe('Null on a closed day.'),
      breaks: z.array(officeBreakResponse).describe('Sorted by start.'),
    })
    .meta({ id: 'OfficeHours' }),
);
export const officeHoursListResponse = viewSchema<{ officeHours: OfficeHoursView[] }>()(
  z.object({ officeHours: z.array(officeHoursResponse).describe('Monday..Sunday, or the one day asked for.') }),
);

type OfficeHoursRow = {
  dayOfWeek: DayOfWeek;
  isClosed: boolean;
  open: string | null;
  close: string | null;
  breaks: { start: string; end: string; reason: string; greeting: string }[];
};

export const byStart = (a: { start: string }, b: { start: string }): number => minutesOf(a.start) - minutesOf(b.start);

function officeHoursView(row: OfficeHoursRow): OfficeHoursView {
  return {
    dayOfWeek: row.dayOfWeek,
    isClosed: row.isClosed,
    open: row.open,
    close: row.close,
    breaks: [...row.breaks].sort(byStart).map((b) => ({ start: b.start, end: b.end, reason: b.reason, greeting: b.greeting })),
  };
}

/** Rule 4 of spec §2: a day without configured hours is reported as closed. */
function unconfiguredDay(dayOfWeek: DayOfWeek): OfficeHoursView {
  return { dayOfWeek, isClosed: true, open: null, close: null, breaks: [] };
}

/** All seven days Monday..Sunday, or the one day asked for; unconfigured days as closed. Read from the compiled schedule. */
export async function getOfficeHours(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  query: unknown = {},
): Promise<{ officeHours: OfficeHoursView[] }> {
  const { dayOfWeek } = parseInput(officeHoursQuerySchema, query ?? {});
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const schedule = await loadSchedule(deps, org.id, deps.clock().getTime());
  const days = dayOfWeek ? [dayOfWeek] : DAYS_OF_WEEK;
  return {
    officeHours: days.map((day) => {
      const configured = schedule.officeHours.find((d) => d.dayOfWeek === day);
      return configured ? officeHoursView(configured) : unconfiguredDay(day);
    }),
  };
}

/**
 * Creates or updates one day. The row is created if missing and then locked (SELECT … FOR UPDATE)
 * inside one transaction, so rules 6 and 7 are checked against the breaks that are really kept,
 * and concurrent writers to the same day run one after the other. Any refusal rolls everything back.
 *
 * Decision: when isClosed is true, `open`/`close` are still validated if sent, but stored (and
 * returned) as null: a closed day has no hours, and stale hours would suggest otherwise.
 */
export async function setOfficeHours(deps: ScheduleDeps, actor: Actor, orgId: string, input: unknown): Promise<OfficeHoursView> {
  const { db } = deps;
  const data = parseInput(setOfficeHoursSchema, input);
  requireScope(actor, 'office-hours:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const open = data.isClosed ? null : data.open!;
  const close = data.isClosed ? null : data.close!;

  const view = await db.$transaction(
    async (tx) => {
      await ensureOfficeHoursDay(tx, org.id, data.dayOfWeek, randomUUID());
      const locked = await lockOfficeHoursDay(tx, org.id, data.dayOfWeek);
      const officeHoursId = locked[0]!.id;
      // the day as it was (the event records the values it replaces; a day just created reads as unconfigured)
      const before = await tx.officeHours.findUniqueOrThrow({ where: { id: officeHoursId }, include: { breaks: true } });

      if (data.breaks === undefined) {
        // rule 6: omitted breaks are kept, so they must be allowed by the new hours (rules 1 and 7)
        keptBreaksCheck([...before.breaks].sort(byStart), data.isClosed, open, close);
      }

      await tx.officeHours.update({ where: { id: officeHoursId }, data: { isClosed: data.isClosed, open, close } });
      if (data.breaks !== undefined) {
        await tx.officeBreak.deleteMany({ where: { officeHoursId } });
        if (data.breaks.length > 0) {
          await tx.officeBreak.createMany({
            data: data.breaks.map((b) => ({ officeHoursId, start: b.start, end: b.end, reason: b.reason, greeting: b.greeting })),
          });
        }
      }
      const row = await tx.officeHours.findUniqueOrThrow({ where: { id: officeHoursId }, include: { breaks: true } });
      const view = officeHoursView(row);
      const previous = changedFields(officeHoursView(before), view);
      if (previous) {
        await recordEvent(tx, deps, actor, {
          type: 'office_hours.updated',
          orgId: org.id,
          subject: { type: 'office_hours', id: officeHoursId },
          data: view,
          previous,
        });
      }
      return view;
    },
    { maxWait: 15_000, timeout: 15_000 },
  );
  deps.changes.publish({ kind: 'officeHours', orgId: org.id });
  return view;
}

/**
 * The whole week in one write (PUT): all seven days, each once, checked as a whole (every issue named by
 * its path, `officeHours.<index>.<field>`). A PUT replaces: a day's omitted breaks mean none.
 */
export const setWeeklyHoursSchema = z
  .strictObject(
    {
      officeHours: z
        .array(setOfficeHoursSchema, { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of the seven days') })
        .max(DAYS_OF_WEEK.length, `must hold the seven days, each once (at most ${DAYS_OF_WEEK.length} entries)`),
    },
    { error: closedObjectError('an object {officeHours: [seven days]} (send a JSON, form or multipart body)') },
  )
  .superRefine((value, ctx) => {
    const seen = new Map<string, number>();
    value.officeHours.forEach((day, i) => {
      const first = seen.get(day.dayOfWeek);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['officeHours', i, 'dayOfWeek'],
          message: `${day.dayOfWeek} is already given at officeHours.${first}`,
        });
      else seen.set(day.dayOfWeek, i);
    });
    const missing = DAYS_OF_WEEK.filter((d) => !seen.has(d));
    if (missing.length > 0)
      ctx.addIssue({ code: 'custom', path: ['officeHours'], message: `must hold all seven days; missing ${missing.join(', ')}` });
  });

export type SetWeeklyHoursInput = z.input<typeof setWeeklyHoursSchema>;

/**
 * Sets all seven days atomically: one transaction (the days created if missing, then locked, updated and
 * their breaks replaced), one `office_hours.updated` event for the organization's week (data: the seven
 * days; previous: the week before), one change published. A week that changes nothing records nothing.
 */
export async function setWeeklyHours(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  input: unknown,
): Promise<{ officeHours: OfficeHoursView[] }> {
  const { db } = deps;
  const data = parseInput(setWeeklyHoursSchema, input);
  requireScope(actor, 'office-hours:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const result = await db.$transaction((tx) => writeWeek(tx, deps, actor, org.id, data), { maxWait: 15_000, timeout: 15_000 });
  if (result.changed) deps.changes.publish({ kind: 'officeHours', orgId: org.id });
  return result.week;
}

/**
 * Writes a whole week inside the caller's transaction (setWeeklyHours, a new location with its hours): the
 * days created if missing, then locked, updated and their breaks replaced, and one `office_hours.updated`
 * event when anything changed. The caller publishes the change once its transaction committed.
 */
export async function writeWeek(
  tx: Prisma.TransactionClient,
  deps: Pick<ScheduleDeps, 'clock'>,
  actor: Actor,
  orgId: string,
  data: z.output<typeof setWeeklyHoursSchema>,
): Promise<{ week: { officeHours: OfficeHoursView[] }; changed: boolean }> {
  const byDay = new Map(data.officeHours.map((d) => [d.dayOfWeek, d]));
  const order = (a: { dayOfWeek: DayOfWeek }, b: { dayOfWeek: DayOfWeek }) =>
    DAYS_OF_WEEK.indexOf(a.dayOfWeek) - DAYS_OF_WEEK.indexOf(b.dayOfWeek);
  for (const day of DAYS_OF_WEEK) {
    await ensureOfficeHoursDay(tx, orgId, day, randomUUID());
  }
  // locked in one order (by day), as the per-day write locks its one day: writers never wait on each other in a circle
  await lockOfficeHoursWeek(tx, orgId);
  const before = (await tx.officeHours.findMany({ where: { orgId }, include: { breaks: true } })).sort(order);
  for (const row of before) {
    const day = byDay.get(row.dayOfWeek)!;
    await tx.officeHours.update({
      where: { id: row.id },
      data: { isClosed: day.isClosed, open: day.isClosed ? null : day.open!, close: day.isClosed ? null : day.close! },
    });
  }
  await tx.officeBreak.deleteMany({ where: { officeHoursId: { in: before.map((r) => r.id) } } });
  const breaks = before.flatMap((row) =>
    (byDay.get(row.dayOfWeek)!.breaks ?? []).map((b) => ({
      officeHoursId: row.id,
      start: b.start,
      end: b.end,
      reason: b.reason,
      greeting: b.greeting,
    })),
  );
  if (breaks.length > 0) await tx.officeBreak.createMany({ data: breaks });
  const after = (await tx.officeHours.findMany({ where: { orgId }, include: { breaks: true } })).sort(order);
  const week = { officeHours: after.map(officeHoursView) };
  const previous = changedFields({ officeHours: before.map(officeHoursView) }, week);
  if (previous) {
    await recordEvent(tx, deps, actor, {
      type: 'office_hours.updated',
      orgId,
      subject: { type: 'office_hours', id: orgId },
      data: week,
      previous,
    });
  }
  return { week, changed: previous !== null };
}
