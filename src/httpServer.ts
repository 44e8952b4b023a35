// The node:http server in front of the app, with the limits that protect it from hostile clients:
//
// - slow headers (slowloris) and slow bodies: `headersTimeout` and `requestTimeout` answer 408 and close
//   the connection. node:http checks them every `connectionsCheckingInterval` (30 s by default, which
//   would let a slow client hold on for that long past its limit), so the check runs at least every
//   second. A slow client costs one socket and no work: Node reads asynchronously, so it never holds up
//   the requests of other clients;
// - idle keep-alive connections are closed after `keepAliveTimeout`;
// - oversized headers: `maxHeaderSize` → 431;
// - too many headers: node:http does not refuse them, it silently drops the fields past `maxHeadersCount`.
//   So the server keeps one field more than allowed and answers 431 when that one is present.
//
// Errors node:http answers itself (408, 431, 400 for unparsable requests) get the API's JSON envelope.
// Requests are started in short slices of the event loop (requestScheduler.ts), so that a busy instance
// keeps accepting new connections; `/healthz` starts at once.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { HttpLimits } from './config.js';
import type { Logger } from './logger.js';
import { RequestScheduler } from './requestScheduler.js';

/** `app.fetch`: called with the request and `{incoming, outgoing}` (getConnInfo reads the socket from there). */
type FetchHandler = Parameters<typeof getRequestListener>[0];

export function createHttpServer(fetch: FetchHandler, limits: HttpLimits, logger?: Logger): Server {
  const listener = getRequestListener(fetch);
  const scheduler = new RequestScheduler();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (req: IncomingMessage, res: ServerResponse) => {
      if (req.rawHeaders.length / 2 > limits.maxHeaders) {
        refuseTooManyHeaders(res, limits.maxHeaders);
        logger?.info('request refused by the HTTP server', { status: 431, code: 'TOO_MANY_HEADERS' });
        return;
      }
      if (req.url === '/healthz') void listener(req, res);
      else scheduler.run(() => void listener(req, res));
    },
  );
  server.maxHeadersCount = limits.maxHeaders + 1;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, logger));
  return server;
}

/** Listens on `host:port` (0 = a free port) and answers the address actually bound. */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function envelope(message: string): string {
  return JSON.stringify({ success: false, data: {}, message });
}

function refuseTooManyHeaders(res: ServerResponse, max: number): void {
  const body = envelope(`Too many header fields (at most ${max})`);
  // the body of the request is not read: close rather than leave it in the connection
  res.writeHead(431, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request was not received in time' },
};

/**
 * What node:http would do by default (see `socketOnError` in Node's _http_server.js), with the
 * envelope as body: answer only when nothing of a response has been written to the socket yet, then
 * close it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, logger?: Logger): void {
  const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !response?.headersSent) {
    const known = CLIENT_ERRORS[err.code ?? ''];
    const { status, reason, message } = known ?? { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP' };
    const body = envelope(message);
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    logger?.info('request refused by the HTTP server', { status, code: err.code ?? null });
  }
  socket.destroy();
}
