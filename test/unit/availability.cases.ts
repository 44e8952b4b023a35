// Table of availability cases with hand-computed expected values. Pure data (type-only imports),
// so availability.tz.test.ts can load it after changing process.env.TZ.
//
// 2026 calendar facts used below:
// - America/New_York: EST (-05) → EDT (-04) on Sun 2026-03-08 at 02:00 local = 07:00Z (02:00–02:59 do not exist);
//   EDT → EST on Sun 2026-11-01 at 02:00 EDT = 06:00Z (01:00–01:59 happen twice: 05:00–06:00Z and 06:00–07:00Z).
// - Europe/Berlin: CET (+01) → CEST (+02) on Sun 2026-03-29 at 01:00Z (02:00–02:59 do not exist);
//   CEST → CET on Sun 2026-10-25 at 01:00Z (02:00–02:59 happen twice: 00:00–01:00Z and 01:00–02:00Z).
// - Australia/Lord_Howe: +11 → +10:30 on Sun 2026-04-05 at 15:00Z (01:30–01:59 twice);
//   +10:30 → +11 on Sun 2026-10-04 at 15:30Z (02:00–02:29 do not exist).
// - Pacific/Kiritimati is +14 all year. 2026-03-09 and 2026-03-30 are Mondays, 2026-12-25 a Friday.
import type {
  Availability,
  AvailabilityInput,
  BreakRule,
  ClosureRule,
  DayOfWeek,
  DaySchedule,
  Medium,
} from '../../src/domain/schedule/availability.js';

export const ALL_DAYS: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
export const WORK_DAYS: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];

export const LUNCH: BreakRule = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch, back at one.' };

export function openDay(dayOfWeek: DayOfWeek, open: string, close: string, breaks: BreakRule[] = []): DaySchedule {
  return { dayOfWeek, isClosed: false, open, close, breaks };
}

export function closedDay(dayOfWeek: DayOfWeek): DaySchedule {
  return { dayOfWeek, isClosed: true, open: null, close: null, breaks: [] };
}

export function pause(start: string, end: string, reason = 'Pause', greeting = `Pause ${start}-${end}`): BreakRule {
  return { start, end, reason, greeting };
}

export function timedClosure(id: string, startAt: string, endAt: string, extra: Partial<ClosureRule> = {}): ClosureRule {
  return {
    id,
    description: `Closure ${id}`,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    startAt: new Date(startAt),
    endAt: new Date(endAt),
    annualMonth: null,
    annualDay: null,
    chatGreeting: null,
    phoneGreeting: null,
    ...extra,
  };
}

export function annualClosure(id: string, month: number, day: number, extra: Partial<ClosureRule> = {}): ClosureRule {
  return {
    id,
    description: `Closure ${id}`,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    startAt: null,
    endAt: null,
    annualMonth: month,
    annualDay: day,
    chatGreeting: null,
    phoneGreeting: null,
    ...extra,
  };
}

/** Mon–Fri 09:00–17:00 with lunch 12:00–13:00, Saturday closed, Sunday not configured. */
export const NY_WEEK: DaySchedule[] = [...WORK_DAYS.map((d) => openDay(d, '09:00', '17:00', [LUNCH])), closedDay('SATURDAY')];
/** Mon–Fri 08:00–18:00. */
export const BERLIN_WEEK: DaySchedule[] = WORK_DAYS.map((d) => openDay(d, '8:00', '18:00'));
/** Every day 09:00–17:00. */
export const EVERY_DAY: DaySchedule[] = ALL_DAYS.map((d) => openDay(d, '09:00', '17:00'));

export const PHONE_GREETINGS = { customGreeting: 'Thanks for calling', customClosedGreeting: 'We are closed' };

export function makeInput(overrides: Partial<Omit<AvailabilityInput, 'at'>> & { at: Date | string }): AvailabilityInput {
  const { at, ...rest } = overrides;
  return {
    timezone: 'America/New_York',
    medium: 'PHONE',
    officeHours: NY_WEEK,
    closures: [],
    templates: [],
    phoneNumber: null,
    ...rest,
    at: typeof at === 'string' ? new Date(at) : at,
  };
}

export interface AvailabilityCase {
  name: string;
  input: AvailabilityInput;
  expected: Partial<Availability>;
}

export interface CaseGroup {
  group: string;
  cases: AvailabilityCase[];
}

type Expect = Partial<Availability>;
const c = (name: string, input: AvailabilityInput, expected: Expect): AvailabilityCase => ({ name, input, expected });

// ---------------------------------------------------------------------------------------------
const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';

