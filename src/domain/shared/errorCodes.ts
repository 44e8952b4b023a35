// The catalogue of error codes: one entry per kind of error the service answers, with its code on each
// surface. REST puts the lower-case `code` in the error envelope beside `message`
// (`{success: false, data: {}, message, code}`); GraphQL keeps its upper-case `extensions.code` (docs/decisions.md §9).
// Where a concept exists on both surfaces the entry names both codes, so a client of either matches on
// the same kind of error. rest/envelope.ts, rest/openapi.ts, http/server.ts and graphql/ read their codes
// here; docs/errors.md is this table in prose, and test/api/errorCodes.test.ts keeps the two alike.

export interface ErrorCodeEntry {
  /** The `code` of the REST envelope; null for a GraphQL-only error. */
  readonly rest: string | null;
  /** The `extensions.code` of a GraphQL error; null where GraphQL never answers this kind of error. */
  readonly graphql: string | null;
  /** The HTTP status of a REST answer with this code (GraphQL's status is GraphQL over HTTP's). */
  readonly status: number;
  /** When it is answered. */
  readonly when: string;
  /** What a client does about it. */
  readonly action: string;
}

export const ERROR_CATALOGUE = [
  {
    rest: 'malformed_request',
    graphql: 'BAD_REQUEST',
    status: 400,
    when: 'The request cannot be read: the body is not valid JSON, form-urlencoded or multipart (or is cut short, or names a form field badly), the request is not valid HTTP or has no Host header.',
    action: 'Fix how the request is encoded; sending it again unchanged fails again.',
  },
  {
    rest: 'validation_failed',
    graphql: 'BAD_USER_INPUT',
    status: 400,
    when: 'The input breaks a rule: a missing, unknown or invalid field, query parameter or path id. `message` names every issue; REST adds `errors: [{path, message}]`, GraphQL `extensions.issues`.',
    action: 'Correct the fields named in `errors` (`extensions.issues`); do not retry unchanged.',
  },
  {
    rest: 'unauthenticated',
    graphql: 'UNAUTHENTICATED',
    status: 401,
    when: 'No credential, or one that is malformed, unknown, revoked or expired.',
    action: 'Send `Authorization: Bearer <API key or access token>`; get a new access token from `POST /oauth/token` when yours expired.',
  },
  {
    rest: 'forbidden',
    graphql: 'FORBIDDEN',
    status: 403,
    when: 'The credential is valid but lacks the scope for the operation, or the operation is not allowed to its organization.',
    action: 'Use a credential with the scope the message names; retrying with the same one fails again.',
  },
  {
    rest: 'not_found',
    graphql: 'NOT_FOUND',
    status: 404,
    when: "The resource does not exist or is outside the caller's reach (the two are not told apart), or no route has this path.",
    action: 'Check the id (and that it belongs to your organization or its children) and the path.',
  },
  {
    rest: 'method_not_allowed',
    graphql: null,
    status: 405,
    when: 'The path exists but not with this method; the `Allow` header lists the methods it takes.',
    action: 'Use one of the methods in `Allow`.',
  },
  {
    rest: 'request_timeout',
    graphql: null,
    status: 408,
    when: 'The request (headers or body) was not received in time; the connection is closed.',
    action: 'Send the request again on a new connection.',
  },
  {
    rest: 'conflict',
    graphql: 'CONFLICT',
    status: 409,
    when: 'The resource is not in a state that allows the change: a list at its limit, a second special day on one date, a disabled organization, a call already started. The message says why.',
    action: 'Read the resource, resolve the state the message names, then send a new request.',
  },
  {
    rest: 'idempotency_key_in_use',
    graphql: 'IDEMPOTENCY_KEY_IN_USE',
    status: 409,
    when: 'Another request with the same `Idempotency-Key` is still being answered.',
    action: 'Retry after `Retry-After` seconds with the same key: you get the first request’s answer.',
  },
  {
    rest: 'outside_call_window',
    graphql: 'OUTSIDE_CALL_WINDOW',
    status: 400,
    when: "A call request has no instant before its `notAfter` at which its organization's calling policy (windows and blocked dates in the callee's zone, and with `officeHoursOnly` the PHONE availability) allows the call. The message names the first allowed instant after `notAfter`.",
    action: 'Move `notAfter` past the instant the message names, or change the calling policy.',
  },
  {
    rest: 'call_window_closed',
    graphql: 'CALL_WINDOW_CLOSED',
    status: 409,
    when: "A runtime starts a claimed call after the callee's calling window closed. The request is queued again for its next window (that lease does not count toward `dispatch_timeout`).",
    action: 'Do not dial; claim again later.',
  },
  {
    rest: 'suppressed',
    graphql: 'SUPPRESSED',
    status: 409,
    when: "A call request's `to` is on the suppression (do-not-call) list of its organization or of its account (`/v1/suppressions`).",
    action:
      'Do not call the number. Remove it from the list (`DELETE /v1/suppressions/{number}`) only if the patient asked to be called again.',
  },
  {
    rest: 'consent_required',
    graphql: 'CONSENT_REQUIRED',
    status: 400,
    when: "A call request's `purpose` is listed in the calling policy's `requireConsentFor` and it carries no `consent`.",
    action: 'Send `consent {basis, obtainedAt, source}` as recorded from the patient, or do not place the call.',
  },
  {
    rest: 'payload_too_large',
    graphql: 'PAYLOAD_TOO_LARGE',
    status: 413,
    when: 'The body (or its decoded form) exceeds 1 MiB.',
    action: 'Send a smaller body (split the work into several requests).',
  },
  {
    rest: 'uri_too_long',
    graphql: null,
    status: 414,
    when: 'The request URL is too long for the server to read; the connection is closed.',
    action: 'Shorten the URL (fewer or shorter query parameters).',
  },
  {
    rest: 'unsupported_media_type',
    graphql: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    when: 'The body has a content type (or Content-Encoding) the service does not read.',
    action:
      'Send `application/json`, `application/x-www-form-urlencoded` or `multipart/form-data`, encoded gzip, deflate, br or not at all.',
  },
  {
    rest: 'idempotency_key_reused',
    graphql: 'IDEMPOTENCY_KEY_REUSED',
    status: 422,
    when:
      'An `Idempotency-Key` already used within 24 hours with a different request (method, path, query or body), ' +
      'or by another credential of the organization (its answer goes only to that credential).',
    action: 'Use a new key for a new request; read the resource to see what the first request did.',
  },
  {
    rest: 'rate_limited',
    graphql: 'RATE_LIMITED',
    status: 429,
    when: 'A budget is spent: the per-minute budget of the endpoint, call-request polling, or failed authentications from the client address.',
    action: 'Wait `Retry-After` seconds (GraphQL: `extensions.retryAfter`) before the next request.',
  },
  {
    rest: 'header_fields_too_large',
    graphql: null,
    status: 431,
    when: 'Too many header fields, or headers too large; the connection is closed.',
    action: 'Send fewer or smaller headers.',
  },
  {
    rest: 'internal_error',
    graphql: 'INTERNAL_SERVER_ERROR',
    status: 500,
    when: 'Never expected: a fault of the service. The message names the request id.',
    action: 'Report it quoting the request id (also in `X-Request-Id`); retrying may work.',
  },
  {
    rest: 'unavailable',
    graphql: 'UNAVAILABLE',
    status: 503,
    when: 'The service cannot take the work now: overloaded, or its database is unreachable or too slow. Nothing was changed.',
    action: 'Retry after `Retry-After` seconds (GraphQL: `extensions.retryAfter`).',
  },
  {
    rest: null,
    graphql: 'NOT_ACCEPTABLE',
    status: 406,
    when: 'GraphQL only: the `Accept` header names no media type `/graphql` can answer in.',
    action: 'Accept `application/json` or `application/graphql-response+json`.',
  },
  {
    rest: null,
    graphql: 'REPLAY_TOO_LARGE',
    status: 200,
    when: 'GraphQL only: a mutation sent again with its `Idempotency-Key` was done, but its answer was too large to keep for replays (REST answers a success envelope saying so).',
    action: 'Query the result to see it; the mutation is not run again.',
  },
  {
    rest: null,
    graphql: 'REPLAY_WITHHELD',
    status: 200,
    when:
      'GraphQL only: a mutation sent again with its `Idempotency-Key` was done, and its answer showed a secret (shown only once) ' +
      'in a form other than one JSON result (an event stream, a multipart answer), or was kept before secrets were withheld ' +
      'from replays, so it was not kept.',
    action: 'Query the result to see it; the mutation is not run again. Asked for as JSON, a replay answers the object without its secret.',
  },
  {
    rest: null,
    graphql: 'GRAPHQL_PARSE_FAILED',
    status: 400,
    when:
      'GraphQL only: the document is not GraphQL (a syntax error; the message gives the line and column). 400 to a client that ' +
      'accepts `application/graphql-response+json`, 200 with `errors` to one that accepts only `application/json`.',
    action: 'Fix the document where the message points; sending it again unchanged fails again.',
  },
  {
    rest: null,
    graphql: 'GRAPHQL_VALIDATION_FAILED',
    status: 400,
    when:
      'GraphQL only: the document parses but does not fit the schema (an unknown field or argument, a missing required ' +
      'argument, too deep or too many aliases). 400 or 200 as for `GRAPHQL_PARSE_FAILED`.',
    action: 'Check the document against `schema.graphql` (or GraphiQL, which underlines what does not fit).',
  },
] as const satisfies readonly ErrorCodeEntry[];

