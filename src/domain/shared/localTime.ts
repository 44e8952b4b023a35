// Local wall-clock helpers for the organization's IANA timezone.
//
// Every offset comes from luxon's IANAZone (Intl under the hood), never from the process
// timezone. A "wall ms" is the local wall-clock reading encoded as if it were a UTC epoch
// value (instant + offset); calendar fields are read from it with UTC arithmetic only, so
// the result does not depend on process.env.TZ.
import { DateTime, IANAZone } from 'luxon';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const MINUTES_PER_DAY = 1440;

/** `H:mm` or `HH:mm`, 00:00..23:59 (the office-hours pattern of the specification). */
const LOCAL_TIME_PATTERN = /^([01]?[0-9]|2[0-3]):([0-5][0-9])$/;

/** Minutes after local midnight for `H:mm`/`HH:mm`, or null when the string is not such a time. */
export function parseLocalTime(value: string): number | null {
  const match = LOCAL_TIME_PATTERN.exec(value);
  if (!match) return null;
  return Number(match[1]) * 60 + Number(match[2]);
}

/** `HH:mm` for minutes after local midnight (0..1439). */
export function formatLocalTime(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const mins = minutes % 60;
  return `${String(hours).padStart(2, '0')}:${String(mins).padStart(2, '0')}`;
}

/** `H:mm` → `HH:mm`; a string that is not a local time is returned unchanged. */
export function normalizeLocalTime(value: string): string {
  const minutes = parseLocalTime(value);
  return minutes === null ? value : formatLocalTime(minutes);
}

/**
 * The zones resolved so far, by name. luxon's IANAZone.isValidZone (and the IANAZone constructor) build a
 * new Intl.DateTimeFormat on every call: ICU memory outside the JavaScript heap, several kilobytes each,
 * that the garbage collector does not see and frees late. Compiling a schedule resolves its zone, so
 * without this every organization loaded into the read model cost one. Valid names only, and at most
 * ZONE_MEMO_MAX of them (the IANA database has about 600, spelled in any case).
 */
const resolvedZones = new Map<string, IANAZone>();
const ZONE_MEMO_MAX = 2_000;

/** The luxon zone for an IANA name; throws a RangeError for an unknown zone. */
export function resolveZone(timezone: string): IANAZone {
  const known = resolvedZones.get(timezone);
  if (known) return known;
  if (!IANAZone.isValidZone(timezone)) {
    throw new RangeError(`timezone: unknown IANA timezone "${timezone}"`);
  }
  const zone = IANAZone.create(timezone) as IANAZone;
  if (resolvedZones.size >= ZONE_MEMO_MAX) resolvedZones.clear();
  resolvedZones.set(timezone, zone);
  return zone;
}

/**
 * Whether a name is a zone of the IANA database. An offset (`+05:00`) is not one, though newer engines (Node.js
 * 24's Intl) accept it as a time zone: it has no rules for daylight saving time, and accepting it on one Node.js
 * and not another would make the same request valid or not by the runtime. IANA names begin with a letter.
 */
export function isValidTimezone(timezone: string): boolean {
  return /^[A-Za-z]/.test(timezone) && (resolvedZones.has(timezone) || IANAZone.isValidZone(timezone));
}

/** The wall clock of `zone` at one instant. */
export interface WallClock {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
  weekday: number; // ISO: 1 = Monday … 7 = Sunday
  minuteOfDay: number; // 0..1439 (seconds are dropped)
  offsetMinutes: number; // UTC offset in force at the instant
  dayStartWallMs: number; // local midnight of this date, as wall ms
}

export function wallClockAt(zone: IANAZone, instantMs: number): WallClock {
  const local = DateTime.fromMillis(instantMs, { zone });
  const dayStartWallMs = Date.UTC(local.year, local.month - 1, local.day);
  return {
    year: local.year,
    month: local.month,
    day: local.day,
    weekday: local.weekday,
    minuteOfDay: local.hour * 60 + local.minute,
    offsetMinutes: local.offset,
    dayStartWallMs,
  };
}

/**
 * The wall clock at an instant whose UTC offset (minutes, possibly with seconds: a historic local mean time)
 * is known: the same fields luxon reads (it adds the offset and reads the UTC calendar), without asking the zone.
 */
export function wallClockWithOffset(instantMs: number, offsetMinutes: number): WallClock {
  const local = new Date(instantMs + offsetMinutes * MINUTE_MS);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth() + 1;
  const day = local.getUTCDate();
  const sundayZero = local.getUTCDay();
  return {
    year,
    month,
    day,
    weekday: sundayZero === 0 ? 7 : sundayZero,
    minuteOfDay: local.getUTCHours() * 60 + local.getUTCMinutes(),
    offsetMinutes,
    dayStartWallMs: Date.UTC(year, month - 1, day),
  };
}

/** The local date `YYYY-MM-DD` in `timezone` at an instant. */
export function localDateAt(timezone: string, instantMs: number): string {
  return DateTime.fromMillis(instantMs, { zone: resolveZone(timezone) }).toFormat('yyyy-MM-dd');
}

/** ISO weekday (1 = Monday … 7 = Sunday) of the date whose local midnight is `dayStartWallMs`. */
export function weekdayOfWallDay(dayStartWallMs: number): number {
  const sundayZero = new Date(dayStartWallMs).getUTCDay();
  return sundayZero === 0 ? 7 : sundayZero;
}

