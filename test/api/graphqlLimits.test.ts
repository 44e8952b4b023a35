// GraphQL abuse limits (docs/decisions.md §5): an operation that is too deep, has too many aliases or directives,
// costs too much or is too long is refused with a message naming the limit, before any resolver runs.
// The proof: every SQL statement is counted (the database's statement observers), the read model is
// emptied before each operation, and a refused operation makes none (a resolver's first act,
// authenticating the caller, is then a database read).
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { GRAPHQL_LIMITS } from '../../src/graphql/abuseLimits.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

let databaseOperations = 0;
let app: App;
let productionApp: App;

beforeAll(() => {
  t.db.observers.add({ onStatement: () => databaseOperations++ });
  app = createApp(t.deps);
  productionApp = createApp({ ...t.deps, config: { ...t.deps.config, production: true } });
});

async function send(query: string, target: App = app) {
  t.deps.readModel.clear();
  databaseOperations = 0;
  const res = await target.fetch(
    new Request('http://127.0.0.1:4000/graphql', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query }),
    }),
  );
  const body = (await res.json()) as { data?: unknown; errors?: { message: string }[] };
  return { status: res.status, body, databaseOperations };
}

function expectRefused(res: Awaited<ReturnType<typeof send>>, message: RegExp) {
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors?.map((e) => e.message)).toContainEqual(expect.stringMatching(message));
  expect(res.body.errors?.map((e) => e.message).join('\n')).not.toMatch(/Syntax Error: .*(depth|Aliases|Directives|Cost)/);
  expect(res.databaseOperations, 'a refused operation must not reach a resolver').toBe(0);
}

/** organization { children { parent { children { … { id } } } } } with `levels` nested selections. */
function nestedQuery(levels: number): string {
  let selection = 'id';
  for (let level = levels - 1; level >= 2; level--) selection = `${level % 2 === 0 ? 'children' : 'parent'} { ${selection} }`;
  return `{ organization(id: "${t.demo.organizations.clinic.id}") { ${selection} } }`;
}

describe('GraphQL abuse limits', () => {
  it('answers an ordinary dashboard query (and the counter sees its database reads)', async () => {
    const res = await send(`{ viewer { organization { name children { id parent { id } } } } }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.databaseOperations).toBeGreaterThan(0);
    const atTheLimit = await send(nestedQuery(GRAPHQL_LIMITS.maxDepth));
    expect(atTheLimit.body.errors).toBeUndefined();
  });

  it('refuses a query 20 levels deep', async () => {
    const res = await send(nestedQuery(20));
    expectRefused(res, new RegExp(`^Query depth limit of ${GRAPHQL_LIMITS.maxDepth} exceeded, found 20\\.$`));
  });

  it('refuses 500 aliases in one operation', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `a${i}: viewer { scopes }`).join(' ');
    const res = await send(`{ ${aliases} }`);
    expectRefused(res, new RegExp(`Aliases limit of ${GRAPHQL_LIMITS.maxAliases} exceeded, found 500`));
  });

  it(`accepts ${GRAPHQL_LIMITS.maxAliases} aliases`, async () => {
    // inside one root field, so that the per-field rate limit (each root alias counts) stays out of it
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases }, (_, i) => `s${i}: scopes`).join(' ');
    const res = await send(`{ viewer { ${aliases} } }`);
    expect(res.body.errors).toBeUndefined();
  });

  it('refuses a 1 MB document by its token count', async () => {
    const query = `{ ${'viewer { scopes } '.repeat(Math.floor(1_000_000 / 18))} }`;
    expect(query.length).toBeGreaterThan(990_000);
    const res = await send(query);
    expectRefused(res, new RegExp(`Token limit of ${GRAPHQL_LIMITS.maxTokens} exceeded`));
  });

  it('refuses a DateTime variable nested arrays deep with a clear error, on both executors (it was a 500: the scalar named the value with JSON.stringify)', async () => {
    const query = 'query Deep($at: DateTime!, $id: ID!) { organization(id: $id) { availability(at: $at, medium: PHONE) { state } } }';
    // 10,000 deep is refused with the body, before it is parsed; 50 deep reaches the scalar, which names the value's kind
    const cases: [number, RegExp][] = [
      [10_000, /The body nests arrays and objects deeper than 64 levels/],
      [50, /DateTime cannot represent a value of type array|Variable "\$at" got invalid value/],
    ];
    for (const [depth, message] of cases) {
      const nested = `${'['.repeat(depth)}"2026-03-09T13:30:00Z"${']'.repeat(depth)}`;
      for (const target of [app, createApp({ ...t.deps, config: { ...t.deps.config, graphqlJit: false } })]) {
        const res = await target.fetch(
          new Request('http://127.0.0.1:4000/graphql', {
            method: 'POST',
            headers: {
              authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
              'content-type': 'application/json',
              accept: 'application/json',
            },
            body: `{"query":${JSON.stringify(query)},"variables":{"id":"${t.demo.organizations.clinic.id}","at":${nested}}}`,
          }),
        );
        const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
        expect(body.errors?.[0]?.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
        expect(body.errors?.[0]?.message).toMatch(message);
      }
    }
  });

  it('refuses a body over 1 MiB before reading it as GraphQL', async () => {
    const res = await send(`{ viewer { scopes } } #${'x'.repeat(1_100_000)}`);
    expect(res.status).toBe(413);
    expectRefused(res, /The body exceeds 1048576 bytes/);
  });

  it('refuses too many directives', async () => {
    const fields = Array.from({ length: GRAPHQL_LIMITS.maxDirectives + 1 }, () => 'scopes @include(if: true)').join(' ');
    const res = await send(`{ viewer { ${fields} } }`);
    expectRefused(res, new RegExp(`Directives limit of ${GRAPHQL_LIMITS.maxDirectives} exceeded`));
  });

  it('refuses an operation over the cost limit that passes the other limits', async () => {
    // 90 aliases (under 100) of a 10-level selection (under 12): each level multiplies the cost by 1.5
    const selection = nestedQuery(10).replace(/^\{ /, '').replace(/ \}$/, '');
    const aliases = Array.from({ length: 90 }, (_, i) => `a${i}: ${selection}`).join(' ');
    const res = await send(`{ ${aliases} }`);
    expectRefused(res, new RegExp(`Cost limit of ${GRAPHQL_LIMITS.maxCost} exceeded`));
  });

  it('refuses a batch (a JSON array of operations) with 400, running none of them', async () => {
    databaseOperations = 0;
    const batch = Array.from({ length: 50 }, () => ({ query: '{ viewer { scopes } }' }));
    const res = await app.fetch(
      new Request('http://127.0.0.1:4000/graphql', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(batch),
      }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors).toEqual([
      expect.objectContaining({ message: 'Batching is not supported.', extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }),
    ]);
    expect(databaseOperations).toBe(0);
  });

  it('suggests field names in development only', async () => {
    const dev = await send('{ viewer { scope } }');
    expect(dev.body.errors?.[0]?.message).toMatch(/Did you mean "scopes"\?/);
    const prod = await send('{ viewer { scope } }', productionApp);
    expect(prod.body.errors?.[0]?.message).toMatch(/Cannot query field "scope"/);
    expect(prod.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
    expect(prod.databaseOperations).toBe(0);
  });
});
