// Maps anything thrown while answering a /v1 request to a status and the error envelope.
// Domain errors keep their message; anything else is a masked 500 (and logged), never a stack trace.
import type { Context } from 'hono';
import { asUnavailable } from '../domain/databaseErrors.js';
import { DomainError, IdempotencyKeyInUse, InvalidInput, RateLimited, Unauthenticated, Unavailable } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { internalErrorMessage } from '../http/requestContext.js';
import type { AppEnv } from '../http/appEnv.js';
import { BodyError } from '../http/body.js';
import { codeOf, errorBody, statusOf } from './envelope.js';

export function restErrorResponse(c: Context<AppEnv>, thrown: unknown, logger: Logger): Response {
  if (thrown instanceof BodyError) return c.json(errorBody(thrown.code, thrown.message), thrown.status);
  // a database that cannot take the work now is a 503 with Retry-After, wherever it was noticed
  const err = asUnavailable(thrown) ?? thrown;
  if (err instanceof DomainError) {
    const status = statusOf(err);
    if (err instanceof Unauthenticated) c.header('WWW-Authenticate', 'Bearer realm="office-communications", error="invalid_token"');
    if (err instanceof RateLimited || err instanceof IdempotencyKeyInUse || err instanceof Unavailable) c.header('Retry-After', String(err.retryAfter));
    return c.json(errorBody(codeOf(err), err.message, err instanceof InvalidInput ? err.issues : undefined), status);
  }
  logger.error('unhandled error', { ...errorFields(err), path: c.req.path });
  // never expected; the id lets a support ticket find the log line with the cause
  return c.json(errorBody('internal_error', internalErrorMessage(c.get('requestId'))), 500);
}
