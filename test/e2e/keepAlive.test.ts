// Keep-alive behind a load balancer (issue 39 §5, docs/operating.md "Keep-alive"): the server keeps an idle
// connection open for HTTP_KEEP_ALIVE_TIMEOUT_MS (65 s by default, past a load balancer's 60 s idle timeout),
// so a connection reused just before that is answered, not reset; the headers timeout is longer still. Real
// sockets on 127.0.0.1: the timeouts are node:http's own timers, so the test waits a small configured one out.
import type { Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type HttpLimits } from '../../src/config.js';
import { createHttpServer, listen } from '../../src/http/server.js';

const KEEP_ALIVE_MS = 2_000;
/** The reuse comes this long after the answer: a quarter of the timeout before the server would close. */
const REUSE_AFTER_MS = 1_500;

const limits: HttpLimits = {
  ...loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS), HTTP_HEADERS_TIMEOUT_MS: '3000', HTTP_REQUEST_TIMEOUT_MS: '4000' })
    .http,
};

let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createHttpServer((_request, response) => {
    // framed by Content-Length, as the connection below reads answers
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 });
    response.end('{"ok":true}');
  }, limits);
  server.on('connection', () => connections++);
  port = (await listen(server, 0, '127.0.0.1')).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** One connection that sends a request at a time and collects each whole answer (Content-Length bodies). */
function connection() {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: ((answer: string) => void) | undefined;
  const events: string[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const answer = buffer.slice(0, end + 4 + length);
    buffer = buffer.slice(end + 4 + length);
    const resolve = waiting;
    waiting = undefined;
    resolve(answer);
  });
  socket.on('error', (err) => events.push(`error ${(err as NodeJS.ErrnoException).code}`));
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
  return {
    events,
    closed,
    ask(path: string): Promise<string> {
      return new Promise((resolve) => {
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      });
    },
    destroy: () => socket.destroy(),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a kept-alive connection', () => {
  it('reused just before the keep-alive timeout is answered on the same connection, and closed once idle past it', async () => {
    const before = connections;
    const client = connection();
    try {
      const first = await client.ask('/v1/first');
      expect(first).toMatch(/^HTTP\/1\.1 200 /);
      // what a client (Node's agent, undici) reads to close its side first
      expect(first).toMatch(/\r\nKeep-Alive: timeout=2\r\n/i);
      expect(first).toMatch(/\r\nConnection: keep-alive\r\n/i);

      await pause(REUSE_AFTER_MS);
      const second = await client.ask('/v1/second');
      expect(second).toMatch(/^HTTP\/1\.1 200 /);
      await pause(REUSE_AFTER_MS);
      expect(await client.ask('/v1/third')).toMatch(/^HTTP\/1\.1 200 /);
      const idleSince = performance.now();
      expect(connections - before).toBe(1);
      expect(client.events).toEqual([]);

      // left idle, the server closes it after its configured timeout (not Node's 5 s default), without a reset
      const closedAt = await Promise.race([client.closed, pause(KEEP_ALIVE_MS + 2_500).then(() => Number.NaN)]);
      expect(closedAt - idleSince).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
      expect(closedAt - idleSince).toBeLessThan(KEEP_ALIVE_MS + 2_500);
      expect(client.events).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('by default, stays open past a load balancer’s 60 s idle timeout, and the headers timeout is longer still', () => {
    const defaults = createHttpServer((_request, response) => response.end(), loadConfig({}).http);
    expect(defaults.keepAliveTimeout).toBe(65_000);
    expect(defaults.headersTimeout).toBe(66_000);
    expect(defaults.requestTimeout).toBeGreaterThanOrEqual(defaults.headersTimeout);
  });
});
