// Parameters as both surfaces send them: the REST query arrives as strings, GraphQL arguments typed (or
// null when sent as null). Only well-formed strings are converted, so "abc", "1.5" or "" still fail with a
// clear message naming the rule. One definition for every list's `limit` and `cursor`.
import { z } from 'zod';
import { PAGE_CURSOR_MAX_LENGTH } from './pageCursors.js';

/** A GraphQL argument sent as null is an absent one. */
export const absentToUndefined = (value: unknown) => (value === null ? undefined : value);

/** A REST query's integer (`"20"`) as a number; anything else as it came, for the schema to refuse. */
export const integerFromString = (value: unknown) => {
  const v = absentToUndefined(value);
  return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
};

/** A REST query's boolean (`"true"`, `"false"`) as one; anything else as it came, for the schema to refuse. */
function booleanFromString(value: unknown) {
  const v = absentToUndefined(value);
  return v === 'true' ? true : v === 'false' ? false : v;
}

function boundedInteger(min: number, max: number) {
  const error = `must be an integer between ${min} and ${max}`;
  return z.number({ error }).int({ error, abort: true }).min(min, { error }).max(max, { error });
}

/** A boolean, as JSON or as the query strings `true` and `false`; absent is false. */
export const booleanParam = z.preprocess(booleanFromString, z.boolean({ error: 'must be true or false' }).default(false));

/** A boolean filter, as JSON or as the query strings `true` and `false`; absent is no filter. */
export const optionalBooleanParam = z.preprocess(booleanFromString, z.boolean({ error: 'must be true or false' }).optional());

/** An integer from min to max, `fallback` when absent (a page's `limit`). */
export function integerParam(min: number, max: number, fallback: number) {
  return z.preprocess(integerFromString, boundedInteger(min, max).default(fallback));
}

/** An integer from min to max, or absent. */
export function optionalIntegerParam(min: number, max: number) {
  return z.preprocess(integerFromString, boundedInteger(min, max).optional());
}

/** A page cursor as issued by a previous page (its seal is checked where the list opens it: pageCursors.ts). */
export const cursorParam = z.preprocess(
  absentToUndefined,
  z
    .string({ error: 'must be a cursor from a previous page' })
    .min(1, { error: 'must not be empty' })
    .max(PAGE_CURSOR_MAX_LENGTH, { error: `must be at most ${PAGE_CURSOR_MAX_LENGTH} characters` })
    .optional(),
);

/** An object of filters without its null and undefined entries (GraphQL sends an omitted argument as null: no filter). */
export const withoutNulls = (value: unknown): unknown =>
  value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) : value;
