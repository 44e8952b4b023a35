// Property test: computeAvailability (candidate boundaries) against a brute-force reference written
// independently here: the state of every minute from the wall clock luxon reports, and the next
// change found by stepping minute by minute for up to 8 days.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  availabilityAnswer,
  availabilityBody,
  availabilityTimeline,
  compileSchedule,
  computeAvailability,
  greetingFor,
  type PhoneGreetings,
  stateAt,
  type AvailabilityInput,
  type AvailabilityState,
  type BreakRule,
  type ClosureRule,
  type DayOfWeek,
  type DaySchedule,
  type Medium,
  type SpecialDayRule,
} from '../../src/domain/schedule/availability.js';
import { normalizeLocalTime } from '../../src/domain/shared/localTime.js';

const TIMEZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Kiritimati',
  'America/Sao_Paulo',
  'UTC',
] as const;
const DAYS: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const MEDIUMS: Medium[] = ['PHONE', 'CHAT', 'SMS', 'GHL'];
const MINUTE = 60_000;
const DAY = 86_400_000;
const LOOKAHEAD = 8 * DAY;
const RANGE_START = Date.UTC(2026, 0, 1);
const RANGE_END = Date.UTC(2029, 0, 1);

// ----------------------------------------------------------------------------- reference
function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function referenceState(input: AvailabilityInput, ms: number): AvailabilityState {
  for (const closure of input.closures) {
    if (closure.startAt && closure.endAt && closure.startAt.getTime() <= ms && ms < closure.endAt.getTime()) return 'CLOSURE';
  }
  const local = DateTime.fromMillis(ms, { zone: input.timezone });
  for (const closure of input.closures) {
    if (closure.annualMonth === local.month && closure.annualDay === local.day) return 'CLOSURE';
  }
  // a closure, then the special hours of the local date, then the weekly hours
  const special = input.specialHours?.find((d) => d.date === local.toFormat('yyyy-MM-dd'));
  const day = special ?? input.officeHours.find((d) => d.dayOfWeek === DAYS[local.weekday - 1]);
  if (!day || day.isClosed || day.open === null || day.close === null) return 'CLOSED';
  const minute = local.hour * 60 + local.minute;
  if (minute < minutesOf(day.open) || minute >= minutesOf(day.close)) return 'CLOSED';
  if (input.medium === 'PHONE' && day.breaks.some((b) => minutesOf(b.start) <= minute && minute < minutesOf(b.end))) return 'BREAK';
  return 'OPEN';
}

function referenceNextChange(input: AvailabilityInput): string | null {
  const at = input.at.getTime();
  const current = referenceState(input, at);
  for (let ms = Math.floor(at / MINUTE) * MINUTE + MINUTE; ms <= at + LOOKAHEAD; ms += MINUTE) {
    if (referenceState(input, ms) !== current) return new Date(ms).toISOString().replace('.000Z', 'Z');
  }
  return null;
}

// ----------------------------------------------------------------------------- generators
/** Offset changes (to the hour) of each zone in 2026–2028, as anchors for instants near DST. */
const anchorCache = new Map<string, number[]>();
function dstAnchors(zone: string): number[] {
  let anchors = anchorCache.get(zone);
  if (!anchors) {
    anchors = [];
    let previous = DateTime.fromMillis(RANGE_START, { zone }).offset;
    for (let ms = RANGE_START; ms < RANGE_END; ms += 3_600_000) {
      const offset = DateTime.fromMillis(ms, { zone }).offset;
      if (offset !== previous) anchors.push(ms);
      previous = offset;
    }
    anchorCache.set(zone, anchors);
  }
  return anchors;
}

