// Text that can be stored as sent. PostgreSQL text and jsonb cannot hold NUL (U+0000), and UTF-8
// cannot encode an unpaired surrogate (a JSON string may carry one as "\ud800"): the first made the
// database refuse the write (a 500), the second was silently replaced by U+FFFD (or refused inside
// jsonb). The rule is applied where text enters, to every string of every input, whatever field it is
// in (unstorableTextIssues below: the REST pipeline runs it over path parameters, query parameters and
// the body, GraphQL over every argument of every field), so either is a 400 naming the field and no
// field can be added without it. A few schemas also refine their fields with it, for the domain's
// callers that are not a surface (the demo data, the admin commands).
import { InvalidInput, type Issue } from './errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** String.prototype.isWellFormed (no unpaired surrogate), native since Node 20; the expression where it is missing. */
const wellFormed: (value: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (value) => (value as string & { isWellFormed(): boolean }).isWellFormed()
    : (value) => !LONE_SURROGATE.test(value);

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';
export const UNSTORABLE_NAME_MESSAGE = 'is a property name with a NUL character or an unpaired UTF-16 surrogate';

export function isStorableText(value: string): boolean {
  return value.indexOf('\u0000') === -1 && wellFormed(value);
}

/** At most this many unstorable texts are named (InvalidInput shortens longer lists anyway). */
const MAX_UNSTORABLE_ISSUES = 20;

/** Where a value sits: its parent's place and its own key or index (the path is spelled out only for an issue). */
interface Place {
  parent: Place | undefined;
  part: string | number;
}

/** Longer paths are cut (a value nested thousands deep would otherwise be named by a path as long). */
const MAX_PATH_LENGTH = 200;

function pathOf(base: string, place: Place | undefined): string {
  const parts: (string | number)[] = [];
  for (let p = place; p; p = p.parent) parts.push(p.part);
  if (base !== '') parts.push(base);
  const path = parts.reverse().join('.');
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}…` : path;
}

/** A name as the answer shows it: JSON's escapes (`\u0000`, `\ud800`), so the issue's path is itself storable text. */
const escapedName = (name: string): string => JSON.stringify(name).slice(1, -1);

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  // GraphQL builds its argument objects without a prototype
  return proto === Object.prototype || proto === null;
}

/**
 * Every string in `value` that cannot be stored — values and property names, at any depth, in arrays and
 * plain objects (a Date or another class instance is a parsed scalar, not text) — as issues naming its
 * path under `path` (`breaks.0.reason`, `metadata.key`). Iterative, and a path is spelled out only for an
 * issue: a body nested hundreds of thousands deep costs time in its size, not more. The texts of an object
 * or list are judged where they stand, before what is nested in it. Empty when everything can be stored.
 */
export function unstorableTextIssues(value: unknown, path = ''): Issue[] {
  const issues: Issue[] = [];
  if (typeof value === 'string') {
    if (!isStorableText(value)) issues.push({ path, message: UNSTORABLE_TEXT_MESSAGE });
    return issues;
  }
  // containers still to look into, with their places; a string is judged at once and costs no place
  const pending: [object, Place | undefined][] = [];
  if (value !== null && typeof value === 'object') pending.push([value, undefined]);
  while (pending.length > 0 && issues.length < MAX_UNSTORABLE_ISSUES) {
    const [current, place] = pending.pop()!;
    const nested = pending.length;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) look(current[i], place, i, path, issues, pending);
    } else if (isPlainObject(current)) {
      for (const key of Object.keys(current)) {
        if (isStorableText(key)) look(current[key], place, key, path, issues, pending);
        else issues.push({ path: pathOf(path, { parent: place, part: escapedName(key) }), message: UNSTORABLE_NAME_MESSAGE });
      }
    }
    // what this container holds is looked into in its order
    reverseFrom(pending, nested);
  }
  return issues.length > MAX_UNSTORABLE_ISSUES ? issues.slice(0, MAX_UNSTORABLE_ISSUES) : issues;
}

/**
 * Judges a string held at `part` of the container at `parent`, or keeps a container to look into. A function of
 * the module, not a closure made per call: the bundle keeps function names, which costs a closure more than the walk.
 */
function look(
  child: unknown,
  parent: Place | undefined,
  part: string | number,
  path: string,
  issues: Issue[],
  pending: [object, Place | undefined][],
): void {
  if (typeof child === 'string') {
    if (!isStorableText(child)) issues.push({ path: pathOf(path, { parent, part }), message: UNSTORABLE_TEXT_MESSAGE });
  } else if (child !== null && typeof child === 'object') pending.push([child, { parent, part }]);
}

/** Reverses `list` from index `start` on, in place. */
function reverseFrom<T>(list: T[], start: number): void {
  for (let i = start, j = list.length - 1; i < j; i++, j--) [list[i], list[j]] = [list[j]!, list[i]!];
}

/**
 * Refuses named inputs holding text that cannot be stored: a 400 naming each such field. Each entry is
 * one input (a path parameter, a query, a body) and the path its fields are named under ('' for none).
 */
export function refuseUnstorableText(...inputs: readonly (readonly [value: unknown, path?: string])[]): void {
  let issues: Issue[] | undefined;
  for (const [value, path] of inputs) {
    const found = unstorableTextIssues(value, path);
    if (found.length > 0) (issues ??= []).push(...found);
  }
  if (issues) throw new InvalidInput(issues);
}
