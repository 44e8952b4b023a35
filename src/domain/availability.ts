// Availability: which state an organization is in at an instant, which greeting a caller hears,
// which templates may be used, and when the state next changes. Pure: no database, no HTTP.
//
// Time decisions (CONTRACT §4):
// - The state is a function of the organization's LOCAL WALL TIME (date, weekday, minute of day;
//   seconds dropped), read with luxon in the organization's IANA zone, plus the UTC instant for
//   timed closures. The process timezone is never used.
// - A local time that does not exist (spring-forward gap, e.g. 02:30 on 2026-03-08 in New York)
//   is never shown on the wall clock, so a boundary there takes effect at the first instant after
//   the gap (03:00 EDT = 07:00Z): a break 02:30–03:30 runs 03:00–03:30 EDT, a break wholly inside
//   the gap never happens. (luxon's fromObject would shift 02:30 to 03:30; we do not use it here.)
// - A local time that exists twice (fall-back, e.g. 01:30 on 2026-11-01 in New York) is passed
//   twice, and the state follows the wall clock both times: a break 01:00–02:00 covers both
//   repeated hours (05:00Z–07:00Z); a break 01:30–02:30 runs 05:30Z–06:00Z, stops when the clock
//   goes back to 01:00, and runs again 06:30Z–07:30Z.
// - A local day may last 23 or 25 hours; an annual closure covers the whole local date, whatever
//   its length. An annual closure on 29 February applies only in leap years (never moved).
// - nextChangeAt is the earliest instant t with at < t <= at + 8×24 h at which the state differs
//   from the state at `at`. The state is constant between consecutive candidate instants (timed
//   closure edges, offset transitions, and every instant whose wall clock reads a local midnight,
//   open, close, or break edge), so only candidates are evaluated.
import type { IANAZone } from 'luxon';
import { z } from 'zod';
import { viewSchema } from './viewSchema.js';
import {
  DAY_MS,
  MINUTE_MS,
  formatInstant,
  formatWallClock,
  instantsAtWallTime,
  normalizeLocalTime,
  offsetTransitions,
  parseLocalTime,
  resolveZone,
  wallClockAt,
  wallDayStart,
  weekdayOfWallDay,
} from './localTime.js';

export type Medium = 'PHONE' | 'CHAT' | 'SMS' | 'GHL';
export type DayOfWeek = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';

/** A recurring break; `start`/`end` are local `HH:mm` (or `H:mm`). */
export interface BreakRule {
  start: string;
  end: string;
  reason: string;
  greeting: string;
}

export interface DaySchedule {
  dayOfWeek: DayOfWeek;
  isClosed: boolean;
  open: string | null;
  close: string | null;
  breaks: BreakRule[];
}

/** Timed when startAt and endAt are set, annual when annualMonth and annualDay are set. */
export interface ClosureRule {
  id: string;
  description: string;
  createdAt: Date;
  startAt: Date | null;
  endAt: Date | null;
  annualMonth: number | null;
  annualDay: number | null;
  chatGreeting: string | null;
  phoneGreeting: string | null;
}

export interface TemplateRule {
  id: string;
  name: string;
  applicableMediums: Medium[] | null;
  officeHoursAvailability: 'OPEN' | 'CLOSED' | null;
}

export interface PhoneGreetings {
  customGreeting: string | null;
  customClosedGreeting: string | null;
}

export interface AvailabilityInput {
  at: Date;
  timezone: string;
  medium: Medium;
  /** Only configured days; a missing day is closed. */
  officeHours: DaySchedule[];
  closures: ClosureRule[];
  templates: TemplateRule[];
  phoneNumber: PhoneGreetings | null;
}

export type AvailabilityState = 'CLOSURE' | 'CLOSED' | 'BREAK' | 'OPEN';

export interface Availability {
  at: string;
  timezone: string;
  localTime: string;
  state: AvailabilityState;
  officeOpen: boolean;
  closure: { id: string; description: string } | null;
  break: { start: string; end: string; reason: string } | null;
  greeting: string | null;
  availableTemplates: { id: string; name: string }[];
  nextChangeAt: string | null;
}

/** The availability as answered (documented in the OpenAPI document), checked against the type. */
export const availabilityResponse = viewSchema<Availability>()(
  z
    .object({
      at: z.iso.datetime().describe('The instant asked about, UTC.'),
      timezone: z.string().describe("The organization's IANA time zone."),
      localTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/).describe('The wall clock there, `YYYY-MM-DDTHH:mm`.'),
      state: z.enum(['CLOSURE', 'CLOSED', 'BREAK', 'OPEN']),
      officeOpen: z.boolean().describe('True only when `state` is OPEN.'),
      closure: z.object({ id: z.uuid(), description: z.string() }).nullable().describe('The closure that applies, if any.'),
      break: z.object({ start: z.string(), end: z.string(), reason: z.string() }).nullable().describe('The break that applies (PHONE only), if any.'),
      greeting: z.string().nullable().describe('What the caller hears or reads; null when nothing is configured for the medium.'),
      availableTemplates: z.array(z.object({ id: z.uuid(), name: z.string() })).describe('The templates usable now on this medium.'),
      nextChangeAt: z.iso.datetime().nullable().describe('The next instant the state changes, looking ahead at most 8 days.'),
    })
    .meta({ id: 'Availability' }),
);

