// The GETs of /v1 are answered straight on node:http's response (rest/directAnswer.ts), the other
// requests through Hono. Both must answer alike: the same cases through Hono (directGets: false), through
// the direct path by `app.fetch`, and through it on a real socket, expecting the same status, headers and
// body — successes, 304, every refusal, a trailing slash, request ids, the budget's headers.
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers that differ between two answers of one request by nature: the date, the connection, the budget left. */
const VARYING = new Set(['date', 'connection', 'keep-alive', 'content-length', 'x-ratelimit-remaining', 'transfer-encoding']);

async function seen(res: Response, keepRequestId: boolean): Promise<Seen> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!VARYING.has(name) && (keepRequestId || name !== 'x-request-id')) headers[name] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

async function throughAll(path: string, headers: Record<string, string>): Promise<Seen[]> {
  const keepRequestId = 'X-Request-Id' in headers;
  const hono = createApp(t.deps, { directGets: false });
  const direct = createApp(t.deps);
  server = createHttpServer(direct.fetch, t.deps.config.http, undefined, undefined, direct.answerNode);
  const { port } = await listen(server, 0, '127.0.0.1');
  const request = () => new Request(`http://127.0.0.1${path}`, { headers });
  return [
    await seen(await hono.fetch(request()), keepRequestId),
    await seen(await direct.fetch(request()), keepRequestId),
    await seen(await fetch(`http://127.0.0.1:${port}${path}`, { headers }), keepRequestId),
  ];
}

describe('a GET of /v1 answered directly and through Hono', () => {
  const key = () => t.demo.organizations.clinic.apiKey;
  const cases: [string, () => [string, Record<string, string>]][] = [
    ['office hours', () => [`/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, { authorization: `Bearer ${key()}` }]],
    [
      'one day of office hours',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}/office-hours?dayOfWeek=MONDAY`, { authorization: `Bearer ${key()}` }],
    ],
    [
      'availability',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE`, { authorization: `Bearer ${key()}` }],
    ],
    [
      'an organization, trailing slash',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}/`, { authorization: `Bearer ${key()}` }],
    ],
    ['a list with a query', () => [`/v1/conversations?limit=2`, { authorization: `Bearer ${key()}` }]],
    [
      'a sane request id kept',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}`, { authorization: `Bearer ${key()}`, 'X-Request-Id': 'lb-1.2:trace-9' }],
    ],
    ['no credential', () => [`/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, {}]],
    [
      'an unknown key',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, { authorization: `Bearer svc-sk-v2-${'x'.repeat(43)}` }],
    ],
    ['not "Bearer <token>"', () => [`/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`, { authorization: 'Basic abc' }]],
    ['another tenant', () => [`/v1/organizations/${t.demo.organizations.other.id}/office-hours`, { authorization: `Bearer ${key()}` }]],
    [
      'a repeated query parameter',
      () => [
        `/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE&medium=CHAT`,
        { authorization: `Bearer ${key()}` },
      ],
    ],
    [
      'a bad query value',
      () => [`/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=FAX`, { authorization: `Bearer ${key()}` }],
    ],
    ['a malformed id', () => [`/v1/organizations/not-a-uuid/office-hours`, { authorization: `Bearer ${key()}` }]],
    [
      'a percent-encoded id',
      () => [
        `/v1/organizations/${encodeURIComponent(t.demo.organizations.clinic.id).replace('-', '%2D')}`,
        { authorization: `Bearer ${key()}` },
      ],
    ],
  ];

  for (const [name, make] of cases) {
    it(name, async () => {
      t.clock.set('2026-03-09T15:00:00Z');
      const [path, headers] = make();
      const [hono, direct, socket] = await throughAll(path, headers);
      expect(direct).toEqual(hono);
      expect(socket).toEqual(hono);
    });
  }

  it('304 for a matching If-None-Match', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE`;
    const first = await t.fetch(path, { headers: { authorization: `Bearer ${key()}` } });
    const etag = first.headers.get('etag')!;
    const answers = await throughAll(path, { authorization: `Bearer ${key()}`, 'If-None-Match': etag });
    expect(answers[0]!.status).toBe(304);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('the budget refused: 429 with Retry-After and the budget headers', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`;
    for (let i = 0; i < 1000; i++) await t.fetch(path, { headers: { authorization: `Bearer ${key()}` } });
    const answers = await throughAll(path, { authorization: `Bearer ${key()}` });
    expect(answers[0]!.status).toBe(429);
    expect(answers[0]!.headers['retry-after']).toBeDefined();
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});

describe('the header names on the wire', () => {
  /** The raw header names a server writes for one GET (a fetch client would hide their case). */
  async function rawNames(
    answerNode: ReturnType<typeof createApp>['answerNode'] | undefined,
    fetchApp: ReturnType<typeof createApp>,
  ): Promise<string[]> {
    server = createHttpServer(fetchApp.fetch, t.deps.config.http, undefined, undefined, answerNode);
    const { port } = await listen(server, 0, '127.0.0.1');
    const { request } = await import('node:http');
    const names = await new Promise<string[]>((resolve, reject) => {
      const req = request({
        port,
        host: '127.0.0.1',
        path: `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`,
        headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.rawHeaders.filter((_, i) => i % 2 === 0).filter((name) => !VARYING.has(name.toLowerCase())));
      });
      req.on('error', reject);
      req.end();
    });
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    return names.sort();
  }

  it('are written as the Hono path writes them, so a case-sensitive client sees one service', async () => {
    const hono = await rawNames(undefined, createApp(t.deps, { directGets: false }));
    const direct = createApp(t.deps);
    expect(await rawNames(direct.answerNode, direct)).toEqual(hono);
    expect(hono).toContain('x-request-id');
  });
});

describe('what the direct path leaves to Hono', () => {
  it('a repeated Authorization header is refused, as a fetch Request joining them is', async () => {
    const direct = createApp(t.deps);
    server = createHttpServer(direct.fetch, t.deps.config.http, undefined, undefined, direct.answerNode);
    const { port } = await listen(server, 0, '127.0.0.1');
    const key = t.demo.organizations.clinic.apiKey;
    const status = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request({
          port,
          host: '127.0.0.1',
          path: `/v1/organizations/${t.demo.organizations.clinic.id}`,
          headers: [
            ['Host', `127.0.0.1:${port}`],
            ['Authorization', `Bearer ${key}`],
            ['Authorization', 'Bearer other'],
          ] as never,
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });
    expect(status).toBe(401);
  });

  it('HEAD answers the GET without a body', async () => {
    const res = await t.fetch(`/v1/organizations/${t.demo.organizations.clinic.id}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});
