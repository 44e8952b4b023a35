// Special hours: the hours of one local date (`YYYY-MM-DD` in the organization's timezone) that replace
// that weekday's office hours: a Saturday opened before a holiday, 24 December closing at noon. The
// fields follow the rules of a day of office hours (spec §4 rules 1-7, docs/decisions.md §3; the schema pieces
// are those of officeHours.ts); at most one per date. Precedence at an instant (docs/decisions.md §9): a closure,
// then the special hours of that local date, then the weekly hours.
//
// Decisions: a write may not name a date before the organization's local today (a past day changes
// nothing); days that have passed are kept (listed, deletable) but never loaded for availability. At most
// SPECIAL_HOURS_LIMIT days from today on per organization, so that a schedule stays small.
import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import type { ScheduleDeps } from './deps.js';
import type { SpecialDayRule } from './availability.js';
import { type Actor, requireScope } from '../shared/access.js';
import { closedObjectError } from './closures.js';
import { Conflict, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { changedFields, recordEvent } from '../events/log.js';
import { uuidParam } from '../shared/ids.js';
import { localDateAt } from '../shared/localTime.js';
import { byStart, checkDayHours, dayHoursFields, keptBreaksCheck, officeBreakResponse, type OfficeBreakView } from './officeHours.js';
import type { OrganizationRecord } from '../shared/readModel.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { nonBlankText } from '../shared/timeFormats.js';
import { viewSchema } from '../shared/viewSchema.js';
import { deleteSpecialHoursRow, type SpecialHoursRow } from './sql.js';
import { lockOrganizationRow } from '../shared/sql.js';

/** How many special days an organization may have from its local today on. */
export const SPECIAL_HOURS_LIMIT = 366;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when `value` is `YYYY-MM-DD` naming a real calendar date (years 0001..9999). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_PATTERN.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const back = new Date(0);
  back.setUTCFullYear(year, month - 1, day);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day;
}

export const localDateSchema = z
  .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : 'must be a string') })
  .regex(DATE_PATTERN, { message: "must be a date YYYY-MM-DD (the organization's local date)", abort: true })
  .refine(isCalendarDate, { message: 'is not a calendar date' });

/** Create and update (POST on the id) take the same body; on update an omitted `breaks` keeps the breaks (rule 6). */
export const specialHoursSchema = z
  .strictObject(
    { date: localDateSchema, description: nonBlankText(255), ...dayHoursFields },
    { error: closedObjectError('an object (send a JSON, form or multipart body)') },
  )
  .superRefine(checkDayHours);

export type SpecialHoursInput = z.input<typeof specialHoursSchema>;

/** A day's special hours as answered: the rule availability uses, its breaks as views. */
export type SpecialHoursView = Omit<SpecialDayRule, 'breaks'> & { breaks: OfficeBreakView[] };

const localTimeView = z
  .string()
  .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/)
  .describe("Local time `HH:mm` in the organization's timezone.");
export const specialHoursResponse = viewSchema<SpecialHoursView>()(
  z
    .object({
      id: z.uuid(),
      date: z.string().regex(DATE_PATTERN).describe("The organization's local date, `YYYY-MM-DD`."),
      description: z.string(),
      isClosed: z.boolean(),
      open: localTimeView.nullable().describe('Null on a closed day.'),
      close: localTimeView.nullable().describe('Null on a closed day.'),
      breaks: z.array(officeBreakResponse).describe('Sorted by start.'),
    })
    .meta({ id: 'SpecialHours', description: "The hours of one local date, replacing that weekday's office hours." }),
);
export const specialHoursListResponse = viewSchema<{ specialHours: SpecialHoursView[] }>()(
  z.object({ specialHours: z.array(specialHoursResponse).describe('By date, past ones included.') }),
);
export const deletedSpecialHoursResponse = viewSchema<{ id: string; deleted: true }>()(
  z.object({ id: z.uuid(), deleted: z.literal(true) }),
);

/** The stored breaks (JSON): parsed by some drivers, text from others. */
function breaksOf(row: SpecialHoursRow): OfficeBreakView[] {
  const value: unknown = typeof row.breaks === 'string' ? JSON.parse(row.breaks) : row.breaks;
  return Array.isArray(value) ? (value as OfficeBreakView[]) : [];
}

export function specialHoursView(row: SpecialHoursRow): SpecialHoursView {
  return {
    id: row.id,
    date: row.date,
    description: row.description,
    isClosed: row.isClosed,
    open: row.open,
    close: row.close,
    breaks: [...breaksOf(row)].sort(byStart).map((b) => ({ start: b.start, end: b.end, reason: b.reason, greeting: b.greeting })),
  };
}

const COLUMNS = ['id', 'date', 'description', 'isClosed', 'open', 'close', 'breaks'] as const;
const select = Object.fromEntries(COLUMNS.map((c) => [c, true])) as Record<(typeof COLUMNS)[number], true>;

type Tx = Prisma.TransactionClient;

/** The organization's row locked: special-hours writes of one organization run one after the other (the date and the limit are checked against what is kept). */
async function lockOrganization(tx: Tx, org: OrganizationRecord): Promise<void> {
  await lockOrganizationRow(tx, org.id);
}

