// The response envelope of the specification (§1, §7) on every /v1 answer. An error adds a stable `code`
// (docs/decisions.md §9) from the catalogue (domain/shared/errorCodes.ts), for programs to match on instead of `message`.
import { restCodeOf, statusOfCode, type RestErrorCode } from '../domain/shared/errorCodes.js';
import type { DomainError } from '../domain/shared/errors.js';

export interface Envelope {
  success: boolean;
  data: unknown;
  message?: string;
  /** On errors: what kind of error, one of the catalogue's REST codes (an addition to the specification's envelope). */
  code?: RestErrorCode;
  /** Present on 400s: each invalid field and why (an addition; `message` already names them). */
  errors?: { path: string; message: string }[];
}

export function successBody(data: unknown, message?: string): Envelope {
  return message === undefined ? { success: true, data } : { success: true, data, message };
}

export function errorBody(code: RestErrorCode, message: string, errors?: { path: string; message: string }[]): Envelope {
  return errors ? { success: false, data: {}, message, code, errors } : { success: false, data: {}, message, code };
}

/** The REST code of a domain error. */
export function codeOf(err: DomainError): RestErrorCode {
  return restCodeOf(err.code);
}

export function statusOf(err: DomainError): 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503 {
  return statusOfCode(codeOf(err)) as 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503;
}
