// Environment → typed, validated configuration (docs/decisions.md §1). A bad value stops the process with a
// one-line error naming the variable, before anything is opened.
import { z } from 'zod';

const positiveInt = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      if (!/^\d+$/.test(v) || Number(v) < 1) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a positive integer, got "${v}"` });
        return z.NEVER;
      }
      return Number(v);
    });

/** `https://app.example.com` or `http://localhost:3000`: exactly what a browser sends in `Origin`. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The origin of an http(s) URL (`https://api.example.com` of `https://api.example.com/v1`), else undefined. */
function httpOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const envSchema = z
  .object({
    PORT: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v === '') return 4000;
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 65535) {
          ctx.addIssue({ code: 'custom', message: `PORT must be an integer 0..65535, got "${v}"` });
          return z.NEVER;
        }
        return n;
      }),
    HOST: z.string().min(1).optional().default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .optional()
      .default('pglite:./data/pglite')
      .refine((v) => /^pglite:.+/.test(v) || /^postgres(ql)?:\/\//.test(v), {
        message: 'DATABASE_URL must be pglite:<dir>, pglite:memory or postgresql://…',
      }),
    REDIS_URL: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .refine((v) => v === undefined || /^rediss?:\/\//.test(v), { message: 'REDIS_URL must start with redis:// or rediss://' }),
    RATE_LIMIT_PER_MINUTE: positiveInt('RATE_LIMIT_PER_MINUTE', 60),
    CALL_REQUEST_READS_PER_SECOND: positiveInt('CALL_REQUEST_READS_PER_SECOND', 60),
    CALL_REQUEST_MIN_POLL_SECONDS: positiveInt('CALL_REQUEST_MIN_POLL_SECONDS', 10),
    UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: positiveInt('UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE', 300),
    RATE_LIMIT_KEY_PREFIX: z.string().optional().default('ocs:rl:'),
    TRUST_PROXY: z
      .enum(['true', 'false', '1', '0', ''], { message: 'TRUST_PROXY must be true or false' })
      .optional()
      .transform((v) => v === 'true' || v === '1'),
    DB_POOL_SIZE: positiveInt('DB_POOL_SIZE', 10),
    DB_MAX_WAITING: positiveInt('DB_MAX_WAITING', 100),
    DB_QUEUE_TIMEOUT_MS: positiveInt('DB_QUEUE_TIMEOUT_MS', 5_000),
    DB_STATEMENT_TIMEOUT_MS: positiveInt('DB_STATEMENT_TIMEOUT_MS', 10_000),
    GRAPHQL_JIT: z
      .enum(['true', 'false', '1', '0', ''], { message: 'GRAPHQL_JIT must be true or false' })
      .optional()
      .transform((v) => v !== 'false' && v !== '0'),
    GRAPHQL_FAST_PATH: z
      .enum(['true', 'false', '1', '0', ''], { message: 'GRAPHQL_FAST_PATH must be true or false' })
      .optional()
      .transform((v) => v !== 'false' && v !== '0'),
    SUBSCRIPTIONS_PER_CREDENTIAL: positiveInt('SUBSCRIPTIONS_PER_CREDENTIAL', 10),
    READ_MODEL_MAX_ENTRIES: positiveInt('READ_MODEL_MAX_ENTRIES', 10_000),
    // the estimated MiB each part of the read model holds at most (src/readmodel/sizes.ts): the schedules of
    // 10,000 organizations with weekly hours and a few rules fit, so for them the count binds first; schedules
    // with many closures, special days or phone numbers are bounded here
    READ_MODEL_MAX_MB: positiveInt('READ_MODEL_MAX_MB', 48),
    READ_MODEL_MAX_AGE_SECONDS: positiveInt('READ_MODEL_MAX_AGE_SECONDS', 60),
    EVENT_RETENTION_DAYS: positiveInt('EVENT_RETENTION_DAYS', 30),
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: positiveInt('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', 4),
    WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION: positiveInt('WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION', 16),
    WEBHOOK_DELIVERY_SLOTS: positiveInt('WEBHOOK_DELIVERY_SLOTS', 64),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z
      .enum(['true', 'false', '1', '0', ''], { message: 'WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false' })
      .optional(),
    CHANGES_CHANNEL: z
      .string()
      .optional()
      .default('ocs_changes')
      .refine((v) => /^[a-z_][a-z0-9_]{0,62}$/.test(v), { message: 'CHANGES_CHANNEL must be lowercase letters, digits and underscores' }),
    OAUTH_AUDIENCE: z.string().optional(),
    JWT_PRIVATE_KEY: z.string().optional(),
    // the master keys of transcript data keys (crypto/masterKeys.ts, docs/operating.md "Transcript keys")
    TRANSCRIPT_MASTER_KEYS: z
      .string()
      .optional()
      .superRefine((value, ctx) => {
        if (value === undefined || value.trim() === '') return;
        try {
          parseMasterKeys(value);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
    // Behind a load balancer (docs/operating.md "Keep-alive"): an idle connection stays open longer than the
    // balancer's idle timeout (AWS ALB's default is 60 s), so the instance never closes one the balancer is
    // reusing at that instant (ECONNRESET); the headers timeout is longer than the keep-alive one, as Node's docs
    // advise, and the request timeout leaves a body time after the headers
    HTTP_HEADERS_TIMEOUT_MS: positiveInt('HTTP_HEADERS_TIMEOUT_MS', 66_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt('HTTP_REQUEST_TIMEOUT_MS', 90_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000),
    HTTP_MAX_HEADER_BYTES: positiveInt('HTTP_MAX_HEADER_BYTES', 16_384),
    HTTP_MAX_HEADERS: positiveInt('HTTP_MAX_HEADERS', 100),
    HTTP_MAX_QUEUED_REQUESTS: positiveInt('HTTP_MAX_QUEUED_REQUESTS', 2_000),
    CORS_ORIGINS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const origins = (v ?? '')
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
        for (const origin of origins) {
          if (origin !== '*' && !isOrigin(origin)) {
            ctx.addIssue({
              code: 'custom',
              message: `CORS_ORIGINS must list origins like https://app.example.com (scheme, host and port only) or *, got "${origin}"`,
            });
            return z.NEVER;
          }
        }
        return origins;
      }),
    METRICS_TOKEN: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .refine((v) => v === undefined || /^[\x21-\x7e]{16,}$/.test(v), {
        message: 'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces (e.g. openssl rand -hex 32)',
      }),
    GRAPHIQL_DEMO_KEY: z
      .enum(['true', 'false', '1', '0', ''], { message: 'GRAPHIQL_DEMO_KEY must be true or false' })
      .optional()
      .transform((v) => v === 'true' || v === '1'),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).optional().default('info'),
    NODE_ENV: z.string().optional().default('development'),
  })
  .refine(
    // node:http refuses a headers timeout longer than the request timeout (which includes the headers)
    (e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS,
    { path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS' },
  )
  .refine(
    // Node's advice for a server behind a load balancer: on Node before 18 a kept-alive connection's headers timer
    // ran from the previous answer, so a shorter one cut a reuse the keep-alive timeout still allowed
    (e) => e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    { path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'HTTP_HEADERS_TIMEOUT_MS must exceed HTTP_KEEP_ALIVE_TIMEOUT_MS' },
  )
  .refine(
    // an organization's share must leave slots to the others, or one organization's hanging receivers hold them all
    (e) => e.WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION < e.WEBHOOK_DELIVERY_SLOTS,
    {
      path: ['WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION'],
      message: 'WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION must be less than WEBHOOK_DELIVERY_SLOTS',
    },
  );

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  rateLimitPerMinute: number;
  callRequestReadsPerSecond: number;
  callRequestMinPollSeconds: number;
  /** Failed authentications per client address per minute before 429 (a flood of bad tokens). */
  unauthenticatedRateLimitPerMinute: number;
  /** Prefix of the rate-limit keys in Redis. */
  rateLimitKeyPrefix: string;
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** How much database work may run and wait, and for how long (503 past it). */
  database: { poolSize: number; maxWaiting: number; queueTimeoutMs: number; statementTimeoutMs: number };
  /** The read model's bound (entries per kind) and the lifetime of an entry while the change channel is up. */
  readModel: { maxEntries: number; maxBytes: number; maxAgeMs: number };
  /** Compile GraphQL operations to JavaScript (graphql-jit) instead of interpreting them. */
  graphqlJit: boolean;
  /** Read a plain JSON POST's parameters and write its answer without yoga's request parsing (graphql/overHttp.ts). */
  graphqlFastPath: boolean;
  /** Live subscriptions a credential may hold open at once, per instance. */
  subscriptionsPerCredential: number;
  /** The channel changes travel on between instances (Redis channel or PostgreSQL NOTIFY channel). */
  changesChannel: string;
  /** The `audience` a token request must name and the `aud` of issued tokens. */
  oauthAudience: string;
  /**
   * Issuer of access tokens (`iss`, checked on every token): the service's public address — the origin of
   * OAUTH_AUDIENCE when that is an http(s) URL, so that every instance behind one load balancer issues
   * and accepts the same tokens whatever its own port; else http://HOST:PORT.
   */
  oauthIssuer: string;
  jwtPrivateKey: string | undefined;
  /**
   * TRANSCRIPT_MASTER_KEYS: the master keys that wrap transcript data keys, the first current (crypto/masterKeys.ts);
   * none: one is derived from the signing key.
   */
  transcriptMasterKeys: MasterKey[];
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  production: boolean;
  /** Limits of the HTTP server against slow and oversized requests (http/server.ts). */
  http: HttpLimits;
  /** Origins allowed to call the API from a browser (CORS); empty = CORS closed, `*` = any origin. */
  corsOrigins: string[];
  /** When set, GET /metrics requires `Authorization: Bearer <token>`; unset = public. */
  metricsToken: string | undefined;
  /**
   * GRAPHIQL_DEMO_KEY (off unless asked for): on the embedded demo database, GraphiQL opens with the Downtown
   * clinic's key in its headers, for a browser on this machine only (http/loopback.ts).
   */
  graphiqlDemoKey: boolean;
  /** How many days the event log keeps events (EVENT_RETENTION_DAYS). */
  eventRetentionDays: number;
  /**
   * Webhooks may go to http:// and to loopback, private, link-local and metadata addresses
   * (WEBHOOK_ALLOW_PRIVATE_TARGETS; off unless set, on every database: local development opts in).
   */
  webhookAllowPrivateTargets: boolean;
  /** Deliveries to one endpoint in flight at once on an instance (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). */
  webhookMaxInFlightPerEndpoint: number;
  /** Deliveries to one organization's endpoints in flight at once on an instance: its share (WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION). */
  webhookMaxInFlightPerOrganization: number;
  /** Deliveries in flight at once on an instance, all organizations together (WEBHOOK_DELIVERY_SLOTS). */
  webhookDeliverySlots: number;
}

export interface HttpLimits {
  /** A request's headers must arrive within this time (slow headers are answered 408 and closed). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this time (slow bodies: 408, closed). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Request line and headers together, in bytes (larger: 431). */
  maxHeaderBytes: number;
  /** Header fields per request (more: 431). */
  maxHeaders: number;
  /** Requests waiting to start (http/requestScheduler.ts); past it a request is answered 503 + Retry-After at once. */
  maxQueuedRequests: number;
}

export class ConfigError extends Error {}

// --- TRANSCRIPT_MASTER_KEYS (crypto/masterKeys.ts) ---

/** A master key of transcript data keys. */
export interface MasterKey {
  /** Stored beside each data key it wraps, so that a rotation knows which master opens which row. */
  id: string;
  key: Uint8Array;
}

const MASTER_KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The id of the master key derived from the signing key (crypto/masterKeys.ts): not one to configure. */
export const SIGNING_KEY_MASTER_ID = 'signing-key';

/** Parses TRANSCRIPT_MASTER_KEYS; throws an Error naming the setting and what is wrong with it. */
export function parseMasterKeys(setting: string): MasterKey[] {
  const keys: MasterKey[] = [];
  for (const [index, entry] of setting.split(',').entries()) {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    const id = colon < 0 ? '' : trimmed.slice(0, colon);
    const encoded = colon < 0 ? '' : trimmed.slice(colon + 1);
    const where = `TRANSCRIPT_MASTER_KEYS entry ${index + 1}`;
    if (!MASTER_KEY_ID.test(id)) throw new Error(`${where}: must be id:key, the id 1 to 64 letters, digits, '-' or '_'`);
    if (id === SIGNING_KEY_MASTER_ID)
      throw new Error(`${where}: the id '${SIGNING_KEY_MASTER_ID}' names the key derived from the signing key`);
    if (keys.some((k) => k.id === id)) throw new Error(`${where}: the id '${id}' is listed twice`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw new Error(`${where}: the key must be base64 or base64url`);
    const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== 32)
      throw new Error(`${where}: the key must be 32 bytes (it is ${key.length}); make one with \`openssl rand -base64 32\``);
    keys.push({ id, key: new Uint8Array(key) });
  }
  return keys;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0] ?? '')}: ${issue.message}`);
  }
  const e = parsed.data;
  const base = `http://${e.HOST}:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    callRequestReadsPerSecond: e.CALL_REQUEST_READS_PER_SECOND,
    callRequestMinPollSeconds: e.CALL_REQUEST_MIN_POLL_SECONDS,
    unauthenticatedRateLimitPerMinute: e.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE,
    rateLimitKeyPrefix: e.RATE_LIMIT_KEY_PREFIX,
    trustProxy: e.TRUST_PROXY,
    database: {
      poolSize: e.DB_POOL_SIZE,
      maxWaiting: e.DB_MAX_WAITING,
      queueTimeoutMs: e.DB_QUEUE_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    },
    readModel: {
      maxEntries: e.READ_MODEL_MAX_ENTRIES,
      maxBytes: e.READ_MODEL_MAX_MB * 2 ** 20,
      maxAgeMs: e.READ_MODEL_MAX_AGE_SECONDS * 1000,
    },
    changesChannel: e.CHANGES_CHANNEL,
    subscriptionsPerCredential: e.SUBSCRIPTIONS_PER_CREDENTIAL,
    graphqlJit: e.GRAPHQL_JIT,
    graphqlFastPath: e.GRAPHQL_FAST_PATH,
    oauthAudience: e.OAUTH_AUDIENCE ?? `${base}/v1`,
    oauthIssuer: (e.OAUTH_AUDIENCE === undefined ? undefined : httpOrigin(e.OAUTH_AUDIENCE)) ?? base,
    jwtPrivateKey: e.JWT_PRIVATE_KEY,
    transcriptMasterKeys: e.TRANSCRIPT_MASTER_KEYS?.trim() ? parseMasterKeys(e.TRANSCRIPT_MASTER_KEYS) : [],
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderBytes: e.HTTP_MAX_HEADER_BYTES,
      maxHeaders: e.HTTP_MAX_HEADERS,
      maxQueuedRequests: e.HTTP_MAX_QUEUED_REQUESTS,
    },
    corsOrigins: e.CORS_ORIGINS,
    metricsToken: e.METRICS_TOKEN,
    graphiqlDemoKey: e.GRAPHIQL_DEMO_KEY,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    // never by default, whatever the database: an SSRF read primitive must be asked for
    webhookAllowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true' || e.WEBHOOK_ALLOW_PRIVATE_TARGETS === '1',
    webhookMaxInFlightPerEndpoint: e.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    webhookMaxInFlightPerOrganization: e.WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZATION,
    webhookDeliverySlots: e.WEBHOOK_DELIVERY_SLOTS,
  };
}
