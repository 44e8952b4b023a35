// The GETs of /v1 answered straight from node:http's request onto its response, without building a
// fetch Request, a Hono context and a fetch Response for them. A cached read (an organization, its
// office hours, its availability) does little work of its own, so those conversions and the middleware
// chain were most of what it cost; reads are most of the traffic.
//
// Nothing is left out: the same pipeline as every route (router.ts's answerGet: authentication under
// the failed-attempt budget, the route's budget and its X-RateLimit-* headers, the query checks, ETag and
// 304), the same error envelope (errors.ts), and the same transport (http/): the request id (kept or
// made) in X-Request-Id and on every log line, the security headers, one log line and the request
// metrics. The route table is the one the router registers (routes/index.ts); a path is answered here
// only when exactly one GET route matches it the way Hono matches it (trailing slash ignored, parameters
// percent-decoded), and no route registered before them does.
//
// Left to Hono (the same pipeline, through the middleware): HEAD, OPTIONS, any other method, and every
// request while CORS is open (hono/cors decides its headers there), and a request carrying more than one
// Authorization header (node:http keeps the first one of such a repeated field; a fetch Request joins
// them and the request is refused, as it must be). Also left to it, because the node:http adapter makes
// a URL of them first (a dot segment removed, `%2e%2e` included; a backslash or a Host that is not a
// host refused), which this path's plain reading would not do: a path with a dot segment or a
// backslash, and a Host header other than a plain `name[:port]`.
//
// app.ts uses this answerer for node:http (answerNode) and for `app.fetch` (the tests' way in), so the
// API tests go through it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getPathNoStrict, tryDecodeURIComponent } from 'hono/utils/url';
import type { AppDeps } from '../deps.js';
import { errorFields } from '../logger.js';
import { addressOf } from '../http/clientAddress.js';
import { answerMade, depsForRequest, REQUEST_ID_HEADER, requestIdFrom } from '../http/requestContext.js';
import { repeatsField } from '../http/repeatedFields.js';
import { API_SECURITY_HEADERS } from '../http/securityHeaders.js';
import { recordAnswer, type TransportOptions } from '../http/transport.js';
import { restErrorAnswer } from './errors.js';
import type { RouteDef } from './route.js';
import { answerGet, type GetProgress } from './router.js';

/** A request as the direct path reads it. */
export interface DirectRequest {
  method: string;
  /** The request target as sent: a path with its query (`/v1/…?…`); anything else is left to Hono. */
  target: string;
  /** A header by its lower-case name; repeated fields joined with ", " (as a fetch Request does). */
  header(name: string): string | undefined;
  /** The peer's address (undefined without a socket). */
  socketAddress: string | undefined;
}

export interface DirectAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: string | null;
}

/** Answers the request, or null when it is Hono's to answer. */
export type DirectAnswerer = (request: DirectRequest) => Promise<DirectAnswer> | null;

/** A dot segment (`.`, `..`, either percent-encoded) in a path: URL parsing removes it (`/a/%2e%2e/b` is `/b`). */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;
/** A Host the adapter takes as it is (its own test, @hono/node-server's reValidHost): anything else it parses or refuses. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** True when the path of `target` reads the same before and after URL parsing (see the head of this file). */
function plainPath(target: string): boolean {
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  return path.indexOf('\\') < 0 && !DOT_SEGMENT.test(path);
}

interface CompiledRoute {
  route: RouteDef;
  /** "GET /v1/…" as the route label (log line, metrics). */
  label: string;
  /** Per segment: the literal text, or null for a parameter. */
  segments: (string | null)[];
  names: (string | null)[];
}

function compile(route: { method: string; path: string }): { segments: (string | null)[]; names: (string | null)[] } {
  const parts = route.path.split('/');
  return { segments: parts.map((p) => (p.startsWith(':') ? null : p)), names: parts.map((p) => (p.startsWith(':') ? p.slice(1) : null)) };
}

function matches(segments: (string | null)[], parts: string[]): boolean {
  if (segments.length !== parts.length) return false;
  for (let i = 0; i < parts.length; i++) {
    const want = segments[i];
    // a parameter is one non-empty segment, as Hono's routers match `:name`
    if (want === null ? parts[i] === '' : want !== parts[i]) return false;
  }
  return true;
}

/**
 * The direct answerer for `routes` (their GETs). `earlier`: GET routes registered on the app before
 * them (a path one of those matches is left to Hono).
 */
