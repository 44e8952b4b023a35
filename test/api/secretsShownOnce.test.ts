// A secret is shown once (issue 32 finding 1, docs/decisions.md §10 "Integrator conveniences"): every
// operation that answers a secret (an API key, an OAuth client secret, a webhook signing secret), on
// both surfaces, sent with an Idempotency-Key, answers the secret the first time only; the replay is the
// same object with the secret null and `secretShownOnce: true`. After each, every table of the database
// (and, on PostgreSQL, a pg_dump of it) is searched for the plaintext, which is nowhere. A replay goes
// only to the credential that made the first request; another credential of the organization gets a 422.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildSchema, getNamedType, isObjectType } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SECRET_FIELDS } from '../../src/domain/shared/shownOnce.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_PER_MINUTE: '100000' } });
const onPostgres = process.env.TEST_DB === 'postgres';
const keyed = (key: string) => ({ 'Idempotency-Key': key });
const HOOK = 'http://127.0.0.1:9/hook';

/** Every text of the database: each row of each table as JSON, and on PostgreSQL the whole pg_dump too. */
async function databaseText(): Promise<string> {
  const tables = await t.db.prisma.$queryRawUnsafe<{ tablename: string }[]>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  let text = '';
  for (const { tablename } of tables) {
    const rows = await t.db.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(x)::text AS row FROM "${tablename}" x`);
    text += rows.map((r) => r.row).join('\n');
  }
  if (onPostgres) {
    const dump = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', t.db.url], { maxBuffer: 256 * 1024 * 1024 });
    expect(dump.stdout).toContain('COPY public."IdempotencyKey"');
    text += dump.stdout;
  }
  return text;
}

async function expectNowhereInTheDatabase(secret: string): Promise<void> {
  expect(secret.length).toBeGreaterThan(20);
  const text = await databaseText();
  for (const needle of [secret, secret.slice(-20), Buffer.from(secret).toString('hex'), Buffer.from(secret).toString('base64')]) {
    expect(text.includes(needle), `the database holds ${needle.slice(0, 12)}…`).toBe(false);
  }
}

type Setup = () => Promise<string | undefined>;

/** One secret-bearing operation on each surface: how to make what it needs, and where the secret is answered. */
interface SecretOperation {
  rest: { path: (id?: string) => string; body: Record<string, unknown>; secret: string };
  graphql: { mutation: string; field: string; secret: string; variables: (id?: string) => Record<string, unknown> };
  setup?: Setup;
}

const existingKey: Setup = async () =>
  (await t.rest('POST', '/v1/api-keys', { json: { name: 'To roll', scopes: ['closures:read'] } })).body.data.id;
const existingClient: Setup = async () =>
  (await t.rest('POST', '/v1/oauth-clients', { json: { name: 'To rotate', scopes: ['closures:read'] } })).body.data.id;
const existingEndpoint: Setup = async () => (await t.rest('POST', '/v1/webhook-endpoints', { json: { url: HOOK } })).body.data.id;

const OPERATIONS: Record<string, SecretOperation> = {
  createApiKey: {
    rest: { path: () => '/v1/api-keys', body: { name: 'Shown once', scopes: ['closures:read'] }, secret: 'apiKey' },
    graphql: {
      mutation: 'mutation($n: String!) { createApiKey(input: {name: $n, scopes: ["closures:read"]}) { id name apiKey secretShownOnce } }',
      field: 'createApiKey',
      secret: 'apiKey',
      variables: () => ({ n: 'Shown once' }),
    },
  },
  rollApiKey: {
    rest: { path: (id) => `/v1/api-keys/${id}/roll`, body: {}, secret: 'apiKey' },
    graphql: {
      mutation: 'mutation($id: ID!) { rollApiKey(id: $id) { id name apiKey secretShownOnce } }',
      field: 'rollApiKey',
      secret: 'apiKey',
      variables: (id) => ({ id }),
    },
    setup: existingKey,
  },
  createOAuthClient: {
    rest: { path: () => '/v1/oauth-clients', body: { name: 'Shown once', scopes: ['closures:read'] }, secret: 'clientSecret' },
    graphql: {
      mutation:
        'mutation($n: String!) { createOAuthClient(input: {name: $n, scopes: ["closures:read"]}) ' +
        '{ id clientId clientSecret secretShownOnce } }',
      field: 'createOAuthClient',
      secret: 'clientSecret',
      variables: () => ({ n: 'Shown once' }),
    },
  },
  rotateOAuthClientSecret: {
    rest: { path: (id) => `/v1/oauth-clients/${id}/rotate-secret`, body: {}, secret: 'clientSecret' },
    graphql: {
      mutation: 'mutation($id: ID!) { rotateOAuthClientSecret(id: $id) { id clientSecret secretShownOnce } }',
      field: 'rotateOAuthClientSecret',
      secret: 'clientSecret',
      variables: (id) => ({ id }),
    },
    setup: existingClient,
  },
  createWebhookEndpoint: {
    rest: { path: () => '/v1/webhook-endpoints', body: { url: HOOK, description: 'Shown once' }, secret: 'secret' },
    graphql: {
      mutation: 'mutation($u: String!) { createWebhookEndpoint(input: {url: $u}) { id url secret secretShownOnce } }',
      field: 'createWebhookEndpoint',
      secret: 'secret',
      variables: () => ({ u: HOOK }),
    },
  },
  rotateWebhookSecret: {
    rest: { path: (id) => `/v1/webhook-endpoints/${id}/rotate-secret`, body: {}, secret: 'secret' },
    graphql: {
      mutation: 'mutation($id: ID!) { rotateWebhookSecret(id: $id) { id secret secretShownOnce previousSecretExpiresAt } }',
      field: 'rotateWebhookSecret',
      secret: 'secret',
      variables: (id) => ({ id }),
    },
    setup: existingEndpoint,
  },
};

describe('a secret-bearing answer replayed with its Idempotency-Key', () => {
  for (const [name, op] of Object.entries(OPERATIONS)) {
    it(`REST ${name}: the replay is the same object without the secret, which the database holds nowhere`, async () => {
      const id = await op.setup?.();
      const first = await t.rest('POST', op.rest.path(id), { json: op.rest.body, headers: keyed(`rest-${name}`) });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const secret = first.body.data[op.rest.secret] as string;
      expect(typeof secret).toBe('string');
      expect(first.body.data.secretShownOnce).toBe(false);
      expect(first.headers.get('idempotent-replayed')).toBeNull();

      const replay = await t.rest('POST', op.rest.path(id), { json: op.rest.body, headers: keyed(`rest-${name}`) });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual({ ...first.body, data: { ...first.body.data, [op.rest.secret]: null, secretShownOnce: true } });
      expect(JSON.stringify(replay.body)).not.toContain(secret);
      await expectNowhereInTheDatabase(secret);
    });

    it(`GraphQL ${name}: the replay is the same object without the secret, which the database holds nowhere`, async () => {
      const id = await op.setup?.();
      const first = await t.gql(op.graphql.mutation, op.graphql.variables(id), { headers: keyed(`gql-${name}`) });
      expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
      const answer = first.body.data[op.graphql.field];
      const secret = answer[op.graphql.secret] as string;
      expect(typeof secret).toBe('string');
      expect(answer.secretShownOnce).toBe(false);

      const replay = await t.gql(op.graphql.mutation, op.graphql.variables(id), { headers: keyed(`gql-${name}`) });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual({
        ...first.body,
        data: { [op.graphql.field]: { ...answer, [op.graphql.secret]: null, secretShownOnce: true } },
      });
      expect(JSON.stringify(replay.body)).not.toContain(secret);
      await expectNowhereInTheDatabase(secret);
    });
  }

  it('GraphQL: finds the secret under aliases, fragments and several root fields in one mutation', async () => {
    const mutation = `
      mutation Several($url: String!) {
        k: createApiKey(input: {name: "Aliased", scopes: ["closures:read"]}) { ...KeyParts hidden: apiKey once: secretShownOnce }
        createWebhookEndpoint(input: {url: $url}) { ... on WebhookEndpointWithSecret { s: secret id } secretShownOnce }
        c: createOAuthClient(input: {name: "Aliased", scopes: ["closures:read"]}) { ... { clientSecret } clientId }
      }
      fragment KeyParts on ApiKeyWithSecret { id apiKey name }`;
    const first = await t.gql(mutation, { url: HOOK }, { headers: keyed('several') });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const { k, createWebhookEndpoint: hook, c } = first.body.data;
    const secrets = [k.apiKey, k.hidden, hook.s, c.clientSecret] as string[];
    expect(k.apiKey).toBe(k.hidden);
    expect([k.once, hook.secretShownOnce]).toEqual([false, false]);
    const replay = await t.gql(mutation, { url: HOOK }, { headers: keyed('several') });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual({
      k: { ...k, apiKey: null, hidden: null, once: true },
      createWebhookEndpoint: { ...hook, s: null, secretShownOnce: true },
      c: { ...c, clientSecret: null },
    });
    for (const secret of secrets) await expectNowhereInTheDatabase(secret);
  });

  it('the operations above are every operation whose answer carries a secret, on both surfaces', async () => {
    const document = (await (await t.fetch('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    };
    // any answer that refers to a secret-bearing type, at any depth (the replay withholds the secret of `data` itself)
    const restOperations: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schemas = Object.values(operation.responses ?? {}).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema));
        if (/WithSecret"/.test(JSON.stringify(schemas))) restOperations.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(restOperations.sort()).toEqual(
      [
        'POST /v1/api-keys',
        'POST /v1/api-keys/{keyId}/roll',
        'POST /v1/oauth-clients',
        'POST /v1/oauth-clients/{id}/rotate-secret',
        'POST /v1/webhook-endpoints',
        'POST /v1/webhook-endpoints/{endpointId}/rotate-secret',
      ].sort(),
    );
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const withSecret = Object.values(schema.getMutationType()!.getFields()).filter((f) => /WithSecret$/.test(getNamedType(f.type).name));
    expect(withSecret.map((f) => f.name).sort()).toEqual(Object.keys(OPERATIONS).sort());
    // the one declaration both surfaces withhold secrets by names every such type, and its secret field
    const types = Object.keys(schema.getTypeMap()).filter((name) => /WithSecret$/.test(name));
    expect(Object.keys(SECRET_FIELDS).sort()).toEqual(types.sort());
    for (const [type, field] of Object.entries(SECRET_FIELDS)) {
      const fields = (schema.getType(type) as { getFields(): Record<string, unknown> }).getFields();
      expect(Object.keys(fields)).toEqual(expect.arrayContaining([field, 'secretShownOnce']));
    }
    // and every type that carries a secret says so by its name (a String field named like a secret elsewhere is not one)
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || /WithSecret$|^(Query|Mutation|Subscription)$/.test(type.name)) continue;
      expect(
        Object.keys(type.getFields()).filter((f) => /secret$|^apiKey$/i.test(f)),
        type.name,
      ).toEqual([]);
    }
  });
});

describe('a replay goes only to the credential that made the first request', () => {
  it('REST: another credential of the organization gets 422, nothing of the answer, and nothing runs again', async () => {
    const first = await t.rest('POST', '/v1/api-keys', { json: { name: 'Mine', scopes: ['closures:read'] }, headers: keyed('mine') });
    expect(first.status).toBe(200);
    const before = await t.db.prisma.apiKey.count();
    const oauth = await t.accessToken('clinic');
    const other = await t.rest('POST', '/v1/api-keys', {
      token: oauth,
      json: { name: 'Mine', scopes: ['closures:read'] },
      headers: keyed('mine'),
    });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ success: false, code: 'idempotency_key_reused' });
    expect(other.body.message).toContain('Idempotency-Key "mine" was used by another credential');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(other.body)).not.toContain(first.body.data.id);
    expect(await t.db.prisma.apiKey.count()).toBe(before);
    // the credential that made it still gets its replay
    const mine = await t.rest('POST', '/v1/api-keys', { json: { name: 'Mine', scopes: ['closures:read'] }, headers: keyed('mine') });
    expect([mine.status, mine.headers.get('idempotent-replayed'), mine.body.data.id]).toEqual([200, 'true', first.body.data.id]);
  });

  it('GraphQL: an OAuth token does not get the answer to a key an API key created (the attack of issue 32)', async () => {
    const mutation = 'mutation { createApiKey(input: {name: "Mine", scopes: ["closures:read"]}) { id apiKey secretShownOnce } }';
    const first = await t.gql(mutation, {}, { headers: keyed('gql-mine') });
    expect(first.body.errors).toBeUndefined();
    const oauth = await t.gql(mutation, {}, { token: await t.accessToken('clinic'), headers: keyed('gql-mine') });
    expect(oauth.status).toBe(422);
    expect(oauth.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(JSON.stringify(oauth.body)).not.toContain(first.body.data.createApiKey.id);
    // a token is its client: a second token of the same client is the same credential
    const viaClient = await t.gql(
      'mutation { createClosure(orgId: "' +
        t.demo.organizations.clinic.id +
        '", input: {description: "X", annualDate: {month: 5, day: 1}, chatGreeting: null, phoneGreeting: null}) { id } }',
      {},
      {
        token: await t.accessToken('clinic'),
        headers: keyed('client-key'),
      },
    );
    const again = await t.gql(
      'mutation { createClosure(orgId: "' +
        t.demo.organizations.clinic.id +
        '", input: {description: "X", annualDate: {month: 5, day: 1}, chatGreeting: null, phoneGreeting: null}) { id } }',
      {},
      {
        token: await t.accessToken('clinic'),
        headers: keyed('client-key'),
      },
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(viaClient.body);
  });
});

describe('what is kept when the answer cannot be replayed without its secret', () => {
  it('a keyed secret-bearing mutation asked for as an event stream: the replay shows no secret, the database holds none', async () => {
    const mutation = 'mutation { createApiKey(input: {name: "Streamed", scopes: ["closures:read"]}) { id apiKey } }';
    const ask = () =>
      t.fetch('/graphql', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.demo.organizations.clinic.apiKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...keyed('streamed'),
        },
        body: JSON.stringify({ query: mutation }),
      });
    const first = await ask();
    const text = await first.text();
    const secret = /svc-sk-v2-[0-9A-Za-z]{43}/.exec(text)?.[0];
    expect(secret, text).toBeDefined();
    const replay = await ask();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const replayed = await replay.text();
    // yoga answered the stream; a stream cannot be replayed without its secret, so an error saying it was done is kept
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    expect(JSON.parse(replayed).errors[0].extensions.code).toBe('REPLAY_WITHHELD');
    expect(replayed).not.toContain(secret!);
    expect(await t.db.prisma.apiKey.count({ where: { name: 'Streamed' } })).toBe(1);
    await expectNowhereInTheDatabase(secret!);
  });

  it('the migration that added the credential replaces every answer stored with a secret before it, keeping the key taken', async () => {
    const migration = readFileSync(
      new URL('../../prisma/migrations/20261127155348_idempotency_key_credential/migration.sql', import.meta.url),
      'utf8',
    );
    const scrub = migration.slice(migration.indexOf('UPDATE "IdempotencyKey"'));
    const apiKey = `svc-sk-v2-${'A'.repeat(43)}`;
    const clientSecret = 'b'.repeat(48);
    const signing = `whsec_${'C'.repeat(43)}=`;
    const now = new Date();
    const row = (key: string, request: string, body: string) => ({
      ownerOrgId: t.demo.organizations.clinic.id,
      key,
      fingerprint: 'f',
      request,
      requestId: `req-${key}`,
      status: 200,
      body,
      contentType: 'application/json',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
    await t.db.prisma.idempotencyKey.createMany({
      data: [
        row('rest-key', 'POST /v1/api-keys', JSON.stringify({ success: true, data: { id: 'x', apiKey } })),
        row('gql-client', 'POST /graphql mutation (anonymous)', JSON.stringify({ data: { c: { s: clientSecret } } })),
        row('rest-hook', 'POST /v1/webhook-endpoints', JSON.stringify({ success: true, data: { secret: signing } })),
        row('closure', 'POST /v1/organizations/x/closures', JSON.stringify({ success: true, data: { id: 'kept as it was' } })),
      ],
    });
    await t.db.prisma.$executeRawUnsafe(scrub);
    const rows = await t.db.prisma.idempotencyKey.findMany({ orderBy: { key: 'asc' } });
    const text = JSON.stringify(rows);
    for (const secret of [apiKey, clientSecret, signing]) expect(text).not.toContain(secret);
    const body = (key: string) => JSON.parse(rows.find((r) => r.key === key)!.body!);
    expect(body('rest-key')).toEqual({ success: true, data: null, message: expect.stringContaining('Done by request req-rest-key') });
    expect(body('gql-client').errors[0].extensions).toEqual({ code: 'REPLAY_WITHHELD', requestId: 'req-gql-client' });
    expect(body('closure')).toEqual({ success: true, data: { id: 'kept as it was' } });
    const replay = await t.rest('POST', '/v1/webhook-endpoints', {
      token: await t.accessToken('clinic'),
      json: { url: HOOK },
      headers: keyed('rest-hook'),
    });
    // the key stays taken: a request with it never runs again (here another request: 422)
    expect(replay.status).toBe(422);
  });
});