const basics: AvailabilityCase[] = [
  c('contract example: Monday 09:30 EDT is OPEN, lunch next', makeInput({ at: '2026-03-09T13:30:00Z', phoneNumber: PHONE_GREETINGS }), {
    at: '2026-03-09T13:30:00Z',
    timezone: NY,
    localTime: '2026-03-09T09:30',
    state: 'OPEN',
    officeOpen: true,
    closure: null,
    break: null,
    greeting: 'Thanks for calling',
    nextChangeAt: '2026-03-09T16:00:00Z',
  }),
  c('seconds are kept, milliseconds dropped; 08:59:30 is before opening', makeInput({ at: '2026-03-09T12:59:30.123Z' }), {
    at: '2026-03-09T12:59:30Z',
    localTime: '2026-03-09T08:59',
    state: 'CLOSED',
    nextChangeAt: '2026-03-09T13:00:00Z',
  }),
  c('opening minute 09:00', makeInput({ at: '2026-03-10T13:00:00Z' }), { state: 'OPEN', nextChangeAt: '2026-03-10T16:00:00Z' }),
  c('last open minute 16:59', makeInput({ at: '2026-03-10T20:59:00Z' }), { state: 'OPEN', nextChangeAt: '2026-03-10T21:00:00Z' }),
  c('closing minute 17:00 is CLOSED', makeInput({ at: '2026-03-09T21:00:00Z' }), {
    localTime: '2026-03-09T17:00',
    state: 'CLOSED',
    officeOpen: false,
    nextChangeAt: '2026-03-10T13:00:00Z',
  }),
  c('break first minute 12:00 (PHONE)', makeInput({ at: '2026-03-09T16:00:00Z' }), {
    state: 'BREAK',
    officeOpen: false,
    break: { start: '12:00', end: '13:00', reason: 'Lunch' },
    greeting: 'We are at lunch, back at one.',
    nextChangeAt: '2026-03-09T17:00:00Z',
  }),
  c('break last minute 12:59 (PHONE)', makeInput({ at: '2026-03-09T16:59:00Z' }), { state: 'BREAK', nextChangeAt: '2026-03-09T17:00:00Z' }),
  c('break last second 12:59:59 (PHONE)', makeInput({ at: '2026-03-09T16:59:59Z' }), {
    at: '2026-03-09T16:59:59Z',
    state: 'BREAK',
    nextChangeAt: '2026-03-09T17:00:00Z',
  }),
  c('break end 13:00 is OPEN again', makeInput({ at: '2026-03-09T17:00:00Z' }), {
    state: 'OPEN',
    break: null,
    nextChangeAt: '2026-03-09T21:00:00Z',
  }),
  c('CHAT during a break stays OPEN; the break is no change', makeInput({ at: '2026-03-09T16:00:00Z', medium: 'CHAT' }), {
    state: 'OPEN',
    officeOpen: true,
    break: null,
    greeting: null,
    nextChangeAt: '2026-03-09T21:00:00Z',
  }),
  c('SMS during a break stays OPEN', makeInput({ at: '2026-03-09T16:30:00Z', medium: 'SMS' }), {
    state: 'OPEN',
    nextChangeAt: '2026-03-09T21:00:00Z',
  }),
  c('GHL during a break stays OPEN', makeInput({ at: '2026-03-09T16:30:00Z', medium: 'GHL' }), {
    state: 'OPEN',
    nextChangeAt: '2026-03-09T21:00:00Z',
  }),
  c('closed day (Saturday isClosed) until Monday 09:00', makeInput({ at: '2026-03-14T15:00:00Z' }), {
    localTime: '2026-03-14T11:00',
    state: 'CLOSED',
    nextChangeAt: '2026-03-16T13:00:00Z',
  }),
  c('unconfigured day (Sunday) until Monday 09:00', makeInput({ at: '2026-03-15T15:00:00Z' }), {
    state: 'CLOSED',
    nextChangeAt: '2026-03-16T13:00:00Z',
  }),
  c(
    'break times given as H:mm are returned as HH:mm',
    makeInput({
      at: '2026-03-09T13:00:00Z',
      officeHours: [openDay('MONDAY', '8:00', '17:00', [pause('9:00', '9:30', 'Standup', 'In the standup')])],
    }),
    {
      state: 'BREAK',
      break: { start: '09:00', end: '09:30', reason: 'Standup' },
      greeting: 'In the standup',
      nextChangeAt: '2026-03-09T13:30:00Z',
    },
  ),
  c('no office hours at all: CLOSED with no change in 8 days', makeInput({ at: '2026-03-09T13:30:00Z', officeHours: [] }), {
    state: 'CLOSED',
    nextChangeAt: null,
  }),
  c(
    'a change exactly 8 days ahead is reported',
    makeInput({
      at: '2026-03-01T00:00:00Z',
      officeHours: [],
      closures: [timedClosure('far', '2026-03-09T00:00:00Z', '2026-03-10T00:00:00Z')],
    }),
    { state: 'CLOSED', nextChangeAt: '2026-03-09T00:00:00Z' },
  ),
  c(
    'a change 8 days and 1 minute ahead is not',
    makeInput({
      at: '2026-03-01T00:00:00Z',
      officeHours: [],
      closures: [timedClosure('far', '2026-03-09T00:01:00Z', '2026-03-10T00:00:00Z')],
    }),
    { state: 'CLOSED', nextChangeAt: null },
  ),
];

