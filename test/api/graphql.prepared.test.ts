// Prepared queries (src/graphql/preparedQueries.ts): a query yoga has parsed and validated once runs
// compiled afterwards, inside yoga's pipeline. Whatever executor answers, the client sees the same answer:
// the same status, headers, data and errors (masked the same way, with the request's id), the same 429 once
// every root field is rate-limited, the same metrics label; and a document with several operations runs
// the one `operationName` names.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createRateLimiter } from '../../src/ratelimit/limiter.js';
import { type UntypedBody, useTestApp } from '../support/testApp.js';

const t = useTestApp();

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: UntypedBody;
}

/** A fresh app (so an empty store of prepared queries) and a POST to its /graphql. */
function freshApp(overrides: Partial<typeof t.deps> = {}) {
  const app = createApp({ ...t.deps, ...overrides });
  const post = async (body: Record<string, unknown>, headers: Record<string, string> = {}, method = 'POST'): Promise<Answer> => {
    const auth = { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` };
    const init: RequestInit =
      method === 'GET'
        ? { method, headers: { ...auth, accept: 'application/json', ...headers } }
        : {
            method,
            headers: { ...auth, 'content-type': 'application/json', accept: 'application/json', ...headers },
            body: JSON.stringify(body),
          };
    const url =
      method === 'GET'
        ? `http://127.0.0.1/graphql?${new URLSearchParams(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()}`
        : 'http://127.0.0.1/graphql';
    const res = await app.fetch(new Request(url, init));
    const text = await res.text();
    const kept: Record<string, string> = {};
    res.headers.forEach((value, name) => (kept[name] = value));
    return { status: res.status, headers: kept, body: JSON.parse(text) };
  };
  return Object.assign(post, { app });
}

/** The answer without what differs between any two requests: the request id (checked to be the header's) and the Date. */
function comparable(answer: Answer) {
  const requestId = answer.headers['x-request-id'];
  expect(requestId).toBeTruthy();
  for (const error of answer.body.errors ?? []) expect(error.extensions.requestId).toBe(requestId);
  const { 'x-request-id': _id, date: _date, ...headers } = answer.headers;
  const errors = answer.body.errors?.map((e: { extensions: Record<string, unknown> }) => ({
    ...e,
    extensions: { ...e.extensions, requestId: 'R' },
  }));
  // every run draws on the budgets: what is left differs from run to run, the rest of the report does not
  const rateLimit = answer.body.extensions?.rateLimit;
  const extensions = rateLimit && {
    ...answer.body.extensions,
    rateLimit: { ...rateLimit, budgets: rateLimit.budgets.map((b: Record<string, unknown>) => ({ ...b, remaining: 'R' })) },
  };
  return { status: answer.status, headers, body: { ...answer.body, ...(errors ? { errors } : {}), ...(extensions ? { extensions } : {}) } };
}

describe('a query answers the same on its first run (compiled then) and on every run after it', () => {
  const ORG = 'query Org($id: ID!) { organization(id: $id) { id name officeHours { dayOfWeek open close } } }';
  const cases: { name: string; body: () => Record<string, unknown>; headers?: Record<string, string>; expected: (a: Answer) => void }[] = [
    {
      name: 'data',
      body: () => ({ query: ORG, variables: { id: t.demo.organizations.clinic.id } }),
      expected: (a) => {
        expect(a.status).toBe(200);
        expect(a.body.data.organization).toMatchObject({ id: t.demo.organizations.clinic.id, name: expect.any(String) });
      },
    },
    {
      name: "another tenant's organization (NOT_FOUND, indistinguishable from none)",
      body: () => ({ query: ORG, variables: { id: t.demo.organizations.other.id } }),
      expected: (a) => {
        expect(a.status).toBe(200);
        expect(a.body.errors[0].extensions.code).toBe('NOT_FOUND');
      },
    },
    {
      // GraphQL over HTTP: a request error is a 200 with errors for the legacy application/json
      name: 'a variable of the wrong type (application/json: 200 with errors)',
      body: () => ({ query: ORG, variables: { id: 42.5 } }),
      expected: (a) => {
        expect(a.status).toBe(200);
        expect(a.body.data).toBeUndefined();
        expect(a.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      },
    },
    {
      name: 'a missing variable (graphql-response+json: 400)',
      body: () => ({ query: ORG, variables: {} }),
      headers: { accept: 'application/graphql-response+json' },
      expected: (a) => {
        expect(a.status).toBe(400);
        expect(a.headers['content-type']).toContain('application/graphql-response+json');
        expect(a.body.errors[0].message).toMatch(/\$id/);
      },
    },
    {
      name: 'no credentials (401 + WWW-Authenticate)',
      body: () => ({ query: ORG, variables: { id: t.demo.organizations.clinic.id } }),
      headers: { authorization: '' },
      expected: (a) => {
        expect(a.status).toBe(401);
        expect(a.headers['www-authenticate']).toBe('Bearer');
        expect(a.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const post = freshApp();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await post(c.body(), c.headers));
      c.expected(answers[0]!);
      expect(comparable(answers[1]!)).toEqual(comparable(answers[0]!));
      expect(comparable(answers[2]!)).toEqual(comparable(answers[0]!));
    });
  }

  it('an unexpected error is masked, names the request id, and its cause is logged under it', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
    const db = new Proxy(t.deps.db, {
      get: (target, prop, receiver) =>
        prop === 'conversation'
          ? new Proxy(
              {},
              {
                get: () => () => {
                  throw new TypeError('a bug: secret detail');
                },
              },
            )
          : Reflect.get(target, prop, receiver),
    });
    const post = freshApp({ db, logger });
    for (const id of ['first-run', 'prepared-run']) {
      const answer = await post({ query: '{ conversations { items { topic } } }' }, { 'x-request-id': id });
      expect(answer.body.errors[0]).toMatchObject({
        message: `Internal server error; quote request id ${id} when reporting it`,
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: id },
      });
      expect(JSON.stringify(answer.body)).not.toContain('secret detail');
      expect(lines.some((l) => l.requestId === id && l.level === 'error' && String(l.error).includes('secret detail'))).toBe(true);
    }
  });
});

