// Time and text formats shared by closures, office hours and availability (spec §2, docs/decisions.md §3-4).
// Each schema's output is a value the same schema accepts again, so that GraphQL (which validates the
// argument with plugin-zod first) and the domain (which parses once more) reach the same verdict.
import { DateTime } from 'luxon';
import { z } from 'zod';
import { formatLocalTime, parseLocalTime } from './localTime.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './storableText.js';

/** The closure instant pattern of spec §2: UTC, seconds zero, no fractional seconds. */
export const CLOSURE_INSTANT_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):00Z$/;

/** Epoch ms of a `YYYY-MM-DDTHH:mm:00Z` string that names a real date-time, else null. */
export function closureInstantMs(value: string): number | null {
  const m = CLOSURE_INSTANT_PATTERN.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59) return null;
  // setUTCFullYear, unlike Date.UTC, keeps years 0..99 as they are; it rolls 30 February over into
  // March, so a real date is one that survives the round trip
  const back = new Date(0);
  back.setUTCFullYear(year, month - 1, day);
  back.setUTCHours(hour, minute, 0, 0);
  const ms = back.getTime();
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return ms;
}

/** `YYYY-MM-DDTHH:mm:00Z` for a stored closure instant (seconds and milliseconds are zero by construction). */
export function formatClosureInstant(at: Date): string {
  return `${at.toISOString().slice(0, 16)}:00Z`;
}

export const closureInstantSchema = z
  .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
  // a value of another form is told so once (not also "is not a real date and time")
  .regex(CLOSURE_INSTANT_PATTERN, { message: 'must match YYYY-MM-DDTHH:mm:00Z (UTC, seconds zero, no fractional seconds)', abort: true })
  .refine((value) => closureInstantMs(value) !== null, { message: 'is not a real date and time', abort: true })
  // PostgreSQL has no year 0 (the year before 1 AD is 1 BC), so 0000-… cannot be stored
  .refine((value) => !value.startsWith('0000-'), { message: 'must be in the years 0001 to 9999', abort: true });

/** Local time of day `H:mm` or `HH:mm` (spec §2); returned normalized to `HH:mm`. */
export const localTimeSchema = z
  .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : 'must be a string') })
  .refine((value) => parseLocalTime(value) !== null, { message: 'must be a time H:mm or HH:mm between 00:00 and 23:59', abort: true })
  .transform((value) => formatLocalTime(parseLocalTime(value)!));

/** Minutes after local midnight of an already validated local time. */
export function minutesOf(time: string): number {
  const minutes = parseLocalTime(time);
  if (minutes === null) throw new RangeError(`not a local time: ${time}`);
  return minutes;
}

/** True when `value` is a valid local time (so that cross-field rules only look at valid fields). */
export function isLocalTime(value: unknown): value is string {
  return typeof value === 'string' && parseLocalTime(value) !== null;
}

// an empty string is reported once, by the length rule
const hasNonWhitespace = (value: string): boolean => value.length === 0 || /\S/.test(value);

/** A free text of 1..max characters with at least one non-whitespace character. */
export function nonBlankText(max: number, messages: { required?: string; null?: string } = {}) {
  return (
    z
      .string({
        error: (iss) =>
          iss.input === undefined
            ? (messages.required ?? 'is required')
            : iss.input === null
              ? (messages.null ?? 'cannot be null')
              : 'must be a string',
      })
      // characters are counted as code points, so an emoji is one character
      .refine((value) => value.length > 0 && [...value].length <= max, { message: `must be 1 to ${max} characters` })
      .refine(hasNonWhitespace, { message: 'must contain a non-whitespace character' })
      .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE })
  );
}

/**
 * An ISO-8601 instant (a date-time with `Z` or an offset), e.g. `2026-03-09T13:30:00Z` or
 * `2026-03-09T09:30:00-04:00`. A local date-time without an offset is not an instant.
 */
/**
 * The instants availability answers for: local calendars and time zone rules are meaningful there, and
 * an answer (with its 8-day lookahead) stays a four-digit year.
 */
const EARLIEST_INSTANT_MS = Date.UTC(1900, 0, 1);
const LATEST_INSTANT_MS = Date.UTC(9999, 11, 23);
const INSTANT_RANGE_MESSAGE = 'must be between 1900-01-01T00:00:00Z and 9999-12-23T00:00:00Z';
const instantInRange = (ms: number) => ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;

export const isoInstantSchema = z
  .string({ error: 'must be an ISO-8601 instant such as 2026-03-09T13:30:00Z' })
  .refine((value) => /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value) && DateTime.fromISO(value, { setZone: true }).isValid, {
    message: 'must be an ISO-8601 instant with Z or an offset, such as 2026-03-09T13:30:00Z',
  });

/**
 * An instant argument: an ISO-8601 string (a REST query) or a Date (GraphQL's DateTime scalar), within
 * the range availability answers for.
 */
export function instantArgSchema(error: (iss: { input?: unknown }) => string) {
  return z
    .union([isoInstantSchema, z.date()], { error })
    .refine((value) => instantInRange((value instanceof Date ? value : isoInstantToDate(value)).getTime()), {
      message: INSTANT_RANGE_MESSAGE,
    });
}

export function isoInstantToDate(value: string): Date {
  return DateTime.fromISO(value, { setZone: true }).toJSDate();
}

/**
 * True when an instant lies in the years the database stores and gives back: 1 to 9999 in UTC. PostgreSQL
 * has no year 0 (`0000-01-01T00:00:00Z`, or `0001-01-01T00:30:00+01:00`, is refused by the database, which
 * made a filter of the event log a 500), and a year past 9999 does not come back as the ISO 8601 instant it
 * was written as.
 */
export function isStorableInstant(value: string): boolean {
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** An ISO 8601 instant with an offset (`Z` or `±hh:mm`) that the database can store; `error` names both rules. */
export function instantInputSchema(error: string) {
  return z.iso.datetime({ offset: true, error, abort: true }).refine(isStorableInstant, { error });
}
