// Rate limits and polling budgets (spec §8, docs/decisions.md §3/§5), on both surfaces, with the fake clock.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.js';
import { useTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import type { GraphQLErrorItem } from '../support/apiTypes.js';
import { graphql } from '../generated/index.js';

// one database for the file; the small-budget cases run against a second app over it
const t = useTestApp();

/** Within the enclosing describe, t.rest/t.gql talk to an app with these budgets (same database, same fake clock). */
function useBudgets(env: Record<string, string>) {
  let main: App;
  let small: App;
  let limiter: RateLimiter;
  beforeAll(() => {
    const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
    limiter = createRateLimiter(config, t.deps.logger, t.clock.now);
    small = createApp({ ...t.deps, config, rateLimit: limiter });
  });
  beforeEach(() => {
    main = t.app;
    t.app = small;
    limiter.clear();
  });
  afterEach(() => {
    t.app = main;
  });
  afterAll(() => limiter.close());
}

const ORG_PATTERN_START = '2026-03-09T13:30:10.000Z';
const WINDOW_END_EPOCH = String(Date.parse('2026-03-09T13:31:00.000Z') / 1000);

const orgPath = (t: TestApp, org: 'clinic' | 'clinic2' = 'clinic') => `/v1/organizations/${t.demo.organizations[org].id}`;
const ORG_QUERY = 'query($id: ID!) { organization(id: $id) { id } }';

async function times<T>(n: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await call(i));
  return out;
}

function expectLimited(res: TestResponse, retryAfter?: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    success: false,
    data: {},
    code: 'rate_limited',
    message: expect.stringMatching(/rate limit|poll|authentication/i),
  });
  const header = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(header)).toBe(true);
  expect(header).toBeGreaterThanOrEqual(1);
  if (retryAfter !== undefined) expect(header).toBe(retryAfter);
}

describe('default budget: 60 per minute per organization and endpoint pattern', () => {
  it('allows 60 requests in a window, answers the 61st with 429 and correct headers, then resets', async () => {
    t.clock.set(ORG_PATTERN_START);
    const allowed = await times(60, () => t.rest('GET', orgPath(t)));
    expect(allowed.map((r) => r.status)).toEqual(new Array(60).fill(200));
    expect(allowed[0]!.headers.get('x-ratelimit-limit')).toBe('60');
    expect(allowed[0]!.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(allowed[0]!.headers.get('x-ratelimit-reset')).toBe(WINDOW_END_EPOCH);
    expect(allowed[59]!.headers.get('x-ratelimit-remaining')).toBe('0');

    const refused = await t.rest('GET', orgPath(t));
    expectLimited(refused, 50);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(WINDOW_END_EPOCH);

    // Retry-After counts down with the clock, whole seconds, at least 1
    t.clock.set('2026-03-09T13:30:59.400Z');
    expectLimited(await t.rest('GET', orgPath(t)), 1);

    // the next window starts at the minute
    t.clock.set('2026-03-09T13:31:00.000Z');
    const next = await t.rest('GET', orgPath(t));
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(next.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-09T13:32:00Z') / 1000));
  });

  it('puts the headers on error answers of a limited route too (a 404 still counts)', async () => {
    t.clock.set(ORG_PATTERN_START);
    const res = await t.rest('GET', '/v1/organizations/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('shares one budget between REST and GraphQL: 30 + 30, then the next of either is limited', async () => {
    t.clock.set(ORG_PATTERN_START);
    const id = t.demo.organizations.clinic.id;
    const rest = await times(30, () => t.rest('GET', orgPath(t)));
    const gql = await times(30, () => t.gql(ORG_QUERY, { id }));
    expect(rest.every((r) => r.status === 200)).toBe(true);
    expect(gql.every((r) => r.status === 200 && r.body.data.organization.id === id && !r.body.errors)).toBe(true);

    expectLimited(await t.rest('GET', orgPath(t)), 50);

    const limited = await t.gql(ORG_QUERY, { id });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('50');
    expect(limited.body.data).toEqual({ organization: null });
    expect(limited.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: 50 }) }),
    ]);
  });

  it('counts every alias: 61 aliased organization fields → 60 resolve, 1 RATE_LIMITED, HTTP 200', async () => {
    t.clock.set(ORG_PATTERN_START);
    const fields = Array.from({ length: 61 }, (_, i) => `o${i}: organization(id: $id) { id }`).join('\n');
    const res = await t.gql(`query($id: ID!) { ${fields} }`, { id: t.demo.organizations.clinic.id });
    expect(res.status).toBe(200);
    const values = Object.values(res.body.data as Record<string, { id: string } | null>);
    expect(values.filter((v) => v?.id === t.demo.organizations.clinic.id)).toHaveLength(60);
    expect(values.filter((v) => v === null)).toHaveLength(1);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 50 });

    // and the REST twin has no budget left either
    expectLimited(await t.rest('GET', orgPath(t)));
  });
});

