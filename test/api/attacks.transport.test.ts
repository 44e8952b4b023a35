// Attacks on the transport, each with the answer a client must see: hostile request targets and headers
// against the GETs of /v1 answered straight on node:http (rest/directAnswer.ts) — every one answered as
// the Hono path answers it on a real socket, never a 5xx —, the portal's files, huge bodies to write
// routes and to GraphQL variables, a body sent slowly then abandoned, and a subscriber that goes away.
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server of the app on a free port, as `npm start` runs it. */
async function serve(): Promise<number> {
  const app = createApp(t.deps);
  await app.ready();
  const server = createHttpServer(app.listener, t.deps.config.http);
  servers.push(server);
  return (await listen(server, 0, '127.0.0.1')).port;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (the request line and headers, CRLF-separated, without the blank line) exactly as written, and reads the whole answer. */
function raw(port: number, head: string, body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const lines = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rest = text.slice(end + 4);
      if (headers['transfer-encoding'] === 'chunked') {
        let decoded = '';
        for (;;) {
          const lineEnd = rest.indexOf('\r\n');
          const size = parseInt(rest.slice(0, lineEnd), 16);
          if (!size) break;
          decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
          rest = rest.slice(lineEnd + 4 + size);
        }
        rest = decoded;
      }
      resolve({ status: Number(lines[0]!.split(' ')[1]), headers, body: Buffer.from(rest, 'latin1').toString('utf8') });
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`);
  });
}

describe('hostile request targets against the GETs answered directly', () => {
  const clinic = () => t.demo.organizations.clinic.id;
  const other = () => t.demo.organizations.other.id;
  const auth = () => `Authorization: Bearer ${t.demo.organizations.clinic.apiKey}`;
  const targets: [string, () => string][] = [
    ['a dot-dot segment', () => `/v1/organizations/${other()}/../${clinic()}`],
    ['a dot segment', () => `/v1/organizations/./${clinic()}`],
    ['a percent-encoded dot-dot', () => `/v1/organizations/%2e%2e/organizations/${clinic()}`],
    ['a percent-encoded dot-dot, upper case, as the parameter', () => `/v1/organizations/%2E%2E/office-hours`],
    ['a mixed dot-dot (.%2e) escaping /v1', () => `/v1/organizations/.%2e/.%2e/healthz`],
    ['a dot-dot leaving to another route', () => `/v1/organizations/${clinic()}/closures/../office-hours`],
    ['%2F inside the parameter', () => `/v1/organizations/${clinic()}%2Foffice-hours`],
    ['%2F as the whole parameter', () => `/v1/organizations/%2F/office-hours`],
    ['a double slash inside', () => `/v1/organizations//${clinic()}`],
    ['a leading double slash', () => `//v1/organizations/${clinic()}`],
    ['a double slash before the end', () => `/v1/organizations/${clinic()}//office-hours`],
    ['an overlong segment', () => `/v1/organizations/${'a'.repeat(6_000)}/office-hours`],
    ['invalid UTF-8 percent sequences', () => `/v1/organizations/%ff%fe%c0%af/office-hours`],
    ['a lone percent sign', () => `/v1/organizations/%/office-hours`],
    ['a truncated percent sequence', () => `/v1/organizations/${clinic()}%2`],
    ['an encoded NUL', () => `/v1/organizations/${clinic()}%00`],
    ['a backslash', () => `/v1/organizations\\${clinic()}`],
    ['a backslash at the end', () => `/v1/organizations/${clinic()}\\`],
    ['a backslash in the query only', () => `/v1/organizations/${clinic()}?x=\\`],
    ['an encoded backslash', () => `/v1/organizations/${clinic()}%5c`],
    ['a fragment', () => `/v1/organizations/${clinic()}#frag`],
    ['a path with characters URL parsing escapes', () => `/v1/organizations/${clinic()}/office-hours?dayOfWeek=MONDAY&"<>{}`],
    ['an encoded letter in a literal segment', () => `/v1/organization%73/${clinic()}`],
    ['an upper-case literal segment', () => `/V1/organizations/${clinic()}`],
    ['an encoded question mark', () => `/v1/organizations/${clinic()}%3Fx=1`],
    ['an empty query, trailing slash', () => `/v1/organizations/${clinic()}/?`],
  ];

  for (const [name, make] of targets) {
    it(`${name}: never a 5xx`, async () => {
      await expectParity(`GET ${make()} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}`);
    });
  }

  it('a dot-dot segment reaches the route URL parsing makes of it (the organization, not a 400 for ".." as its id)', async () => {
    const answer = await expectParity(
      `GET /v1/organizations/%2e%2e/organizations/${clinic()}/x/%2E%2E HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.id).toBe(clinic());
  });

  it('a backslash in the path is refused 400 in the envelope, with the security headers', async () => {
    const answer = await expectParity(`GET /v1/organizations/${clinic()}\\ HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      success: false,
      data: {},
      code: 'malformed_request',
      message: expect.stringMatching(/backslash/i),
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-request-id']).toMatch(/\S/);
  });
});