// ---------------------------------------------------------------------------------------------
const nySpring = (at: string, officeHours: DaySchedule[], medium: Medium = 'PHONE'): AvailabilityInput =>
  makeInput({ at, officeHours, medium });
const S1 = [openDay('SUNDAY', '01:00', '05:00', [pause('02:30', '03:30', 'Gap break', 'Gap break greeting')])];
const S2 = [openDay('SUNDAY', '02:30', '10:00')];
const S3 = [openDay('SUNDAY', '00:00', '02:30')];
const S4 = [openDay('SUNDAY', '00:00', '10:00', [pause('02:00', '02:59')])];

const newYorkSpring: AvailabilityCase[] = [
  c('01:00 EST, break starting in the gap is next at 03:00 EDT', nySpring('2026-03-08T06:00:00Z', S1), {
    localTime: '2026-03-08T01:00',
    state: 'OPEN',
    nextChangeAt: '2026-03-08T07:00:00Z',
  }),
  c('01:59 EST, last minute before the gap', nySpring('2026-03-08T06:59:00Z', S1), {
    localTime: '2026-03-08T01:59',
    state: 'OPEN',
    nextChangeAt: '2026-03-08T07:00:00Z',
  }),
  c('03:00 EDT: inside break 02:30–03:30', nySpring('2026-03-08T07:00:00Z', S1), {
    localTime: '2026-03-08T03:00',
    state: 'BREAK',
    greeting: 'Gap break greeting',
    break: { start: '02:30', end: '03:30', reason: 'Gap break' },
    nextChangeAt: '2026-03-08T07:30:00Z',
  }),
  c('03:29 EDT: last break minute', nySpring('2026-03-08T07:29:00Z', S1), { state: 'BREAK', nextChangeAt: '2026-03-08T07:30:00Z' }),
  c('03:30 EDT: break over, close 05:00 EDT next', nySpring('2026-03-08T07:30:00Z', S1), {
    localTime: '2026-03-08T03:30',
    state: 'OPEN',
    nextChangeAt: '2026-03-08T09:00:00Z',
  }),
  c('05:00 EDT closed until next Sunday 01:00 EDT', nySpring('2026-03-08T09:00:00Z', S1), {
    state: 'CLOSED',
    nextChangeAt: '2026-03-15T05:00:00Z',
  }),
  c('CHAT ignores the gap break', nySpring('2026-03-08T06:00:00Z', S1, 'CHAT'), { state: 'OPEN', nextChangeAt: '2026-03-08T09:00:00Z' }),
  c('open at nonexistent 02:30 opens at 03:00 EDT (not 03:30)', nySpring('2026-03-08T05:00:00Z', S2), {
    localTime: '2026-03-08T00:00',
    state: 'CLOSED',
    nextChangeAt: '2026-03-08T07:00:00Z',
  }),
  c('03:00 EDT open since the gap ended', nySpring('2026-03-08T07:00:00Z', S2), { state: 'OPEN', nextChangeAt: '2026-03-08T14:00:00Z' }),
  c('close at nonexistent 02:30 closes at 03:00 EDT', nySpring('2026-03-08T05:00:00Z', S3), {
    state: 'OPEN',
    nextChangeAt: '2026-03-08T07:00:00Z',
  }),
  c('after the gap the day is closed until next Sunday 00:00 EDT', nySpring('2026-03-08T07:00:00Z', S3), {
    state: 'CLOSED',
    nextChangeAt: '2026-03-15T04:00:00Z',
  }),
  c('a break wholly inside the gap never happens', nySpring('2026-03-08T06:30:00Z', S4), {
    state: 'OPEN',
    nextChangeAt: '2026-03-08T14:00:00Z',
  }),
  c(
    'annual closure on the 23-hour day: from 00:00 EST',
    makeInput({ at: '2026-03-08T05:00:00Z', closures: [annualClosure('spring', 3, 8)] }),
    {
      localTime: '2026-03-08T00:00',
      state: 'CLOSURE',
      closure: { id: 'spring', description: 'Closure spring' },
      nextChangeAt: '2026-03-09T04:00:00Z',
    },
  ),
  c(
    'annual closure on the 23-hour day: last minute 23:59 EDT',
    makeInput({ at: '2026-03-09T03:59:00Z', closures: [annualClosure('spring', 3, 8)] }),
    {
      localTime: '2026-03-08T23:59',
      state: 'CLOSURE',
      nextChangeAt: '2026-03-09T04:00:00Z',
    },
  ),
  c(
    'annual closure on the 23-hour day: minute before (Saturday 23:59 EST)',
    makeInput({ at: '2026-03-08T04:59:00Z', closures: [annualClosure('spring', 3, 8)] }),
    {
      localTime: '2026-03-07T23:59',
      state: 'CLOSED',
      nextChangeAt: '2026-03-08T05:00:00Z',
    },
  ),
  c('Friday close to Monday open across the change: 09:00 EDT = 13:00Z', makeInput({ at: '2026-03-06T22:00:00Z' }), {
    localTime: '2026-03-06T17:00',
    state: 'CLOSED',
    nextChangeAt: '2026-03-09T13:00:00Z',
  }),
];

