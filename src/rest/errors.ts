// Maps anything thrown while answering a /v1 request to a status and the error envelope.
// Domain errors keep their message; anything else is a masked 500 (and logged), never a stack trace.
import type { FastifyReply } from 'fastify';
import { asUnavailable } from '../domain/shared/databaseErrors.js';
import { DomainError, IdempotencyKeyInUse, InvalidInput, RateLimited, Unauthenticated, Unavailable } from '../domain/shared/errors.js';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { internalErrorMessage } from '../http/requestContext.js';
import { BodyError } from '../http/body.js';
import { codeOf, type Envelope, errorBody, statusOf } from './envelope.js';

/** An error answer as data: the status, the headers it adds, the envelope. */
export interface RestErrorAnswer {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;
  headers: Record<string, string>;
  body: Envelope;
}

export const WWW_AUTHENTICATE = 'Bearer realm="office-communications", error="invalid_token"';

/** What `thrown` answers; `path` and `requestId` only go into the log line and the message of a 500. */
export function restErrorAnswer(thrown: unknown, logger: Logger, path: string, requestId: string | undefined): RestErrorAnswer {
  if (thrown instanceof BodyError) return { status: thrown.status, headers: {}, body: errorBody(thrown.code, thrown.message) };
  // a database that cannot take the work now is a 503 with Retry-After, wherever it was noticed
  const err = asUnavailable(thrown) ?? thrown;
  if (err instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (err instanceof Unauthenticated) headers['WWW-Authenticate'] = WWW_AUTHENTICATE;
    if (err instanceof RateLimited || err instanceof IdempotencyKeyInUse || err instanceof Unavailable)
      headers['Retry-After'] = String(err.retryAfter);
    return {
      status: statusOf(err),
      headers,
      body: errorBody(codeOf(err), err.message, err instanceof InvalidInput ? err.issues : undefined),
    };
  }
  logger.error('unhandled error', { ...errorFields(err), path });
  // never expected; the id lets a support ticket find the log line with the cause
  return { status: 500, headers: {}, body: errorBody('internal_error', internalErrorMessage(requestId)) };
}

/** Writes what `thrown` answers on the reply: the Fastify app's error handler (app.ts). */
export function sendRestError(
  reply: FastifyReply,
  thrown: unknown,
  logger: Logger,
  path: string,
  requestId: string | undefined,
): FastifyReply {
  const answer = restErrorAnswer(thrown, logger, path, requestId);
  return reply.code(answer.status).headers(answer.headers).type('application/json').send(JSON.stringify(answer.body));
}