export type ScheduleInput = Omit<AvailabilityInput, 'templates' | 'phoneNumber'>;

export interface StateAtResult {
  state: AvailabilityState;
  closure: ClosureRule | null;
  break: BreakRule | null;
}

/** How far nextChangeAt looks ahead. */
export const LOOKAHEAD_MS = 8 * DAY_MS;

const ISO_WEEKDAY: Record<DayOfWeek, number> = {
  MONDAY: 1,
  TUESDAY: 2,
  WEDNESDAY: 3,
  THURSDAY: 4,
  FRIDAY: 5,
  SATURDAY: 6,
  SUNDAY: 7,
};

interface CompiledBreak {
  rule: BreakRule;
  start: number; // minutes after local midnight
  end: number;
}

interface CompiledDay {
  open: number;
  close: number;
  breaks: CompiledBreak[];
}

interface TimedClosure {
  rule: ClosureRule;
  startMs: number;
  endMs: number;
}

interface AnnualClosure {
  rule: ClosureRule;
  month: number;
  day: number;
}

/** The schedule prepared once for many evaluations. */
interface CompiledSchedule {
  zone: IANAZone;
  medium: Medium;
  days: Map<number, CompiledDay>; // ISO weekday → open day; absent = closed
  timed: TimedClosure[]; // in precedence order
  annual: AnnualClosure[]; // in precedence order
}