describe('small configured budgets', () => {
  useBudgets({ RATE_LIMIT_PER_MINUTE: '5', CALL_REQUEST_READS_PER_SECOND: '3', UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '4' });
  const poll = (id: string) => t.rest('GET', `/v1/call-requests/${id}`);
  const gqlPoll = (id: string) => t.gql('query($id: ID!) { callRequest(id: $id) { id status } }', { id });

  it('leaves other endpoint patterns and other organizations unaffected', async () => {
    t.clock.set(ORG_PATTERN_START);
    await times(5, () => t.rest('GET', orgPath(t)));
    expectLimited(await t.rest('GET', orgPath(t)));

    const otherPattern = await t.rest('GET', `${orgPath(t)}/office-hours`);
    expect(otherPattern.status).toBe(200);
    expect(otherPattern.headers.get('x-ratelimit-remaining')).toBe('4');

    // same pattern, another organization (its own key)
    const otherOrg = await t.rest('GET', orgPath(t, 'clinic2'), { token: t.demo.organizations.clinic2.apiKey });
    expect(otherOrg.status).toBe(200);
    expect(otherOrg.headers.get('x-ratelimit-remaining')).toBe('4');

    // the budget is the credential owner's: the account reading the clinic counts on the account
    const account = await t.rest('GET', orgPath(t), { token: t.demo.organizations.account.apiKey });
    expect(account.status).toBe(200);
  });

  it('gives root fields without a REST twin their own pattern (viewer)', async () => {
    t.clock.set(ORG_PATTERN_START);
    await times(5, () => t.rest('GET', orgPath(t)));
    const res = await t.gql(
      graphql(`
        query RateLimitViewer {
          viewer {
            scopes
          }
        }
      `),
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  it('answers 429 with Retry-After for an operation whose every root field is limited; partial limits stay 200', async () => {
    t.clock.set(ORG_PATTERN_START);
    const id = t.demo.organizations.clinic.id;
    await times(5, () => t.rest('GET', orgPath(t)));

    const allLimited = await t.gql(`query($id: ID!) { a: organization(id: $id) { id } b: organization(id: $id) { id } }`, { id });
    expect(allLimited.status).toBe(429);
    expect(allLimited.headers.get('retry-after')).toBe('50');
    expect(allLimited.body.errors.map((e: GraphQLErrorItem) => e.extensions.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);

    // one field limited, another (viewer, its own pattern) fine → 200 with a partial result
    const partial = await t.gql(`query($id: ID!) { organization(id: $id) { id } viewer { scopes } }`, { id });
    expect(partial.status).toBe(200);
    expect(partial.body.data.organization).toBeNull();
    expect(partial.body.data.viewer.scopes.length).toBeGreaterThan(0);
    expect(partial.body.errors).toHaveLength(1);
    expect(partial.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('limits mutations against their REST twin too', async () => {
    t.clock.set(ORG_PATTERN_START);
    const orgId = t.demo.organizations.clinic.id;
    const rest = await times(5, () => t.rest('POST', `${orgPath(t)}/enable`));
    expect(rest.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const res = await t.gql(
      graphql(`
        mutation RateLimitEnableOrganization($orgId: ID!) {
          enableOrganization(orgId: $orgId) {
            status
          }
        }
      `),
      { orgId },
    );
    expect(res.status).toBe(429);
    expect(res.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  // docs/decisions.md §5: a nested field with a REST twin draws on the twin's budget, once per occurrence
  const NESTED_TWINS: [field: string, selection: string, restPath: string][] = [
    ['officeHours', 'officeHours { dayOfWeek }', '/office-hours'],
    ['insurances', 'insurances { id }', '/insurances'],
    ['closures', 'closures { id }', '/closures'],
    ['bots', 'bots { id }', '/bots'],
    ['phoneNumbers', 'phoneNumbers { id }', '/phone-numbers'],
    ['availability', 'availability(medium: PHONE) { state }', '/availability'],
    [
      'availabilityTimeline',
      'availabilityTimeline(from: "2026-03-09T00:00:00Z", to: "2026-03-10T00:00:00Z", medium: PHONE) { from }',
      '/availability/timeline',
    ],
  ];
  for (const [field, selection, restPath] of NESTED_TWINS) {
    it(`refuses Organization.${field} once its REST twin GET …${restPath} is spent`, async () => {
      t.clock.set(ORG_PATTERN_START);
      const id = t.demo.organizations.clinic.id;
      await times(5, () => t.rest('GET', `${orgPath(t)}${restPath}?medium=PHONE`));
      expectLimited(await t.rest('GET', `${orgPath(t)}${restPath}?medium=PHONE`));

      const res = await t.gql(`query($id: ID!) { organization(id: $id) { id ${selection} } }`, { id });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('50');
      expect(res.body.data).toEqual({ organization: null });
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          path: ['organization', field],
          extensions: expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: 50 }),
        }),
      ]);
    });
  }

  it('counts a nested field once per alias and per parent, and reports the cost in extensions.rateLimit', async () => {
    t.clock.set(ORG_PATTERN_START);
    const id = t.demo.organizations.clinic.id;
    const timeline = (i: number) =>
      `t${i}: availabilityTimeline(from: "2026-03-09T00:00:00Z", to: "2026-04-09T00:00:00Z", medium: PHONE) { from }`;
    const res = await t.gql(`query($id: ID!) { organization(id: $id) { ${Array.from({ length: 7 }, (_, i) => timeline(i)).join(' ')} } }`, {
      id,
    });
    // 5 timelines fit the budget of 5; the sixth and seventh make the organization null
    expect(res.status).toBe(429);
    expect(res.body.errors.map((e: GraphQLErrorItem) => e.extensions.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    expect(res.body.extensions.rateLimit).toEqual({
      // the organization, then five timelines: an operation asking for more than a whole budget is refused before the counter
      cost: 6,
      budgets: [
        { pattern: 'GET /v1/organizations/:orgId', limit: 5, remaining: 4, resetAt: '2026-03-09T13:31:00.000Z' },
        { pattern: 'GET /v1/organizations/:orgId/availability/timeline', limit: 5, remaining: 0, resetAt: '2026-03-09T13:31:00.000Z' },
      ],
    });
    expectLimited(await t.rest('GET', `${orgPath(t)}/availability/timeline`));

    // per parent: the viewer's organization and the organization field each read office hours
    const twice = await t.gql(
      `query($id: ID!) { viewer { organization { officeHours { dayOfWeek } } } organization(id: $id) { officeHours { dayOfWeek } } }`,
      { id },
    );
    expect(twice.status).toBe(200);
    expect(twice.body.errors).toBeUndefined();
    expect(twice.body.extensions.rateLimit.cost).toBe(5);
    expect(twice.body.extensions.rateLimit.budgets).toContainEqual({
      pattern: 'GET /v1/organizations/:orgId/office-hours',
      limit: 5,
      remaining: 3,
      resetAt: '2026-03-09T13:31:00.000Z',
    });
    const rest = await t.rest('GET', `${orgPath(t)}/office-hours`);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it("counts bot(id) { workflows } as REST's two reads, and workflows under each of an organization's bots once per bot", async () => {
    t.clock.set(ORG_PATTERN_START);
    const [botId] = t.demo.bots.clinic;
    const one = await t.gql(`query($id: ID!) { bot(id: $id) { workflows { id } } }`, { id: botId });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.extensions.rateLimit.cost).toBe(2);
    expect(one.body.extensions.rateLimit.budgets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pattern: 'GET /v1/bots/:botId', remaining: 4 }),
        expect.objectContaining({ pattern: 'GET /v1/bots/:botId/workflows', remaining: 4 }),
      ]),
    );
    const nested = await t.gql(`query($id: ID!) { organization(id: $id) { bots { workflows { id } } } }`, {
      id: t.demo.organizations.clinic.id,
    });
    expect(nested.body.errors).toBeUndefined();
    const bots = nested.body.data.organization.bots.length;
    expect(bots).toBeGreaterThan(1);
    expect(nested.body.extensions.rateLimit.budgets).toContainEqual(
      expect.objectContaining({ pattern: 'GET /v1/bots/:botId/workflows', remaining: 4 - bots }),
    );
  });

  it('refuses a second poll of a queued call request within 10 s, with the seconds left, on both surfaces', async () => {
    t.clock.set('2026-03-09T13:30:00.000Z');
    const queued = t.demo.callRequests.clinic.queued;
    const first = await poll(queued);
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe('queued');

    t.clock.advance(3_000);
    const again = await poll(queued);
    expectLimited(again, 7);
    expect(again.body.message).toMatch(/10 s/);

    // GraphQL shares the interval: same owner, same request
    const viaGraphQL = await gqlPoll(queued);
    expect(viaGraphQL.status).toBe(429);
    expect(viaGraphQL.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 7 });

    // refused polls do not restart the interval: 10 s after the answered poll, it is answered again
    t.clock.set('2026-03-09T13:30:10.000Z');
    const later = await gqlPoll(queued);
    expect(later.status).toBe(200);
    expect(later.body.data.callRequest.id).toBe(queued);
    t.clock.advance(9_000);
    expectLimited(await poll(queued), 1);
    t.clock.advance(1_000);
    expect((await poll(queued)).status).toBe(200);
  });

  it('keeps the interval per owner and per request', async () => {
    t.clock.set('2026-03-09T13:30:00.000Z');
    expect((await poll(t.demo.callRequests.clinic.queued)).status).toBe(200);
    // another tenant's queued request, by its owner
    const other = await t.rest('GET', `/v1/call-requests/${t.demo.callRequests.other.queued}`, {
      token: t.demo.organizations.other.apiKey,
    });
    expect(other.status).toBe(200);
  });

  it('lets finished requests be polled freely within the per-second budget', async () => {
    t.clock.set('2026-03-09T13:30:00.000Z');
    const [a, b] = await Promise.all([poll(t.demo.callRequests.clinic.failed), poll(t.demo.callRequests.clinic.failed)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.status).toBe('failed');
    expect((await gqlPoll(t.demo.callRequests.clinic.completed)).status).toBe(200);
  });

  it('draws polls on the per-second budget (shared by REST and GraphQL), not on the per-minute default', async () => {
    t.clock.set('2026-03-09T13:30:00.000Z');
    const failed = t.demo.callRequests.clinic.failed;
    const first = await poll(failed);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-09T13:30:01Z') / 1000));
    expect((await gqlPoll(t.demo.callRequests.clinic.completed)).status).toBe(200);
    expect((await poll(failed)).status).toBe(200);

    const fourth = await poll(failed);
    expectLimited(fourth, 1);
    expect(fourth.headers.get('x-ratelimit-remaining')).toBe('0');
    const gql = await gqlPoll(failed);
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1 });

    // the next second has budget again; 3 per second over 3 seconds = 9 polls > the per-minute 5
    for (let s = 1; s <= 3; s++) {
      t.clock.set(new Date(Date.parse('2026-03-09T13:30:00Z') + s * 1000));
      const answers = await times(3, () => poll(failed));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    }
  });

  it('answers 429 per client address after a flood of failed authentications, before verifying', async () => {
    t.clock.set(ORG_PATTERN_START);
    const bad = 'svc-sk-v2-' + 'x'.repeat(43);
    const failures = await times(4, (i) =>
      i % 2
        ? t.gql(
            graphql(`
              query RateLimitViewer2 {
                viewer {
                  scopes
                }
              }
            `),
            {},
            { token: bad },
          )
        : t.rest('GET', orgPath(t), { token: i ? bad : null }),
    );
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 401]);

    expectLimited(await t.rest('GET', orgPath(t), { token: bad }));
    // once over budget, even a valid key from this address waits (it cannot be told apart unverified)
    const valid = await t.rest('GET', orgPath(t));
    expectLimited(valid, 50);
    const viaGraphQL = await t.gql(
      graphql(`
        query RateLimitViewer3 {
          viewer {
            scopes
          }
        }
      `),
      {},
      { token: bad },
    );
    expect(viaGraphQL.status).toBe(429);
    expect(viaGraphQL.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const token = await t.rest('POST', '/oauth/token', {
      token: null,
      json: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' },
    });
    expect(token.status).toBe(429);
    expect(token.headers.get('retry-after')).toBe('50');

    // the next minute: served again
    t.clock.set('2026-03-09T13:31:00.000Z');
    expect((await t.rest('GET', orgPath(t))).status).toBe(200);
  });

  it('meters introspection per client address (no credential needed), on a counter of its own', async () => {
    t.clock.set(ORG_PATTERN_START);
    const introspect = (method: 'GET' | 'POST') =>
      method === 'POST'
        ? t.gql('query IntrospectionQuery { __schema { queryType { name } } }', {}, { token: null })
        : t.app.fetch(
            new Request(`http://127.0.0.1/graphql?query=${encodeURIComponent('{ __type(name: "Organization") { name } }')}`, {
              headers: { accept: 'application/json' },
            }),
          );
    const allowed = [await introspect('POST'), await introspect('POST'), await introspect('POST')];
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(allowed[0]!.body.data.__schema.queryType.name).toBe('Query');
    expect(allowed[2]!.body.extensions.rateLimit).toEqual({
      cost: 1,
      budgets: [{ pattern: 'introspection', limit: 4, remaining: 1, resetAt: '2026-03-09T13:31:00.000Z' }],
    });
    const fourth = (await introspect('GET')) as Response;
    expect(fourth.status).toBe(200);
    expect(((await fourth.json()) as { data: { __type: { name: string } } }).data.__type.name).toBe('Organization');

    const refused = await introspect('POST');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: 50 }) }),
    ]);
    const refusedGet = (await introspect('GET')) as Response;
    expect(refusedGet.status).toBe(429);

    // a counter of its own: the address may still authenticate, and a data field still answers
    expect((await t.rest('GET', orgPath(t))).status).toBe(200);
    const data = await t.gql(
      graphql(`
        query RateLimitViewer4 {
          viewer {
            scopes
          }
        }
      `),
    );
    expect(data.status).toBe(200);
    expect(data.body.extensions.rateLimit.budgets.map((b: { pattern: string }) => b.pattern)).toEqual(['QUERY viewer']);

    // the next minute: served again
    t.clock.set('2026-03-09T13:31:00.000Z');
    expect((await introspect('POST')).status).toBe(200);
  });

  it('does not count successful authentications against the address', async () => {
    t.clock.set(ORG_PATTERN_START);
    const ok = await times(5, (i) =>
      t.rest('GET', orgPath(t, i % 2 ? 'clinic2' : 'clinic'), { token: t.demo.organizations[i % 2 ? 'clinic2' : 'clinic'].apiKey }),
    );
    expect(ok.every((r) => r.status === 200)).toBe(true);
    const failures = await times(4, () => t.rest('GET', orgPath(t), { token: null }));
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 401]);
  });
});
