// Rule cases for closures (spec §2 "Office closure", §4 "Closures", docs/decisions.md §3), run through REST
// (JSON, and a subset as form and multipart bodies) and GraphQL by test/api/closures.parity.test.ts.

import type { GraphQLErrorItem } from '../../support/apiTypes.js';

/** One rule case, shared by the closure and office-hours tables. */
export interface RuleCase {
  name: string;
  /** The body (REST JSON) and the GraphQL `input` argument. */
  input: Record<string, unknown>;
  accepted: boolean;
  /** For a rejection: the field both surfaces must name (dotted path; '' = the input as a whole). */
  field?: string;
  /** For an acceptance: fields of the answer (on GraphQL after dropping the other form's null fields). */
  data?: Record<string, unknown>;
  /**
   * GraphQL's own type system refuses this input (unknown field, wrong scalar or enum) before the
   * domain runs; its message must mention this text (the field or the unknown key).
   */
  graphqlTypeError?: string;
  /** The same input as form fields; the case then also runs as form-urlencoded and multipart. */
  form?: [string, string][];
}

export interface ClosureCase extends RuleCase {
  op: 'create' | 'update';
  /** For an update: the form of the closure that exists before (created with `existingClosure`). */
  existing?: 'timed' | 'annual';
}

export const existingClosure = {
  timed: {
    description: 'Existing',
    chatGreeting: 'Existing chat',
    phoneGreeting: 'Existing phone',
    startAt: '2026-06-01T12:00:00Z',
    endAt: '2026-06-01T20:00:00Z',
  },
  annual: { description: 'Existing', chatGreeting: 'Existing chat', phoneGreeting: 'Existing phone', annualDate: { month: 1, day: 1 } },
} as const;

const greetings = { chatGreeting: 'Closed for training', phoneGreeting: 'We are closed for training today' };
const timed = { description: 'Staff training', ...greetings, startAt: '2026-03-10T14:00:00Z', endAt: '2026-03-10T18:00:00Z' };
const annual = { description: 'Independence Day', ...greetings, annualDate: { month: 7, day: 4 } };
const timedForm: [string, string][] = [
  ['description', 'Staff training'],
  ['chatGreeting', greetings.chatGreeting],
  ['phoneGreeting', greetings.phoneGreeting],
  ['startAt', timed.startAt],
  ['endAt', timed.endAt],
];
const without = <T extends Record<string, unknown>>(value: T, ...keys: string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));

const create = (c: Omit<ClosureCase, 'op'>): ClosureCase => ({ op: 'create', ...c });
const update = (existing: 'timed' | 'annual', c: Omit<ClosureCase, 'op' | 'existing'>): ClosureCase => ({ op: 'update', existing, ...c });

