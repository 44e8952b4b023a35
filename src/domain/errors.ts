// The domain's errors. Each surface maps them once: REST to a status + envelope (rest/errors.ts),
// GraphQL to `extensions.code` (graphql/errors.ts).
import type { z } from 'zod';

export interface Issue {
  /** Dotted path of the offending field, e.g. "annualDate.month" or "breaks.1.end"; "" for the whole input. */
  path: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code:
    | 'BAD_USER_INPUT'
    | 'NOT_FOUND'
    | 'FORBIDDEN'
    | 'UNAUTHENTICATED'
    | 'RATE_LIMITED'
    | 'IDEMPOTENCY_KEY_IN_USE'
    | 'IDEMPOTENCY_KEY_REUSED'
    | 'UNAVAILABLE'
    | 'CONFLICT';
}

/** 400: the input breaks a rule. `message` names every issue ("endAt: must be after startAt"). */
export class InvalidInput extends DomainError {
  readonly code = 'BAD_USER_INPUT' as const;
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
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

/** 409: another request with the same Idempotency-Key is still being answered (idempotency/). */
export class IdempotencyKeyInUse extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_IN_USE' as const;
  readonly retryAfter = 1;
}

/** 422: an Idempotency-Key sent again with a different request (idempotency/). */
export class IdempotencyKeyReused extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED' as const;
}

/** 409: the write collides with what is stored (e.g. a second special day on the same date). */
export class Conflict extends DomainError { readonly code = 'CONFLICT' as const; }

export function issuesFromZod(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** Parses `input` with `schema`, or throws InvalidInput naming every issue. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new InvalidInput(issuesFromZod(result.error));
  return result.data;
}