function byClosurePrecedence(a: ClosureRule, b: ClosureRule): number {
  const created = a.createdAt.getTime() - b.createdAt.getTime();
  if (created !== 0) return created;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function compileDay(schedule: DaySchedule): CompiledDay | null {
  if (schedule.isClosed || schedule.open === null || schedule.close === null) return null;
  const open = parseLocalTime(schedule.open);
  const close = parseLocalTime(schedule.close);
  if (open === null || close === null || open >= close) return null;
  const breaks: CompiledBreak[] = [];
  for (const rule of schedule.breaks) {
    const start = parseLocalTime(rule.start);
    const end = parseLocalTime(rule.end);
    if (start === null || end === null || start >= end) continue;
    breaks.push({ rule, start, end });
  }
  return { open, close, breaks };
}

function compileSchedule(input: ScheduleInput): CompiledSchedule {
  const zone = resolveZone(input.timezone);
  const days = new Map<number, CompiledDay>();
  const seen = new Set<number>();
  for (const schedule of input.officeHours) {
    const weekday = ISO_WEEKDAY[schedule.dayOfWeek];
    if (seen.has(weekday)) continue; // one record per day; the first wins
    seen.add(weekday);
    const day = compileDay(schedule);
    if (day) days.set(weekday, day);
  }
  const sorted = [...input.closures].sort(byClosurePrecedence);
  const timed: TimedClosure[] = [];
  const annual: AnnualClosure[] = [];
  for (const rule of sorted) {
    if (rule.startAt !== null && rule.endAt !== null) {
      timed.push({ rule, startMs: rule.startAt.getTime(), endMs: rule.endAt.getTime() });
    } else if (rule.annualMonth !== null && rule.annualDay !== null) {
      annual.push({ rule, month: rule.annualMonth, day: rule.annualDay });
    }
  }
  return { zone, medium: input.medium, days, timed, annual };
}

function evaluate(schedule: CompiledSchedule, instantMs: number): StateAtResult {
  for (const closure of schedule.timed) {
    if (closure.startMs <= instantMs && instantMs < closure.endMs) {
      return { state: 'CLOSURE', closure: closure.rule, break: null };
    }
  }
  const wall = wallClockAt(schedule.zone, instantMs);
  for (const closure of schedule.annual) {
    if (closure.month === wall.month && closure.day === wall.day) {
      return { state: 'CLOSURE', closure: closure.rule, break: null };
    }
  }
  const day = schedule.days.get(wall.weekday);
  if (!day || wall.minuteOfDay < day.open || wall.minuteOfDay >= day.close) {
    return { state: 'CLOSED', closure: null, break: null };
  }
  if (schedule.medium === 'PHONE') {
    for (const pause of day.breaks) {
      if (pause.start <= wall.minuteOfDay && wall.minuteOfDay < pause.end) {
        return { state: 'BREAK', closure: null, break: pause.rule };
      }
    }
  }
  return { state: 'OPEN', closure: null, break: null };
}

function toInstantMs(at: Date): number {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('at: must be a valid instant');
  return ms;
}

/** The state at `at` (the input's own `at` is ignored), with the closure or break that causes it. */
export function stateAt(input: ScheduleInput, at: Date): StateAtResult {
  return evaluate(compileSchedule(input), toInstantMs(at));
}

/** Instants in (fromMs, toMs] at which the state may change, ascending, without duplicates. */
function candidateInstants(schedule: CompiledSchedule, fromMs: number, toMs: number): number[] {
  const { zone } = schedule;
  const candidates = new Set<number>();
  const inWindow = (ms: number): boolean => ms > fromMs && ms <= toMs;

  for (const closure of schedule.timed) {
    if (inWindow(closure.startMs)) candidates.add(closure.startMs);
    if (inWindow(closure.endMs)) candidates.add(closure.endMs);
  }

  // The wall clock jumps at an offset change (into a gap, or back over a repeated hour).
  const transitions = offsetTransitions(zone, fromMs, toMs);
  const offsets = [zone.offset(fromMs)];
  for (const transition of transitions) {
    candidates.add(transition.at);
    if (!offsets.includes(transition.offsetAfter)) offsets.push(transition.offsetAfter);
  }

  // Every instant whose wall clock reads a boundary of its local date. A day before and after the
  // window's wall dates is included so that no offset can push a boundary out of reach.
  const firstDay = wallDayStart(fromMs + zone.offset(fromMs) * MINUTE_MS) - DAY_MS;
  const lastDay = wallDayStart(toMs + zone.offset(toMs) * MINUTE_MS) + DAY_MS;
  for (let dayStart = firstDay; dayStart <= lastDay; dayStart += DAY_MS) {
    const boundaries = [0];
    const day = schedule.days.get(weekdayOfWallDay(dayStart));
    if (day) {
      boundaries.push(day.open, day.close);
      if (schedule.medium === 'PHONE') {
        for (const pause of day.breaks) boundaries.push(pause.start, pause.end);
      }
    }
    for (const minutes of boundaries) {
      for (const instant of instantsAtWallTime(zone, dayStart + minutes * MINUTE_MS, offsets)) {
        if (inWindow(instant)) candidates.add(instant);
      }
    }
  }
  return [...candidates].sort((a, b) => a - b);
}

function nextChangeMs(schedule: CompiledSchedule, atMs: number, current: AvailabilityState): number | null {
  for (const candidate of candidateInstants(schedule, atMs, atMs + LOOKAHEAD_MS)) {
    if (evaluate(schedule, candidate).state !== current) return candidate;
  }
  return null;
}

/** A greeting that is missing, empty or blank is "not configured". */
function configured(greeting: string | null | undefined): string | null {
  return greeting !== null && greeting !== undefined && greeting.trim() !== '' ? greeting : null;
}

function greetingFor(
  medium: Medium,
  current: StateAtResult,
  phoneNumber: PhoneGreetings | null,
): string | null {
  if (medium === 'CHAT') {
    return current.state === 'CLOSURE' ? configured(current.closure?.chatGreeting) : null;
  }
  if (medium !== 'PHONE') return null;
  const closedGreeting = configured(phoneNumber?.customClosedGreeting);
  switch (current.state) {
    case 'CLOSURE':
      return configured(current.closure?.phoneGreeting) ?? closedGreeting;
    case 'BREAK':
      return configured(current.break?.greeting) ?? closedGreeting;
    case 'CLOSED':
      return closedGreeting;
    case 'OPEN':
      return configured(phoneNumber?.customGreeting);
  }
}

function templateAvailable(template: TemplateRule, medium: Medium, officeOpen: boolean): boolean {
  const mediums = template.applicableMediums;
  if (mediums !== null && mediums.length > 0 && !mediums.includes(medium)) return false;
  switch (template.officeHoursAvailability) {
    case null:
      return true;
    case 'OPEN':
      return officeOpen;
    case 'CLOSED':
      return !officeOpen;
  }
}

export function computeAvailability(input: AvailabilityInput): Availability {
  const atMs = toInstantMs(input.at);
  const schedule = compileSchedule(input);
  const current = evaluate(schedule, atMs);
  const officeOpen = current.state === 'OPEN';
  const next = nextChangeMs(schedule, atMs, current.state);
  return {
    at: formatInstant(atMs),
    timezone: input.timezone,
    localTime: formatWallClock(wallClockAt(schedule.zone, atMs)),
    state: current.state,
    officeOpen,
    closure: current.closure ? { id: current.closure.id, description: current.closure.description } : null,
    break: current.break
      ? {
          start: normalizeLocalTime(current.break.start),
          end: normalizeLocalTime(current.break.end),
          reason: current.break.reason,
        }
      : null,
    greeting: greetingFor(input.medium, current, input.phoneNumber),
    availableTemplates: input.templates
      .filter((template) => templateAvailable(template, input.medium, officeOpen))
      .map((template) => ({ id: template.id, name: template.name })),
    nextChangeAt: next === null ? null : formatInstant(next),
  };
}
