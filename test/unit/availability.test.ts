import { describe, expect, it } from 'vitest';
import {
  computeAvailability,
  stateAt,
  type AvailabilityInput,
  type Medium,
  type TemplateRule,
} from '../../src/domain/schedule/availability.js';
import { CASE_GROUPS, LUNCH, NY_WEEK, PHONE_GREETINGS, annualClosure, makeInput, timedClosure } from './availability.cases.js';

describe('computeAvailability: table of cases', () => {
  for (const { group, cases } of CASE_GROUPS) {
    describe(group, () => {
      it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
        const result = computeAvailability(testCase.input);
        expect(result).toMatchObject(testCase.expected);
        expect(result.officeOpen).toBe(result.state === 'OPEN');
      });
    });
  }
});

// Instants on 2026-03-10 (Tuesday, EDT = UTC-4) in NY_WEEK.
const OPEN_AT = '2026-03-10T14:00:00Z'; // 10:00
const BREAK_AT = '2026-03-10T16:30:00Z'; // 12:30, lunch
const CLOSED_AT = '2026-03-10T23:00:00Z'; // 19:00
const CLOSURE_AT = '2026-03-10T15:00:00Z'; // inside the closures below

const withGreetings = timedClosure('greet', '2026-03-10T14:30:00Z', '2026-03-10T15:30:00Z', {
  phoneGreeting: 'Closed for the fire drill',
  chatGreeting: 'Chat is closed for the fire drill',
});
const withoutGreetings = timedClosure('plain', '2026-03-10T14:30:00Z', '2026-03-10T15:30:00Z');
const blankGreetings = timedClosure('blank', '2026-03-10T14:30:00Z', '2026-03-10T15:30:00Z', { phoneGreeting: '', chatGreeting: '  ' });

function greetingOf(at: string, medium: Medium, extra: Partial<AvailabilityInput> = {}): { state: string; greeting: string | null } {
  const { state, greeting } = computeAvailability(makeInput({ at, medium, ...extra }));
  return { state, greeting };
}