describe('a document with several operations', () => {
  const DOCUMENT = 'query A { organization(id: "ID") { id } } query B { organization(id: "ID") { name } }';

  it.each([
    ['compiled (GRAPHQL_JIT=true)', 'true'],
    ['interpreted (GRAPHQL_JIT=false)', 'false'],
  ])('runs the operation operationName names, every time, on POST and GET: %s', async (_mode, jit) => {
    const post = freshApp({ config: loadConfig({ LOG_LEVEL: 'silent', GRAPHQL_JIT: jit }) });
    const document = DOCUMENT.replaceAll('ID', t.demo.organizations.clinic.id);
    for (const method of ['POST', 'POST', 'GET', 'POST', 'GET']) {
      const a = await post({ query: document, operationName: 'A' }, {}, method);
      const b = await post({ query: document, operationName: 'B' }, {}, method);
      expect(a.body).toEqual({
        data: { organization: { id: t.demo.organizations.clinic.id } },
        extensions: { rateLimit: expect.objectContaining({ cost: 1 }) },
      });
      expect(b.body).toEqual({
        data: { organization: { name: expect.any(String) } },
        extensions: { rateLimit: expect.objectContaining({ cost: 1 }) },
      });
      expect(b.body.data.organization.id).toBeUndefined();
    }
  });

  it('refuses an operationName the document does not have, also after its others ran', async () => {
    const post = freshApp();
    const document = DOCUMENT.replaceAll('ID', t.demo.organizations.clinic.id);
    expect((await post({ query: document, operationName: 'A' })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const c = await post({ query: document, operationName: 'C' });
      expect(c.body.data).toBeUndefined();
      expect(c.body.errors[0].message).toMatch(/Could not determine what operation to execute|Unknown operation named "C"/);
    }
  });
});

describe('rate limits on compiled queries', () => {
  it('a limited field is an error beside the others; every root field limited is 429 + Retry-After', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '2' });
    const rateLimit = createRateLimiter(config, t.deps.logger, t.clock.now);
    try {
      t.clock.set('2026-03-09T13:30:10.000Z');
      const post = freshApp({ config, rateLimit });
      const variables = { id: t.demo.organizations.clinic.id };
      const orgOnly = { query: 'query($id: ID!) { organization(id: $id) { id } }', variables };
      const orgAndViewer = { query: 'query($id: ID!) { organization(id: $id) { id } viewer { scopes } }', variables };
      // organization's budget (2 a minute) spent: once through yoga, once prepared
      for (let i = 0; i < 2; i++) expect((await post(orgOnly)).body.errors).toBeUndefined();
      // viewer has a budget of its own: a partial result, the same on both paths
      const partial = [await post(orgAndViewer), await post(orgAndViewer)];
      expect(partial[0]!.status).toBe(200);
      expect(partial[0]!.body.data.viewer.scopes.length).toBeGreaterThan(0);
      expect(partial[0]!.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['RATE_LIMITED']);
      expect(comparable(partial[1]!)).toEqual(comparable(partial[0]!));
      // every root field limited: 429, on a later run as on the first (a fresh app, the same budgets)
      const prepared = await post(orgOnly);
      expect(prepared.status).toBe(429);
      expect(prepared.headers['retry-after']).toBe('50');
      const throughYoga = await freshApp({ config, rateLimit })(orgOnly);
      expect(comparable(prepared)).toEqual(comparable(throughYoga));
    } finally {
      await rateLimit.close();
    }
  });
});

