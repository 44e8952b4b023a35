// A busy instance keeps accepting connections (requestScheduler.ts). libuv accepts one connection per
// event-loop iteration; without the scheduler an iteration runs every request that arrived, so with
// hundreds of busy keep-alive connections the ones still waiting to be accepted starve (measured: 120 of
// 400 unanswered after 10 s). The test counts answers, not time: every connection must get its first
// answer before the server has answered a bounded number of requests in total.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, createRequestScheduler, listen } from '../../src/http/server.js';
import { RequestScheduler } from '../../src/http/requestScheduler.js';
import type { HttpLimits } from '../../src/config.js';

/** The answer of a request's work: its path, as JSON. */
function answerPath(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({ path: (request.url ?? '/').split('?')[0] });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** CPU each request costs (ms): a few hundred connections then keep every iteration busy. */
const WORK_MS = 1;
const CONNECTIONS = 200;
/** Without the scheduler the last connection is first answered after about CONNECTIONS² / 2 = 20,000 answers. */
const MAX_ANSWERS = 4_000;

const limits: HttpLimits = {
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 30_000,
  maxHeaderBytes: 16_384,
  maxHeaders: 100,
  maxQueuedRequests: 10_000,
};

let server: Server;
let port: number;

/**
 * The real clock, taken before any test can fake it: requests still queued when this file ends are started
 * after it (the scheduler drains its queue whatever the sockets became), and the next file in this worker may
 * fake `performance`; busy work timed by a frozen clock would never end.
 */
const now = performance.now.bind(performance);

beforeAll(async () => {
  const busy = (request: IncomingMessage, response: ServerResponse) => {
    const until = now() + WORK_MS;
    while (now() < until) {
      // the work of a request
    }
    answerPath(request, response);
  };
  server = createHttpServer(busy, limits);
  port = (await listen(server, 0, '127.0.0.1')).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('an instance under load', () => {
  it(`answers each of ${CONNECTIONS} connections opened at once before it has answered ${MAX_ANSWERS} requests`, async () => {
    let answers = 0;
    const firstAnswerAt: (number | null)[] = Array.from({ length: CONNECTIONS }, () => null);
    const sockets: net.Socket[] = [];
    const request = 'GET /v1/work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const done = new Promise<void>((resolve) => {
      const check = () => {
        if (answers >= MAX_ANSWERS || firstAnswerAt.every((at) => at !== null)) resolve();
      };
      for (let i = 0; i < CONNECTIONS; i++) {
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        let buffered = '';
        socket.setEncoding('latin1');
        socket.on('connect', () => socket.write(request));
        socket.on('error', () => {});
        socket.on('data', (chunk: string) => {
          buffered += chunk;
          // one answer per request (Content-Length framed); each answer sends the next request
          for (;;) {
            const end = buffered.indexOf('\r\n\r\n');
            if (end < 0) return;
            const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
            if (buffered.length < end + 4 + length) return;
            buffered = buffered.slice(end + 4 + length);
            answers++;
            firstAnswerAt[i] ??= answers;
            if (answers < MAX_ANSWERS) socket.write(request);
            check();
          }
        });
      }
    });
    await done;
    for (const socket of sockets) socket.destroy();
    const unanswered = firstAnswerAt.filter((at) => at === null).length;
    expect(unanswered, `connections without an answer after ${answers} answers`).toBe(0);
    expect(Math.max(...(firstAnswerAt as number[]))).toBeLessThan(MAX_ANSWERS);
  });

  it('answers /healthz on a new connection before the queued requests of the busy ones', async () => {
    // 100 busy connections, each with 3 pipelined requests waiting to start
    const sockets: net.Socket[] = [];
    let answers = 0;
    for (let i = 0; i < 100; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1').split('HTTP/1.1 200').length - 1));
      socket.write('GET /v1/work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(3));
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answersBefore = answers;
    const health = await new Promise<{ status: string; answersMeanwhile: number }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve({ status: text.slice(0, 12), answersMeanwhile: answers - answersBefore }));
    });
    for (const socket of sockets) socket.destroy();
    expect(health.status).toBe('HTTP/1.1 200');
    // the 300 queued requests are not all answered first
    expect(health.answersMeanwhile).toBeLessThan(250);
  });
});

describe('the queue of requests waiting to start', () => {
  it('is bounded: past it a request is answered 503 + Retry-After at once; the health check skips it', async () => {
    const small = { ...limits, maxQueuedRequests: 5 };
    const scheduler = createRequestScheduler(small);
    const slow = (request: IncomingMessage, response: ServerResponse) => {
      const until = now() + 20;
      while (now() < until) {
        // the work of a request
      }
      answerPath(request, response);
    };
    const busy = createHttpServer(slow, small, undefined, scheduler);
    const busyPort = (await listen(busy, 0, '127.0.0.1')).port;
    try {
      // all connected (and accepted) first, then every request written at once: they arrive in one iteration
      const sockets = await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<net.Socket>((resolve) => {
              const socket = net.connect(busyPort, '127.0.0.1', () => resolve(socket));
              socket.setEncoding('latin1');
              socket.on('error', () => {});
            }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const answers = await Promise.all(
        sockets.map((socket, i) => {
          const path = i === 39 ? '/healthz?probe=1' : '/v1/work';
          return new Promise<string>((resolve) => {
            let raw = '';
            socket.on('data', (d: string) => (raw += d));
            socket.on('close', () => resolve(raw));
            socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
          });
        }),
      );
      const statuses = answers.map((raw) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]));
      const refused = answers.filter((raw) => raw.startsWith('HTTP/1.1 503'));
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]).toMatch(/retry-after: 1/i);
      expect(refused[0]).toContain('"message":"The service is overloaded; retry shortly"');
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
      expect(statuses[39]).toBe(200); // the health check, with a query
      expect(scheduler.refused).toBe(refused.length);
    } finally {
      busy.closeAllConnections();
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it("starts the callers' requests in turns, so that one caller's burst does not delay another's next request", async () => {
    const scheduler = new RequestScheduler({ maxWaiting: 1_000, sliceMs: 1_000 });
    const started: string[] = [];
    for (let i = 0; i < 100; i++) scheduler.run(() => started.push(`a${i}`), 'a');
    scheduler.run(() => started.push('b0'), 'b');
    scheduler.run(() => started.push('b1'), 'b');
    scheduler.run(() => started.push('c0'), 'c');
    expect(scheduler.waiting).toBe(103);
    while (scheduler.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
    expect(started.slice(0, 6)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2']);
    expect(started).toHaveLength(103);
    expect(started.filter((s) => s.startsWith('a'))).toEqual(Array.from({ length: 100 }, (_, i) => `a${i}`));
  });

  it('logs what a job throws and goes on with the others', async () => {
    const errors: unknown[] = [];
    const scheduler = new RequestScheduler({ maxWaiting: 10, onError: (err) => errors.push(err) });
    let ran = 0;
    scheduler.run(() => {
      throw new Error('boom');
    });
    scheduler.run(() => ran++);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([new Error('boom')]);
    expect(ran).toBe(1);
  });
});
