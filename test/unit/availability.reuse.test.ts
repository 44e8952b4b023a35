// A remembered availability answer (the read model's per-schedule cache) is reused only while it is
// exactly right. Instants are asked in time order, every 30 seconds across a day (closer than the
// minute an answer without a next change is reused), through the cached path, and each answer is
// compared with a fresh computation. The schedules are those where the answer changes while the state
// does not: adjacent breaks, a timed closure starting inside another, an annual closure with a timed one
// inside it, and a closure starting inside one that lasts beyond the 8-day lookahead (nextChangeAt null).
import { describe, expect, it } from 'vitest';
import {
  availabilityAt,
  availabilityBody,
  availabilityTimeline,
  compileSchedule,
  type ClosureRule,
  type DaySchedule,
  type Medium,
  type SpecialDayRule,
  type TemplateRule,
} from '../../src/domain/schedule/availability.js';
import { availabilityFromSchedule } from '../../src/domain/schedule/availabilityQuery.js';
import type { OrgSchedule } from '../../src/domain/schedule/records.js';
import { ALL_DAYS, annualClosure, openDay, pause, timedClosure } from './availability.cases.js';

const PHONE_ID = '7d3c1f0e-5b7a-4c1e-9a52-0f6f2d6b8a11';
const GREETINGS = { customGreeting: 'Thanks for calling', customClosedGreeting: 'We are closed' };
const TEMPLATES: TemplateRule[] = [
  { id: 'a0000000-0000-4000-8000-000000000001', name: 'Book', applicableMediums: [], officeHoursAvailability: 'OPEN' },
  { id: 'a0000000-0000-4000-8000-000000000002', name: 'Message', applicableMediums: [], officeHoursAvailability: 'CLOSED' },
];
const STEP_MS = 30_000;
const DAY_MS = 86_400_000;

function orgSchedule(
  timezone: string,
  officeHours: DaySchedule[],
  closures: ClosureRule[],
  specialHours: SpecialDayRule[] = [],
): OrgSchedule {
  return {
    orgId: 'org',
    timezone,
    officeHours,
    compiled: compileSchedule({ timezone, officeHours, closures, specialHours }),
    validFromMs: 0,
    templates: TEMPLATES,
    phoneGreetings: new Map([[PHONE_ID, GREETINGS]]),
    answers: new Map(),
  };
}

const created = (day: number) => ({ createdAt: new Date(Date.UTC(2026, 0, day)) });
const greeted = (name: string) => ({ phoneGreeting: `Phone: ${name}`, chatGreeting: `Chat: ${name}` });

interface Scenario {
  name: string;
  timezone: string;
  officeHours: DaySchedule[];
  closures: ClosureRule[];
  specialHours?: SpecialDayRule[];
  /** The day asked about, from this instant on. */
  fromMs: number;
}

