// Hostile clients against the real HTTP server (http/server.ts) on 127.0.0.1, spoken to with raw
// sockets: slow headers and slow bodies (slowloris) are cut with 408 while other clients are served,
// idle connections are closed, oversized and too many headers are refused with 431, and garbage is a
// 400 — each in the API's envelope, none of them a 5xx or a stack trace in the log.
import type { Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({
  env: {
    HTTP_HEADERS_TIMEOUT_MS: '1500',
    HTTP_REQUEST_TIMEOUT_MS: '3000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    HTTP_MAX_HEADER_BYTES: '8192',
    HTTP_MAX_HEADERS: '30',
    RATE_LIMIT_PER_MINUTE: '1000',
  },
});

let server: Server;
let port: number;
const logLines: string[] = [];

beforeAll(async () => {
  // the app of the harness, logging into `logLines` so that the tests can look for errors
  const logger = createLogger('info', (line) => logLines.push(line));
  const app = createApp({ ...t.deps, logger });
  await app.ready();
  server = createHttpServer(app.listener, t.deps.config.http, logger);
  port = (await listen(server, 0, '127.0.0.1')).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>;
  isClosed(): boolean;
}

/** A raw TCP connection that records what the server sends and when it closes. */
function connect(): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let closed = false;
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => {}); // a reset after the server's answer is expected
    const closedPromise = new Promise<string>((r) =>
      socket.on('close', () => {
        closed = true;
        r(data);
      }),
    );
    socket.once('connect', () => resolve({ socket, received: () => data, closed: closedPromise, isClosed: () => closed }));
    socket.once('error', reject);
  });
}

/** Writes `chunk` every `everyMs` until the connection closes (the slow client). */
function drip(connection: RawConnection, chunk: string, everyMs = 100): void {
  const timer = setInterval(() => {
    if (!connection.isClosed()) connection.socket.write(chunk);
  }, everyMs);
  void connection.closed.then(() => clearInterval(timer));
}

/** Status line and parsed JSON body of one raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { status: number; headers: string; body: unknown } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
  const text = rest.join('\r\n\r\n');
  return { status, headers: head ?? '', body: text ? JSON.parse(text) : undefined };
}

const envelope = (code: string, message: string | RegExp) => ({
  success: false,
  data: {},
  code,
  message: typeof message === 'string' ? message : expect.stringMatching(message),
});

function authorized(path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` } });
}

function serverErrorsLogged(): string[] {
  return logLines.filter((l) => /"level":"error"|"status":5\d\d/.test(l));
}

describe('slow clients (slowloris)', () => {
  it('cuts slow headers and slow bodies with 408 while other clients are served', async () => {
    const orgId = t.demo.organizations.clinic.id;
    expect((await authorized(`/v1/organizations/${orgId}`)).status).toBe(200); // warm up
    const closuresBefore = await t.db.prisma.closure.count();

    // 20 clients that never finish their headers, 20 that never finish their body
    const slowHeaders = await Promise.all(Array.from({ length: 20 }, () => connect()));
    for (const c of slowHeaders) {
      c.socket.write(`GET /v1/organizations/${orgId} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      drip(c, 'X-Slow: a\r\n', 200);
    }
    const body = JSON.stringify({ description: 'Slow', annualDate: { month: 7, day: 4 }, chatGreeting: null, phoneGreeting: null });
    const slowBodies = await Promise.all(Array.from({ length: 20 }, () => connect()));
    for (const c of slowBodies) {
      c.socket.write(
        `POST /v1/organizations/${orgId}/closures HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.demo.organizations.clinic.apiKey}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      drip(c, ' ', 200); // whitespace, still valid JSON if it were ever finished
    }

    // other clients are answered while all 40 are still connected
    const served = await Promise.all([
      authorized(`/v1/organizations/${orgId}`),
      authorized(`/v1/organizations/${orgId}/closures`),
      fetch(`http://127.0.0.1:${port}/healthz`),
    ]);
    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    expect([...slowHeaders, ...slowBodies].filter((c) => c.isClosed())).toHaveLength(0);

    // then every slow client is answered 408 in the envelope and disconnected
    for (const raw of await Promise.all([...slowHeaders, ...slowBodies].map((c) => c.closed))) {
      const answer = parseAnswer(raw);
      expect(answer.status).toBe(408);
      expect(answer.headers).toMatch(/\r\nConnection: close/i);
      expect(answer.body).toEqual(envelope('request_timeout', 'The request was not received in time'));
    }
    expect(await t.db.prisma.closure.count()).toBe(closuresBefore); // no half-received body was written
    expect((await authorized(`/v1/organizations/${orgId}`)).status).toBe(200);
    expect(serverErrorsLogged()).toEqual([]);
  });

  it('closes a connection that never sends a byte', async () => {
    const silent = await connect();
    expect(parseAnswer(await silent.closed).status).toBe(408);
  });

  it('closes an idle keep-alive connection after its request was answered', async () => {
    const c = await connect();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const raw = await c.closed; // without the keep-alive timeout this would wait for the test's timeout
    expect(parseAnswer(raw).status).toBe(200);
    expect(parseAnswer(raw).headers).toMatch(/\r\nConnection: keep-alive/i);
  });
});

describe('oversized and too many headers', () => {
  async function send(request: string): Promise<ReturnType<typeof parseAnswer>> {
    const c = await connect();
    c.socket.write(request);
    return parseAnswer(await c.closed);
  }
  const request = (headers: string[]) =>
    `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;

  it('refuses headers over HTTP_MAX_HEADER_BYTES with 431', async () => {
    const answer = await send(request([`X-Big: ${'a'.repeat(9000)}`]));
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual(envelope('header_fields_too_large', 'The request headers are too large'));
    // just under the limit is served
    expect((await send(request([`X-Big: ${'a'.repeat(7000)}`]))).status).toBe(200);
  });

  it('refuses more than HTTP_MAX_HEADERS header fields with 431 (node:http would drop them silently)', async () => {
    // Host and Connection are two of the 30
    const answer = await send(request(Array.from({ length: 29 }, (_, i) => `X-H${i}: ${i}`)));
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual(envelope('header_fields_too_large', 'Too many header fields (at most 30)'));
    expect((await send(request(Array.from({ length: 28 }, (_, i) => `X-H${i}: ${i}`)))).status).toBe(200);
    // far more fields than node:http's own default of 2000
    expect((await send(request(Array.from({ length: 2500 }, (_, i) => `X${i}: 1`)))).status).toBe(431);
  });

  it('answers an overlong URL with 414, not 431', async () => {
    const answer = await send(`GET /v1/organizations?x=${'a'.repeat(9000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(414);
    expect(answer.body).toEqual(envelope('uri_too_long', 'The request URL is too long'));
  });

  it('answers a request without Host in the envelope, with X-Request-Id', async () => {
    const answer = await send('GET /healthz HTTP/1.1\r\nConnection: close\r\nX-Request-Id: no-host-1\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(envelope('malformed_request', 'The request has no Host header (HTTP/1.1 requires one)'));
    expect(answer.headers.toLowerCase()).toContain('x-request-id: no-host-1');
  });

  it('answers a request that is not HTTP with 400', async () => {
    const answer = await send('HELLO THERE\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(envelope('malformed_request', 'The request is not valid HTTP'));
  });
});