// ---------------------------------------------------------------------------------------------
const F1 = [openDay('SUNDAY', '00:00', '10:00', [pause('01:00', '02:00', 'Repeated', 'Repeated hour')])];
const F2 = [openDay('SUNDAY', '00:00', '10:00', [pause('01:30', '02:30')])];
const F3 = [openDay('SUNDAY', '01:30', '10:00')];
const nyFall = (at: string, officeHours: DaySchedule[]): AvailabilityInput => makeInput({ at, officeHours });

const newYorkFall: AvailabilityCase[] = [
  c('00:59 EDT, break 01:00–02:00 next', nyFall('2026-11-01T04:59:00Z', F1), {
    localTime: '2026-11-01T00:59',
    state: 'OPEN',
    nextChangeAt: '2026-11-01T05:00:00Z',
  }),
  c('01:00 EDT: break covers both repeated hours, ends 02:00 EST', nyFall('2026-11-01T05:00:00Z', F1), {
    localTime: '2026-11-01T01:00',
    state: 'BREAK',
    greeting: 'Repeated hour',
    nextChangeAt: '2026-11-01T07:00:00Z',
  }),
  c('01:59 EDT still BREAK', nyFall('2026-11-01T05:59:00Z', F1), {
    localTime: '2026-11-01T01:59',
    state: 'BREAK',
    nextChangeAt: '2026-11-01T07:00:00Z',
  }),
  c('01:00 EST (second time) still BREAK', nyFall('2026-11-01T06:00:00Z', F1), {
    localTime: '2026-11-01T01:00',
    state: 'BREAK',
    nextChangeAt: '2026-11-01T07:00:00Z',
  }),
  c('01:59 EST (second time) still BREAK', nyFall('2026-11-01T06:59:00Z', F1), {
    localTime: '2026-11-01T01:59',
    state: 'BREAK',
    nextChangeAt: '2026-11-01T07:00:00Z',
  }),
  c('02:00 EST break over, close 10:00 EST', nyFall('2026-11-01T07:00:00Z', F1), {
    localTime: '2026-11-01T02:00',
    state: 'OPEN',
    nextChangeAt: '2026-11-01T15:00:00Z',
  }),
  c('break 01:30–02:30: 01:30 EDT BREAK until the clock goes back', nyFall('2026-11-01T05:30:00Z', F2), {
    state: 'BREAK',
    nextChangeAt: '2026-11-01T06:00:00Z',
  }),
  c('break 01:30–02:30: 01:00 EST OPEN again', nyFall('2026-11-01T06:00:00Z', F2), {
    localTime: '2026-11-01T01:00',
    state: 'OPEN',
    nextChangeAt: '2026-11-01T06:30:00Z',
  }),
  c('break 01:30–02:30: 01:30 EST BREAK again until 02:30 EST', nyFall('2026-11-01T06:30:00Z', F2), {
    state: 'BREAK',
    nextChangeAt: '2026-11-01T07:30:00Z',
  }),
  c('break 01:30–02:30: 02:30 EST OPEN', nyFall('2026-11-01T07:30:00Z', F2), { state: 'OPEN', nextChangeAt: '2026-11-01T15:00:00Z' }),
  c('open at 01:30: CLOSED at 01:00 EDT', nyFall('2026-11-01T05:00:00Z', F3), { state: 'CLOSED', nextChangeAt: '2026-11-01T05:30:00Z' }),
  c('open at 01:30: OPEN at 01:30 EDT until the clock goes back', nyFall('2026-11-01T05:30:00Z', F3), {
    state: 'OPEN',
    nextChangeAt: '2026-11-01T06:00:00Z',
  }),
  c('open at 01:30: CLOSED at 01:00 EST, opens again 01:30 EST', nyFall('2026-11-01T06:00:00Z', F3), {
    state: 'CLOSED',
    nextChangeAt: '2026-11-01T06:30:00Z',
  }),
  c(
    'annual closure on the 25-hour day: from 00:00 EDT',
    makeInput({ at: '2026-11-01T04:00:00Z', closures: [annualClosure('fall', 11, 1)] }),
    {
      localTime: '2026-11-01T00:00',
      state: 'CLOSURE',
      nextChangeAt: '2026-11-02T05:00:00Z',
    },
  ),
  c(
    'annual closure on the 25-hour day: last minute 23:59 EST',
    makeInput({ at: '2026-11-02T04:59:00Z', closures: [annualClosure('fall', 11, 1)] }),
    {
      localTime: '2026-11-01T23:59',
      state: 'CLOSURE',
      nextChangeAt: '2026-11-02T05:00:00Z',
    },
  ),
  c(
    'annual closure on the 25-hour day: minute after (Monday 00:00 EST)',
    makeInput({ at: '2026-11-02T05:00:00Z', closures: [annualClosure('fall', 11, 1)] }),
    {
      localTime: '2026-11-02T00:00',
      state: 'CLOSED',
      nextChangeAt: '2026-11-02T14:00:00Z',
    },
  ),
  c('Friday close to Monday open across the change: 09:00 EST = 14:00Z', makeInput({ at: '2026-10-30T21:00:00Z' }), {
    localTime: '2026-10-30T17:00',
    state: 'CLOSED',
    nextChangeAt: '2026-11-02T14:00:00Z',
  }),
];

