// GraphQL over HTTP executes every operation one way, through yoga's plugins, and hands yoga a request
// in one of two ways (src/graphql/overHttp.ts): a plain JSON POST as parameters already read (the fast
// path), anything else as a fetch Request (yoga.fetch). GRAPHQL_FAST_PATH=false forces every request through
// yoga.fetch; GRAPHQL_JIT=false runs every operation through graphql-js instead of its compiled form. The
// last path sends the requests over a socket, through node:http's server in front of the app
// (http/server.ts). Every case below runs through these five paths, each twice (a first run compiles, the
// second reuses), and the answers of one executor must be identical whichever way the request was read:
// status, headers and body (the request id aside, which is checked to be the answer's own), and the
// request metrics they leave.
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { loadConfig } from '../../src/config.js';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.js';
import { type UntypedBody, useTestApp } from '../support/testApp.js';

const t = useTestApp();

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: UntypedBody;
  /** Over a socket: the header names as written on the wire (sorted, those of the connection aside). */
  rawNames?: string[];
}

const PATHS = [
  { name: 'fast path, compiled', env: { GRAPHQL_FAST_PATH: 'true', GRAPHQL_JIT: 'true' } },
  { name: 'fast path, graphql-js', env: { GRAPHQL_FAST_PATH: 'true', GRAPHQL_JIT: 'false' } },
  { name: 'yoga.fetch, compiled', env: { GRAPHQL_FAST_PATH: 'false', GRAPHQL_JIT: 'true' } },
  { name: 'yoga.fetch, graphql-js', env: { GRAPHQL_FAST_PATH: 'false', GRAPHQL_JIT: 'false' } },
  // over node:http, through the server in front of the app
  { name: 'node:http, compiled', env: { GRAPHQL_FAST_PATH: 'true', GRAPHQL_JIT: 'true' }, socket: true },
];

/** Headers of a socket's answer that an app.fetch answer does not have (the connection's, the framing). */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

const limiters: RateLimiter[] = [];
afterAll(async () => {
  for (const limiter of limiters) await limiter.close();
});

type PathApp = { name: string; app: ReturnType<typeof createApp>; rateLimit: RateLimiter; port?: number };

/** One app per path over the test database, each with its own budgets (small: a case can spend them). */
async function pathApps(): Promise<PathApp[]> {
  return Promise.all(
    PATHS.map(async ({ name, env, socket }) => {
      const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '2', UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '4', ...env });
      const rateLimit = createRateLimiter(config, t.deps.logger, t.clock.now);
      limiters.push(rateLimit);
      const app = createApp({ ...t.deps, config, rateLimit });
      if (!socket) return { name, app, rateLimit };
      await app.ready();
      const server = createHttpServer(app.listener, config.http);
      servers.push(server);
      const { port } = await listen(server, 0, '127.0.0.1');
      return { name, app, rateLimit, port };
    }),
  );
}

/** POSTs over a socket, reading the answer's header names as they are on the wire. */
function sendOverSocket(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; rawHeaders: string[]; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/graphql',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function send(path: PathApp, body: unknown, headers: Record<string, string | null> = {}): Promise<Answer> {
  const merged: Record<string, string> = {};
  const all: Record<string, string | null> = {
    authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json',
    ...headers,
  };
  for (const [name, value] of Object.entries(all)) if (value !== null) merged[name] = value;
  const sent = typeof body === 'string' ? body : JSON.stringify(body);
  const kept: Record<string, string> = {};
  let status: number;
  let text: string;
  let rawNames: string[] | undefined;
  if (path.port !== undefined) {
    const res = await sendOverSocket(path.port, merged, sent);
    ({ status, text } = res);
    rawNames = [];
    for (let i = 0; i < res.rawHeaders.length; i += 2) {
      const name = res.rawHeaders[i]!;
      if (CONNECTION_HEADERS.has(name.toLowerCase())) continue;
      rawNames.push(name);
      kept[name.toLowerCase()] = res.rawHeaders[i + 1]!;
    }
    rawNames.sort();
  } else {
    const res = await path.app.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: merged, body: sent }));
    text = await res.text();
    status = res.status;
    res.headers.forEach((value, name) => {
      if (!CONNECTION_HEADERS.has(name)) kept[name] = value;
    });
  }
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // compared as text
  }
  return { status, headers: kept, body: parsed, ...(rawNames ? { rawNames } : {}) };
}

/** The answer without its request id, after checking that every error names the answer's own. */
function comparable(answer: Answer) {
  const requestId = answer.headers['x-request-id'];
  expect(requestId).toBeTruthy();
  const { 'x-request-id': _id, ...headers } = answer.headers;
  // the names on the wire are compared between the two socket paths (below)
  const errors = answer.body?.errors?.map((e: { extensions: Record<string, unknown> }) => {
    expect(e.extensions.requestId).toBe(requestId);
    return { ...e, extensions: { ...e.extensions, requestId: 'R' } };
  });
  return { status: answer.status, headers, body: errors ? { ...answer.body, errors } : answer.body };
}

const ORG = 'query Org($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek open close } } }';

