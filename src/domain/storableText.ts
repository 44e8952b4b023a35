// Text that can be stored as sent. PostgreSQL text and jsonb cannot hold NUL (U+0000), and UTF-8
// cannot encode an unpaired surrogate (a JSON string may carry one as "\ud800"): the first made the
// database refuse the write (a 500), the second was silently replaced by U+FFFD (or refused inside
// jsonb). The rule is applied where text enters, to every string of every input, whatever field it is
// in (unstorableTextIssues below: the REST pipeline runs it over path parameters, query parameters and
// the body, GraphQL over every argument of every field), so either is a 400 naming the field and no
// field can be added without it. A few schemas also refine their fields with it, for the domain's
// callers that are not a surface (the demo data, the admin commands).
import { InvalidInput, type Issue } from './errors.js';

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';
export const UNSTORABLE_NAME_MESSAGE = 'is a property name with a NUL character or an unpaired UTF-16 surrogate';

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
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

/** Stands for the value of a property whose name cannot be stored (the name is the issue). */
const UNSTORABLE_KEY = Symbol('unstorable property name');

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
 * issue: a body nested hundreds of thousands deep costs time in its size, not more. Empty when everything
 * can be stored.
 */
export function unstorableTextIssues(value: unknown, path = ''): Issue[] {
  const issues: Issue[] = [];
  const pending: [unknown, Place | undefined][] = [[value, undefined]];
  while (pending.length > 0 && issues.length < MAX_UNSTORABLE_ISSUES) {
    const [current, place] = pending.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) issues.push({ path: pathOf(path, place), message: UNSTORABLE_TEXT_MESSAGE });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], { parent: place, part: i }]);
    } else if (current !== null && typeof current === 'object' && isPlainObject(current)) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        // a name is judged when its value would be, so that issues come in the order of the input
        if (isStorableText(key)) pending.push([current[key], { parent: place, part: key }]);
        else pending.push([UNSTORABLE_KEY, { parent: place, part: escapedName(key) }]);
      }
    } else if (current === UNSTORABLE_KEY) {
      issues.push({ path: pathOf(path, place), message: UNSTORABLE_NAME_MESSAGE });
    }
  }
  return issues;
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