// ---------------------------------------------------------------------------------------------
const berlin = (at: string, officeHours: DaySchedule[], extra: Partial<AvailabilityInput> = {}): AvailabilityInput =>
  makeInput({ at, officeHours, timezone: BERLIN, ...extra });
const B1 = [openDay('SUNDAY', '01:00', '12:00', [pause('02:30', '03:30')])];
const B2 = [openDay('SUNDAY', '02:15', '12:00')];
const B3 = [openDay('SUNDAY', '00:00', '12:00', [pause('02:00', '03:00')])];
const B4 = [openDay('SUNDAY', '00:00', '02:30')];

const berlinCases: AvailabilityCase[] = [
  c('spring: 01:00 CET, break straddling the gap begins at 03:00 CEST', berlin('2026-03-29T00:00:00Z', B1), {
    timezone: BERLIN,
    localTime: '2026-03-29T01:00',
    state: 'OPEN',
    nextChangeAt: '2026-03-29T01:00:00Z',
  }),
  c('spring: 01:59 CET', berlin('2026-03-29T00:59:00Z', B1), {
    localTime: '2026-03-29T01:59',
    state: 'OPEN',
    nextChangeAt: '2026-03-29T01:00:00Z',
  }),
  c('spring: 03:00 CEST in the break', berlin('2026-03-29T01:00:00Z', B1), {
    localTime: '2026-03-29T03:00',
    state: 'BREAK',
    nextChangeAt: '2026-03-29T01:30:00Z',
  }),
  c('spring: 03:30 CEST break over', berlin('2026-03-29T01:30:00Z', B1), {
    localTime: '2026-03-29T03:30',
    state: 'OPEN',
    nextChangeAt: '2026-03-29T10:00:00Z',
  }),
  c('spring: open at nonexistent 02:15 opens at 03:00 CEST', berlin('2026-03-28T23:00:00Z', B2), {
    localTime: '2026-03-29T00:00',
    state: 'CLOSED',
    nextChangeAt: '2026-03-29T01:00:00Z',
  }),
  c('spring: Friday 18:00 CET to Monday 08:00 CEST', berlin('2026-03-27T17:00:00Z', BERLIN_WEEK), {
    localTime: '2026-03-27T18:00',
    state: 'CLOSED',
    nextChangeAt: '2026-03-30T06:00:00Z',
  }),
  c(
    'spring: annual closure on the 23-hour day',
    berlin('2026-03-28T23:00:00Z', BERLIN_WEEK, { closures: [annualClosure('b-spring', 3, 29)] }),
    {
      localTime: '2026-03-29T00:00',
      state: 'CLOSURE',
      nextChangeAt: '2026-03-29T22:00:00Z',
    },
  ),
  c('fall: 01:59 CEST, break 02:00–03:00 next', berlin('2026-10-24T23:59:00Z', B3), {
    localTime: '2026-10-25T01:59',
    state: 'OPEN',
    nextChangeAt: '2026-10-25T00:00:00Z',
  }),
  c('fall: 02:00 CEST break lasts both repeated hours', berlin('2026-10-25T00:00:00Z', B3), {
    localTime: '2026-10-25T02:00',
    state: 'BREAK',
    nextChangeAt: '2026-10-25T02:00:00Z',
  }),
  c('fall: 02:00 CET (second time) still BREAK', berlin('2026-10-25T01:00:00Z', B3), {
    localTime: '2026-10-25T02:00',
    state: 'BREAK',
    nextChangeAt: '2026-10-25T02:00:00Z',
  }),
  c('fall: 03:00 CET break over', berlin('2026-10-25T02:00:00Z', B3), {
    localTime: '2026-10-25T03:00',
    state: 'OPEN',
    nextChangeAt: '2026-10-25T11:00:00Z',
  }),
  c('fall: close 02:30 inside the repeated hour, first pass', berlin('2026-10-24T22:00:00Z', B4), {
    state: 'OPEN',
    nextChangeAt: '2026-10-25T00:30:00Z',
  }),
  c('fall: 02:30 CEST closed until the clock goes back', berlin('2026-10-25T00:30:00Z', B4), {
    state: 'CLOSED',
    nextChangeAt: '2026-10-25T01:00:00Z',
  }),
  c('fall: 02:00 CET open again until 02:30 CET', berlin('2026-10-25T01:00:00Z', B4), {
    state: 'OPEN',
    nextChangeAt: '2026-10-25T01:30:00Z',
  }),
  c('fall: 02:30 CET closed until next Sunday 00:00 CET', berlin('2026-10-25T01:30:00Z', B4), {
    state: 'CLOSED',
    nextChangeAt: '2026-10-31T23:00:00Z',
  }),
  c('fall: Friday 18:00 CEST to Monday 08:00 CET', berlin('2026-10-23T16:00:00Z', BERLIN_WEEK), {
    state: 'CLOSED',
    nextChangeAt: '2026-10-26T07:00:00Z',
  }),
  c(
    'fall: annual closure on the 25-hour day',
    berlin('2026-10-24T22:00:00Z', BERLIN_WEEK, { closures: [annualClosure('b-fall', 10, 25)] }),
    {
      localTime: '2026-10-25T00:00',
      state: 'CLOSURE',
      nextChangeAt: '2026-10-25T23:00:00Z',
    },
  ),
];