type Entry = (typeof ERROR_CATALOGUE)[number];

/** A `code` of the REST error envelope. */
export type RestErrorCode = Exclude<Entry['rest'], null>;
/** An `extensions.code` of a GraphQL error. */
export type GraphQLErrorCode = Exclude<Entry['graphql'], null>;

/** Every REST code, in the catalogue's order (the OpenAPI enum). */
export const REST_ERROR_CODES: readonly RestErrorCode[] = ERROR_CATALOGUE.flatMap((e) => (e.rest === null ? [] : [e.rest]));

const byRest = new Map<string, Entry>(ERROR_CATALOGUE.flatMap((e) => (e.rest === null ? [] : [[e.rest, e] as const])));
const byGraphQL = new Map<string, Entry>(ERROR_CATALOGUE.flatMap((e) => (e.graphql === null ? [] : [[e.graphql, e] as const])));

/** The catalogue's entry of a REST code. */
export function errorEntry(code: RestErrorCode): Entry {
  return byRest.get(code)!;
}

/** The REST status of a REST code. */
export function statusOfCode(code: RestErrorCode): number {
  return byRest.get(code)!.status;
}

/** The REST code of the same error as a GraphQL code (a domain error's `code`). */
export function restCodeOf(graphqlCode: GraphQLErrorCode): RestErrorCode {
  const rest = byGraphQL.get(graphqlCode)?.rest;
  if (!rest) throw new Error(`error catalogue: ${graphqlCode} has no REST code`);
  return rest;
}

/** The GraphQL code of the same error as a REST code (a body refused before GraphQL reads it). */
export function graphqlCodeOf(restCode: RestErrorCode): GraphQLErrorCode | null {
  return byRest.get(restCode)!.graphql;
}

/** The REST codes answered with `status` (the enum of each error response in the OpenAPI document). */
export function restCodesOfStatus(status: number): RestErrorCode[] {
  return REST_ERROR_CODES.filter((code) => byRest.get(code)!.status === status);
}
