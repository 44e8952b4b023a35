// graphql-yoga answers a POST with a content type it cannot parse (415) and a request whose Accept
// header names no media type it can produce (406) with an empty body. Every other GraphQL error is a
// JSON document with `errors`, so these two get one as well: a client always learns what went wrong.
// Their codes are in the error catalogue (domain/shared/errorCodes.ts).
import type { GraphQLErrorCode } from '../domain/shared/errorCodes.js';

const REASONS: Record<number, { code: GraphQLErrorCode; message: (request: Request) => string }> = {
  415: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: (request) =>
      `Unsupported content type "${(request.headers.get('content-type') ?? '').slice(0, 100)}"; send application/json, application/graphql+json, application/x-www-form-urlencoded or multipart/form-data`,
  },
  406: {
    code: 'NOT_ACCEPTABLE',
    message: (request) =>
      `None of the accepted media types "${(request.headers.get('accept') ?? '').slice(0, 100)}" can be produced; accept application/json or application/graphql-response+json`,
  },
};

export async function withErrorBody(response: Response, request: Request, requestId?: string): Promise<Response> {
  const reason = REASONS[response.status];
  if (!reason || response.headers.get('content-type')) return response;
  await response.body?.cancel();
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(
    JSON.stringify({
      errors: [{ message: reason.message(request), extensions: { code: reason.code, ...(requestId ? { requestId } : {}) } }],
    }),
    { status: response.status, headers },
  );
}
