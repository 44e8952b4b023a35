// The process timezone must not matter. TZ is set before luxon and the module are loaded (both are
// imported dynamically below; static imports would be hoisted above this assignment), and the same
// table of cases as availability.test.ts must give the same, explicitly expected, results.
const previousTz = process.env.TZ;
process.env.TZ = 'Pacific/Kiritimati';

import { afterAll, describe, expect, it } from 'vitest';

const { computeAvailability, stateAt } = await import('../../src/domain/schedule/availability.js');
const { CASE_GROUPS, NY_WEEK } = await import('./availability.cases.js');

afterAll(() => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

describe('process timezone Pacific/Kiritimati (UTC+14)', () => {
  it('took effect', () => {
    expect(new Date().getTimezoneOffset()).toBe(-840);
    expect(new Date(2026, 0, 1).toISOString()).toBe('2025-12-31T10:00:00.000Z');
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe('Pacific/Kiritimati');
  });

  for (const { group, cases } of CASE_GROUPS) {
    describe(group, () => {
      it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
        expect(computeAvailability(testCase.input)).toMatchObject(testCase.expected);
      });
    });
  }

  it('stateAt reads the organization wall clock, not the process one', () => {
    // 23:30Z on Monday 2026-03-09 is already Tuesday 13:30 in Kiritimati, but Monday 19:30 in New York.
    const schedule = { at: new Date(0), timezone: 'America/New_York', medium: 'PHONE' as const, officeHours: NY_WEEK, closures: [] };
    expect(stateAt(schedule, new Date('2026-03-09T23:30:00Z')).state).toBe('CLOSED');
    expect(stateAt(schedule, new Date('2026-03-10T16:30:00Z')).state).toBe('BREAK');
  });
});
