// Bodies that pass rules a JSON Schema cannot state (a closure is annual *or* timed and ends after it
// starts; office hours open before they close, with breaks inside). Without them almost every
// generated closure or office-hours write would be a 400 and the fuzzer would never reach the code
// that stores them. Keyed by the REST operation and by the GraphQL input type of the same domain schema.
import fc from 'fast-check';
import { greetingText, plainText } from './values.js';

const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
const instant = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}:00Z`;

const greeting = fc.oneof(plainText(60), greetingText);

const timedForm = fc
  .record({ startMinute: fc.integer({ min: 0, max: 2 * 365 * 24 * 60 }), minutes: fc.integer({ min: 1, max: 14 * 24 * 60 }) })
  .map(({ startMinute, minutes }) => {
    const start = Date.UTC(2026, 0, 1) + startMinute * 60_000;
    return { startAt: instant(start), endAt: instant(start + minutes * 60_000) };
  });
const annualForm = fc.record({ annualDate: fc.record({ month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }) }) });
/** Closures at the edges of the calendar: the first and last years the format can write. */
const edgeForm = fc.constantFrom(
  { startAt: '0000-01-01T00:00:00Z', endAt: '0000-01-02T00:00:00Z' },
  { startAt: '0001-01-01T00:00:00Z', endAt: '0001-01-02T00:00:00Z' },
  { startAt: '9999-12-30T00:00:00Z', endAt: '9999-12-31T23:59:00Z' },
  { annualDate: { month: 2, day: 29 } },
);
const closureForm = fc.oneof({ arbitrary: timedForm, weight: 4 }, { arbitrary: annualForm, weight: 4 }, edgeForm);

const createClosure = fc
  .tuple(
    fc.record({
      description: plainText(60),
      chatGreeting: fc.option(greeting, { nil: null }),
      phoneGreeting: fc.option(greeting, { nil: null }),
    }),
    closureForm,
  )
  .map(([fields, form]) => ({ ...fields, ...form }));

const updateClosure = fc
  .tuple(
    fc.record({ description: plainText(60), chatGreeting: greeting, phoneGreeting: greeting }, { requiredKeys: ['description'] }),
    closureForm,
  )
  .map(([fields, form]) => ({ ...fields, ...form }));

const day = fc.constantFrom('MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY');
const openDay = fc
  .record({
    dayOfWeek: day,
    open: fc.integer({ min: 0, max: 12 * 4 }),
    length: fc.integer({ min: 8, max: 11 * 4 }),
    withBreak: fc.boolean(),
    reason: plainText(30),
    greeting,
  })
  .map(({ dayOfWeek, open, length, withBreak, reason, greeting: g }) => {
    const from = open * 15;
    const to = Math.min(from + length * 15, 23 * 60 + 45);
    const middle = from + Math.floor((to - from) / 2 / 15) * 15;
    return {
      dayOfWeek,
      isClosed: false,
      open: hhmm(from),
      close: hhmm(to),
      breaks: withBreak ? [{ start: hhmm(middle), end: hhmm(middle + 15), reason, greeting: g }] : [],
    };
  });
const closedDay = fc.record({ dayOfWeek: day, isClosed: fc.constant(true) });
const setOfficeHours = fc.oneof(openDay, closedDay);

/** REST operation ("POST /v1/organizations/{orgId}/closures") or GraphQL input type → valid bodies. */
export const VALID_BODIES: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  'POST /v1/organizations/{orgId}/closures': createClosure,
  'POST /v1/organizations/{orgId}/closures/{closureId}': updateClosure,
  'POST /v1/organizations/{orgId}/office-hours': setOfficeHours,
  CreateClosureInput: createClosure,
  UpdateClosureInput: updateClosure,
  SetOfficeHoursInput: setOfficeHours,
};
