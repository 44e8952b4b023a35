// A /v1 route is declared once, as data: method, path, the domain's zod schemas (used for form
// coercion and for the OpenAPI document) and a handler that calls one domain function. The router
// (rest/router.ts) adds authentication, body parsing, the envelope and error mapping to all of them.
import type { z } from 'zod';
import type { RestDeps } from './deps.js';
import type { Actor, Scope } from '../domain/shared/access.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteContext {
  actor: Actor;
  deps: RestDeps;
  params: Record<string, string>;
  /** Query parameters as sent (strings), for a route that declares `query` (else none); the domain parses them. */
  query: Record<string, string>;
  /** The body after parsing (and form coercion); undefined when there was none. */
  body: unknown;
}

export interface RouteResult<Data = unknown> {
  data: Data;
  message?: string;
  status?: number;
}

/**
 * The answer of a route that streams (`stream: 'ndjson'`): pages of lines, each line one value of `response`,
 * written out as they come (application/x-ndjson), without the envelope. Read lazily: the next page is asked for
 * only when the client took the one before, and not at all once it went away.
 */
export interface RouteStreamResult<Line = unknown> {
  lines: AsyncIterable<readonly Line[]>;
}

/** The 4xx statuses a route may document (beyond those every route answers). */
export type RouteErrorStatus = 400 | 403 | 404 | 409;

export interface RouteDef<Response extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** The route's path under the origin (Fastify's form), e.g. "/v1/organizations/:orgId/closures". */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** The scope the domain function requires: the domain enforces it; idempotency checks it before a key is claimed or replayed (idempotency.ts). */
  scope: Scope;
  /** Which budget the request draws on (spec §8): the per-minute default, or call-request polling. */
  budget?: 'perMinute' | 'callRequestPoll';
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * The body is needed although every field of `body` is optional (a rule across fields the domain checks, such as
   * "exactly one of"): the document then declares it required. Otherwise a body that takes `{}` may be left out.
   */
  bodyRequired?: true;
  /** The `data` of a successful answer, from the domain module (documentation; the handler must return it). */
  response: Response;
  /**
   * The answer is a stream of JSON lines (application/x-ndjson), each a value of `response`, instead of the envelope:
   * for a range too large for one answer (an export). The handler answers `{ lines }`. Refusals before the first
   * line are enveloped errors like any other; no ETag.
   */
  stream?: 'ndjson';
  /** The status of a successful answer (default 200); 202 for work accepted and done later (the handler answers it too). */
  successStatus?: 200 | 202;
  /** Route-specific reasons for an error status, added to the document's description of that status. */
  errors?: Partial<Record<RouteErrorStatus, string>>;
  handler(ctx: RouteContext): Promise<RouteResult<z.output<Response>> | RouteStreamResult<z.output<Response>>>;
  /**
   * GET only: top-level fields of `data` the ETag leaves out because they only echo the time of the
   * request (availability's `at`, `localTime`); a 304 then means "nothing else changed" (conditionalGet.ts).
   */
  etagOmits?: readonly string[];
}

export function defineRoute<Response extends z.ZodType>(def: RouteDef<Response>): RouteDef<Response> {
  return def;
}
