// Availability: which state an organization is in at an instant, which greeting a caller hears,
// which templates may be used, and when the state next changes. Pure: no database, no HTTP.
//
// Time decisions (docs/decisions.md §4):
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
// - An answer is reused for later instants only until the answer itself changes (availabilityAnswer):
//   the end of the timeline interval holding it, which comes before nextChangeAt wherever the state
//   stays but the break, the closure or the greeting changes (one break right after another, a closure
//   taking over inside another).
import type { IANAZone } from 'luxon';
import { TimedClosureIndex } from './closureIndex.js';
import { z } from 'zod';
import { viewSchema } from '../shared/viewSchema.js';
import {
  DAY_MS,
  MINUTE_MS,
  formatInstant,
  formatWallClock,
  normalizeLocalTime,
  parseLocalTime,
  resolveZone,
  wallClockAt,
  wallDayStart,
  weekdayOfWallDay,
  WindowOffsets,
} from '../shared/localTime.js';

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

/** The hours of one local date (special hours), replacing that weekday's hours; `date` is `YYYY-MM-DD`. */
export interface SpecialDayRule {
  id: string;
  date: string;
  description: string;
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
  /** Special hours by local date (optional: none). */
  specialHours?: SpecialDayRule[];
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
  specialHours: { id: string; description: string } | null;
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
      localTime: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/)
        .describe('The wall clock there, `YYYY-MM-DDTHH:mm`.'),
      state: z.enum(['CLOSURE', 'CLOSED', 'BREAK', 'OPEN']),
      officeOpen: z.boolean().describe('True only when `state` is OPEN.'),
      closure: z.object({ id: z.uuid(), description: z.string() }).nullable().describe('The closure that applies, if any.'),
      specialHours: z
        .object({ id: z.uuid(), description: z.string() })
        .nullable()
        .describe(
          'The special hours of the local date when they decide the answer (no closure applies); null on a day of the weekly hours.',
        ),
      break: z
        .object({ start: z.string(), end: z.string(), reason: z.string() })
        .nullable()
        .describe('The break that applies (PHONE only), if any.'),
      greeting: z.string().nullable().describe('What the caller hears or reads; null when nothing is configured for the medium.'),
      availableTemplates: z.array(z.object({ id: z.uuid(), name: z.string() })).describe('The templates usable now on this medium.'),
      nextChangeAt: z.iso.datetime().nullable().describe('The next instant the state changes, looking ahead at most 8 days.'),
    })
    .meta({ id: 'Availability' }),
);

export type ScheduleInput = Omit<AvailabilityInput, 'templates' | 'phoneNumber'>;

/** What a schedule is compiled from: everything that does not depend on the instant or the medium. */
export interface ScheduleRules {
  timezone: string;
  /** Only configured days; a missing day is closed. */
  officeHours: DaySchedule[];
  /** Special hours by local date (optional: none); the first for a date wins. */
  specialHours?: SpecialDayRule[];
  closures: ClosureRule[];
}