export const closureCases: ClosureCase[] = [
  // accepted shapes
  create({ name: 'timed closure', input: timed, accepted: true, data: timed, form: timedForm }),
  create({
    name: 'timed closure with null greetings (not configured)',
    input: { ...timed, chatGreeting: null, phoneGreeting: null },
    accepted: true,
    data: { chatGreeting: null, phoneGreeting: null },
  }),
  create({
    name: 'form: empty greetings are null',
    input: { ...timed, chatGreeting: null, phoneGreeting: null },
    accepted: true,
    data: { chatGreeting: null, phoneGreeting: null, startAt: timed.startAt },
    form: [
      ['description', 'Staff training'],
      ['chatGreeting', ''],
      ['phoneGreeting', ''],
      ['startAt', timed.startAt],
      ['endAt', timed.endAt],
    ],
  }),
  create({ name: 'annual closure', input: annual, accepted: true, data: annual }),
  create({
    name: 'annual closure on 29 February (leap years only)',
    input: { ...annual, annualDate: { month: 2, day: 29 } },
    accepted: true,
    data: { annualDate: { month: 2, day: 29 } },
    form: [
      ['description', 'Leap day'],
      ['chatGreeting', 'x'],
      ['phoneGreeting', 'y'],
      ['annualDate[month]', '2'],
      ['annualDate[day]', '29'],
    ],
  }),
  create({
    name: 'annual closure, dotted form keys',
    input: { ...annual, annualDate: { month: 12, day: 31 } },
    accepted: true,
    data: { annualDate: { month: 12, day: 31 } },
    form: [
      ['description', 'New Year Eve'],
      ['chatGreeting', 'x'],
      ['phoneGreeting', 'y'],
      ['annualDate.month', '12'],
      ['annualDate.day', '31'],
    ],
  }),
  create({
    name: 'description of 255 characters',
    input: { ...timed, description: 'd'.repeat(255) },
    accepted: true,
    data: { description: 'd'.repeat(255) },
  }),
  create({
    name: 'greeting of 500 characters',
    input: { ...timed, phoneGreeting: 'g'.repeat(500) },
    accepted: true,
    data: { phoneGreeting: 'g'.repeat(500) },
  }),
  create({
    name: 'a closure of one minute',
    input: { ...timed, startAt: '2026-03-10T14:00:00Z', endAt: '2026-03-10T14:01:00Z' },
    accepted: true,
    data: { endAt: '2026-03-10T14:01:00Z' },
  }),
  create({
    name: 'annualDate null with startAt/endAt is timed',
    input: { ...timed, annualDate: null },
    accepted: true,
    data: { startAt: timed.startAt },
  }),

  // description
  create({ name: 'description missing', input: without(timed, 'description'), accepted: false, field: 'description' }),
  create({ name: 'description empty', input: { ...timed, description: '' }, accepted: false, field: 'description' }),
  create({
    name: 'description only whitespace',
    input: { ...timed, description: '  \t ' },
    accepted: false,
    field: 'description',
    form: [...timedForm.slice(1), ['description', '   ']],
  }),
  create({
    name: 'description of 256 characters',
    input: { ...timed, description: 'd'.repeat(256) },
    accepted: false,
    field: 'description',
  }),
  create({
    name: 'description not a string',
    input: { ...timed, description: 42 },
    accepted: false,
    field: 'description',
    graphqlTypeError: 'String',
  }),

  // startAt / endAt
  create({
    name: 'startAt with fractional seconds (.000Z)',
    input: { ...timed, startAt: '2026-03-10T14:00:00.000Z' },
    accepted: false,
    field: 'startAt',
    form: [...timedForm.filter(([k]) => k !== 'startAt'), ['startAt', '2026-03-10T14:00:00.000Z']],
  }),
  create({ name: 'endAt with seconds', input: { ...timed, endAt: '2026-03-10T18:00:30Z' }, accepted: false, field: 'endAt' }),
  create({
    name: 'startAt with an offset instead of Z',
    input: { ...timed, startAt: '2026-03-10T14:00:00+00:00' },
    accepted: false,
    field: 'startAt',
  }),
  create({ name: 'startAt without seconds', input: { ...timed, startAt: '2026-03-10T14:00Z' }, accepted: false, field: 'startAt' }),
  create({ name: 'startAt on 30 February', input: { ...timed, startAt: '2026-02-30T10:00:00Z' }, accepted: false, field: 'startAt' }),
  // found by the fuzzer: PostgreSQL has no year 0, the write was a 500
  create({
    name: 'startAt in the year 0000',
    input: { ...timed, startAt: '0000-01-01T00:00:00Z', endAt: '0001-01-01T00:00:00Z' },
    accepted: false,
    field: 'startAt',
  }),
  create({
    name: 'a closure in the years 0001 and 9999',
    input: { ...timed, startAt: '0001-01-01T00:00:00Z', endAt: '9999-12-31T23:59:00Z' },
    accepted: true,
    data: { startAt: '0001-01-01T00:00:00Z', endAt: '9999-12-31T23:59:00Z' },
  }),
  create({ name: 'endAt at hour 24', input: { ...timed, endAt: '2026-03-10T24:00:00Z' }, accepted: false, field: 'endAt' }),
  create({ name: 'endAt equal to startAt', input: { ...timed, endAt: timed.startAt }, accepted: false, field: 'endAt' }),
  create({
    name: 'endAt before startAt',
    input: { ...timed, startAt: '2026-03-10T18:00:00Z', endAt: '2026-03-10T14:00:00Z' },
    accepted: false,
    field: 'endAt',
  }),
  create({ name: 'startAt without endAt', input: without(timed, 'endAt'), accepted: false, field: 'endAt' }),
  create({ name: 'endAt without startAt', input: without(timed, 'startAt'), accepted: false, field: 'startAt' }),

  // the form: exactly one of annual or timed
  create({
    name: 'both annualDate and startAt/endAt',
    input: { ...timed, annualDate: { month: 7, day: 4 } },
    accepted: false,
    field: 'annualDate',
    form: [...timedForm, ['annualDate[month]', '7'], ['annualDate[day]', '4']],
  }),
  create({ name: 'neither annualDate nor startAt/endAt', input: { description: 'x', ...greetings }, accepted: false, field: '' }),

  // annualDate
  create({
    name: 'annualDate month 13',
    input: { ...annual, annualDate: { month: 13, day: 1 } },
    accepted: false,
    field: 'annualDate.month',
  }),
  create({
    name: 'annualDate month 0',
    input: { ...annual, annualDate: { month: 0, day: 1 } },
    accepted: false,
    field: 'annualDate.month',
  }),
  create({ name: 'annualDate day 32', input: { ...annual, annualDate: { month: 1, day: 32 } }, accepted: false, field: 'annualDate.day' }),
  create({
    name: 'annualDate 30 February',
    input: { ...annual, annualDate: { month: 2, day: 30 } },
    accepted: false,
    field: 'annualDate.day',
    form: [
      ['description', 'x'],
      ['chatGreeting', 'x'],
      ['phoneGreeting', 'y'],
      ['annualDate[month]', '2'],
      ['annualDate[day]', '30'],
    ],
  }),
  create({
    name: 'annualDate 31 April',
    input: { ...annual, annualDate: { month: 4, day: 31 } },
    accepted: false,
    field: 'annualDate.day',
  }),
  create({ name: 'annualDate without day', input: { ...annual, annualDate: { month: 4 } }, accepted: false, field: 'annualDate.day' }),
  create({
    name: 'annualDate month as a JSON string',
    input: { ...annual, annualDate: { month: '2', day: 1 } },
    accepted: false,
    field: 'annualDate.month',
    graphqlTypeError: 'Int',
  }),
  create({
    name: 'annualDate with an unknown property',
    input: { ...annual, annualDate: { month: 2, day: 1, year: 2027 } },
    accepted: false,
    field: 'annualDate',
    graphqlTypeError: '"year"',
  }),

  // greetings on create
  create({ name: 'chatGreeting key missing', input: without(timed, 'chatGreeting'), accepted: false, field: 'chatGreeting' }),
  create({ name: 'phoneGreeting key missing', input: without(annual, 'phoneGreeting'), accepted: false, field: 'phoneGreeting' }),
  create({ name: 'chatGreeting empty (JSON)', input: { ...timed, chatGreeting: '' }, accepted: false, field: 'chatGreeting' }),
  create({ name: 'phoneGreeting only whitespace', input: { ...timed, phoneGreeting: '   ' }, accepted: false, field: 'phoneGreeting' }),
  create({
    name: 'chatGreeting of 501 characters',
    input: { ...timed, chatGreeting: 'g'.repeat(501) },
    accepted: false,
    field: 'chatGreeting',
  }),

  // closed schema
  // found by the fuzzer: NUL made the database refuse the write (a 500); an unpaired surrogate was stored as U+FFFD
  create({
    name: 'description with a NUL character',
    input: { ...timed, description: 'Staff\u0000training' },
    accepted: false,
    field: 'description',
  }),
  create({
    name: 'phoneGreeting with an unpaired surrogate',
    input: { ...timed, phoneGreeting: 'Closed \uD800 today' },
    accepted: false,
    field: 'phoneGreeting',
  }),
  create({
    name: 'greetings with emoji and right-to-left text',
    input: { ...timed, chatGreeting: 'Closed 🎄🦷 today', phoneGreeting: 'مرحبا، العيادة مغلقة' },
    accepted: true,
    data: { chatGreeting: 'Closed 🎄🦷 today', phoneGreeting: 'مرحبا، العيادة مغلقة' },
  }),
  create({
    name: 'unknown property',
    input: { ...timed, color: 'red' },
    accepted: false,
    field: '',
    graphqlTypeError: '"color"',
    form: [...timedForm, ['color', 'red']],
  }),

  // update
  update('timed', {
    name: 'update: omitted greetings are kept',
    input: { description: 'Renamed', startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
    accepted: true,
    data: { description: 'Renamed', chatGreeting: 'Existing chat', phoneGreeting: 'Existing phone', startAt: '2026-06-02T12:00:00Z' },
  }),
  update('timed', {
    name: 'update: one greeting replaced, the other kept',
    input: { description: 'Renamed', phoneGreeting: 'New phone', startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
    accepted: true,
    data: { chatGreeting: 'Existing chat', phoneGreeting: 'New phone' },
  }),
  update('timed', {
    name: 'update: timed to annual',
    input: { description: 'Now annual', annualDate: { month: 2, day: 29 } },
    accepted: true,
    data: { description: 'Now annual', annualDate: { month: 2, day: 29 } },
    form: [
      ['description', 'Now annual'],
      ['annualDate[month]', '2'],
      ['annualDate[day]', '29'],
    ],
  }),
  update('annual', {
    name: 'update: annual to timed',
    input: { description: 'Now timed', startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
    accepted: true,
    data: { description: 'Now timed', startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
  }),
  update('timed', {
    name: 'update: description missing',
    input: { startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
    accepted: false,
    field: 'description',
  }),
  update('timed', {
    name: 'update: chatGreeting null',
    input: { description: 'x', chatGreeting: null, annualDate: { month: 1, day: 2 } },
    accepted: false,
    field: 'chatGreeting',
  }),
  update('annual', {
    name: 'update: phoneGreeting blank',
    input: { description: 'x', phoneGreeting: '', annualDate: { month: 1, day: 2 } },
    accepted: false,
    field: 'phoneGreeting',
    form: [
      ['description', 'x'],
      ['phoneGreeting', ''],
      ['annualDate[month]', '1'],
      ['annualDate[day]', '2'],
    ],
  }),
  update('annual', { name: 'update: neither form', input: { description: 'x' }, accepted: false, field: '' }),
  update('annual', {
    name: 'update: both forms',
    input: { description: 'x', annualDate: { month: 1, day: 2 }, startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T13:00:00Z' },
    accepted: false,
    field: 'annualDate',
  }),
  update('timed', {
    name: 'update: endAt before startAt',
    input: { description: 'x', startAt: '2026-06-02T12:00:00Z', endAt: '2026-06-02T11:00:00Z' },
    accepted: false,
    field: 'endAt',
  }),
  update('timed', {
    name: 'update: unknown property',
    input: { description: 'x', annualDate: { month: 1, day: 2 }, legacyId: 'abc' },
    accepted: false,
    field: '',
    graphqlTypeError: '"legacyId"',
  }),
];

// ── Reading a verdict from either surface (shared with the office-hours parity test) ──

export interface Issue {
  path: string;
  message: string;
}

export interface Outcome {
  accepted: boolean;
  /** The issues named by a rejection; on GraphQL with the argument name (`input.`) removed. */
  issues: Issue[];
  message: string;
  data: Record<string, unknown> | undefined;
  /** GraphQL only: refused by GraphQL's type system, without domain issues. */
  typeError?: boolean;
}

/** A /v1 answer as the outcome reads it: the data of a success, the issues of a 400. */
interface RestAnswer {
  data?: Record<string, unknown>;
  errors?: Issue[];
  message: string;
}

/** A GraphQL answer as the outcome reads it. */
interface GraphQLAnswer {
  data: Record<string, Record<string, unknown> | undefined>;
  errors?: GraphQLErrorItem[];
}

export function restOutcome(res: { status: number; body: RestAnswer }): Outcome {
  if (res.status === 200) return { accepted: true, issues: [], message: '', data: res.body.data };
  if (res.status !== 400) throw new Error(`unexpected status ${res.status}: ${JSON.stringify(res.body)}`);
  return { accepted: false, issues: res.body.errors ?? [], message: res.body.message, data: undefined };
}

const stripArgument = (path: string): string => (path === 'input' ? '' : path.replace(/^input\./, ''));

export function graphqlOutcome(res: { body: GraphQLAnswer }, field: string): Outcome {
  const error = res.body.errors?.[0];
  if (!error) return { accepted: true, issues: [], message: '', data: res.body.data[field] };
  const code = error.extensions?.code;
  if (code === 'BAD_USER_INPUT' && Array.isArray(error.extensions.issues)) {
    const issues = (error.extensions.issues as Issue[]).map((i) => ({ path: stripArgument(i.path), message: i.message }));
    return { accepted: false, issues, message: error.message, data: undefined };
  }
  if (code === 'NOT_FOUND' || code === 'FORBIDDEN' || code === 'INTERNAL_SERVER_ERROR' || code === 'UNAUTHENTICATED') {
    throw new Error(`unexpected GraphQL error ${code}: ${error.message}`);
  }
  return { accepted: false, issues: [], message: error.message, data: undefined, typeError: true };
}

/** The form-urlencoded and multipart variants of a case with `form` entries. */
export const FORM_KINDS = ['form', 'multipart'] as const;

/**
 * A GraphQL input literal for `value` (the cases GraphQL's type system refuses are also sent inline,
 * where validation refuses them, besides as variables, where coercion does).
 * Upper-case strings under the keys in `enumKeys` are written as enum values.
 */
export function graphqlLiteral(value: unknown, enumKeys: readonly string[] = [], key = ''): string {
  if (Array.isArray(value)) return `[${value.map((v) => graphqlLiteral(v, enumKeys)).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${graphqlLiteral(v, enumKeys, k)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string' && enumKeys.includes(key) && /^[A-Z_]+$/.test(value)) return value;
  return JSON.stringify(value);
}
