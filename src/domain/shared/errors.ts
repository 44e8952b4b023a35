// The domain's errors. Each surface maps them once: REST to a status + envelope with its `code`
// (rest/errors.ts), GraphQL to `extensions.code` (graphql/errors.ts). A domain error's `code` is its
// GraphQL code; the error catalogue (errorCodes.ts) gives the REST code and status of each.
import type { z } from 'zod';
import type { GraphQLErrorCode } from './errorCodes.js';

export interface Issue {
  /** Dotted path of the offending field, e.g. "annualDate.month" or "breaks.1.end"; "" for the whole input. */
  path: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: Extract<
    GraphQLErrorCode,
    | 'BAD_USER_INPUT'
    | 'NOT_FOUND'
    | 'FORBIDDEN'
    | 'UNAUTHENTICATED'
    | 'RATE_LIMITED'
    | 'IDEMPOTENCY_KEY_IN_USE'
    | 'IDEMPOTENCY_KEY_REUSED'
    | 'UNAVAILABLE'
    | 'CONFLICT'
    | 'OUTSIDE_CALL_WINDOW'
    | 'CALL_WINDOW_CLOSED'
    | 'CONSENT_REQUIRED'
    | 'SUPPRESSED'
  >;
}

/**
 * At most this many issues (and unknown names in one issue) are spelled out; the rest are counted. An
 * answer to bad input stays short however much of it was sent (a body may carry a thousand fields).
 */
export const MAX_NAMED = 5;
const MAX_ISSUES = 20;
const MAX_NAME_LENGTH = 64;

/** A name taken from the input, cut to a readable length. */
export function shownName(name: string): string {
  return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}…` : name;
}

/** `unknown properties "a", "b", … and 995 more`: the first few names and a count. */
export function unknownKeysMessage(keys: readonly string[]): string {
  const named = keys
    .slice(0, MAX_NAMED)
    .map((k) => `"${shownName(k)}"`)
    .join(', ');
  const more = keys.length > MAX_NAMED ? ` and ${keys.length - MAX_NAMED} more` : '';
  return `unknown ${keys.length > 1 ? 'properties' : 'property'} ${named}${more}`;
}

/** 400: the input breaks a rule. `message` names every issue ("endAt: must be after startAt"), the first twenty of many. */
export class InvalidInput extends DomainError {
  readonly code = 'BAD_USER_INPUT' as const;
  readonly issues: Issue[];
  constructor(issues: Issue[]) {
    const kept =
      issues.length > MAX_ISSUES
        ? [...issues.slice(0, MAX_ISSUES), { path: '', message: `and ${issues.length - MAX_ISSUES} more issues` }]
        : issues;
    super(kept.map((i) => (i.path ? `${shownName(i.path)}: ${i.message}` : i.message)).join('; '));
    this.issues = kept;
  }
  static of(path: string, message: string): InvalidInput {
    return new InvalidInput([{ path, message }]);
  }
}

/** 404: missing, or outside the caller's reach; the two are never told apart. */
export class NotFound extends DomainError {
  readonly code = 'NOT_FOUND' as const;
  constructor(what: string) {
    super(`${what} not found`);
  }
}

/** 403: the credential is valid but may not do this. */
export class Forbidden extends DomainError {
  readonly code = 'FORBIDDEN' as const;
}

/** 401: no credential, or one that is malformed, unknown, revoked or expired. */
export class Unauthenticated extends DomainError {
  readonly code = 'UNAUTHENTICATED' as const;
}

/** 429: over a budget; `retryAfter` in whole seconds. */
export class RateLimited extends DomainError {
  readonly code = 'RATE_LIMITED' as const;
  constructor(
    readonly retryAfter: number,
    message = `Rate limit exceeded; retry after ${retryAfter} s`,
  ) {
    super(message);
  }
}

/** 503: the service cannot take the work now (overloaded, or its database is unreachable); `retryAfter` in whole seconds. */
export class Unavailable extends DomainError {
  readonly code = 'UNAVAILABLE' as const;
  constructor(
    message: string,
    readonly retryAfter = 1,
  ) {
    super(message);
  }
}

/** 409: the resource is not in a state that allows the change (a list at its limit, a second special day on one date, a disabled organization, a call already started); the message says why. */
export class Conflict extends DomainError {
  readonly code = 'CONFLICT' as const;
}

/** 400: a call request with no instant its calling policy allows before its `notAfter`; the message names the first one after it. */
export class OutsideCallWindow extends DomainError {
  readonly code = 'OUTSIDE_CALL_WINDOW' as const;
}

/** 409: a runtime's start of a call whose calling window closed since the claim; the request waits for its next window. */
export class CallWindowClosed extends DomainError {
  readonly code = 'CALL_WINDOW_CLOSED' as const;
}

/** 409: a call request to a number on the suppression (do-not-call) list of its organization or its account. */
export class Suppressed extends DomainError {
  readonly code = 'SUPPRESSED' as const;
}

/** 400: a call request whose purpose its calling policy lists in `requireConsentFor`, without `consent`. */
export class ConsentRequired extends DomainError {
  readonly code = 'CONSENT_REQUIRED' as const;
}

/** 409: another request with the same Idempotency-Key is still being answered (idempotency/). */
export class IdempotencyKeyInUse extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_IN_USE' as const;
  readonly retryAfter = 1;
}

/** 422: an Idempotency-Key sent again with a different request (idempotency/). */
export class IdempotencyKeyReused extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED' as const;
}

export function issuesFromZod(error: z.ZodError): Issue[] {
  // an unknown key's name comes from the input: its message is rebuilt short, whatever the schema said
  return error.issues.map((i) => ({
    path: i.path.map(String).join('.'),
    message: i.code === 'unrecognized_keys' ? unknownKeysMessage(i.keys) : i.message,
  }));
}

/** Parses `input` with `schema`, or throws InvalidInput naming every issue. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new InvalidInput(issuesFromZod(result.error));
  return result.data;
}