const SCENARIOS: Scenario[] = [
  {
    // the reproduction of the defect: asked at 12:12 (break A), 12:13 answered break A again
    name: 'adjacent breaks (Saturday in Asia/Kolkata)',
    timezone: 'Asia/Kolkata',
    officeHours: [
      openDay('SATURDAY', '09:00', '17:00', [pause('11:14', '12:13', 'A', 'Greeting A'), pause('12:13', '12:29', 'B', 'Greeting B')]),
    ],
    closures: [],
    fromMs: Date.parse('2026-12-18T18:30:00Z'), // Saturday 00:00 local
  },
  {
    name: 'three breaks end to end, the last up to closing',
    timezone: 'America/New_York',
    officeHours: [
      openDay('MONDAY', '09:00', '17:00', [
        pause('12:00', '12:30', 'Lunch'),
        pause('12:30', '13:00', 'Meeting'),
        pause('16:00', '17:00', 'Cleaning'),
      ]),
    ],
    closures: [],
    fromMs: Date.parse('2026-03-09T04:00:00Z'),
  },
  {
    name: 'a timed closure starting inside another (either one winning where both apply)',
    timezone: 'Europe/Berlin',
    officeHours: ALL_DAYS.map((d) => openDay(d, '08:00', '18:00', [pause('12:00', '13:00', 'Lunch')])),
    closures: [
      timedClosure('c0000000-0000-4000-8000-000000000001', '2026-06-10T08:00:00Z', '2026-06-10T12:00:00Z', {
        ...created(2),
        ...greeted('first'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000002', '2026-06-10T10:00:00Z', '2026-06-10T14:00:00Z', {
        ...created(3),
        ...greeted('second'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000003', '2026-06-10T15:00:00Z', '2026-06-10T17:00:00Z', {
        ...created(5),
        ...greeted('third'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000004', '2026-06-10T15:30:00Z', '2026-06-10T16:00:00Z', {
        ...created(1),
        ...greeted('fourth'),
      }),
    ],
    fromMs: Date.parse('2026-06-09T22:00:00Z'),
  },
  {
    name: 'an annual closure with a timed one inside it, and one across its midnight',
    timezone: 'America/New_York',
    officeHours: ALL_DAYS.map((d) => openDay(d, '09:00', '17:00')),
    closures: [
      annualClosure('c0000000-0000-4000-8000-000000000011', 7, 3, { ...created(1), ...greeted('annual') }),
      timedClosure('c0000000-0000-4000-8000-000000000012', '2026-07-03T15:00:00Z', '2026-07-03T16:30:00Z', {
        ...created(9),
        ...greeted('timed'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000013', '2026-07-03T02:00:00Z', '2026-07-03T06:00:00Z', {
        ...created(9),
        ...greeted('overnight'),
      }),
    ],
    fromMs: Date.parse('2026-07-02T22:00:00Z'),
  },
  {
    // the state stays CLOSURE for weeks: nextChangeAt is null, yet the closure changes at 13:00
    name: 'a closure starting inside one that lasts beyond the lookahead',
    timezone: 'UTC',
    officeHours: ALL_DAYS.map((d) => openDay(d, '09:00', '17:00')),
    closures: [
      timedClosure('c0000000-0000-4000-8000-000000000021', '2026-08-01T00:00:00Z', '2026-09-01T00:00:00Z', {
        ...created(5),
        ...greeted('renovation'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000022', '2026-08-10T13:00:00Z', '2026-08-25T00:00:00Z', {
        ...created(1),
        ...greeted('flood'),
      }),
    ],
    fromMs: Date.parse('2026-08-10T00:00:00Z'),
  },
  {
    // nextChangeAt is null at midnight, and stops being null at 12:00 (the end of the closures, 8 days
    // later, comes within the lookahead) before the closure changes at 20:00
    name: 'a closure starting inside another, both ending just beyond the lookahead',
    timezone: 'UTC',
    officeHours: ALL_DAYS.map((d) => openDay(d, '09:00', '17:00')),
    closures: [
      timedClosure('c0000000-0000-4000-8000-000000000031', '2026-08-09T00:00:00Z', '2026-08-18T12:00:00Z', {
        ...created(5),
        ...greeted('repairs'),
      }),
      timedClosure('c0000000-0000-4000-8000-000000000032', '2026-08-10T20:00:00Z', '2026-08-18T06:00:00Z', {
        ...created(1),
        ...greeted('audit'),
      }),
    ],
    fromMs: Date.parse('2026-08-10T00:00:00Z'),
  },
];

const specialDay = (
  id: string,
  date: string,
  open: string | null,
  close: string | null,
  breaks: DaySchedule['breaks'] = [],
): SpecialDayRule => ({
  id,
  date,
  description: `special ${id}`,
  isClosed: open === null,
  open,
  close,
  breaks,
});

// special days starting at local midnight: the state stays where the special hours (and so the answer) change
SCENARIOS.push(
  {
    // closed Sunday, then a special day closed all day, then another: CLOSED throughout, the answer changes at each midnight
    name: 'special days closed all day, one after the other from local midnight',
    timezone: 'America/New_York',
    officeHours: ALL_DAYS.filter((d) => d !== 'SUNDAY').map((d) => openDay(d, '09:00', '17:00')),
    closures: [],
    specialHours: [specialDay('s1', '2026-03-09', null, null), specialDay('s2', '2026-03-10', '00:00', '00:01')],
    fromMs: Date.parse('2026-03-09T02:00:00Z'),
  },
  {
    // closed from 20:00, then a special day opening at 06:00: CLOSED across midnight, the special hours take over there
    name: 'a special day after a weekly evening, closed across its midnight, with adjacent breaks',
    timezone: 'Asia/Kolkata',
    officeHours: ALL_DAYS.map((d) => openDay(d, '09:00', '20:00', [pause('13:00', '14:00', 'Lunch')])),
    closures: [],
    specialHours: [specialDay('s1', '2026-12-19', '06:00', '10:00', [pause('08:00', '08:30', 'A'), pause('08:30', '09:00', 'B')])],
    fromMs: Date.parse('2026-12-18T12:00:00Z'),
  },
  {
    // the special date starts at 01:00 (Havana skips 00:00-00:59), with a break across the gap
    name: 'a special day on the Havana spring-forward date, opening at its (skipped) midnight',
    timezone: 'America/Havana',
    officeHours: [],
    closures: [],
    specialHours: [
      specialDay('s1', '2026-03-08', '00:00', '12:00', [pause('00:30', '01:30', 'Night')]),
      specialDay('s2', '2026-03-09', null, null),
    ],
    fromMs: Date.parse('2026-03-08T06:00:00Z'),
  },
);

const ASKS: { medium: Medium; phoneNumberId: string | null }[] = [
  { medium: 'PHONE', phoneNumberId: PHONE_ID },
  { medium: 'CHAT', phoneNumberId: null },
];

describe('a remembered availability answer', () => {
  for (const scenario of SCENARIOS) {
    it(`equals a fresh computation at every instant asked in time order: ${scenario.name}`, { timeout: 60_000 }, () => {
      const schedule = orgSchedule(scenario.timezone, scenario.officeHours, scenario.closures, scenario.specialHours);
      const freshSchedule = compileSchedule(scenario);
      // from half a minute before: an answer reused for a minute then spans the next whole minute
      for (let atMs = scenario.fromMs - STEP_MS; atMs < scenario.fromMs + DAY_MS; atMs += STEP_MS) {
        for (const { medium, phoneNumberId } of ASKS) {
          const cached = availabilityFromSchedule(schedule, atMs, medium, phoneNumberId);
          // computed afresh (on a schedule compiled apart, so that nothing is shared)
          const fresh = availabilityAt(
            freshSchedule,
            atMs,
            availabilityBody(freshSchedule, atMs, medium, TEMPLATES, phoneNumberId === null ? null : GREETINGS),
          );
          expect(cached, `${medium} ${phoneNumberId ?? ''} at ${fresh.at}`).toEqual(fresh);
        }
      }
      // the day does cross answers that share a state
      const timeline = availabilityTimeline(schedule.compiled, scenario.fromMs, scenario.fromMs + DAY_MS, 'PHONE', GREETINGS);
      expect(timeline.some((interval, i) => i > 0 && interval.state === timeline[i - 1]!.state)).toBe(true);
    });
  }
});