const hhmm = (minutes: number, loosePad: boolean): string => {
  const hours = Math.floor(minutes / 60);
  const text = `${String(hours).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return loosePad && hours < 10 ? text.slice(1) : text; // "9:05" as well as "09:05"
};

/** Minutes of the day, biased towards the DST hours (00:00–03:59) and the day's edges. */
const minuteOfDay = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 1439 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 16 }).map((q) => q * 15) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 1438, 1439) },
);

const daySchedule = (dayOfWeek: DayOfWeek): fc.Arbitrary<DaySchedule | null> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant<DaySchedule>({ dayOfWeek, isClosed: true, open: null, close: null, breaks: [] }) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.uniqueArray(minuteOfDay, { minLength: 2, maxLength: 8 }), fc.boolean(), fc.boolean())
        .map(([points, loose, adjacent]): DaySchedule => {
          const sorted = [...points].sort((a, b) => a - b);
          if (sorted.length % 2 === 1) sorted.pop();
          const open = sorted[0] ?? 0;
          const close = sorted[sorted.length - 1] ?? 1439;
          const inner = sorted.slice(1, -1);
          const breaks: BreakRule[] = [];
          for (let i = 0; i + 1 < inner.length; i += 2) {
            const start = inner[i] ?? 0;
            const end = inner[i + 1] ?? 0;
            const middle = Math.floor((start + end) / 2);
            if (adjacent && start < middle) {
              // two breaks end to end: the state stays BREAK where the break (and its greeting) changes
              breaks.push({ start: hhmm(start, loose), end: hhmm(middle, loose), reason: `r${i}`, greeting: `g${i}` });
              breaks.push({ start: hhmm(middle, loose), end: hhmm(end, loose), reason: `r${i}b`, greeting: `g${i}b` });
            } else breaks.push({ start: hhmm(start, loose), end: hhmm(end, loose), reason: `r${i}`, greeting: `g${i}` });
          }
          return { dayOfWeek, isClosed: false, open: hhmm(open, loose), close: hhmm(close, loose), breaks };
        }),
    },
  );

const officeHours: fc.Arbitrary<DaySchedule[]> = fc
  .tuple(...DAYS.map(daySchedule))
  .map((days) => days.filter((d): d is DaySchedule => d !== null));

const instantFor = (zone: string): fc.Arbitrary<number> => {
  const anchors = dstAnchors(zone);
  const seconds = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 59_999 }));
  const uniform = fc.integer({ min: RANGE_START / MINUTE, max: RANGE_END / MINUTE - 1 }).map((m) => m * MINUTE);
  const nearDst =
    anchors.length === 0
      ? uniform
      : fc
          .tuple(
            fc.constantFrom(...anchors),
            // the change within the 8-day window, or within the next day
            fc.oneof(fc.integer({ min: -8 * 24 * 60, max: 3 * 60 }), fc.integer({ min: -24 * 60, max: 3 * 60 })),
          )
          .map(([anchor, minutes]) => anchor + minutes * MINUTE);
  return fc.tuple(fc.oneof({ weight: 1, arbitrary: uniform }, { weight: 2, arbitrary: nearDst }), seconds).map(([ms, extra]) => ms + extra);
};

const closuresNear = (zone: string, at: number): fc.Arbitrary<ClosureRule[]> => {
  const created = fc.integer({ min: 0, max: 5 }).map((d) => new Date(Date.UTC(2025, 0, 1 + d)));
  const timed = fc
    .record({
      startMinutes: fc.integer({ min: -3 * 24 * 60, max: 9 * 24 * 60 }),
      durationMinutes: fc.oneof(fc.integer({ min: 1, max: 180 }), fc.integer({ min: 1, max: 3 * 24 * 60 })),
      createdAt: created,
    })
    .map(({ startMinutes, durationMinutes, createdAt }) => {
      const start = Math.floor(at / MINUTE) * MINUTE + startMinutes * MINUTE;
      return { start, end: start + durationMinutes * MINUTE, createdAt };
    });
  const localToday = DateTime.fromMillis(at, { zone });
  const annual = fc.record({
    date: fc.oneof(
      fc.integer({ min: -1, max: 9 }).map((d) => {
        const date = localToday.plus({ days: d });
        return { month: date.month, day: date.day };
      }),
      fc.constant({ month: 2, day: 29 }),
      fc.record({ month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }) }),
    ),
    createdAt: created,
  });
  return fc.tuple(fc.array(timed, { maxLength: 3 }), fc.array(annual, { maxLength: 2 })).map(([timedList, annualList]) => [
    ...timedList.map((t, i): ClosureRule => ({
      id: `timed-${i}`,
      description: `timed ${i}`,
      createdAt: t.createdAt,
      startAt: new Date(t.start),
      endAt: new Date(t.end),
      annualMonth: null,
      annualDay: null,
      chatGreeting: null,
      phoneGreeting: null,
    })),
    ...annualList.map((a, i): ClosureRule => ({
      id: `annual-${i}`,
      description: `annual ${i}`,
      createdAt: a.createdAt,
      startAt: null,
      endAt: null,
      annualMonth: a.date.month,
      annualDay: a.date.day,
      chatGreeting: null,
      phoneGreeting: null,
    })),
  ]);
};

/** Special days on local dates around `at` (some on a DST transition date), with hours drawn like a weekday's. */
const specialDaysNear = (zone: string, at: number): fc.Arbitrary<SpecialDayRule[]> => {
  const localToday = DateTime.fromMillis(at, { zone }).startOf('day');
  return fc
    .uniqueArray(
      fc.tuple(
        fc.integer({ min: -1, max: 9 }),
        daySchedule('MONDAY').map((d) => d ?? { dayOfWeek: 'MONDAY' as const, isClosed: true, open: null, close: null, breaks: [] }),
      ),
      { maxLength: 4, selector: ([offset]) => offset },
    )
    .map((days) =>
      days.map(([offset, day], i): SpecialDayRule => ({
        id: `special-${i}`,
        date: localToday.plus({ days: offset }).toFormat('yyyy-MM-dd'),
        description: `special ${i}`,
        isClosed: day.isClosed,
        open: day.open,
        close: day.close,
        breaks: day.breaks.map((b) => ({ ...b, greeting: `${b.greeting}-s${i}` })),
      })),
    );
};

const DST_ZONES = TIMEZONES.filter((zone) => dstAnchors(zone).length > 0);
const availabilityInput: fc.Arbitrary<AvailabilityInput> = fc
  .oneof({ weight: 1, arbitrary: fc.constantFrom(...TIMEZONES) }, { weight: 1, arbitrary: fc.constantFrom(...DST_ZONES) })
  .chain((timezone) => instantFor(timezone).map((at) => ({ timezone, at })))
  .chain(({ timezone, at }) =>
    fc.record({
      at: fc.constant(new Date(at)),
      timezone: fc.constant(timezone),
      medium: fc.constantFrom(...MEDIUMS),
      officeHours,
      closures: closuresNear(timezone, at),
      specialHours: specialDaysNear(timezone, at),
      templates: fc.constant([]),
      phoneNumber: fc.constant(null),
    }),
  );

// ----------------------------------------------------------------------------- properties
describe('computeAvailability against a minute-by-minute reference', () => {
  it('agrees on state, localTime and nextChangeAt', () => {
    fc.assert(
      fc.property(availabilityInput, (input) => {
        const result = computeAvailability(input);
        const expectedState = referenceState(input, input.at.getTime());
        expect(result.state).toBe(expectedState);
        expect(result.officeOpen).toBe(expectedState === 'OPEN');
        expect(result.localTime).toBe(DateTime.fromMillis(input.at.getTime(), { zone: input.timezone }).toFormat("yyyy-MM-dd'T'HH:mm"));
        expect(result.nextChangeAt).toBe(referenceNextChange(input));
        expect(stateAt(input, input.at).state).toBe(expectedState);
      }),
      { numRuns: 400 },
    );
  }, 60_000);

  it('the state really differs at nextChangeAt and is unchanged one minute before', () => {
    fc.assert(
      fc.property(availabilityInput, (input) => {
        const result = computeAvailability(input);
        if (result.nextChangeAt === null) return;
        const next = new Date(result.nextChangeAt);
        expect(stateAt(input, next).state).not.toBe(result.state);
        const before = new Date(next.getTime() - MINUTE);
        if (before.getTime() >= input.at.getTime()) expect(stateAt(input, before).state).toBe(result.state);
      }),
      { numRuns: 500 },
    );
  }, 60_000);
});

// ----------------------------------------------------------------------------- timeline
describe('availabilityTimeline against the point function', () => {
  const withPhone: PhoneGreetings = { customGreeting: 'Hello', customClosedGreeting: 'We are closed' };

  it('covers [from, to) with consecutive intervals whose answer is the point answer at every instant in them', () => {
    fc.assert(
      fc.property(
        availabilityInput,
        fc.integer({ min: 1, max: 31 * 24 * 60 }), // range length, minutes
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 6 }), // where to probe inside each interval
        (input, lengthMinutes, probes) => {
          const fromMs = Math.floor(input.at.getTime() / 1000) * 1000;
          const toMs = fromMs + lengthMinutes * MINUTE;
          const schedule = compileSchedule(input);
          const intervals = availabilityTimeline(schedule, fromMs, toMs, input.medium, withPhone);
          expect(intervals.length).toBeGreaterThan(0);
          expect(Date.parse(intervals[0]!.start)).toBe(fromMs);
          expect(Date.parse(intervals[intervals.length - 1]!.end)).toBe(toMs);
          intervals.forEach((interval, i) => {
            const start = Date.parse(interval.start);
            const end = Date.parse(interval.end);
            expect(end).toBeGreaterThan(start);
            if (i > 0) {
              expect(interval.start).toBe(intervals[i - 1]!.end); // no gap, no overlap
              const previous = intervals[i - 1]!;
              // neighbours differ: otherwise they would have been one interval
              expect([
                previous.state,
                previous.closure?.id,
                previous.specialHours?.id,
                previous.break?.start,
                previous.greeting,
              ]).not.toEqual([interval.state, interval.closure?.id, interval.specialHours?.id, interval.break?.start, interval.greeting]);
            }
            const answer = {
              state: interval.state,
              closure: interval.closure,
              specialHours: interval.specialHours,
              break: interval.break,
              greeting: interval.greeting,
            };
            // the whole point function where the interval starts…
            const point = computeAvailability({ ...input, at: new Date(start), phoneNumber: withPhone });
            expect(answer, `at ${interval.start}`).toEqual({
              state: point.state,
              closure: point.closure,
              specialHours: point.specialHours,
              break: point.break,
              greeting: point.greeting,
            });
            // …and its state, closure, break and greeting (stateAt, without the lookahead) at its last second and inside it
            for (const at of [end - 1_000, ...probes.map((p) => start + Math.floor(((end - start) * p) / 1000) * 1000)]) {
              if (at < start || at >= end) continue;
              const here = stateAt(input, new Date(at));
              expect(answer, `at ${new Date(at).toISOString()}`).toEqual({
                state: here.state,
                closure: here.closure ? { id: here.closure.id, description: here.closure.description } : null,
                specialHours: here.special ? { id: here.special.id, description: here.special.description } : null,
                break: here.break
                  ? { start: normalizeLocalTime(here.break.start), end: normalizeLocalTime(here.break.end), reason: here.break.reason }
                  : null,
                greeting: greetingFor(input.medium, here, withPhone),
              });
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('answers, at every instant, the answer of the interval holding it, and may reuse it exactly until that interval ends', () => {
    const HORIZON = 60_000;
    fc.assert(
      fc.property(
        availabilityInput,
        fc.integer({ min: 1, max: 3 * 24 * 60 }), // range length, minutes
        fc.double({ min: 0, max: 1, noNaN: true }), // where to probe inside each interval
        (input, lengthMinutes, probe) => {
          const fromMs = Math.floor(input.at.getTime() / 1000) * 1000;
          const toMs = fromMs + lengthMinutes * MINUTE;
          const schedule = compileSchedule(input);
          for (const interval of availabilityTimeline(schedule, fromMs, toMs, input.medium, withPhone)) {
            const start = Date.parse(interval.start);
            const end = Date.parse(interval.end);
            const answer = {
              state: interval.state,
              closure: interval.closure,
              specialHours: interval.specialHours,
              break: interval.break,
              greeting: interval.greeting,
            };
            for (const at of new Set([start, end - 1_000, start + Math.floor(((end - start) * probe) / 1000) * 1000])) {
              if (at < start || at >= end) continue;
              const { body, untilMs } = availabilityAnswer(schedule, at, input.medium, [], withPhone, HORIZON);
              const where = `at ${new Date(at).toISOString()}`;
              expect(
                { state: body.state, closure: body.closure, specialHours: body.specialHours, break: body.break, greeting: body.greeting },
                where,
              ).toEqual(answer);
              expect(untilMs, where).toBeGreaterThan(at);
              // reusable: the whole answer (nextChangeAt too) is the same until then
              for (const later of [untilMs - 1_000, at + Math.floor(((untilMs - at) * probe) / 1000) * 1000]) {
                if (later > at && later < untilMs)
                  expect(
                    availabilityBody(schedule, later, input.medium, [], withPhone),
                    `${where}, reused at ${new Date(later).toISOString()}`,
                  ).toEqual(body);
              }
              if (body.nextChangeAt !== null) {
                // the state changes within the lookahead: the answer is reused until it changes, and no longer
                if (end < toMs) expect(untilMs, where).toBe(end);
                else expect(untilMs, where).toBeGreaterThanOrEqual(end);
              } else {
                expect(untilMs, where).toBeLessThanOrEqual(at + HORIZON);
                if (end < toMs) expect(untilMs, where).toBeLessThanOrEqual(end);
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
