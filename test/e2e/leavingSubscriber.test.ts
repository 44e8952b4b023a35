// A subscriber that goes away while CORS is on (issue 19, defect 1): the server behind a real listener on
// 127.0.0.1 must end only that client's stream. The CORS middleware wraps the answer (it sets headers on
// it after the handler), so the stream it sends is not the one the subscription writes into; a client
// cutting the connection once made the two disagree about who closes what, and the process died with
// an uncaught `ReadableStream is already closed`.
import type { Server } from 'node:http';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { CORS_ORIGINS: 'https://good.example', RATE_LIMIT_PER_MINUTE: '1000' } });

let server: Server;
let port: number;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const app = createApp(t.deps);
  await app.ready();
  server = createHttpServer(app.listener, t.deps.config.http);
  port = (await listen(server, 0, '127.0.0.1')).port;
});

afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Opens an SSE subscription, waits for its first bytes, then cuts the connection. */
function subscribeAndLeave(
  method: 'GET' | 'POST',
  token: string,
  query: string,
  origin?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query });
    const path = method === 'GET' ? `/graphql?query=${encodeURIComponent(query)}` : '/graphql';
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          ...(origin ? { origin } : {}),
          ...(method === 'POST' ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        res.once('data', () => {
          // the client goes away in the middle of the stream
          setTimeout(() => {
            req.destroy();
            resolve({ status: res.statusCode!, headers: res.headers });
          }, 50);
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (err) =>
      err.message.includes('aborted') || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err),
    );
    if (method === 'POST') req.write(body);
    req.end();
  });
}

async function healthz(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  await res.arrayBuffer();
  return res.status;
}

describe('a subscriber leaving with CORS on', () => {
  for (const method of ['POST', 'GET'] as const) {
    for (const origin of [undefined, 'https://good.example']) {
      it(`${method}${origin ? ' from an allowed origin' : ''}: ends only its own stream; the server stays up`, async () => {
        const token = await t.accessToken('clinicReadOnly');
        const query = `subscription{availabilityChanged(orgId:"${t.demo.organizations.clinic.id}",medium:PHONE){state}}`;
        for (let i = 0; i < 3; i++) {
          const answer = await subscribeAndLeave(method, token, query, origin);
          expect(answer.status).toBe(200);
          expect(answer.headers['content-type']).toContain('text/event-stream');
          if (origin) expect(answer.headers['access-control-allow-origin']).toBe(origin);
        }
        // the server notices the closed sockets and ends those subscriptions (and only those)
        for (let waited = 0; t.deps.liveStreams.count() > 0 && waited < 2_000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        expect(t.deps.liveStreams.count()).toBe(0);
        expect(uncaught).toEqual([]);
        expect(await healthz()).toBe(200);
      });
    }
  }
});