export function createDirectAnswerer(
  deps: AppDeps,
  routes: readonly RouteDef[],
  earlier: readonly { method: string; path: string }[],
  observe: TransportOptions['observe'],
): DirectAnswerer {
  const gets: CompiledRoute[] = routes
    .filter((r) => r.method === 'GET')
    .map((route) => ({ route, label: `GET ${route.path}`, ...compile(route) }));
  const before = earlier.filter((r) => r.method === 'GET').map((r) => compile(r).segments);
  const corsOpen = deps.config.corsOrigins.length > 0;
  const trustProxy = deps.config.trustProxy;

  return (request) => {
    if (request.method !== 'GET' || corsOpen || request.target.charCodeAt(0) !== 47 /* / */ || !plainPath(request.target)) return null;
    // the absolute URL Hono reads the path and the query from (only the path and the query matter here)
    const url = `http://localhost${request.target}`;
    const path = getPathNoStrict({ url } as Request);
    const parts = path.split('/');
    let found: CompiledRoute | undefined;
    for (const candidate of gets) {
      if (!matches(candidate.segments, parts)) continue;
      if (found) return null; // two routes match: Hono's order decides, not this
      found = candidate;
    }
    if (!found) return null;
    for (const segments of before) if (matches(segments, parts)) return null;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const name = found.names[i];
      if (name) params[name] = tryDecodeURIComponent(parts[i]!);
    }
    return answer(found, url, path, params, request);
  };

  async function answer(
    found: CompiledRoute,
    url: string,
    path: string,
    params: Record<string, string>,
    request: DirectRequest,
  ): Promise<DirectAnswer> {
    const started = performance.now();
    const requestId = requestIdFrom(request.header('x-request-id'));
    const requestDeps = depsForRequest(deps, requestId);
    const progress: GetProgress = { headers: {} };
    let status: number;
    let body: string | null;
    try {
      const address = addressOf(trustProxy ? request.header('x-forwarded-for') : undefined, request.socketAddress);
      ({ status, body } = await answerGet(
        found.route,
        requestDeps,
        { url, params, header: (name) => request.header(name), address },
        progress,
      ));
    } catch (err) {
      const refusal = restErrorAnswer(err, requestDeps.logger, path, requestId);
      status = refusal.status;
      body = JSON.stringify(refusal.body);
      Object.assign(progress.headers, refusal.headers);
    }
    answerMade(requestDeps);
    const headers: Record<string, string | number> = progress.headers;
    headers[REQUEST_ID_HEADER] = requestId;
    Object.assign(headers, API_SECURITY_HEADERS);
    if (body !== null) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    recordAnswer(requestDeps.logger, observe, {
      method: 'GET',
      route: found.label,
      status,
      operation: undefined,
      orgId: progress.orgId,
      durationMs: performance.now() - started,
    });
    return { status, headers, body };
  }
}

const CREDENTIAL = ['authorization'];

/** The request of node:http as the direct path reads it; null when it cannot be read the way Hono would (a repeated Authorization). */
export function directRequestOf(incoming: IncomingMessage): DirectRequest | null {
  if (repeatsField(incoming.rawHeaders, CREDENTIAL)) return null;
  const headers = incoming.headers;
  const host = headers.host;
  if (host !== undefined && !PLAIN_HOST.test(host)) return null;
  return {
    method: incoming.method ?? 'GET',
    target: incoming.url ?? '/',
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    socketAddress: incoming.socket.remoteAddress,
  };
}

/** Writes a direct answer on node:http's response. */
export function writeDirectAnswer(response: ServerResponse, answer: DirectAnswer): void {
  // names on the wire as Hono's path writes them (a fetch Headers lowercases), so a client that matches them
  // case-sensitively sees one service, whichever path answered
  const headers: Record<string, string | number> = {};
  for (const name in answer.headers) headers[name.toLowerCase()] = answer.headers[name]!;
  response.writeHead(answer.status, headers);
  if (answer.body === null) response.end();
  else response.end(answer.body);
}

/** A direct answer as a fetch Response (app.fetch). */
export function directResponse(answer: DirectAnswer): Response {
  const headers = new Headers();
  for (const name in answer.headers) if (name !== 'Content-Length') headers.set(name, String(answer.headers[name]));
  return new Response(answer.body, { status: answer.status, headers });
}

/** The request of a fetch Request as the direct path reads it. */
export function directRequestOfFetch(request: Request, socketAddress: string | undefined): DirectRequest {
  const url = request.url;
  const pathStart = url.indexOf('/', url.indexOf(':') + 3);
  return {
    method: request.method,
    target: pathStart < 0 ? '/' : url.slice(pathStart),
    header: (name) => request.headers.get(name) ?? undefined,
    socketAddress,
  };
}

/** Logs what failed outside the pipeline (a bug of ours) and answers a bare 500 if nothing went out yet. */
export function directFailure(deps: AppDeps, response: ServerResponse, err: unknown): void {
  deps.logger.error('a request failed outside the app', errorFields(err));
  if (!response.headersSent) {
    response.writeHead(500, { 'Content-Type': 'text/plain' });
  }
  response.end();
}

/** For node:http: answers the request directly and says true, or says false (Hono's to answer). */
export function directNodeListener(
  direct: DirectAnswerer,
  deps: AppDeps,
): (incoming: IncomingMessage, response: ServerResponse) => boolean {
  return (incoming, response) => {
    const request = directRequestOf(incoming);
    const pending = request && direct(request);
    if (!pending) return false;
    pending.then(
      (answer) => writeDirectAnswer(response, answer),
      (err: unknown) => directFailure(deps, response, err),
    );
    return true;
  };
}
