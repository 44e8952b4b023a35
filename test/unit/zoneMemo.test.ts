// A schedule's time zone is resolved once per zone, not once per schedule: luxon's validity check builds
// an Intl.DateTimeFormat (ICU memory outside the JavaScript heap, which the garbage collector frees late),
// and the read model compiles a schedule for every organization it loads — rotating over the thousands
// of locations of a large account made the process's memory grow with each one.
import { afterEach, describe, expect, it } from 'vitest';
import { compileSchedule, evaluateAt } from '../../src/domain/schedule/availability.js';
import { isValidTimezone, resolveZone } from '../../src/domain/shared/localTime.js';

const RealDateTimeFormat = Intl.DateTimeFormat;
let constructed = 0;

function countConstructions(): void {
  constructed = 0;
  Intl.DateTimeFormat = new Proxy(RealDateTimeFormat, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      constructed++;
      return new target(...args);
    },
  });
}

afterEach(() => {
  Intl.DateTimeFormat = RealDateTimeFormat;
});

describe('time zones', () => {
  it('compiling many schedules of a zone already seen builds no Intl.DateTimeFormat', () => {
    const compileAndEvaluate = () =>
      evaluateAt(
        compileSchedule({
          timezone: 'Australia/Adelaide',
          officeHours: [{ dayOfWeek: 'MONDAY', isClosed: false, open: '08:00', close: '17:00', breaks: [] }],
          closures: [],
        }),
        'PHONE',
        Date.UTC(2026, 2, 8, 23, 0), // Monday 09:30 in Adelaide
      ).state;
    expect(compileAndEvaluate()).toBe('OPEN'); // the first one may build what the zone needs
    countConstructions();
    for (let i = 0; i < 200; i++) expect(compileAndEvaluate()).toBe('OPEN');
    expect(constructed).toBe(0);
  });

  it('still refuses an unknown zone every time, and accepts a known one', () => {
    expect(() => resolveZone('Mars/Olympus_Mons')).toThrow(/unknown IANA timezone "Mars\/Olympus_Mons"/);
    expect(() => resolveZone('Mars/Olympus_Mons')).toThrow(RangeError);
    expect(isValidTimezone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimezone('Europe/Lisbon')).toBe(true);
    expect(resolveZone('Europe/Lisbon')).toBe(resolveZone('Europe/Lisbon'));
    expect(resolveZone('Europe/Lisbon').offset(Date.UTC(2026, 6, 1))).toBe(60);
  });
});