/** Sends `head` to a server of the app; the answer is not a 5xx. */
async function expectParity(head: string): Promise<RawAnswer> {
  t.clock.set('2026-03-09T15:00:00Z');
  const answered = await raw(await serve(), head);
  expect(answered.status).toBeLessThan(500);
  return answered;
}

describe('hostile headers against the GETs answered directly', () => {
  const path = () => `/v1/organizations/${t.demo.organizations.clinic.id}`;
  const key = () => t.demo.organizations.clinic.apiKey;
  const cases: [string, () => string][] = [
    ['a Host with a path in it', () => `GET ${path()} HTTP/1.1\r\nHost: evil.example/x?\r\nAuthorization: Bearer ${key()}`],
    ['a Host with credentials in it', () => `GET ${path()} HTTP/1.1\r\nHost: user@evil.example\r\nAuthorization: Bearer ${key()}`],
    ['a Host in upper case', () => `GET ${path()} HTTP/1.1\r\nHost: API.EXAMPLE.COM\r\nAuthorization: Bearer ${key()}`],
    ['a Host on port 80', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1:80\r\nAuthorization: Bearer ${key()}`],
    ['a Host that is an IPv6 literal', () => `GET ${path()} HTTP/1.1\r\nHost: [::1]:4000\r\nAuthorization: Bearer ${key()}`],
    [
      'an absolute-form target naming another host',
      () => `GET http://evil.example${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}`,
    ],
    ['the header name in odd case', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\naUtHoRiZaTiOn: Bearer ${key()}`],
    ['the scheme in lower case', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: bearer ${key()}`],
    ['two spaces after the scheme', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer  ${key()}`],
    [
      'a repeated Authorization, the valid key second',
      () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nAuthorization: Bearer ${key()}`,
    ],
    [
      'a repeated Authorization in different case, the same key twice',
      () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nauthorization: Bearer ${key()}`,
    ],
    ['an empty Authorization', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: `],
    ['a 10 KB bearer token', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'a'.repeat(10_000)}`],
    [
      'a garbage If-None-Match',
      () =>
        `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nIf-None-Match: "\u0001", W/, *, ${'"x",'.repeat(500)}`,
    ],
    ['If-None-Match: *', () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nIf-None-Match: *`],
    [
      'If-Modified-Since garbage',
      () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nIf-Modified-Since: yesterday`,
    ],
    [
      'a hostile X-Request-Id',
      () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nX-Request-Id: ../../<script>\u0007`,
    ],
    ['HEAD', () => `HEAD ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}`],
    ['HEAD without a credential', () => `HEAD ${path()} HTTP/1.1\r\nHost: 127.0.0.1`],
    ['a lower-case method', () => `get ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}`],
    ['HTTP/1.0 without Host', () => `GET ${path()} HTTP/1.0\r\nAuthorization: Bearer ${key()}`],
    [
      'a forged X-Forwarded-For (not trusted)',
      () => `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key()}\r\nX-Forwarded-For: 1.2.3.4, 127.0.0.1`,
    ],
  ];

  for (const [name, make] of cases) {
    it(`${name}: never a 5xx`, async () => {
      await expectParity(make());
    });
  }

  it('a Host that is not a host is refused 400 in the envelope (never answered as if it named this service)', async () => {
    const answer = await expectParity(`GET ${path()} HTTP/1.1\r\nHost: evil.example/x?\r\nAuthorization: Bearer ${key()}`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, code: 'malformed_request' });
  });

  it('a repeated Authorization is refused 401 whichever copy is valid', async () => {
    const port = await serve();
    for (const [first, second] of [
      [key(), 'nope'],
      ['nope', key()],
      [key(), key()],
    ]) {
      const answer = await raw(
        port,
        `GET ${path()} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}`,
      );
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });
});

