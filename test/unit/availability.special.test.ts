// Special hours in availability: the precedence (a closure, then the special hours of the local date, then
// the weekly hours), and special days on daylight-saving transition dates, exact to the instant: a zone
// with a 30-minute shift (Australia/Lord_Howe) and one whose change happens at midnight (America/Havana,
// where 2026-03-08 starts at 01:00 and 00:00-00:59 of 2026-11-01 happens twice).
import { describe, expect, it } from 'vitest';
import { availabilityTimeline, compileSchedule, computeAvailability, type SpecialDayRule } from '../../src/domain/schedule/availability.js';
import { annualClosure, ALL_DAYS, openDay, pause, timedClosure } from './availability.cases.js';

const special = (
  id: string,
  date: string,
  open: string | null,
  close: string | null,
  breaks = [] as ReturnType<typeof pause>[],
): SpecialDayRule => ({
  id,
  date,
  description: `special ${id}`,
  isClosed: open === null,
  open,
  close,
  breaks,
});

/** The PHONE timeline as [start, end, state, special id, break reason] rows. */
function timeline(
  timezone: string,
  specialHours: SpecialDayRule[],
  from: string,
  to: string,
  officeHours = [openDay('MONDAY', '09:00', '17:00')],
) {
  const schedule = compileSchedule({ timezone, officeHours, closures: [], specialHours });
  return availabilityTimeline(schedule, Date.parse(from), Date.parse(to), 'PHONE', null).map((i) => [
    i.start.slice(5, 16),
    i.end.slice(5, 16),
    i.state,
    i.specialHours?.id ?? null,
    i.break?.reason ?? null,
  ]);
}

