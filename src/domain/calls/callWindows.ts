// When a call may start by the calling policy (issue 34): an instant is allowed when the callee's local
// wall-clock time lies in a window of that local day and the local date is not blocked. The rule is
// read on instants, so the daylight-saving cases follow from it: a local time that does not exist that
// day (skipped by a spring-forward jump) is never reached and does not count, a repeated local hour
// (fall-back) is reached twice and counts both times. Offsets come from luxon's IANAZone, never from the
// process zone.
//
// The first allowed instant is found by walking: under a constant offset the next window start is plain
// arithmetic on wall-clock milliseconds; where the offset changes on the way (found by bisection within
// a bounded step) the walk stops at the change and reads the wall clock afresh.
import type { IANAZone } from 'luxon';
import { DAY_MS, MINUTE_MS } from '../shared/localTime.js';

export const DAYS_OF_WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type CallDay = (typeof DAYS_OF_WEEK)[number];

/** A policy ready for the walk: per ISO weekday (1 = Monday … 7 = Sunday) the windows in minutes, sorted; blocked local dates. */
export interface CompiledCallingPolicy {
  /** Index 0 unused; [start, end) minutes after local midnight (end ≤ 1440). */
  readonly byWeekday: ReadonlyArray<ReadonlyArray<readonly [number, number]>>;
  readonly blockedDates: ReadonlySet<string>;
}

export interface CallWindowInput {
  dayOfWeek: CallDay;
  start: number;
  end: number;
}

export function compileCallingPolicy(windows: readonly CallWindowInput[], blockedDates: readonly string[]): CompiledCallingPolicy {
  const byWeekday: [number, number][][] = Array.from({ length: 8 }, () => []);
  for (const w of windows) byWeekday[DAYS_OF_WEEK.indexOf(w.dayOfWeek) + 1]!.push([w.start, w.end]);
  for (const day of byWeekday) day.sort((a, b) => a[0] - b[0]);
  return { byWeekday, blockedDates: new Set(blockedDates) };
}

/** Longest walk step under one offset: no zone changes its offset twice within it. */
const STEP_MS = 6 * 3_600_000;
/** Days searched ahead for a window (blocked dates are at most 366). */
const LOOKAHEAD_DAYS = 400;
const MAX_ITERATIONS = 10_000;

/** ISO weekday of a day number (days since 1970-01-01, a Thursday). */
function weekdayOf(dayNumber: number): number {
  return ((((dayNumber + 3) % 7) + 7) % 7) + 1;
}

function dateOf(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

function offsetMs(zone: IANAZone, atMs: number): number {
  return zone.offset(atMs) * MINUTE_MS;
}

/** Whether the day (local date) may have calls at all, and its windows. */
function windowsOfDay(policy: CompiledCallingPolicy, dayNumber: number): ReadonlyArray<readonly [number, number]> {
  const windows = policy.byWeekday[weekdayOf(dayNumber)]!;
  if (windows.length === 0 || policy.blockedDates.size === 0) return windows;
  return policy.blockedDates.has(dateOf(dayNumber)) ? [] : windows;
}

/** Whether a call may start at `atMs` in `zone` by `policy`. */
export function isCallAllowedAt(policy: CompiledCallingPolicy, zone: IANAZone, atMs: number): boolean {
  const wall = atMs + offsetMs(zone, atMs);
  const day = Math.floor(wall / DAY_MS);
  const minute = Math.floor((wall - day * DAY_MS) / MINUTE_MS);
  return windowsOfDay(policy, day).some(([start, end]) => minute >= start && minute < end);
}

/** The first instant after `fromMs` (exclusive) at which the offset differs from the one at `fromMs`, searched up to `toMs`. */
function offsetChangeWithin(zone: IANAZone, fromMs: number, toMs: number): number | null {
  const offset = zone.offset(fromMs);
  if (zone.offset(toMs) === offset) return null;
  let lo = fromMs;
  let hi = toMs;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (zone.offset(mid) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The first instant at or after `fromMs` and before `beforeMs` at which a call may start, or null when there
 * is none. It is `fromMs` itself when allowed then, else the start of a whole local minute.
 */
export function nextAllowedCallInstant(policy: CompiledCallingPolicy, zone: IANAZone, fromMs: number, beforeMs: number): number | null {
  let t = fromMs;
  for (let i = 0; i < MAX_ITERATIONS && t < beforeMs; i++) {
    if (isCallAllowedAt(policy, zone, t)) return t;
    const offset = offsetMs(zone, t);
    const wall = t + offset;
    const today = Math.floor(wall / DAY_MS);
    let nextWall: number | null = null;
    for (let day = today; day <= today + LOOKAHEAD_DAYS && nextWall === null; day++) {
      for (const [start] of windowsOfDay(policy, day)) {
        const startWall = day * DAY_MS + start * MINUTE_MS;
        if (startWall > wall) {
          nextWall = startWall;
          break;
        }
      }
    }
    if (nextWall === null) return null;
    const stepEnd = Math.min(nextWall - offset, t + STEP_MS);
    // the wall clock jumps on the way: read it afresh at the jump (a repeated hour may be in a window again)
    t = offsetChangeWithin(zone, t, stepEnd) ?? stepEnd;
  }
  return null;
}
