// The node:http server in front of the app, with the limits that protect it from hostile clients:
//
// - slow headers (slowloris) and slow bodies: `headersTimeout` and `requestTimeout` answer 408 and close
//   the connection. node:http checks them every `connectionsCheckingInterval` (30 s by default, which
//   would let a slow client hold on for that long past its limit), so the check runs at least every
//   second. A slow client costs one socket and no work: Node reads asynchronously, so it never holds up
//   the requests of other clients;
// - idle keep-alive connections are closed after `keepAliveTimeout`;
// - oversized headers: `maxHeaderSize` → 431; when the request line alone is what overflows (a URL too
//   long), 414;
// - no Host header (HTTP/1.1 requires one): 400 in the envelope, with X-Request-Id like any answer;
// - too many headers: node:http does not refuse them, it silently drops the fields past `maxHeadersCount`.
//   So the server keeps one field more than allowed and answers 431 when that one is present.
//
// Errors node:http answers itself (408, 431, 400 for unparsable requests) get the API's JSON envelope.
// Requests are started in short slices of the event loop (requestScheduler.ts), so that a busy instance
// keeps accepting new connections; past the queue's bound a request is answered 503 + Retry-After at once;
// the health check (the route GET /healthz, whatever its query) starts at once.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { HttpLimits } from '../config.js';
import { errorFields, type Logger } from '../logger.js';
import type { RestErrorCode } from '../domain/shared/errorCodes.js';
import { RequestScheduler } from './requestScheduler.js';
import { requestIdFrom } from './requestContext.js';
import { pathOf } from './requestTarget.js';
import { API_SECURITY_HEADERS } from './securityHeaders.js';

/** What answers a request once the server has let it in: the app's (app.ts's `listener`). */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Routes that skip the queue: a load balancer's health check must answer when the instance is busiest. */
const UNQUEUED_ROUTES: ReadonlySet<string> = new Set(['GET /healthz', 'HEAD /healthz']);

function routeOf(req: IncomingMessage): string {
  return `${req.method} ${pathOf(req.url ?? '/')}`;
}

/**
 * Whose line a request waits in (requestScheduler.ts): its credential as sent, else the address it came from.
 * Not verified here (that comes later): a made-up credential only gets a line of its own, as a new client does.
 */
function callerOf(req: IncomingMessage): string {
  const authorization = req.headers.authorization;
  return authorization ? `a ${authorization.slice(0, 512)}` : `r ${req.socket.remoteAddress ?? ''}`;
}

/** The queue of requests waiting to start, for a server made with createHttpServer (its depth goes to /metrics). */
export function createRequestScheduler(limits: HttpLimits, logger?: Logger): RequestScheduler {
  return new RequestScheduler({
    maxWaiting: limits.maxQueuedRequests,
    onError: (err) => logger?.error('a request could not be started', errorFields(err)),
  });
}

export function createHttpServer(
  answer: NodeListener,
  limits: HttpLimits,
  logger?: Logger,
  scheduler = createRequestScheduler(limits, logger),
): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
      // node:http would answer a bare 400 itself: the listener answers it in the envelope
      requireHostHeader: false,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      if (!req.headers.host) {
        refuseWithoutHost(req, res);
        logger?.info('request refused by the HTTP server', { status: 400, code: 'MISSING_HOST' });
        return;
      }
      const unreadable = unreadableTarget(req);
      if (unreadable) {
        refuseUnreadable(req, res, unreadable);
        logger?.info('request refused by the HTTP server', { status: 400, code: 'INVALID_REQUEST_TARGET', reason: unreadable });
        return;
      }
      if (req.rawHeaders.length / 2 > limits.maxHeaders) {
        refuseTooManyHeaders(res, limits.maxHeaders);
        logger?.info('request refused by the HTTP server', { status: 431, code: 'TOO_MANY_HEADERS' });
        return;
      }
      if (UNQUEUED_ROUTES.has(routeOf(req))) answer(req, res);
      else if (!scheduler.run(() => answer(req, res), callerOf(req))) {
        refuseOverloaded(req, res);
        logger?.warn('request refused: the request queue is full', { status: 503, waiting: scheduler.waiting });
      }
    },
  );
  server.maxHeadersCount = limits.maxHeaders + 1;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, logger));
  return server;
}