describe('special hours in availability', () => {
  it('replace the weekday on their local date; a closure still wins; the answer names them', () => {
    const base = {
      timezone: 'America/New_York',
      medium: 'PHONE' as const,
      officeHours: ALL_DAYS.map((d) => openDay(d, '09:00', '17:00', [pause('12:00', '13:00', 'Lunch')])),
      templates: [],
      phoneNumber: null,
    };
    const specialHours = [
      special('s1', '2026-03-09', '10:00', '12:00', [pause('11:00', '11:30', 'Inventory')]),
      special('s2', '2026-03-10', null, null),
    ];
    const at = (iso: string, closures = [] as ReturnType<typeof timedClosure>[]) =>
      computeAvailability({ ...base, closures, specialHours, at: new Date(iso) });
    expect(at('2026-03-09T13:30:00Z')).toMatchObject({
      state: 'CLOSED',
      specialHours: { id: 's1', description: 'special s1' },
      nextChangeAt: '2026-03-09T14:00:00Z',
    });
    expect(at('2026-03-09T15:10:00Z')).toMatchObject({
      state: 'BREAK',
      break: { reason: 'Inventory' },
      specialHours: { id: 's1' },
      nextChangeAt: '2026-03-09T15:30:00Z',
    });
    expect(at('2026-03-09T16:30:00Z')).toMatchObject({ state: 'CLOSED', specialHours: { id: 's1' }, nextChangeAt: '2026-03-11T13:00:00Z' }); // the 10th is closed all day
    expect(at('2026-03-10T15:00:00Z')).toMatchObject({ state: 'CLOSED', specialHours: { id: 's2' } });
    expect(at('2026-03-11T15:00:00Z')).toMatchObject({ state: 'OPEN', specialHours: null });
    const closure = timedClosure('c0000000-0000-4000-8000-000000000001', '2026-03-09T14:30:00Z', '2026-03-09T15:00:00Z');
    expect(at('2026-03-09T14:45:00Z', [closure])).toMatchObject({ state: 'CLOSURE', specialHours: null, closure: { id: closure.id } });
    const annual = annualClosure('c0000000-0000-4000-8000-000000000002', 3, 9);
    expect(computeAvailability({ ...base, closures: [annual], specialHours, at: new Date('2026-03-09T14:45:00Z') })).toMatchObject({
      state: 'CLOSURE',
      specialHours: null,
    });
  });

  it('America/Havana, 2026-03-08 (clocks skip 00:00-00:59): the special day starts at 01:00 CDT, its 00:00 opening and a break from 00:30 take effect then', () => {
    const rows = timeline(
      'America/Havana',
      [special('s', '2026-03-08', '00:00', '12:00', [pause('00:30', '01:30', 'Night')])],
      '2026-03-08T00:00:00Z',
      '2026-03-09T06:00:00Z',
    );
    expect(rows).toEqual([
      ['03-08T00:00', '03-08T05:00', 'CLOSED', null, null], // Saturday evening, EST
      ['03-08T05:00', '03-08T05:30', 'BREAK', 's', 'Night'], // 01:00 CDT, the first instant of the date
      ['03-08T05:30', '03-08T16:00', 'OPEN', 's', null],
      ['03-08T16:00', '03-09T04:00', 'CLOSED', 's', null],
      ['03-09T04:00', '03-09T06:00', 'CLOSED', null, null], // Monday 00:00 CDT: the weekly hours again
    ]);
    const answer = computeAvailability({
      timezone: 'America/Havana',
      medium: 'PHONE',
      officeHours: [],
      closures: [],
      templates: [],
      phoneNumber: null,
      specialHours: [special('s', '2026-03-08', '00:00', '12:00')],
      at: new Date('2026-03-08T04:59:00Z'),
    });
    expect(answer).toMatchObject({
      state: 'CLOSED',
      specialHours: null,
      nextChangeAt: '2026-03-08T05:00:00Z',
      localTime: '2026-03-07T23:59',
    });
  });

  it('America/Havana, 2026-11-01 (00:00-00:59 happens twice): a special day open 00:00-00:30 is open both times', () => {
    const rows = timeline('America/Havana', [special('s', '2026-11-01', '00:00', '00:30')], '2026-11-01T03:00:00Z', '2026-11-02T06:00:00Z');
    expect(rows).toEqual([
      ['11-01T03:00', '11-01T04:00', 'CLOSED', null, null],
      ['11-01T04:00', '11-01T04:30', 'OPEN', 's', null], // 00:00 CDT
      ['11-01T04:30', '11-01T05:00', 'CLOSED', 's', null],
      ['11-01T05:00', '11-01T05:30', 'OPEN', 's', null], // 00:00 CST, the wall clock again
      ['11-01T05:30', '11-02T05:00', 'CLOSED', 's', null],
      ['11-02T05:00', '11-02T06:00', 'CLOSED', null, null],
    ]);
  });

  it('Australia/Lord_Howe, 2026-10-04 (02:00-02:29 skipped, a 30-minute shift): a break from 02:15 starts at 02:30 +11', () => {
    const rows = timeline(
      'Australia/Lord_Howe',
      [special('s', '2026-10-04', '01:00', '03:00', [pause('02:15', '02:45', 'Gap')])],
      '2026-10-03T13:00:00Z',
      '2026-10-04T14:00:00Z',
    );
    expect(rows).toEqual([
      ['10-03T13:00', '10-03T13:30', 'CLOSED', null, null],
      ['10-03T13:30', '10-03T14:30', 'CLOSED', 's', null], // 00:00 +10:30
      ['10-03T14:30', '10-03T15:30', 'OPEN', 's', null], // 01:00 +10:30
      ['10-03T15:30', '10-03T15:45', 'BREAK', 's', 'Gap'], // 02:30 +11, the first instant after the gap
      ['10-03T15:45', '10-03T16:00', 'OPEN', 's', null],
      ['10-03T16:00', '10-04T13:00', 'CLOSED', 's', null], // 03:00 +11
      ['10-04T13:00', '10-04T14:00', 'CLOSED', null, null], // Monday 00:00 +11
    ]);
  });

  it('Australia/Lord_Howe, 2026-04-05 (01:30-01:59 happens twice): a break 01:45-02:15 runs twice, as the wall clock does', () => {
    const rows = timeline(
      'Australia/Lord_Howe',
      [special('s', '2026-04-05', '01:00', '04:00', [pause('01:45', '02:15', 'Repeat')])],
      '2026-04-04T12:00:00Z',
      '2026-04-05T14:00:00Z',
    );
    expect(rows).toEqual([
      ['04-04T12:00', '04-04T13:00', 'CLOSED', null, null],
      ['04-04T13:00', '04-04T14:00', 'CLOSED', 's', null], // 00:00 +11
      ['04-04T14:00', '04-04T14:45', 'OPEN', 's', null],
      ['04-04T14:45', '04-04T15:00', 'BREAK', 's', 'Repeat'], // 01:45 +11
      ['04-04T15:00', '04-04T15:15', 'OPEN', 's', null], // back to 01:30 +10:30
      ['04-04T15:15', '04-04T15:45', 'BREAK', 's', 'Repeat'], // 01:45 +10:30 until 02:15 +10:30
      ['04-04T15:45', '04-04T17:30', 'OPEN', 's', null],
      ['04-04T17:30', '04-05T13:30', 'CLOSED', 's', null], // 04:00 +10:30
      ['04-05T13:30', '04-05T14:00', 'CLOSED', null, null],
    ]);
  });
});