// ---------------------------------------------------------------------------------------------
const LH = 'Australia/Lord_Howe';
const lordHoweCases: AvailabilityCase[] = [
  c(
    'Lord Howe 30-minute fall-back: break 01:30–02:00 lasts an hour',
    makeInput({
      at: '2026-04-04T14:30:00Z',
      timezone: LH,
      officeHours: [openDay('SUNDAY', '00:00', '12:00', [pause('01:30', '02:00')])],
    }),
    { localTime: '2026-04-05T01:30', state: 'BREAK', nextChangeAt: '2026-04-04T15:30:00Z' },
  ),
  c(
    'Lord Howe 30-minute fall-back: second 01:30 still BREAK',
    makeInput({
      at: '2026-04-04T15:00:00Z',
      timezone: LH,
      officeHours: [openDay('SUNDAY', '00:00', '12:00', [pause('01:30', '02:00')])],
    }),
    { localTime: '2026-04-05T01:30', state: 'BREAK', nextChangeAt: '2026-04-04T15:30:00Z' },
  ),
  c(
    'Lord Howe 30-minute spring-forward: open 02:15 opens at 02:30',
    makeInput({
      at: '2026-10-03T15:00:00Z',
      timezone: LH,
      officeHours: [openDay('SUNDAY', '02:15', '12:00')],
    }),
    { localTime: '2026-10-04T01:30', state: 'CLOSED', nextChangeAt: '2026-10-03T15:30:00Z' },
  ),
];

// ---------------------------------------------------------------------------------------------
const christmas = annualClosure('xmas', 12, 25, { description: 'Christmas Day' });
const newYear = annualClosure('ny', 1, 1, { description: 'New Year' });
const KIRI = 'Pacific/Kiritimati';
const leap = annualClosure('leap', 2, 29, { description: 'Leap day' });
const utcLeap = (at: string): AvailabilityInput => makeInput({ at, timezone: 'UTC', officeHours: EVERY_DAY, closures: [leap] });

