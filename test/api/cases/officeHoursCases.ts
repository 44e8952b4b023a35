// Rule cases for office hours (spec §2 "Office hours", §4 rules 1-7, docs/decisions.md §3), run through REST
// (JSON, and a subset as form and multipart bodies) and GraphQL by test/api/officeHours.parity.test.ts.
import type { RuleCase } from './closureCases.js';

export interface OfficeHoursCase extends RuleCase {
  /** Days set (through REST) before the case. */
  setup?: Record<string, unknown>[];
  /** The day as read back afterwards (GET with dayOfWeek), e.g. to prove that a refusal changed nothing. */
  after?: Record<string, unknown>;
}

const lunch = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch, back at one.' };
const meeting = { start: '15:00', end: '15:30', reason: 'Team meeting', greeting: 'We are in a meeting.' };
const open = { dayOfWeek: 'MONDAY', isClosed: false, open: '09:00', close: '17:00' };
const withLunch = { ...open, breaks: [lunch] };
const brk = (start: string, end: string, extra: Record<string, unknown> = {}) => ({
  start,
  end,
  reason: 'Pause',
  greeting: 'Back soon.',
  ...extra,
});
const without = (value: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
const openForm: [string, string][] = [
  ['dayOfWeek', 'MONDAY'],
  ['isClosed', 'false'],
  ['open', '09:00'],
  ['close', '17:00'],
];

export const officeHoursCases: OfficeHoursCase[] = [
  // accepted shapes
  { name: 'open day without breaks', input: open, accepted: true, data: { ...open, breaks: [] }, form: openForm },
  {
    name: 'H:mm times are returned as HH:mm',
    input: { ...open, open: '9:00', close: '17:30' },
    accepted: true,
    data: { open: '09:00', close: '17:30' },
  },
  {
    name: 'closed day',
    input: { dayOfWeek: 'SUNDAY', isClosed: true },
    accepted: true,
    data: { dayOfWeek: 'SUNDAY', isClosed: true, open: null, close: null, breaks: [] },
  },
  {
    name: 'closed day with open/close sent stores no hours',
    input: { dayOfWeek: 'SUNDAY', isClosed: true, open: '09:00', close: '12:00' },
    accepted: true,
    data: { isClosed: true, open: null, close: null },
  },
  {
    name: 'closed day with breaks: [] (form: empty breaks)',
    input: { dayOfWeek: 'SATURDAY', isClosed: true, breaks: [] },
    accepted: true,
    data: { isClosed: true, breaks: [] },
    form: [
      ['dayOfWeek', 'SATURDAY'],
      ['isClosed', 'true'],
      ['breaks', ''],
    ],
  },
  {
    name: 'breaks are returned sorted by start; adjacent breaks are allowed',
    input: { ...open, breaks: [meeting, brk('13:00', '13:30'), lunch] },
    accepted: true,
    data: { breaks: [lunch, brk('13:00', '13:30'), meeting] },
    form: [
      ...openForm,
      ['breaks[0][start]', '15:00'],
      ['breaks[0][end]', '15:30'],
      ['breaks[0][reason]', 'Team meeting'],
      ['breaks[0][greeting]', 'We are in a meeting.'],
      ['breaks[1][start]', '13:00'],
      ['breaks[1][end]', '13:30'],
      ['breaks[1][reason]', 'Pause'],
      ['breaks[1][greeting]', 'Back soon.'],
      ['breaks[2][start]', '12:00'],
      ['breaks[2][end]', '13:00'],
      ['breaks[2][reason]', 'Lunch'],
      ['breaks[2][greeting]', 'We are at lunch, back at one.'],
    ],
  },
  {
    name: 'breaks touching open and close',
    input: { ...open, breaks: [brk('9:00', '9:30'), brk('16:30', '17:00')] },
    accepted: true,
    data: { breaks: [brk('09:00', '09:30'), brk('16:30', '17:00')] },
  },
  {
    name: 'rule 6: omitted breaks are kept',
    setup: [withLunch],
    input: { ...open, open: '08:00', close: '18:00' },
    accepted: true,
    data: { open: '08:00', close: '18:00', breaks: [lunch] },
  },
  {
    name: 'rule 6: breaks: [] clears them',
    setup: [withLunch],
    input: { ...open, breaks: [] },
    accepted: true,
    data: { breaks: [] },
    after: { breaks: [] },
  },
  {
    name: 'rule 6: sent breaks replace them',
    setup: [withLunch],
    input: { ...open, breaks: [meeting] },
    accepted: true,
    data: { breaks: [meeting] },
  },
  {
    name: 'rule 7: kept breaks fit the new hours',
    setup: [withLunch],
    input: { ...open, open: '12:00', close: '13:00' },
    accepted: true,
    data: { open: '12:00', close: '13:00', breaks: [lunch] },
  },
  {
    name: 'closing a day that has breaks, with breaks: []',
    setup: [withLunch],
    input: { dayOfWeek: 'MONDAY', isClosed: true, breaks: [] },
    accepted: true,
    data: { isClosed: true, open: null, breaks: [] },
  },
  {
    name: 'reopening a closed day',
    setup: [{ dayOfWeek: 'MONDAY', isClosed: true }],
    input: withLunch,
    accepted: true,
    data: { isClosed: false, breaks: [lunch] },
  },

  // dayOfWeek and isClosed
  { name: 'dayOfWeek missing', input: without(open, 'dayOfWeek'), accepted: false, field: 'dayOfWeek' },
  {
    name: 'dayOfWeek not a day',
    input: { ...open, dayOfWeek: 'FUNDAY' },
    accepted: false,
    field: 'dayOfWeek',
    graphqlTypeError: 'DayOfWeek',
    form: [...openForm.slice(1), ['dayOfWeek', 'FUNDAY']],
  },
  {
    name: 'dayOfWeek in lower case',
    input: { ...open, dayOfWeek: 'monday' },
    accepted: false,
    field: 'dayOfWeek',
    graphqlTypeError: 'DayOfWeek',
  },
  { name: 'isClosed missing', input: without(open, 'isClosed'), accepted: false, field: 'isClosed' },
  { name: 'isClosed not a boolean', input: { ...open, isClosed: 'yes' }, accepted: false, field: 'isClosed', graphqlTypeError: 'Boolean' },

  // rules 1-5
  {
    name: 'rule 1: closed day with breaks',
    input: { dayOfWeek: 'SUNDAY', isClosed: true, breaks: [lunch] },
    accepted: false,
    field: 'breaks',
  },
  { name: 'rule 2: open missing on an open day', input: without(open, 'open'), accepted: false, field: 'open' },
  {
    name: 'rule 2: close null on an open day',
    input: { ...open, close: null },
    accepted: false,
    field: 'close',
    form: [...openForm.slice(0, 3), ['close', '']],
  },
  {
    name: 'rule 3: break without greeting',
    input: { ...open, breaks: [without(lunch, 'greeting')] },
    accepted: false,
    field: 'breaks.0.greeting',
  },
  {
    name: 'rule 3: break without reason',
    input: { ...open, breaks: [without(lunch, 'reason')] },
    accepted: false,
    field: 'breaks.0.reason',
  },
  { name: 'rule 3: break without start', input: { ...open, breaks: [without(lunch, 'start')] }, accepted: false, field: 'breaks.0.start' },
  {
    name: 'rule 3: break without end',
    input: { ...open, breaks: [lunch, without(meeting, 'end')] },
    accepted: false,
    field: 'breaks.1.end',
  },
  { name: 'rule 4: break start equal to end', input: { ...open, breaks: [brk('12:00', '12:00')] }, accepted: false, field: 'breaks.0.end' },
  { name: 'rule 4: break start after end', input: { ...open, breaks: [brk('13:00', '12:00')] }, accepted: false, field: 'breaks.0.end' },
  { name: 'rule 5: break starting before open', input: { ...open, breaks: [brk('08:30', '09:30')] }, accepted: false, field: 'breaks.0' },
  {
    name: 'rule 5: break ending after close',
    input: { ...open, breaks: [lunch, brk('16:30', '17:01')] },
    accepted: false,
    field: 'breaks.1',
  },
  {
    name: 'rule 5: overlapping breaks',
    input: { ...open, breaks: [lunch, brk('12:30', '13:30')] },
    accepted: false,
    field: 'breaks.1',
    form: [
      ...openForm,
      ['breaks[0][start]', '12:00'],
      ['breaks[0][end]', '13:00'],
      ['breaks[0][reason]', 'Lunch'],
      ['breaks[0][greeting]', 'x'],
      ['breaks[1][start]', '12:30'],
      ['breaks[1][end]', '13:30'],
      ['breaks[1][reason]', 'Pause'],
      ['breaks[1][greeting]', 'y'],
    ],
  },
  {
    name: 'rule 5: a break inside another',
    input: { ...open, breaks: [brk('10:00', '14:00'), lunch] },
    accepted: false,
    field: 'breaks.1',
  },

  // rules 6-7 against the stored breaks; a refusal changes nothing
  {
    name: 'rule 7: kept breaks outside the new hours',
    setup: [withLunch],
    input: { ...open, open: '13:30', close: '17:00' },
    accepted: false,
    field: 'breaks',
    after: { open: '09:00', close: '17:00', breaks: [lunch] },
  },
  {
    name: 'closing a day that has breaks without breaks: []',
    setup: [withLunch],
    input: { dayOfWeek: 'MONDAY', isClosed: true },
    accepted: false,
    field: 'breaks',
    after: { isClosed: false, open: '09:00', breaks: [lunch] },
    form: [
      ['dayOfWeek', 'MONDAY'],
      ['isClosed', 'true'],
    ],
  },

  // docs/decisions.md §3: open before close, time formats, texts
  { name: 'overnight span (open after close)', input: { ...open, open: '22:00', close: '06:00' }, accepted: false, field: 'close' },
  { name: 'open equal to close', input: { ...open, close: '09:00' }, accepted: false, field: 'close' },
  { name: 'time 24:00', input: { ...open, close: '24:00' }, accepted: false, field: 'close' },
  { name: 'time 9:5', input: { ...open, open: '9:5' }, accepted: false, field: 'open' },
  { name: 'time with seconds', input: { ...open, open: '09:00:00' }, accepted: false, field: 'open' },
  { name: 'break time 12:60', input: { ...open, breaks: [brk('12:00', '12:60')] }, accepted: false, field: 'breaks.0.end' },
  { name: 'break reason blank', input: { ...open, breaks: [{ ...lunch, reason: '   ' }] }, accepted: false, field: 'breaks.0.reason' },
  // found by the fuzzer: NUL made the database refuse the write (a 500)
  {
    name: 'break greeting with a NUL character',
    input: { ...open, breaks: [{ ...lunch, greeting: 'Back at one\u0000' }] },
    accepted: false,
    field: 'breaks.0.greeting',
  },
  {
    name: 'break greeting of 501 characters',
    input: { ...open, breaks: [{ ...lunch, greeting: 'g'.repeat(501) }] },
    accepted: false,
    field: 'breaks.0.greeting',
  },
  {
    name: 'break greeting of 500 characters',
    input: { ...open, breaks: [{ ...lunch, greeting: 'g'.repeat(500) }] },
    accepted: true,
    data: { breaks: [{ ...lunch, greeting: 'g'.repeat(500) }] },
  },
  { name: 'breaks null', input: { ...open, breaks: null }, accepted: false, field: 'breaks' },

  // closed schema
  {
    name: 'unknown property',
    input: { ...open, timezone: 'UTC' },
    accepted: false,
    field: '',
    graphqlTypeError: '"timezone"',
    form: [...openForm, ['timezone', 'UTC']],
  },
  {
    name: 'unknown property in a break',
    input: { ...open, breaks: [{ ...lunch, note: 'x' }] },
    accepted: false,
    field: 'breaks.0',
    graphqlTypeError: '"note"',
  },
];