/** Local midnight (wall ms) of the date that contains the wall ms. */
export function wallDayStart(wallMs: number): number {
  return Math.floor(wallMs / DAY_MS) * DAY_MS;
}

/** `YYYY-MM-DDTHH:mm` local wall time. */
export function formatWallClock(wall: WallClock): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${formatLocalTime(wall.minuteOfDay)}`;
}

/** `YYYY-MM-DDTHH:mm:ssZ`: UTC, milliseconds dropped. */
export function formatInstant(instantMs: number): string {
  // the text depends only on the whole second: the last one is kept (an answer of "now" asks for the same second many times)
  const second = Math.floor(instantMs / 1000);
  if (second === lastSecond) return lastText;
  const text = new Date(instantMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  lastSecond = second;
  lastText = text;
  return text;
}
let lastSecond = NaN;
let lastText = '';

export interface OffsetTransition {
  at: number; // first instant (epoch ms) with the new offset
  offsetBefore: number;
  offsetAfter: number;
}

/**
 * Offset changes of `zone` in (fromMs, toMs]. The zone is sampled every 6 hours and each change
 * is located to the second by bisection (tz transitions happen on whole seconds; two transitions
 * less than 6 hours apart do not occur in current tz data).
 */
export function offsetTransitions(zone: IANAZone, fromMs: number, toMs: number): OffsetTransition[] {
  const STEP_MS = 6 * 3_600_000;
  const transitions: OffsetTransition[] = [];
  let previousMs = fromMs;
  let previousOffset = zone.offset(fromMs);
  while (previousMs < toMs) {
    const currentMs = Math.min(previousMs + STEP_MS, toMs);
    const currentOffset = zone.offset(currentMs);
    if (currentOffset !== previousOffset) {
      // Invariant: offset(lo s) === previousOffset, offset(hi s) !== previousOffset.
      let lo = Math.floor(previousMs / 1000);
      let hi = Math.ceil(currentMs / 1000);
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (zone.offset(mid * 1000) === previousOffset) lo = mid;
        else hi = mid;
      }
      const at = hi * 1000;
      if (at > fromMs && at <= toMs) {
        transitions.push({ at, offsetBefore: previousOffset, offsetAfter: zone.offset(at) });
      }
    }
    previousMs = currentMs;
    previousOffset = currentOffset;
  }
  return transitions;
}

/**
 * Every instant at which the wall clock of `zone` reads exactly `wallMs`, given the offsets that
 * are in force in the period of interest: none for a local time inside a spring-forward gap, two
 * for a local time in the repeated hour of a fall-back, one otherwise.
 */
export function instantsAtWallTime(zone: IANAZone, wallMs: number, offsets: readonly number[]): number[] {
  const instants: number[] = [];
  for (const offset of offsets) {
    const instant = wallMs - offset * MINUTE_MS;
    if (zone.offset(instant) === offset && !instants.includes(instant)) instants.push(instant);
  }
  return instants.sort((a, b) => a - b);
}

/** How far a window's offsets reach beyond it: candidateInstants reads the wall days on either side of its range. */
const WINDOW_MARGIN_MS = 3 * DAY_MS;

/**
 * The offsets of a zone over a window, found once (offsetTransitions) and then looked up by binary search.
 * Asking the zone (luxon, through Intl) costs more than everything else an evaluation does, and a timeline
 * evaluates thousands of instants of one window; exact under offsetTransitions' own assumption, on which the
 * candidate instants already rest. Instants outside the window (and its margin) ask the zone.
 */
export class WindowOffsets {
  private readonly fromMs: number;
  private readonly toMs: number;
  private readonly firstOffset: number;
  private readonly all: OffsetTransition[];

  constructor(
    readonly zone: IANAZone,
    fromMs: number,
    toMs: number,
  ) {
    this.fromMs = fromMs - WINDOW_MARGIN_MS;
    this.toMs = toMs + WINDOW_MARGIN_MS;
    this.firstOffset = zone.offset(this.fromMs);
    this.all = offsetTransitions(zone, this.fromMs, this.toMs);
  }

  /** The offset changes in (fromMs, toMs] (as offsetTransitions answers them), for a range inside the window. */
  transitionsIn(fromMs: number, toMs: number): OffsetTransition[] {
    if (fromMs < this.fromMs || toMs > this.toMs) return offsetTransitions(this.zone, fromMs, toMs);
    return this.all.filter((t) => t.at > fromMs && t.at <= toMs);
  }

  /** The offset (minutes) in force at an instant. */
  offset(instantMs: number): number {
    if (instantMs < this.fromMs || instantMs > this.toMs) return this.zone.offset(instantMs);
    let lo = 0;
    let hi = this.all.length - 1;
    let found = -1; // the last transition at or before the instant
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.all[mid]!.at <= instantMs) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? this.firstOffset : this.all[found]!.offsetAfter;
  }

  wallClockAt(instantMs: number): WallClock {
    return wallClockWithOffset(instantMs, this.offset(instantMs));
  }

  /** instantsAtWallTime, the offsets looked up. */
  instantsAtWallTime(wallMs: number, offsets: readonly number[]): number[] {
    const instants: number[] = [];
    for (const offset of offsets) {
      const instant = wallMs - offset * MINUTE_MS;
      if (this.offset(instant) === offset && !instants.includes(instant)) instants.push(instant);
    }
    return instants.sort((a, b) => a - b);
  }
}