const annualEdges: AvailabilityCase[] = [
  c(
    'New York: 23:59 local Dec 24 (UTC already Dec 25) is not Christmas',
    makeInput({ at: '2026-12-25T04:59:00Z', closures: [christmas] }),
    {
      localTime: '2026-12-24T23:59',
      state: 'CLOSED',
      closure: null,
      nextChangeAt: '2026-12-25T05:00:00Z',
    },
  ),
  c('New York: 00:00 local Dec 25 is Christmas', makeInput({ at: '2026-12-25T05:00:00Z', closures: [christmas] }), {
    localTime: '2026-12-25T00:00',
    state: 'CLOSURE',
    closure: { id: 'xmas', description: 'Christmas Day' },
    nextChangeAt: '2026-12-26T05:00:00Z',
  }),
  c('New York: Christmas during office hours', makeInput({ at: '2026-12-25T15:00:00Z', closures: [christmas] }), {
    state: 'CLOSURE',
    officeOpen: false,
  }),
  c('New York: 23:59 local Dec 25 (UTC Dec 26) is still Christmas', makeInput({ at: '2026-12-26T04:59:00Z', closures: [christmas] }), {
    localTime: '2026-12-25T23:59',
    state: 'CLOSURE',
    nextChangeAt: '2026-12-26T05:00:00Z',
  }),
  c('New York: 00:00 local Dec 26 is over', makeInput({ at: '2026-12-26T05:00:00Z', closures: [christmas] }), {
    localTime: '2026-12-26T00:00',
    state: 'CLOSED',
    closure: null,
    nextChangeAt: '2026-12-28T14:00:00Z',
  }),
  c(
    'Kiritimati: 23:59 local Dec 31 is not New Year',
    makeInput({ at: '2026-12-31T09:59:00Z', timezone: KIRI, officeHours: EVERY_DAY, closures: [newYear] }),
    {
      localTime: '2026-12-31T23:59',
      state: 'CLOSED',
      nextChangeAt: '2026-12-31T10:00:00Z',
    },
  ),
  c(
    'Kiritimati: 00:00 local Jan 1 (UTC still Dec 31) is New Year',
    makeInput({ at: '2026-12-31T10:00:00Z', timezone: KIRI, officeHours: EVERY_DAY, closures: [newYear] }),
    {
      localTime: '2027-01-01T00:00',
      state: 'CLOSURE',
      nextChangeAt: '2027-01-01T10:00:00Z',
    },
  ),
  c(
    'Kiritimati: 23:59 local Jan 1 is New Year',
    makeInput({ at: '2027-01-01T09:59:00Z', timezone: KIRI, officeHours: EVERY_DAY, closures: [newYear] }),
    {
      localTime: '2027-01-01T23:59',
      state: 'CLOSURE',
      nextChangeAt: '2027-01-01T10:00:00Z',
    },
  ),
  c(
    'Kiritimati: 00:00 local Jan 2 (UTC Jan 1) is over',
    makeInput({ at: '2027-01-01T10:00:00Z', timezone: KIRI, officeHours: EVERY_DAY, closures: [newYear] }),
    {
      localTime: '2027-01-02T00:00',
      state: 'CLOSED',
      nextChangeAt: '2027-01-01T19:00:00Z',
    },
  ),
  c('29 Feb in 2027: not applied on 28 Feb', utcLeap('2027-02-28T12:00:00Z'), { state: 'OPEN', closure: null }),
  c('29 Feb in 2027: not applied on 1 Mar', utcLeap('2027-03-01T12:00:00Z'), { state: 'OPEN', closure: null }),
  c('29 Feb in 2027: no closure ahead', utcLeap('2027-02-28T20:00:00Z'), { state: 'CLOSED', nextChangeAt: '2027-03-01T09:00:00Z' }),
  c('29 Feb in 2028: starts at midnight', utcLeap('2028-02-28T20:00:00Z'), { state: 'CLOSED', nextChangeAt: '2028-02-29T00:00:00Z' }),
  c('29 Feb in 2028: applied', utcLeap('2028-02-29T12:00:00Z'), {
    state: 'CLOSURE',
    closure: { id: 'leap', description: 'Leap day' },
    nextChangeAt: '2028-03-01T00:00:00Z',
  }),
  c('29 Feb in 2028: over on 1 Mar', utcLeap('2028-03-01T00:00:00Z'), { state: 'CLOSED', nextChangeAt: '2028-03-01T09:00:00Z' }),
];

// ---------------------------------------------------------------------------------------------
const outage = timedClosure('outage', '2026-12-25T14:00:00Z', '2026-12-25T16:00:00Z', {
  description: 'Power outage',
  createdAt: new Date('2026-06-01T00:00:00Z'),
});
const xmasOld = annualClosure('xmas', 12, 25, { description: 'Christmas Day', createdAt: new Date('2020-01-01T00:00:00Z') });
const longA = timedClosure('A', '2026-03-10T14:00:00Z', '2026-03-10T18:00:00Z', { createdAt: new Date('2026-02-01T00:00:00Z') });
const innerB = timedClosure('B', '2026-03-10T15:00:00Z', '2026-03-10T17:00:00Z', { createdAt: new Date('2026-01-01T00:00:00Z') });