describe('JSON bodies built to cost the server', () => {
  const closures = () => `/v1/organizations/${t.demo.organizations.clinic.id}/closures`;
  const post = (path: string, body: string, method = 'POST') =>
    t.fetch(path, {
      method,
      headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
      body,
    });
  /** n fields with short names (base 36), to stay under the 1 MiB body limit. */
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`_${i.toString(36)}`, 0]));
  const nested = (depth: number, leaf = '"x"') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

  /** A short 400 in the envelope, nothing created, and the service still answering. */
  async function refusedShortly(res: Response): Promise<{ message: string }> {
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(400);
    expect(text.length).toBeLessThan(2_000);
    expect((await t.fetch('/healthz')).status).toBe(200);
    expect(await t.deps.db.closure.count()).toBe(0);
    return JSON.parse(text);
  }

  it('100,000 unknown fields in a nested object (not the root) are refused in a short answer naming a few', async () => {
    const body = JSON.stringify({
      description: 'x',
      chatGreeting: null,
      phoneGreeting: null,
      annualDate: { month: 1, day: 2, ...fields(100_000) },
    });
    const { message } = await refusedShortly(await post(closures(), body));
    expect(message).toMatch(/annualDate.*_0.*and 99995 more/);
  });

  it('a field nested 100,000 arrays deep is refused, not a 5xx or a stack overflow', async () => {
    await refusedShortly(
      await post(
        closures(),
        `{"description": ${nested(100_000)}, "chatGreeting": null, "phoneGreeting": null, "annualDate": {"month": 1, "day": 2}}`,
      ),
    );
  });

  it('a root that is 400,000 arrays deep is refused', async () => {
    await refusedShortly(await post(closures(), nested(400_000, '{}')));
  });

  // fields that take any JSON (a bulk list read item by item, a call's metadata) once reached a recursive walk
  // (an error message, the database's serializer) that ran out of stack: a 500
  it('a value nested 100,000 deep in a field that takes any JSON is refused by its depth, naming the bound', async () => {
    const bodies: [string, string][] = [
      ['/v1/suppressions/bulk', `{"numbers": [${nested(100_000)}]}`],
      [
        '/v1/call-requests',
        `{"botId": "${t.demo.bots.clinic[0]}", "phoneNumberId": "${t.demo.phoneNumbers.clinic[0]}", "to": "+15005550006", "metadata": {"a": ${nested(100_000)}}}`,
      ],
    ];
    for (const [path, body] of bodies) {
      const res = await post(path, body);
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(400);
      expect(JSON.parse(text).message).toBe('The body nests arrays and objects deeper than 64 levels');
    }
    // at the bound, the same body is read (and answered on its merits)
    const atBound = await post('/v1/suppressions/bulk', `{"numbers": [${nested(62, '"+15005550006"')}]}`);
    expect(atBound.status).toBe(400);
    expect(await atBound.text()).toContain('numbers.0');
  });

  it('an object nested 50,000 deep inside an array field is refused', async () => {
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const res = await post(
      `/v1/organizations/${t.demo.organizations.clinic.id}/office-hours`,
      `{"dayOfWeek": "MONDAY", "isClosed": false, "open": "09:00", "close": "17:00", "breaks": [${deep}]}`,
    );
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(400);
    expect(text.length).toBeLessThan(2_000);
  });

  // each list is refused by its length before its items are read (each of 100,000 items judged took seconds
  // of the event loop: 2 s for breaks, 1 s for metadata, 0.6 s for mediums), naming the bound
  it('100,000 items in a list or entries in a map are refused by their count, in a short answer naming the bound', async () => {
    const org = t.demo.organizations.clinic.id;
    const cases: [string, string, string, RegExp][] = [
      [
        'POST',
        `/v1/organizations/${org}/office-hours`,
        JSON.stringify({
          dayOfWeek: 'MONDAY',
          isClosed: false,
          open: '09:00',
          close: '17:00',
          breaks: Array.from({ length: 100_000 }, () => ({})),
        }),
        /^breaks: must have at most 24 breaks a day$/,
      ],
      [
        'POST',
        `/v1/organizations/${org}/special-hours`,
        JSON.stringify({
          date: '2026-12-24',
          description: 'x',
          isClosed: false,
          open: '09:00',
          close: '17:00',
          breaks: Array.from({ length: 100_000 }, () => 1),
        }),
        /^breaks: must have at most 24 breaks a day$/,
      ],
      [
        'POST',
        '/v1/templates',
        JSON.stringify({ name: 'x', applicableMediums: Array.from({ length: 100_000 }, () => 'FAX') }),
        /^applicableMediums: must name each of CHAT, PHONE, GHL, SMS at most once$/,
      ],
      [
        'POST',
        '/v1/call-requests',
        JSON.stringify({
          botId: t.demo.bots.clinic[0],
          phoneNumberId: t.demo.phoneNumbers.clinic[0],
          to: '+12125550100',
          metadata: fields(100_000),
        }),
        /^metadata: must have at most 20 entries$/,
      ],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await post(path, body, method);
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(400);
      expect(JSON.parse(text).message, path).toMatch(message);
    }
  });

  it('__proto__ and constructor keys are unknown properties, and pollute nothing', async () => {
    const body = `{"description": "x", "chatGreeting": null, "phoneGreeting": null, "annualDate": {"month": 1, "day": 2, "__proto__": {"polluted": true}}, "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}`;
    const { message } = await refusedShortly(await post(closures(), body));
    expect(message).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('GraphQL variables of 100,000 fields, and nested 100,000 arrays deep, are refused in a short answer', async () => {
    const orgId = t.demo.organizations.clinic.id;
    const query = 'mutation($orgId: ID!, $input: CreateClosureInput!) { createClosure(orgId: $orgId, input: $input) { id } }';
    for (const input of [
      `{"description": "x", "chatGreeting": null, "phoneGreeting": null, "annualDate": {"month": 1, "day": 2}, ${JSON.stringify(fields(100_000)).slice(1, -1)}}`,
      `{"description": ${nested(100_000)}}`,
      nested(100_000, '{}'),
    ]) {
      const res = await t.fetch('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
        body: `{"query": ${JSON.stringify(query)}, "variables": {"orgId": "${orgId}", "input": ${input}}}`,
      });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBeLessThan(500);
      expect(text.length).toBeLessThan(3_000);
      expect(JSON.parse(text).errors[0].extensions.code).toMatch(/BAD_USER_INPUT|BAD_REQUEST/);
    }
    expect(await t.deps.db.closure.count()).toBe(0);
  });

  it('a subscription whose variables are 100,000 fields is refused in a short answer, before any stream', async () => {
    const query = 'subscription($org: ID!, $medium: Medium!) { availabilityChanged(orgId: $org, medium: $medium) { state } }';
    const huge = JSON.stringify(fields(50_000));
    const res = await t.fetch('/graphql', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: `{"query": ${JSON.stringify(query)}, "variables": {"org": ${huge}, "medium": ${huge}}}`,
    });
    const text = await res.text();
    expect(text.length).toBeLessThan(3_000);
    expect(text).toMatch(/Variable \\"\$org\\" got invalid value/);
    expect(t.deps.liveStreams.count()).toBe(0);
  });

  it('a compiled query (from its second run) refuses 100,000 fields in a variable as shortly, on both executors', async () => {
    const query = 'query Events($filter: EventFilter) { events(first: 1, filter: $filter) { edges { cursor } } }';
    const huge = `{"type": ["closure.*"], ${JSON.stringify(fields(100_000)).slice(1, -1)}}`;
    for (const app of [t.app, createApp({ ...t.deps, config: { ...t.deps.config, graphqlJit: false } })]) {
      for (const filter of ['{"type": ["closure.*"]}', huge, huge]) {
        const res = await app.fetch(
          new Request('http://127.0.0.1:4000/graphql', {
            method: 'POST',
            headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`, 'content-type': 'application/json' },
            body: `{"query": ${JSON.stringify(query)}, "variables": {"filter": ${filter}}}`,
          }),
        );
        const text = await res.text();
        expect(text.length).toBeLessThan(3_000);
        const body = JSON.parse(text);
        if (filter === huge)
          expect(body.errors[0]).toMatchObject({
            message: expect.stringMatching(/^Variable "\$filter" got invalid value .* Field "_0" is not defined by type "EventFilter"/),
            extensions: { code: 'BAD_USER_INPUT' },
          });
        else expect(body.errors).toBeUndefined();
      }
    }
  });
});

/** Opens a connection, writes `bytes`, and destroys it once `when` says so (or at once). */
function abandon(port: number, bytes: string, when: (received: string) => boolean = () => true): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('error', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (when(received)) socket.destroy();
    });
    socket.write(bytes, () => {
      if (when('')) socket.destroy();
    });
  });
}

describe('clients that go away', () => {
  const auth = () => `Authorization: Bearer ${t.demo.organizations.clinic.apiKey}`;

  it('a GET abandoned before its answer, on either path, a hundred times: the process serves the next request and /healthz', async () => {
    {
      const port = await serve();
      const head = `GET /v1/organizations/${t.demo.organizations.clinic.id}/availability?medium=PHONE HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\n\r\n`;
      await Promise.all(Array.from({ length: 100 }, () => abandon(port, head)));
      expect((await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1`)).status).toBe(200);
      expect(
        (await raw(port, `GET /v1/organizations/${t.demo.organizations.clinic.id} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}`)).status,
      ).toBe(200);
    }
  });

  it('a write whose body is sent in part, then abandoned, changes nothing and leaves the process serving', async () => {
    const port = await serve();
    const body = JSON.stringify({ description: 'Half', annualDate: { month: 1, day: 2 }, chatGreeting: null, phoneGreeting: null });
    const head = `POST /v1/organizations/${t.demo.organizations.clinic.id}/closures HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    await Promise.all(Array.from({ length: 20 }, (_, i) => abandon(port, head + body.slice(0, i))));
    // and a GraphQL POST the same way
    const gql = `{"query": "mutation { disableOrganization(orgId: \\"${t.demo.organizations.clinic.id}\\") { changed } }"}`;
    await abandon(
      port,
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\nContent-Type: application/json\r\nContent-Length: ${gql.length}\r\n\r\n${gql.slice(0, -3)}`,
    );
    expect((await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1`)).status).toBe(200);
    expect(await t.deps.db.closure.count()).toBe(0);
    expect((await t.deps.db.organization.findUniqueOrThrow({ where: { id: t.demo.organizations.clinic.id } })).communicationsEnabled).toBe(
      true,
    );
  });

  it('an SSE subscriber that disconnects, before or after its first event, ends its stream: none left open, no wake-up kept, /healthz answers', async () => {
    t.clock.set('2026-03-09T15:00:00Z');
    const port = await serve();
    const query = `subscription($org: ID!) { availabilityChanged(orgId: $org, medium: PHONE) { state } }`;
    const body = JSON.stringify({ query, variables: { org: t.demo.organizations.clinic.id } });
    const request = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const firstEvents = await Promise.all([
      ...Array.from({ length: 5 }, () => abandon(port, request, (received) => received.includes('"state"'))),
      ...Array.from({ length: 5 }, () => abandon(port, request, (received) => received.includes('\r\n\r\n'))),
    ]);
    for (const received of firstEvents) expect(received).toMatch(/^HTTP\/1.1 200/);
    await expect.poll(() => t.deps.liveStreams.count()).toBe(0);
    await expect.poll(() => t.clock.pendingWakeUps).toBe(0);
    expect((await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1`)).status).toBe(200);
  });
});

