// Answers written in slices. A large answer (a 31-day availability timeline with long greetings runs to
// megabytes) turned into text by one JSON.stringify, and its ETag by one digest, holds the event loop for
// as long as that takes, and every other organization's request waits behind it (docs/decisions.md
// "Fairness"). Here the same text is made piece by piece: the elements of a list are written one at a
// time by JSON.stringify itself, and the event loop is given back whenever a slice of SLICE_MS has been
// used. The text is exactly JSON.stringify's (test/unit/slicedJson.test.ts holds the two equal); a small
// answer is written in one piece, with one look at the clock.
import { createHash } from 'node:crypto';
import { driveInSlices } from '../domain/shared/tenantWork.js';

/** Text of this many characters is digested between two looks at the clock. */
const DIGEST_PIECE = 64 * 1024;

/** What JSON.stringify does with a value before writing it: `toJSON` (dates and the like) first. */
function prepared(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  return value;
}

/** Whether JSON.stringify leaves the value out of an object (and writes null for it in a list). */
const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * Pushes the JSON text of `value` onto `parts`, yielding (a point where the event loop may be given back)
 * after each element of a list. Objects outside lists are walked key by key, so that a list anywhere in
 * the answer is reached; elements of a list are written by JSON.stringify in one piece, unless they are
 * lists themselves.
 */
function* write(value: unknown, parts: string[]): Generator<void, void, void> {
  if (value === null || typeof value !== 'object') {
    parts.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) parts.push(',');
      const element = prepared(value[i], String(i));
      if (Array.isArray(element)) yield* write(element, parts);
      else parts.push(skipped(element) ? 'null' : (JSON.stringify(element) ?? 'null'));
      yield;
    }
    parts.push(']');
    return;
  }
  parts.push('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const member = prepared((value as Record<string, unknown>)[key], key);
    if (skipped(member)) continue;
    parts.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    yield* write(member, parts);
  }
  parts.push('}');
}

function* pieces(value: unknown): Generator<void, string[], void> {
  const parts: string[] = [];
  const top = prepared(value, '');
  if (skipped(top)) throw new TypeError('an answer is a JSON value');
  yield* write(top, parts);
  return parts;
}

/**
 * List elements an answer may hold and still be written by one JSON.stringify: the walk below would give
 * the event loop back only between elements, each of which one JSON.stringify writes anyway, so a few of
 * them cost about one slice at most, and the native writer is several times faster than the walk.
 */
const SMALL_ANSWER_ELEMENTS = 16;

/**
 * What is left of `budget` once the value's list elements are counted as `write` visits them (elements of
 * lists, and of lists inside those; objects outside lists key by key): negative when it holds more.
 */
function elementBudgetLeft(value: unknown, budget: number): number {
  if (value === null || typeof value !== 'object' || value instanceof Date) return budget;
  // what another toJSON makes is not known before it runs: not counted as small
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return -1;
  if (Array.isArray(value)) {
    budget -= value.length;
    for (let i = 0; i < value.length && budget >= 0; i++) if (Array.isArray(value[i])) budget = elementBudgetLeft(value[i], budget);
    return budget;
  }
  for (const key in value) {
    if (budget < 0) break;
    budget = elementBudgetLeft((value as Record<string, unknown>)[key], budget);
  }
  return budget;
}

/** JSON.stringify(value), made in slices that give the event loop back between them. */
export async function stringifyInSlices(value: unknown): Promise<string> {
  if (value !== undefined && elementBudgetLeft(value, SMALL_ANSWER_ELEMENTS) >= 0) {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  }
  return (await driveInSlices(pieces(value))).join('');
}

function* digestSteps(text: string): Generator<void, string, void> {
  const digest = createHash('sha256');
  for (let at = 0; at < text.length; at += DIGEST_PIECE) {
    digest.update(text.slice(at, at + DIGEST_PIECE));
    yield;
  }
  return digest.digest('base64url');
}

/** The SHA-256 of `text` (UTF-8) in base64url, digested in slices (a text of one piece at once). */
export async function sha256InSlices(text: string): Promise<string> {
  if (text.length <= DIGEST_PIECE) return createHash('sha256').update(text).digest('base64url');
  return driveInSlices(digestSteps(text));
}