describe('metrics', () => {
  it('labels every run of a compiled query with its operation', async () => {
    const post = freshApp();
    for (let i = 0; i < 3; i++) expect((await post({ query: 'query Viewer { viewer { scopes } }' })).status).toBe(200);
    const text = await (await post.app.fetch(new Request('http://127.0.0.1/metrics'))).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('ocs_http_requests_total{') && l.includes('operation="Viewer"') && l.includes('status="200"'));
    expect(line, text.slice(0, 3000)).toBeDefined();
    expect(Number(line!.split(' ').pop())).toBe(3);
  });
});

describe('a repeated body', () => {
  const QUERY = 'query Hours($id: ID!) { organization(id: $id) { id officeHours { dayOfWeek open close } } }';

  it('answers what the read model holds now, for the variables of that body', async () => {
    const post = freshApp();
    const clinic = t.demo.organizations.clinic;
    const body = { query: QUERY, variables: { id: clinic.id } };
    for (let i = 0; i < 3; i++) expect((await post(body)).body.data.organization.id).toBe(clinic.id);
    const res = await post.app.fetch(
      new Request(`http://127.0.0.1/v1/organizations/${clinic.id}/office-hours`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clinic.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ dayOfWeek: 'MONDAY', isClosed: false, open: '06:15', close: '07:45' }),
      }),
    );
    expect(res.status).toBe(200);
    const monday = (await post(body)).body.data.organization.officeHours.find((d: { dayOfWeek: string }) => d.dayOfWeek === 'MONDAY');
    expect(monday).toEqual({ dayOfWeek: 'MONDAY', open: '06:15', close: '07:45' });
    // the same query with other variables is another body: another tenant's organization stays unseen
    const foreign = await post({ query: QUERY, variables: { id: t.demo.organizations.other.id } });
    expect(foreign.body.data?.organization ?? null).toBeNull();
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers a weaker credential sending a remembered body as it did before the body was remembered', async () => {
    const created = await t.rest('POST', '/v1/api-keys', { json: { name: 'Closures only', scopes: ['closures:read'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const weak = { authorization: `Bearer ${created.body.data.apiKey as string}` };
    const post = freshApp();
    const body = { query: QUERY, variables: { id: t.demo.organizations.clinic.id } };
    const before = await post(body, weak); // through yoga: the body was never seen
    expect(before.body.errors[0].extensions.code).toBe('FORBIDDEN');
    for (let i = 0; i < 3; i++) expect((await post(body)).body.data.organization.id).toBe(t.demo.organizations.clinic.id);
    const after = await post(body, weak); // the body is remembered, with its prepared query
    expect(comparable(after)).toEqual(comparable(before));
    expect(JSON.stringify(after.body)).not.toContain('officeHours":[');
  });

  it('checks variables that were wrong every time, and answers valid ones after them', async () => {
    const post = freshApp();
    const wrong = { query: QUERY, variables: { id: ['not', 'an', 'id'] } };
    for (let i = 0; i < 3; i++) {
      const answer = await post(wrong);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].message).toContain('$id');
    }
    expect((await post({ query: QUERY, variables: { id: t.demo.organizations.clinic.id } })).body.data.organization.id).toBe(
      t.demo.organizations.clinic.id,
    );
  });
});