const overlapping: AvailabilityCase[] = [
  c('timed wins over an annual created earlier', makeInput({ at: '2026-12-25T15:00:00Z', closures: [xmasOld, outage] }), {
    state: 'CLOSURE',
    closure: { id: 'outage', description: 'Power outage' },
    nextChangeAt: '2026-12-26T05:00:00Z',
  }),
  c('annual applies again when the timed one ends', makeInput({ at: '2026-12-25T16:00:00Z', closures: [outage, xmasOld] }), {
    state: 'CLOSURE',
    closure: { id: 'xmas', description: 'Christmas Day' },
  }),
  c('earliest created wins among timed closures', makeInput({ at: '2026-03-10T16:00:00Z', closures: [longA, innerB] }), {
    state: 'CLOSURE',
    closure: { id: 'B', description: 'Closure B' },
    nextChangeAt: '2026-03-10T18:00:00Z',
  }),
  c('the later one applies alone outside the overlap', makeInput({ at: '2026-03-10T14:30:00Z', closures: [longA, innerB] }), {
    state: 'CLOSURE',
    closure: { id: 'A', description: 'Closure A' },
    nextChangeAt: '2026-03-10T18:00:00Z',
  }),
  c(
    'same createdAt: the smaller id wins',
    makeInput({
      at: '2026-03-10T15:00:00Z',
      closures: [
        timedClosure('b-same', '2026-03-10T14:00:00Z', '2026-03-10T16:00:00Z'),
        timedClosure('a-same', '2026-03-10T14:30:00Z', '2026-03-10T15:30:00Z'),
      ],
    }),
    { state: 'CLOSURE', closure: { id: 'a-same', description: 'Closure a-same' } },
  ),
  c(
    'earliest created wins among annual closures',
    makeInput({
      at: '2026-12-25T15:00:00Z',
      closures: [
        annualClosure('late', 12, 25, { createdAt: new Date('2025-05-01T00:00:00Z') }),
        annualClosure('early', 12, 25, { createdAt: new Date('2024-05-01T00:00:00Z') }),
      ],
    }),
    { state: 'CLOSURE', closure: { id: 'early', description: 'Closure early' } },
  ),
  c(
    'adjacent closures are one CLOSURE period; lunch BREAK follows',
    makeInput({
      at: '2026-03-10T14:30:00Z',
      closures: [
        timedClosure('first', '2026-03-10T14:00:00Z', '2026-03-10T15:00:00Z'),
        timedClosure('second', '2026-03-10T15:00:00Z', '2026-03-10T16:00:00Z'),
      ],
    }),
    { state: 'CLOSURE', closure: { id: 'first', description: 'Closure first' }, nextChangeAt: '2026-03-10T16:00:00Z' },
  ),
  c('a timed closure starts at startAt (inclusive)', makeInput({ at: '2026-12-25T14:00:00Z', closures: [outage] }), {
    state: 'CLOSURE',
    nextChangeAt: '2026-12-25T16:00:00Z',
  }),
  c('a timed closure ends at endAt (exclusive)', makeInput({ at: '2026-12-25T16:00:00Z', closures: [outage] }), {
    state: 'OPEN',
    closure: null,
    nextChangeAt: '2026-12-25T17:00:00Z',
  }),
  c(
    'a closure overrides a break and its greeting',
    makeInput({
      at: '2026-03-10T16:30:00Z',
      closures: [timedClosure('fire', '2026-03-10T16:00:00Z', '2026-03-10T20:00:00Z', { phoneGreeting: 'Fire drill' })],
    }),
    { state: 'CLOSURE', break: null, greeting: 'Fire drill', nextChangeAt: '2026-03-10T20:00:00Z' },
  ),
];

export const CASE_GROUPS: CaseGroup[] = [
  { group: 'basics (America/New_York)', cases: basics },
  { group: 'DST America/New_York 2026-03-08 (spring forward)', cases: newYorkSpring },
  { group: 'DST America/New_York 2026-11-01 (fall back)', cases: newYorkFall },
  { group: 'DST Europe/Berlin 2026-03-29 and 2026-10-25', cases: berlinCases },
  { group: 'DST Australia/Lord_Howe (30 minutes)', cases: lordHoweCases },
  { group: 'annual closures at the edges of the local day', cases: annualEdges },
  { group: 'overlapping closures', cases: overlapping },
];