export interface StateAtResult {
  state: AvailabilityState;
  closure: ClosureRule | null;
  /** The special hours of the local date, when they decide the state (no closure applies). */
  special: SpecialDayRule | null;
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

interface CompiledSpecialDay {
  rule: SpecialDayRule;
  day: CompiledDay | null; // null = closed all day
}

const SPECIAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Local midnight (wall ms) of a `YYYY-MM-DD` date, or null. */
function wallDayOfDate(date: string): number | null {
  const m = SPECIAL_DATE.exec(date);
  if (!m) return null;
  const at = new Date(0);
  at.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return at.getTime();
}

/**
 * A schedule prepared once for many evaluations (the read model keeps one per organization): days by
 * weekday, timed closures indexed by time (closureIndex.ts) and annual closures by date, each already
 * resolved to the closure that wins there. Evaluating an instant costs a binary search and one
 * wall-clock reading, however many closures the organization has.
 */
export interface CompiledSchedule {
  timezone: string;
  zone: IANAZone;
  days: Map<number, CompiledDay>; // ISO weekday → open day; absent = closed
  timed: TimedClosureIndex;
  annual: Map<number, ClosureRule>; // month * 32 + day → the winning annual closure
  special: Map<number, CompiledSpecialDay>; // local midnight of the date (wall ms) → its special hours
  /** The local time last formatted, for the UTC minute it was formatted in (see localTimeAt). */
  lastLocalTime?: { minute: number; text: string };
}

/**
 * `YYYY-MM-DDTHH:mm` local wall time at an instant. Formatting it asks the time zone for its offset,
 * which costs more than the rest of a cached availability answer; within one UTC minute the wall
 * minute is the same (offsets are whole minutes), so the last one is kept.
 */
export function localTimeAt(schedule: CompiledSchedule, atMs: number): string {
  const minute = Math.floor(atMs / MINUTE_MS);
  const last = schedule.lastLocalTime;
  if (last && last.minute === minute) return last.text;
  const wall = wallClockAt(schedule.zone, atMs);
  const text = formatWallClock(wall);
  // an offset with seconds (a historic local mean time) moves the wall minute mid-way through a UTC minute
  if (Number.isInteger(wall.offsetMinutes)) schedule.lastLocalTime = { minute, text };
  return text;
}

function byClosurePrecedence(a: ClosureRule, b: ClosureRule): number {
  const created = a.createdAt.getTime() - b.createdAt.getTime();
  if (created !== 0) return created;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function compileDay(schedule: Pick<DaySchedule, 'isClosed' | 'open' | 'close' | 'breaks'>): CompiledDay | null {
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

export function compileSchedule(input: ScheduleRules): CompiledSchedule {
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
  // precedence (docs/decisions.md §3): timed over annual, then the earliest created
  const sorted = [...input.closures].sort(byClosurePrecedence);
  const timed: { rule: ClosureRule; startMs: number; endMs: number }[] = [];
  const annual = new Map<number, ClosureRule>();
  for (const rule of sorted) {
    if (rule.startAt !== null && rule.endAt !== null) {
      timed.push({ rule, startMs: rule.startAt.getTime(), endMs: rule.endAt.getTime() });
    } else if (rule.annualMonth !== null && rule.annualDay !== null) {
      const key = rule.annualMonth * 32 + rule.annualDay;
      if (!annual.has(key)) annual.set(key, rule);
    }
  }
  const special = new Map<number, CompiledSpecialDay>();
  for (const rule of input.specialHours ?? []) {
    const dayStart = wallDayOfDate(rule.date);
    if (dayStart !== null && !special.has(dayStart)) special.set(dayStart, { rule, day: compileDay(rule) });
  }
  return { timezone: input.timezone, zone, days, timed: new TimedClosureIndex(timed), annual, special };
}

/** The state at an instant; `offsets`, when the instant lies in their window, spare asking the zone. */
export function evaluateAt(schedule: CompiledSchedule, medium: Medium, instantMs: number, offsets?: WindowOffsets): StateAtResult {
  const timed = schedule.timed.ruleAt(instantMs);
  if (timed) return { state: 'CLOSURE', closure: timed, special: null, break: null };
  const wall = offsets ? offsets.wallClockAt(instantMs) : wallClockAt(schedule.zone, instantMs);
  const annual = schedule.annual.get(wall.month * 32 + wall.day);
  if (annual) return { state: 'CLOSURE', closure: annual, special: null, break: null };
  // precedence (docs/decisions.md §9): a closure, then the special hours of the local date, then the weekly hours
  const specialDay = schedule.special.get(wall.dayStartWallMs);
  const special = specialDay?.rule ?? null;
  const day = specialDay ? specialDay.day : schedule.days.get(wall.weekday);
  if (!day || wall.minuteOfDay < day.open || wall.minuteOfDay >= day.close) {
    return { state: 'CLOSED', closure: null, special, break: null };
  }
  if (medium === 'PHONE') {
    for (const pause of day.breaks) {
      if (pause.start <= wall.minuteOfDay && wall.minuteOfDay < pause.end) {
        return { state: 'BREAK', closure: null, special, break: pause.rule };
      }
    }
  }
  return { state: 'OPEN', closure: null, special, break: null };
}

function toInstantMs(at: Date): number {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('at: must be a valid instant');
  return ms;
}

/** The state at `at` (the input's own `at` is ignored), with the closure or break that causes it. */
export function stateAt(input: ScheduleInput, at: Date): StateAtResult {
  return evaluateAt(compileSchedule(input), input.medium, toInstantMs(at));
}

/** Instants in (fromMs, toMs] at which the state may change, ascending, without duplicates. */
export function candidateInstants(
  schedule: CompiledSchedule,
  medium: Medium,
  fromMs: number,
  toMs: number,
  zoneOffsets: WindowOffsets = new WindowOffsets(schedule.zone, fromMs, toMs),
): number[] {
  const candidates = new Set<number>();
  const inWindow = (ms: number): boolean => ms > fromMs && ms <= toMs;

  schedule.timed.edgesIn(fromMs, toMs, (ms) => candidates.add(ms));

  // The wall clock jumps at an offset change (into a gap, or back over a repeated hour).
  const transitions = zoneOffsets.transitionsIn(fromMs, toMs);
  const offsets = [zoneOffsets.offset(fromMs)];
  for (const transition of transitions) {
    candidates.add(transition.at);
    if (!offsets.includes(transition.offsetAfter)) offsets.push(transition.offsetAfter);
  }

  // Every instant whose wall clock reads a boundary of its local date. A day before and after the
  // window's wall dates is included so that no offset can push a boundary out of reach.
  const firstDay = wallDayStart(fromMs + zoneOffsets.offset(fromMs) * MINUTE_MS) - DAY_MS;
  const lastDay = wallDayStart(toMs + zoneOffsets.offset(toMs) * MINUTE_MS) + DAY_MS;
  for (let dayStart = firstDay; dayStart <= lastDay; dayStart += DAY_MS) {
    // local midnight starts and ends every special date, as every date
    const boundaries = [0];
    const specialDay = schedule.special.get(dayStart);
    const day = specialDay ? specialDay.day : schedule.days.get(weekdayOfWallDay(dayStart));
    if (day) {
      boundaries.push(day.open, day.close);
      if (medium === 'PHONE') {
        for (const pause of day.breaks) boundaries.push(pause.start, pause.end);
      }
    }
    for (const minutes of boundaries) {
      for (const instant of zoneOffsets.instantsAtWallTime(dayStart + minutes * MINUTE_MS, offsets)) {
        if (inWindow(instant)) candidates.add(instant);
      }
    }
  }
  return [...candidates].sort((a, b) => a - b);
}

/**
 * Whether two evaluations give the same answer: the same state, decided by the same closure and the
 * same break, and so the same greeting and templates. Rules are compared by identity (both evaluations
 * come from one compiled schedule). A rule that comes to decide answers (special hours on a date) joins
 * StateAtResult and this comparison, its edges join candidateInstants, and every reuse of an answer
 * (the answer cache, the live subscription) follows.
 */
export function sameDecision(a: StateAtResult, b: StateAtResult): boolean {
  return a.state === b.state && a.closure === b.closure && a.special === b.special && a.break === b.break;
}

/** Where the answer first changes after an instant, and where its state does. */
interface ChangesAfter {
  /** The first instant at which the answer differs (state, closure, break or greeting), or null. */
  answerMs: number | null;
  /** The first instant at which the state differs, or null (the answer changes there too). */
  stateMs: number | null;
}

/** The first answer change and the first state change in (fromMs, toMs] from `current`; stops at the state change. */
function changesIn(schedule: CompiledSchedule, medium: Medium, fromMs: number, toMs: number, current: StateAtResult): ChangesAfter {
  let answerMs: number | null = null;
  const offsets = new WindowOffsets(schedule.zone, fromMs, toMs);
  for (const candidate of candidateInstants(schedule, medium, fromMs, toMs, offsets)) {
    const there = evaluateAt(schedule, medium, candidate, offsets);
    if (there.state !== current.state) return { answerMs: answerMs ?? candidate, stateMs: candidate };
    if (answerMs === null && !sameDecision(there, current)) answerMs = candidate;
  }
  return { answerMs, stateMs: null };
}

/** The first instant in (atMs, atMs + LOOKAHEAD_MS] whose state differs from `current`, or null. */
export function nextChangeMs(schedule: CompiledSchedule, medium: Medium, atMs: number, current: AvailabilityState): number | null {
  const offsets = new WindowOffsets(schedule.zone, atMs, atMs + LOOKAHEAD_MS);
  for (const candidate of candidateInstants(schedule, medium, atMs, atMs + LOOKAHEAD_MS, offsets)) {
    if (evaluateAt(schedule, medium, candidate, offsets).state !== current) return candidate;
  }
  return null;
}

/** A greeting that is missing, empty or blank is "not configured". */
function configured(greeting: string | null | undefined): string | null {
  return greeting !== null && greeting !== undefined && greeting.trim() !== '' ? greeting : null;
}

export function greetingFor(medium: Medium, current: StateAtResult, phoneNumber: PhoneGreetings | null): string | null {
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

export function availableTemplates(
  templates: readonly TemplateRule[],
  medium: Medium,
  officeOpen: boolean,
): { id: string; name: string }[] {
  return templates
    .filter((template) => templateAvailable(template, medium, officeOpen))
    .map((template) => ({ id: template.id, name: template.name }));
}

/** What availability answers besides the instant itself (constant over the timeline interval holding `at`). */
export type AvailabilityBody = Omit<Availability, 'at' | 'localTime'>;

/** An availability body and the instant until which it stays exactly right (exclusive). */
export interface ReusableAvailability {
  body: AvailabilityBody;
  untilMs: number;
}

function bodyOf(
  schedule: CompiledSchedule,
  current: StateAtResult,
  medium: Medium,
  templates: readonly TemplateRule[],
  phoneNumber: PhoneGreetings | null,
  nextMs: number | null,
): AvailabilityBody {
  const officeOpen = current.state === 'OPEN';
  return {
    timezone: schedule.timezone,
    state: current.state,
    officeOpen,
    closure: current.closure ? { id: current.closure.id, description: current.closure.description } : null,
    specialHours: current.special ? { id: current.special.id, description: current.special.description } : null,
    break: current.break
      ? {
          start: normalizeLocalTime(current.break.start),
          end: normalizeLocalTime(current.break.end),
          reason: current.break.reason,
        }
      : null,
    greeting: greetingFor(medium, current, phoneNumber),
    availableTemplates: availableTemplates(templates, medium, officeOpen),
    nextChangeAt: nextMs === null ? null : formatInstant(nextMs),
  };
}

/**
 * Availability at `atMs` without the instant's own fields, and until when it stays exactly right for
 * every later instant: until the answer itself changes (the end of the timeline interval holding
 * `atMs`: the state, the closure, the break or the greeting), which may come before `nextChangeAt`
 * (two adjacent breaks; a closure starting inside another). When the state does not change within the
 * lookahead, `nextChangeAt` (null) is right until a change first comes within the lookahead of the
 * instant asked about; that is looked for up to `horizonMs` further, and the answer is reused at most
 * `horizonMs` then.
 */
export function availabilityAnswer(
  schedule: CompiledSchedule,
  atMs: number,
  medium: Medium,
  templates: readonly TemplateRule[],
  phoneNumber: PhoneGreetings | null,
  horizonMs: number,
): ReusableAvailability {
  const current = evaluateAt(schedule, medium, atMs);
  const within = changesIn(schedule, medium, atMs, atMs + LOOKAHEAD_MS, current);
  const body = bodyOf(schedule, current, medium, templates, phoneNumber, within.stateMs);
  if (within.stateMs !== null) return { body, untilMs: within.answerMs ?? within.stateMs }; // answerMs <= stateMs
  // nextChangeAt is null: right only until a change of state comes within the lookahead, which can come
  // before the closure or the break changes
  const beyond = changesIn(schedule, medium, atMs + LOOKAHEAD_MS, atMs + LOOKAHEAD_MS + horizonMs, current);
  const untilMs = Math.min(
    atMs + horizonMs,
    within.answerMs ?? beyond.answerMs ?? Infinity, // the closure or the break changes there
    beyond.stateMs === null ? Infinity : beyond.stateMs - LOOKAHEAD_MS, // nextChangeAt is no longer null from there
  );
  return { body, untilMs };
}

/** Availability at `atMs` from a compiled schedule, without the instant's own fields (`at`, `localTime`). */
export function availabilityBody(
  schedule: CompiledSchedule,
  atMs: number,
  medium: Medium,
  templates: readonly TemplateRule[],
  phoneNumber: PhoneGreetings | null,
): AvailabilityBody {
  const current = evaluateAt(schedule, medium, atMs);
  return bodyOf(schedule, current, medium, templates, phoneNumber, nextChangeMs(schedule, medium, atMs, current.state));
}

/** Adds the instant's own fields to an availability body. */
export function availabilityAt(schedule: CompiledSchedule, atMs: number, body: AvailabilityBody): Availability {
  return {
    at: formatInstant(atMs),
    timezone: body.timezone,
    localTime: localTimeAt(schedule, atMs),
    state: body.state,
    officeOpen: body.officeOpen,
    closure: body.closure,
    specialHours: body.specialHours,
    break: body.break,
    greeting: body.greeting,
    availableTemplates: body.availableTemplates,
    nextChangeAt: body.nextChangeAt,
  };
}

export function computeAvailability(input: AvailabilityInput): Availability {
  const atMs = toInstantMs(input.at);
  const schedule = compileSchedule(input);
  return availabilityAt(schedule, atMs, availabilityBody(schedule, atMs, input.medium, input.templates, input.phoneNumber));
}

/** One interval of a timeline: from `start` (inclusive) to `end` (exclusive) the answer is the same. */
export interface TimelineInterval {
  start: string;
  end: string;
  state: AvailabilityState;
  closure: { id: string; description: string } | null;
  specialHours: { id: string; description: string } | null;
  break: { start: string; end: string; reason: string } | null;
  greeting: string | null;
}

interface IntervalDraft extends Omit<TimelineInterval, 'start' | 'end'> {
  startMs: number;
}

function sameAnswer(a: Omit<TimelineInterval, 'start' | 'end'>, b: Omit<TimelineInterval, 'start' | 'end'>): boolean {
  return (
    a.state === b.state &&
    a.greeting === b.greeting &&
    a.closure?.id === b.closure?.id &&
    a.specialHours?.id === b.specialHours?.id &&
    a.break?.start === b.break?.start &&
    a.break?.end === b.break?.end &&
    a.break?.reason === b.break?.reason
  );
}

/**
 * At most how many intervals availabilityTimeline answers for [fromMs, toMs), counted from the schedule before
 * any is computed: the boundaries of the local days it touches (midnight, open, close, and for PHONE each
 * break's start and end), the closure edges in the window, and for each offset change a day's boundaries more
 * (a repeated hour reads some of them twice). Costs a pass over the days and two binary searches.
 */
export function timelineCost(
  schedule: CompiledSchedule,
  medium: Medium,
  fromMs: number,
  toMs: number,
  zoneOffsets = new WindowOffsets(schedule.zone, fromMs, toMs),
): number {
  const boundariesOf = (dayStart: number): number => {
    const specialDay = schedule.special.get(dayStart);
    const day = specialDay ? specialDay.day : schedule.days.get(weekdayOfWallDay(dayStart));
    return 1 + (day ? 2 + (medium === 'PHONE' ? 2 * day.breaks.length : 0) : 0);
  };
  const firstDay = wallDayStart(fromMs + zoneOffsets.offset(fromMs) * MINUTE_MS);
  const lastDay = wallDayStart(toMs + zoneOffsets.offset(toMs) * MINUTE_MS);
  let cost = 1 + schedule.timed.edgeCountIn(fromMs, toMs);
  let busiestDay = 0;
  for (let dayStart = firstDay; dayStart <= lastDay; dayStart += DAY_MS) {
    const boundaries = boundariesOf(dayStart);
    cost += boundaries;
    busiestDay = Math.max(busiestDay, boundaries);
  }
  // a day on either side, for the offset changes (the wall clock jumps back into the day before, or ahead)
  busiestDay = Math.max(busiestDay, boundariesOf(firstDay - DAY_MS), boundariesOf(lastDay + DAY_MS));
  return cost + zoneOffsets.transitionsIn(fromMs, toMs).length * (busiestDay + 1);
}

/**
 * The consecutive intervals covering [fromMs, toMs), in UTC instants, each with the answer that holds
 * at every instant in it. The answer can only change at a candidate instant (closure edges, offset
 * transitions, local day/open/close/break boundaries), so the state at each candidate decides the
 * interval that starts there; neighbours with the same answer are merged. Exact across daylight-saving
 * changes for the same reason nextChangeAt is. Callers bound the work first (timelineCost).
 */
export function availabilityTimeline(
  schedule: CompiledSchedule,
  fromMs: number,
  toMs: number,
  medium: Medium,
  phoneNumber: PhoneGreetings | null,
): TimelineInterval[] {
  const steps = timelineSteps(schedule, fromMs, toMs, medium, phoneNumber, Infinity);
  let next = steps.next();
  while (!next.done) next = steps.next();
  return next.value;
}

/** How much of the range a timeline asks candidate instants of at once (a step must stay short). */
const TIMELINE_PIECE_MS = 2 * DAY_MS;

/**
 * availabilityTimeline in steps: the generator yields after every `chunk` candidate instants, so that a
 * caller can let the event loop turn between them (availabilityQuery.ts), and returns the intervals. The
 * candidates are found a piece of the range at a time (those of consecutive pieces (a, b], (b, c] are
 * those of (a, c]), and each interval is written out as soon as the next one starts.
 */
export function* timelineSteps(
  schedule: CompiledSchedule,
  fromMs: number,
  toMs: number,
  medium: Medium,
  phoneNumber: PhoneGreetings | null,
  chunk: number,
  zoneOffsets = new WindowOffsets(schedule.zone, fromMs, toMs),
): Generator<void, TimelineInterval[], void> {
  const intervals: TimelineInterval[] = [];
  let open: IntervalDraft | null = null;
  const close = (draft: IntervalDraft, endMs: number): void => {
    const { startMs, ...answer } = draft;
    intervals.push({ start: formatInstant(startMs), end: formatInstant(endMs), ...answer });
  };
  let evaluated = 0;
  for (let pieceFrom = fromMs; pieceFrom < toMs; pieceFrom += TIMELINE_PIECE_MS) {
    const pieceTo = Math.min(pieceFrom + TIMELINE_PIECE_MS, toMs);
    const starts = candidateInstants(schedule, medium, pieceFrom, pieceTo, zoneOffsets).filter((ms) => ms < toMs);
    if (pieceFrom === fromMs) starts.unshift(fromMs);
    for (const startMs of starts) {
      if (++evaluated % chunk === 0) yield;
      const current = evaluateAt(schedule, medium, startMs, zoneOffsets);
      const answer = {
        state: current.state,
        closure: current.closure ? { id: current.closure.id, description: current.closure.description } : null,
        specialHours: current.special ? { id: current.special.id, description: current.special.description } : null,
        break: current.break
          ? { start: normalizeLocalTime(current.break.start), end: normalizeLocalTime(current.break.end), reason: current.break.reason }
          : null,
        greeting: greetingFor(medium, current, phoneNumber),
      };
      if (open && sameAnswer(open, answer)) continue;
      if (open) close(open, startMs);
      open = { startMs, ...answer };
    }
    yield;
  }
  if (open) close(open, toMs);
  return intervals;
}
