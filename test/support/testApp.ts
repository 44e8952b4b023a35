// The API test harness: one database and one app per test file, the demo data set recreated before
// every case, a fake clock, and small REST/GraphQL clients that go through the app's fetch handler
// (no socket). Every answer `t.rest` gets is checked against the OpenAPI document the app serves (a
// documented status, a body matching its schema: openApiValidator.ts), so a test fails on drift. Usage:
//
//   const t = useTestApp();
//   it('…', async () => {
//     const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`);
//     expect(res.status).toBe(200);
//   });
import { TranscriptKeyring } from '../../src/domain/governance/transcriptKeys.js';
import { masterKeys } from '../../src/crypto/masterKeys.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadSigningKey } from '../../src/auth/signingKey.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/deps.js';
import { createDemoData, type DemoData } from '../../src/demo/demoData.js';
import { createLogger } from '../../src/logger.js';
import { createRateLimiter } from '../../src/ratelimit/limiter.js';
import { createChangeFeed } from '../../src/changes/createFeed.js';
import { LiveEventReader } from '../../src/changes/liveEvents.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { KeyUsage } from '../../src/auth/keyUsage.js';
import { LiveStreams } from '../../src/graphql/liveStreams.js';
import { TenantWorkGate } from '../../src/domain/shared/tenantWork.js';
import { OpenApiValidator } from './openApiValidator.js';
import { openTestDatabase, type TestDatabase } from './testDatabase.js';

export class FakeClock {
  private fixed: Date | null = null;
  private timers: { atMs: number; wake: () => void }[] = [];
  now = (): Date => (this.fixed ? new Date(this.fixed) : new Date());
  set(at: Date | string): void {
    this.fixed = new Date(at);
    this.fireDue();
  }
  advance(ms: number): void {
    this.fixed = new Date(this.now().getTime() + ms);
    this.fireDue();
  }
  /** Back to the real time (pending wake-ups are dropped). */
  real(): void {
    this.fixed = null;
    this.timers = [];
  }
  /** deps.wakeAt on this clock: due wake-ups fire, in order, when the clock is set or advanced past them. */
  wakeAt = (atMs: number, wake: () => void): (() => void) => {
    const timer = { atMs, wake };
    if (atMs <= this.now().getTime()) queueMicrotask(wake);
    else this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  };
  /** Wake-ups waiting (tests: a subscription keeps exactly one). */
  get pendingWakeUps(): number {
    return this.timers.length;
  }
  private fireDue(): void {
    const now = this.now().getTime();
    const due = this.timers.filter((t) => t.atMs <= now).sort((a, b) => a.atMs - b.atMs);
    this.timers = this.timers.filter((t) => t.atMs > now);
    for (const timer of due) timer.wake();
  }
}

export interface RestOptions {
  /** Bearer token; defaults to the clinic's API key. `null` sends no Authorization header. */
  token?: string | null;
  /** A JSON body (sent as application/json). */
  json?: unknown;
  /** A form body: sent as application/x-www-form-urlencoded. */
  form?: [string, string][] | Record<string, string>;
  /** A multipart/form-data body. */
  multipart?: [string, string][] | Record<string, string>;
  /** A raw body with its own content type. */
  raw?: { body: BodyInit; contentType?: string };
  headers?: Record<string, string>;
}

export interface GqlOptions {
  /** Bearer token; defaults to the clinic's API key. `null` sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

/**
 * A response body as a test reads it when no type describes it: deliberately `any`, the default body of
 * `TestResponse`, `rest` and `gql`, so that the ~200 test files can reach into `body.data…` and
 * `body.errors[0]…` and let their assertions do the checking. Typed bodies pass a type argument instead.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the untyped default body read by ~200 test files; `unknown` would break type-checking across them
export type UntypedBody = any;

/** A GraphQL response body, `data` typed by the document. */
export interface GraphQLBody<TResult> {
  /** The result; null or partial when `errors` is present (a test expecting an error asserts that). */
  data: TResult;
  /** Undefined on success, else `[{message, path, extensions: {code, …}}]`; untyped so tests can read what they assert. */
  errors: UntypedBody;
  /** What the operation cost: `{ rateLimit: { cost, budgets } }` (docs/rest.md "Rate limits and polling budgets"). */
  extensions?: UntypedBody;
}

export interface TestResponse<T = UntypedBody> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  app: App;
  deps: AppDeps;
  db: TestDatabase;
  clock: FakeClock;
  /** The demo data set of docs/decisions.md §6, recreated before every case. */
  demo: DemoData;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  rest<T = UntypedBody>(method: string, path: string, options?: RestOptions): Promise<TestResponse<T>>;
  /** A typed document from test/generated (`graphql(\`…\`)`): typed variables and `data` (variables optional when none is required). */
  gql<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    ...args: Record<never, never> extends TVariables
      ? [variables?: TVariables, options?: GqlOptions]
      : [variables: TVariables, options?: GqlOptions]
  ): Promise<TestResponse<GraphQLBody<TResult>>>;
  gql<T = UntypedBody>(query: string, variables?: Record<string, unknown>, options?: GqlOptions): Promise<TestResponse<T>>;
  /** An OAuth access token for one of the demo clients. */
  accessToken(client: 'clinic' | 'clinicReadOnly'): Promise<string>;
  /** Runs `work` and answers the SQL statements it sent (their text; transaction control left out), with its result. */
  statements<T>(work: () => Promise<T>): Promise<{ result: T; sql: string[] }>;
}