/** Listens on `host:port` (0 = a free port) and answers the address actually bound. */
export function listen(server: NetServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortTakenError(port, host) : err);
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Another process listens on the port the service was told to use: said in one line, with what to do. */
export class PortTakenError extends Error {
  constructor(port: number, host: string) {
    super(`Port ${port} on ${host} is taken by another process: stop it, or set PORT to a free one (e.g. PORT=${port + 1} npm start)`);
  }
}

/**
 * Throws PortTakenError when `port` cannot be listened on now: checked before a start does its work (migrations,
 * the demo data), so that a taken port stops it before anything is made. Port 0 (any free one) is never taken.
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createNetServer();
  await listen(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** The /v1 error envelope (rest/envelope.ts), written here without the app: these answers come before it. */
export function envelope(code: RestErrorCode, message: string): string {
  return JSON.stringify({ success: false, data: {}, message, code });
}

function refuseOverloaded(req: IncomingMessage, res: ServerResponse): void {
  const body = envelope('unavailable', 'The service is overloaded; retry shortly');
  const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    'x-request-id': requestId,
  });
  res.end(body);
}

/** A Host header that names a host, with an optional port: a name, an IPv4 address or a bracketed IPv6 address. */
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/i;

/**
 * What makes a request unreadable as a URL, or undefined: a backslash in its path (URL parsing would read it
 * as a slash: a path other than the one sent), or a Host that is not a host (it would be taken as naming
 * this service, with whatever follows it read as a path).
 */
function unreadableTarget(req: IncomingMessage): string | undefined {
  if (pathOf(req.url ?? '/').includes('\\')) return 'the path holds a backslash';
  if (!HOST.test(req.headers.host ?? '')) return 'the Host header does not name a host';
  return undefined;
}

function refuseUnreadable(req: IncomingMessage, res: ServerResponse, reason: string): void {
  const body = envelope('malformed_request', `The request cannot be read: ${reason}`);
  const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
  res.writeHead(400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...API_SECURITY_HEADERS,
  });
  res.end(body);
}

function refuseWithoutHost(req: IncomingMessage, res: ServerResponse): void {
  const body = envelope('malformed_request', 'The request has no Host header (HTTP/1.1 requires one)');
  const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
  res.writeHead(400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  res.end(body);
}

function refuseTooManyHeaders(res: ServerResponse, max: number): void {
  const body = envelope('header_fields_too_large', `Too many header fields (at most ${max})`);
  // the body of the request is not read: close rather than leave it in the connection
  res.writeHead(431, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

export interface ClientError {
  status: number;
  reason: string;
  code: RestErrorCode;
  message: string;
}
const CLIENT_ERRORS: Record<string, ClientError> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'header_fields_too_large',
    message: 'The request headers are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'request_timeout',
    message: 'The request was not received in time',
  },
};
const URI_TOO_LONG: ClientError = { status: 414, reason: 'URI Too Long', code: 'uri_too_long', message: 'The request URL is too long' };
export const NOT_HTTP: ClientError = {
  status: 400,
  reason: 'Bad Request',
  code: 'malformed_request',
  message: 'The request is not valid HTTP',
};

/**
 * A header overflow whose bytes (the chunk being parsed, starting with the request line) end before the
 * request line does, or whose request line is most of them: the URL is what is too long (414), not the
 * header fields (431). A chunk from the middle of the headers cannot tell: 431.
 */
function urlOverflows(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  const packet = err.rawPacket;
  if (!packet || !/^[A-Z]+ \//.test(packet.subarray(0, 32).toString('latin1'))) return false;
  const lineEnd = packet.indexOf('\r\n');
  return lineEnd < 0 || lineEnd > packet.length / 2;
}

/**
 * What node:http would do by default (see `socketOnError` in Node's _http_server.js), with the
 * envelope as body: answer only when nothing of a response has been written to the socket yet, then
 * close it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, logger?: Logger): void {
  const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !response?.headersSent) {
    const known = err.code === 'HPE_HEADER_OVERFLOW' && urlOverflows(err) ? URI_TOO_LONG : CLIENT_ERRORS[err.code ?? ''];
    const { status, reason, code, message } = known ?? NOT_HTTP;
    const body = envelope(code, message);
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    logger?.info('request refused by the HTTP server', { status, code: err.code ?? null });
  }
  socket.destroy();
}