describe('greeting', () => {
  describe('PHONE with a phone number', () => {
    const phoneNumber = PHONE_GREETINGS;
    it('OPEN: customGreeting', () => {
      expect(greetingOf(OPEN_AT, 'PHONE', { phoneNumber })).toEqual({ state: 'OPEN', greeting: 'Thanks for calling' });
    });
    it('CLOSED: customClosedGreeting', () => {
      expect(greetingOf(CLOSED_AT, 'PHONE', { phoneNumber })).toEqual({ state: 'CLOSED', greeting: 'We are closed' });
    });
    it('BREAK: the break greeting overrides the closed greeting', () => {
      expect(greetingOf(BREAK_AT, 'PHONE', { phoneNumber })).toEqual({ state: 'BREAK', greeting: LUNCH.greeting });
    });
    it('CLOSURE: the closure phoneGreeting', () => {
      expect(greetingOf(CLOSURE_AT, 'PHONE', { phoneNumber, closures: [withGreetings] })).toEqual({
        state: 'CLOSURE',
        greeting: 'Closed for the fire drill',
      });
    });
    it('CLOSURE without phoneGreeting: customClosedGreeting', () => {
      expect(greetingOf(CLOSURE_AT, 'PHONE', { phoneNumber, closures: [withoutGreetings] })).toEqual({
        state: 'CLOSURE',
        greeting: 'We are closed',
      });
    });
    it('CLOSURE with an empty phoneGreeting: customClosedGreeting', () => {
      expect(greetingOf(CLOSURE_AT, 'PHONE', { phoneNumber, closures: [blankGreetings] })).toEqual({
        state: 'CLOSURE',
        greeting: 'We are closed',
      });
    });
    it('empty phone-number greetings count as not configured', () => {
      const empty = { customGreeting: '', customClosedGreeting: '' };
      expect(greetingOf(OPEN_AT, 'PHONE', { phoneNumber: empty }).greeting).toBeNull();
      expect(greetingOf(CLOSED_AT, 'PHONE', { phoneNumber: empty }).greeting).toBeNull();
      expect(greetingOf(CLOSURE_AT, 'PHONE', { phoneNumber: empty, closures: [withoutGreetings] }).greeting).toBeNull();
    });
  });

  describe('PHONE without a phone number', () => {
    it('OPEN: null', () => {
      expect(greetingOf(OPEN_AT, 'PHONE')).toEqual({ state: 'OPEN', greeting: null });
    });
    it('CLOSED: null', () => {
      expect(greetingOf(CLOSED_AT, 'PHONE')).toEqual({ state: 'CLOSED', greeting: null });
    });
    it('BREAK: the break greeting', () => {
      expect(greetingOf(BREAK_AT, 'PHONE')).toEqual({ state: 'BREAK', greeting: LUNCH.greeting });
    });
    it('CLOSURE: the closure phoneGreeting', () => {
      expect(greetingOf(CLOSURE_AT, 'PHONE', { closures: [withGreetings] })).toEqual({
        state: 'CLOSURE',
        greeting: 'Closed for the fire drill',
      });
    });
    it('CLOSURE without phoneGreeting: null', () => {
      expect(greetingOf(CLOSURE_AT, 'PHONE', { closures: [withoutGreetings] })).toEqual({ state: 'CLOSURE', greeting: null });
    });
  });

  describe('CHAT', () => {
    const phoneNumber = PHONE_GREETINGS; // ignored for chat
    it('CLOSURE: the closure chatGreeting', () => {
      expect(greetingOf(CLOSURE_AT, 'CHAT', { phoneNumber, closures: [withGreetings] })).toEqual({
        state: 'CLOSURE',
        greeting: 'Chat is closed for the fire drill',
      });
    });
    it('CLOSURE without chatGreeting (null or blank): null', () => {
      expect(greetingOf(CLOSURE_AT, 'CHAT', { phoneNumber, closures: [withoutGreetings] })).toEqual({ state: 'CLOSURE', greeting: null });
      expect(greetingOf(CLOSURE_AT, 'CHAT', { phoneNumber, closures: [blankGreetings] })).toEqual({ state: 'CLOSURE', greeting: null });
    });
    it('OPEN, CLOSED and during a break (OPEN): null', () => {
      expect(greetingOf(OPEN_AT, 'CHAT', { phoneNumber })).toEqual({ state: 'OPEN', greeting: null });
      expect(greetingOf(CLOSED_AT, 'CHAT', { phoneNumber })).toEqual({ state: 'CLOSED', greeting: null });
      expect(greetingOf(BREAK_AT, 'CHAT', { phoneNumber })).toEqual({ state: 'OPEN', greeting: null });
    });
  });

  describe.each(['SMS', 'GHL'] as const)('%s', (medium) => {
    const phoneNumber = PHONE_GREETINGS;
    it('is always null', () => {
      expect(greetingOf(CLOSURE_AT, medium, { phoneNumber, closures: [withGreetings] })).toEqual({ state: 'CLOSURE', greeting: null });
      expect(greetingOf(OPEN_AT, medium, { phoneNumber })).toEqual({ state: 'OPEN', greeting: null });
      expect(greetingOf(CLOSED_AT, medium, { phoneNumber })).toEqual({ state: 'CLOSED', greeting: null });
      expect(greetingOf(BREAK_AT, medium, { phoneNumber })).toEqual({ state: 'OPEN', greeting: null });
    });
  });
});

describe('availableTemplates', () => {
  const templates: TemplateRule[] = [
    { id: 't1', name: 'Any medium, any time', applicableMediums: null, officeHoursAvailability: null },
    { id: 't2', name: 'Any medium, open', applicableMediums: [], officeHoursAvailability: 'OPEN' },
    { id: 't3', name: 'Phone, closed', applicableMediums: ['PHONE'], officeHoursAvailability: 'CLOSED' },
    { id: 't4', name: 'Chat and SMS, open', applicableMediums: ['CHAT', 'SMS'], officeHoursAvailability: 'OPEN' },
    { id: 't5', name: 'GHL, any time', applicableMediums: ['GHL'], officeHoursAvailability: null },
    { id: 't6', name: 'Phone and chat, closed', applicableMediums: ['PHONE', 'CHAT'], officeHoursAvailability: 'CLOSED' },
  ];
  const ids = (at: string, medium: Medium, closures = [withGreetings]): string[] =>
    computeAvailability(makeInput({ at, medium, templates, closures })).availableTemplates.map((t) => t.id);

  it('returns {id, name} in input order', () => {
    expect(computeAvailability(makeInput({ at: OPEN_AT, medium: 'PHONE', templates })).availableTemplates).toEqual([
      { id: 't1', name: 'Any medium, any time' },
      { id: 't2', name: 'Any medium, open' },
    ]);
  });
  it('PHONE: OPEN, BREAK (treated as closed), CLOSED, CLOSURE', () => {
    expect(ids(OPEN_AT, 'PHONE')).toEqual(['t1', 't2']);
    expect(ids(BREAK_AT, 'PHONE')).toEqual(['t1', 't3', 't6']);
    expect(ids(CLOSED_AT, 'PHONE')).toEqual(['t1', 't3', 't6']);
    expect(ids(CLOSURE_AT, 'PHONE')).toEqual(['t1', 't3', 't6']);
  });
  it('CHAT: a break stays open', () => {
    expect(ids(OPEN_AT, 'CHAT')).toEqual(['t1', 't2', 't4']);
    expect(ids(BREAK_AT, 'CHAT')).toEqual(['t1', 't2', 't4']);
    expect(ids(CLOSED_AT, 'CHAT')).toEqual(['t1', 't6']);
    expect(ids(CLOSURE_AT, 'CHAT')).toEqual(['t1', 't6']);
  });
  it('SMS and GHL', () => {
    expect(ids(OPEN_AT, 'SMS')).toEqual(['t1', 't2', 't4']);
    expect(ids(CLOSED_AT, 'SMS')).toEqual(['t1']);
    expect(ids(OPEN_AT, 'GHL')).toEqual(['t1', 't2', 't5']);
    expect(ids(CLOSURE_AT, 'GHL')).toEqual(['t1', 't5']);
  });
  it('no templates: empty list', () => {
    expect(computeAvailability(makeInput({ at: OPEN_AT })).availableTemplates).toEqual([]);
  });
});

