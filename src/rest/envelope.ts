// The response envelope of the specification (§1, §7) on every /v1 answer.
import type { DomainError } from '../domain/errors.js';

export interface Envelope {
  success: boolean;
  data: unknown;
  message?: string;
  /** Present on 400s: each invalid field and why (an addition; `message` already names them). */
  errors?: { path: string; message: string }[];
}

export function successBody(data: unknown, message?: string): Envelope {
  return message === undefined ? { success: true, data } : { success: true, data, message };
}

export function errorBody(message: string, errors?: { path: string; message: string }[]): Envelope {
  return errors ? { success: false, data: {}, message, errors } : { success: false, data: {}, message };
}

export function statusOf(err: DomainError): 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503 {
  switch (err.code) {
    case 'BAD_USER_INPUT':
      return 400;
    case 'UNAUTHENTICATED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'RATE_LIMITED':
      return 429;
    case 'IDEMPOTENCY_KEY_IN_USE':
    case 'CONFLICT':
      return 409;
    case 'IDEMPOTENCY_KEY_REUSED':
      return 422;
    case 'UNAVAILABLE':
      return 503;
  }
}