describe('the portal against hostile requests', () => {
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    Promise.resolve(t.app.fetch(new Request(`http://127.0.0.1:4000${path}`, { method, headers })));

  async function assetPaths() {
    const html = await (await get('/portal')).text();
    return { script: /src="([^"]+\.js)"/.exec(html)![1]!, stylesheet: /href="([^"]+\.css)"/.exec(html)![1]! };
  }

  it('asset names that climb out of the folder, on a raw socket, are 404 (or 400) without a byte of another file', async () => {
    const port = await serve();
    const { script } = await assetPaths();
    const name = script.split('/').pop()!;
    for (const path of [
      '/portal/assets/../../package.json',
      '/portal/assets/%2e%2e/%2e%2e/package.json',
      '/portal/assets/..%2f..%2fpackage.json',
      '/portal/assets/..%5c..%5cpackage.json',
      '/portal/assets/%2e%2e%2f%2e%2e%2fsrc%2fconfig.ts',
      '/portal/assets/portal.js',
      '/portal/assets/portal.css',
      `/portal/assets/${name}%00.txt`,
      `/portal/assets/./${name}/..`,
      '/portal/assets/%ff',
      '/portal/assets/..\\..\\package.json',
      '/portal/../portal/assets/../../.env',
    ]) {
      const answer = await raw(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1`);
      expect([400, 404], path).toContain(answer.status);
      expect(answer.body, path).not.toMatch(/"dependencies"|DATABASE_URL|KEY_STORAGE|export /);
      expect(answer.headers['cache-control'] ?? '', path).not.toMatch(/immutable|max-age=[1-9]/);
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('an error answer is never cached as a file; the files keep their types; HEAD answers without a body', async () => {
    const { script, stylesheet } = await assetPaths();
    const missing = await get(script.replace(/portal-[^.]+/, 'portal-AAAAAAAAAAAA'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control') ?? '').not.toMatch(/immutable|max-age=[1-9]/);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    for (const [path, type] of [
      [script, /^text\/javascript/],
      [stylesheet, /^text\/css/],
      ['/portal', /^text\/html/],
    ] as const) {
      const head = await get(path, {}, 'HEAD');
      expect(head.status, path).toBe(200);
      expect(head.headers.get('content-type'), path).toMatch(type);
      expect(await head.text(), path).toBe('');
    }
  });

  it('a huge or malformed Accept-Encoding is answered, never a 5xx; q=0 everywhere sends the page uncompressed', async () => {
    const hostile = [
      `${'gzip;q=0.5, '.repeat(600)}br`,
      'br;q=abc, gzip;q=1.2.3, *;q=-1',
      ';;;,,,;q=,=;',
      `${'x'.repeat(7_000)}`,
      'br;q=0, gzip;q=0, *;q=0',
    ];
    for (const accept of hostile) {
      const res = await get('/portal', { 'accept-encoding': accept });
      expect(res.status, accept.slice(0, 30)).toBe(200);
      const encoding = res.headers.get('content-encoding');
      expect([null, 'br', 'gzip'], accept.slice(0, 30)).toContain(encoding);
      await res.arrayBuffer();
    }
    const identity = await get('/portal', { 'accept-encoding': 'br;q=0, gzip;q=0, *;q=0' });
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(await identity.text()).toContain('<!doctype html>');
  });
});