/** Refuses a date before the organization's local today, a date already taken (by another day than `selfId`) and one over the limit. */
async function checkDate(tx: Tx, deps: ScheduleDeps, org: OrganizationRecord, date: string, selfId: string | null): Promise<void> {
  const today = localDateAt(org.timezone, deps.clock().getTime());
  if (date < today)
    throw InvalidInput.of('date', `must be today (${today}) or later in the organization's timezone; a past day changes nothing`);
  const taken = await tx.specialHours.findFirst({ where: { orgId: org.id, date }, select: { id: true } });
  if (taken && taken.id !== selfId) throw new Conflict(`Special hours already exist for ${date} (${taken.id}); update or delete them`);
  const upcoming = await tx.specialHours.count({
    where: { orgId: org.id, date: { gte: today }, ...(selfId ? { id: { not: selfId } } : {}) },
  });
  if (upcoming >= SPECIAL_HOURS_LIMIT) {
    throw new Conflict(`The organization already has ${SPECIAL_HOURS_LIMIT} special days from today on (the most kept); delete one first`);
  }
}

function storedBreaks(breaks: readonly OfficeBreakView[]): Prisma.InputJsonValue {
  return [...breaks].sort(byStart).map((b) => ({ start: b.start, end: b.end, reason: b.reason, greeting: b.greeting }));
}

export async function createSpecialHours(deps: ScheduleDeps, actor: Actor, orgId: string, input: unknown): Promise<SpecialHoursView> {
  const data = parseInput(specialHoursSchema, input);
  requireScope(actor, 'office-hours:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const view = await deps.db.$transaction(async (tx) => {
    await lockOrganization(tx, org);
    await checkDate(tx, deps, org, data.date, null);
    const row = await tx.specialHours.create({
      data: {
        orgId: org.id,
        date: data.date,
        description: data.description,
        isClosed: data.isClosed,
        open: data.isClosed ? null : data.open!,
        close: data.isClosed ? null : data.close!,
        breaks: storedBreaks(data.breaks ?? []),
      },
      select,
    });
    const view = specialHoursView(row);
    await recordEvent(tx, deps, actor, {
      type: 'special_hours.created',
      orgId: org.id,
      subject: { type: 'special_hours', id: row.id },
      data: view,
    });
    return view;
  });
  deps.changes.publish({ kind: 'officeHours', orgId: org.id });
  return view;
}

export async function updateSpecialHours(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  specialHoursId: string,
  input: unknown,
): Promise<SpecialHoursView> {
  const data = parseInput(specialHoursSchema, input);
  requireScope(actor, 'office-hours:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('specialHoursId', specialHoursId);
  const open = data.isClosed ? null : data.open!;
  const close = data.isClosed ? null : data.close!;
  const result = await deps.db.$transaction(async (tx) => {
    await lockOrganization(tx, org);
    const before = await tx.specialHours.findFirst({ where: { id, orgId: org.id }, select });
    if (!before) throw new NotFound('Special hours');
    const beforeView = specialHoursView(before);
    // rules 6 and 7: omitted breaks are kept, so they must be allowed by the new hours
    if (data.breaks === undefined) keptBreaksCheck(beforeView.breaks, data.isClosed, open, close);
    if (data.date !== before.date) await checkDate(tx, deps, org, data.date, id);
    const row = await tx.specialHours.update({
      where: { id, orgId: org.id },
      data: {
        date: data.date,
        description: data.description,
        isClosed: data.isClosed,
        open,
        close,
        ...(data.breaks !== undefined ? { breaks: storedBreaks(data.breaks) } : {}),
      },
      select,
    });
    const view = specialHoursView(row);
    const previous = changedFields(beforeView, view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'special_hours.updated',
        orgId: org.id,
        subject: { type: 'special_hours', id },
        data: view,
        previous,
      });
    return { view, changed: previous !== null };
  });
  if (result.changed) deps.changes.publish({ kind: 'officeHours', orgId: org.id });
  return result.view;
}

export async function listSpecialHours(deps: ScheduleDeps, actor: Actor, orgId: string): Promise<SpecialHoursView[]> {
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const rows = await deps.db.specialHours.findMany({ where: { orgId: org.id }, orderBy: [{ date: 'asc' }], select });
  return rows.map(specialHoursView);
}

export async function getSpecialHours(deps: ScheduleDeps, actor: Actor, orgId: string, specialHoursId: string): Promise<SpecialHoursView> {
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const row = await deps.db.specialHours.findFirst({ where: { id: uuidParam('specialHoursId', specialHoursId), orgId: org.id }, select });
  if (!row) throw new NotFound('Special hours');
  return specialHoursView(row);
}

export async function deleteSpecialHours(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  specialHoursId: string,
): Promise<{ id: string; deleted: true }> {
  requireScope(actor, 'office-hours:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('specialHoursId', specialHoursId);
  await deps.db.$transaction(async (tx) => {
    // one statement that answers what it deleted (the event's data: the day as it was)
    const deleted = await deleteSpecialHoursRow(tx, org.id, id);
    if (deleted.length === 0) throw new NotFound('Special hours');
    await recordEvent(tx, deps, actor, {
      type: 'special_hours.deleted',
      orgId: org.id,
      subject: { type: 'special_hours', id },
      data: specialHoursView(deleted[0]!),
    });
  });
  deps.changes.publish({ kind: 'officeHours', orgId: org.id });
  return { id, deleted: true };
}