describe('every path answers a plain POST identically', () => {
  let apps: PathApp[] = [];
  beforeAll(async () => {
    apps = await pathApps();
  });
  beforeEach(() => {
    t.clock.set('2026-03-09T13:30:10.000Z');
    for (const { rateLimit } of apps) rateLimit.clear();
  });

  const cases: {
    name: string;
    requests: () => { body: unknown; headers?: Record<string, string | null> }[];
    check: (answers: Answer[]) => void;
  }[] = [
    {
      name: 'data, then the budget spent: 200 ×2 with the cost reported, then 429 with Retry-After',
      requests: () => Array.from({ length: 3 }, () => ({ body: { query: ORG, variables: { id: t.demo.organizations.clinic.id } } })),
      check: ([first, , third]) => {
        expect(first!.status).toBe(200);
        expect(first!.body.data.organization.officeHours).toHaveLength(7);
        expect(first!.body.extensions.rateLimit.cost).toBe(2);
        expect(third!.status).toBe(429);
        expect(third!.headers['retry-after']).toBe('50');
      },
    },
    {
      name: "another tenant's organization: NOT_FOUND",
      requests: () => [{ body: { query: ORG, variables: { id: t.demo.organizations.other.id } } }],
      check: ([a]) => expect(a!.body.errors[0].extensions.code).toBe('NOT_FOUND'),
    },
    {
      name: 'no credential: 401 UNAUTHENTICATED',
      requests: () => [{ body: { query: ORG, variables: { id: t.demo.organizations.clinic.id } }, headers: { authorization: null } }],
      check: ([a]) => {
        expect(a!.status).toBe(401);
        expect(a!.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      },
    },
    {
      name: 'a validation error, as application/json (200) and as graphql-response+json (400)',
      requests: () => [
        { body: { query: '{ organization(id: "x") { nope } }' } },
        { body: { query: '{ organization(id: "x") { nope } }' }, headers: { accept: 'application/graphql-response+json' } },
      ],
      check: ([json, response]) => {
        expect(json!.status).toBe(200);
        expect(response!.status).toBe(400);
        expect(json!.body.errors[0].message).toMatch(/nope/);
      },
    },
    {
      name: 'a variable of the wrong type',
      requests: () => [{ body: { query: ORG, variables: { id: { not: 'an id' } } } }],
      check: ([a]) => expect(a!.body.errors[0].extensions.code).toBe('BAD_USER_INPUT'),
    },
    {
      name: 'the operation operationName names',
      requests: () => [
        { body: { query: `query A { viewer { scopes } } query B { viewer { organization { id } } }`, operationName: 'B' } },
        { body: { query: `query A { viewer { scopes } } query B { viewer { organization { id } } }`, operationName: 'A' } },
      ],
      check: ([b, a]) => {
        expect(b!.body.data.viewer.organization.id).toBe(t.demo.organizations.clinic.id);
        expect(a!.body.data.viewer.scopes.length).toBeGreaterThan(0);
      },
    },
    {
      name: 'introspection without a credential, metered per address',
      requests: () =>
        Array.from({ length: 5 }, () => ({ body: { query: '{ __schema { queryType { name } } }' }, headers: { authorization: null } })),
      check: (answers) => {
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
        expect(answers[0]!.body.data.__schema.queryType.name).toBe('Query');
      },
    },
    {
      name: 'a mutation that changes nothing',
      requests: () => [
        {
          body: {
            query: 'mutation($id: ID!) { enableOrganization(orgId: $id) { status changed } }',
            variables: { id: t.demo.organizations.clinic.id },
          },
        },
      ],
      check: ([a]) => expect(a!.body.data.enableOrganization).toEqual({ status: 'enabled', changed: false }),
    },
    {
      name: 'a subscription asked for as JSON: 406 with a reason',
      requests: () => [
        {
          body: {
            query: `subscription($o: ID!) { availabilityChanged(orgId: $o, medium: PHONE) { state } }`,
            variables: { o: t.demo.organizations.clinic.id },
          },
        },
      ],
      check: ([a]) => {
        expect(a!.status).toBe(406);
        expect(a!.body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
      },
    },
    {
      name: 'a malformed body and a batch go to yoga on every path',
      requests: () => [{ body: '{"query": ' }, { body: [{ query: '{ viewer { scopes } }' }] }],
      check: ([malformed, batch]) => {
        expect(malformed!.status).toBe(400);
        expect(batch!.status).toBe(400);
      },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const byPath: Answer[][] = [];
      for (const path of apps) {
        // twice each (the first run of a query compiles it, the second reuses it), from a fresh budget
        for (let round = 0; round < 2; round++) {
          path.rateLimit.clear();
          // a subscription refused with a 406 stays counted as live (yoga does not end it): each round from none
          await t.deps.liveStreams.closeAll();
          const answers: Answer[] = [];
          for (const request of c.requests()) answers.push(await send(path, request.body, request.headers));
          byPath.push(answers);
        }
      }
      c.check(byPath[0]!);
      // the same executor answers the same whichever way the request was read (graphql-jit and graphql-js
      // word a variable's coercion error differently, and graphql-jit's resolver errors carry no locations)
      byPath.forEach((answers, i) => {
        const path = PATHS[Math.floor(i / 2)]!;
        const reference = byPath[PATHS.findIndex((p) => p.env.GRAPHQL_JIT === path.env.GRAPHQL_JIT) * 2]!.map(comparable);
        expect(answers.map(comparable), `${path.name}, round ${(i % 2) + 1}`).toEqual(reference);
      });
      // and both executors agree on status and codes
      const summary = (answers: Answer[]) =>
        answers.map((a) => ({ status: a.status, codes: a.body?.errors?.map((e: { extensions: { code: string } }) => e.extensions.code) }));
      expect(summary(byPath[4]!)).toEqual(summary(byPath[0]!));
    });
  }
});