describe('stateAt', () => {
  const schedule = {
    at: new Date('2000-01-01T00:00:00Z'),
    timezone: 'America/New_York',
    medium: 'PHONE' as Medium,
    officeHours: NY_WEEK,
    closures: [],
  };

  it('uses its own instant, not input.at, and returns the break rule', () => {
    expect(stateAt(schedule, new Date(BREAK_AT))).toEqual({ state: 'BREAK', closure: null, special: null, break: LUNCH });
    expect(stateAt(schedule, new Date(OPEN_AT))).toEqual({ state: 'OPEN', closure: null, special: null, break: null });
    expect(stateAt(schedule, new Date(CLOSED_AT))).toEqual({ state: 'CLOSED', closure: null, special: null, break: null });
  });
  it('returns the winning closure rule', () => {
    const annual = annualClosure('annual', 3, 10);
    const result = stateAt({ ...schedule, closures: [annual, withGreetings] }, new Date(CLOSURE_AT));
    expect(result).toEqual({ state: 'CLOSURE', closure: withGreetings, special: null, break: null });
    expect(stateAt({ ...schedule, closures: [annual, withGreetings] }, new Date(OPEN_AT)).closure).toBe(annual);
  });
  it('for CHAT a break is OPEN and no break is reported', () => {
    expect(stateAt({ ...schedule, medium: 'CHAT' }, new Date(BREAK_AT))).toEqual({
      state: 'OPEN',
      closure: null,
      special: null,
      break: null,
    });
  });
});

describe('input handling', () => {
  it('rejects an unknown timezone with a RangeError', () => {
    expect(() => computeAvailability(makeInput({ at: OPEN_AT, timezone: 'Mars/Olympus_Mons' }))).toThrow(RangeError);
  });
  it('rejects an invalid instant with a RangeError', () => {
    expect(() => computeAvailability(makeInput({ at: new Date(Number.NaN) }))).toThrow(RangeError);
  });
  it('ignores a day whose open is not before close and breaks that are not well formed', () => {
    const result = computeAvailability(
      makeInput({
        at: OPEN_AT,
        officeHours: [
          { dayOfWeek: 'TUESDAY', isClosed: false, open: '17:00', close: '09:00', breaks: [] },
          {
            dayOfWeek: 'WEDNESDAY',
            isClosed: false,
            open: '09:00',
            close: '17:00',
            breaks: [{ start: '13:00', end: '12:00', reason: 'x', greeting: 'x' }],
          },
        ],
      }),
    );
    expect(result.state).toBe('CLOSED');
    expect(result.nextChangeAt).toBe('2026-03-11T13:00:00Z');
  });
  it('returns the input timezone and a UTC instant without milliseconds', () => {
    const result = computeAvailability(makeInput({ at: '2026-03-10T14:00:05.999Z', timezone: 'Asia/Kolkata', officeHours: [] }));
    expect(result.at).toBe('2026-03-10T14:00:05Z');
    expect(result.timezone).toBe('Asia/Kolkata');
    expect(result.localTime).toBe('2026-03-10T19:30');
  });
});