export interface TestAppOptions {
  /** Configuration overrides, as environment variables (e.g. RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>;
  /** Create the demo data before each case (default true). */
  seed?: boolean;
}

export function useTestApp(options: TestAppOptions = {}): TestApp {
  const t = { clock: new FakeClock() } as TestApp;
  let config: Config;

  t.fetch = (path, init) => Promise.resolve(t.app.fetch(new Request(new URL(path, 'http://127.0.0.1:4000'), init)));

  // the document as served, fetched once per test file
  let openApi: Promise<OpenApiValidator> | undefined;
  const documented = () =>
    (openApi ??= t
      .fetch('/v1/openapi.json')
      .then((res) => res.json())
      .then((document) => new OpenApiValidator(document as Record<string, unknown>)));

  t.rest = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? t.demo.organizations.clinic.apiKey : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(Array.isArray(o.form) ? o.form : Object.entries(o.form)).toString();
    } else if (o.multipart) {
      const fd = new FormData();
      for (const [k, v] of Array.isArray(o.multipart) ? o.multipart : Object.entries(o.multipart)) fd.append(k, v);
      body = fd;
    } else if (o.raw) {
      if (o.raw.contentType) headers['content-type'] = o.raw.contentType;
      body = o.raw.body;
    }
    const res = await t.fetch(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      // NDJSON (a streamed export) is answered as the array of its lines, each parsed
      parsed = res.headers.get('content-type')?.startsWith('application/x-ndjson')
        ? text
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as unknown)
        : text
          ? JSON.parse(text)
          : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    const problems = (await documented()).check({
      method,
      path,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: parsed,
    });
    if (problems.length > 0) {
      throw new Error(
        `The answer does not match the OpenAPI document (GET /v1/openapi.json):\n${problems.join('\n')}\nbody: ${text.slice(0, 2000)}`,
      );
    }
    return { status: res.status, headers: res.headers, body: parsed as UntypedBody };
  };

  t.gql = async (query: string | TypedDocumentNode<unknown, unknown>, variables?: unknown, o: GqlOptions = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...o.headers };
    const token = o.token === undefined ? t.demo.organizations.clinic.apiKey : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const res = await t.fetch('/graphql', {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  t.accessToken = async (client) => {
    const c = t.demo.oauthClients[client];
    const res = await t.rest('POST', '/oauth/token', {
      token: null,
      json: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, audience: config.oauthAudience },
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token as string;
  };

  t.statements = async (work) => {
    const sql: string[] = [];
    const observer = { onStatement: (e: { sql: string; control: boolean }) => (e.control ? undefined : sql.push(e.sql)) };
    t.db.observers.add(observer);
    try {
      const result = await work();
      return { result, sql };
    } finally {
      t.db.observers.delete(observer);
    }
  };

  beforeAll(async () => {
    config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
    t.db = await openTestDatabase(undefined, config.database);
    const key = await loadSigningKey(t.db.prisma, undefined);
    const logger = createLogger(config.logLevel);
    const changes = createChangeFeed(config, logger);
    const readModel = new ReadModel(t.db.prisma, { ...config.readModel, clock: t.clock.now });
    changes.subscribe(readModel);
    await changes.start(2_000);
    t.deps = {
      config,
      db: t.db.prisma,
      database: t.db,
      tokens: { key, issuer: config.oauthIssuer, audience: config.oauthAudience },
      transcripts: new TranscriptKeyring(masterKeys(config.transcriptMasterKeys, key)),
      logger,
      clock: t.clock.now,
      wakeAt: t.clock.wakeAt,
      // in memory unless the env override sets REDIS_URL; the fake clock drives its windows
      rateLimit: createRateLimiter(config, logger, t.clock.now),
      readModel,
      changes,
      liveStreams: new LiveStreams(config.subscriptionsPerCredential),
      liveEvents: new LiveEventReader(t.db.prisma, { observers: t.db.observers, onNotice: (wake) => changes.onNotice(wake) }),
      tenantWork: new TenantWorkGate(),
      // written only when a test flushes it: a timer firing mid-test would add a statement to its count
      keyUsage: new KeyUsage(t.db.prisma, 24 * 60 * 60_000),
    };
    if (config.redisUrl) await t.deps.rateLimit.store.inner.ready(2_000);
    t.app = createApp(t.deps);
  });

  beforeEach(async () => {
    t.clock.real();
    t.deps.rateLimit.clear(); // fresh in-memory budgets per case (a Redis store is left alone)
    await t.db.reset();
    t.deps.readModel.clear(); // the database was emptied behind the change feed's back
    if (options.seed !== false) t.demo = await createDemoData(t.db.prisma, config.oauthAudience);
  });

  afterAll(async () => {
    await t.deps?.rateLimit?.close();
    await (t.deps?.liveEvents as LiveEventReader | undefined)?.close();
    await t.deps?.changes?.close();
    await t.db?.close();
  });

  return t;
}
