// A typed client of the Office Communications Service's REST API (/v1). The types of every route come from the
// service's OpenAPI document (generated/schema.ts, written by generate.ts at install: client and service cannot
// drift); requests go through openapi-fetch. On top of it, what every integrator writes otherwise:
//   - credentials: an API key, or OAuth client credentials whose access token is asked for, kept and renewed
//     before it expires;
//   - idempotency: every write carries an Idempotency-Key (a new UUID unless given), and a write that met a dropped
//     connection, a 429 or a 503 is sent again with the same key (the service answers a repeat with the first answer);
//   - paging: `allPages` follows `pagination.nextCursor` to the last page;
//   - webhooks: `verifyWebhook` checks a delivery's Standard Webhooks signature and answers its event.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { paths } from '../generated/schema.js';

export type { paths } from '../generated/schema.js';
export type OcsApi = Client<paths>;

/** What the service refused: the envelope's status, code, message and per-field problems. */
export class OcsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: { path?: string; message: string }[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'OcsError';
  }
}

export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
  /** The scopes to ask for (default: all the client holds). */
  scope?: string | string[];
}

export interface OcsClientOptions {
  /** The service's origin, e.g. http://127.0.0.1:4000. */
  baseUrl: string;
  /** An API key (`svc-sk-…`), or `oauth` below. */
  apiKey?: string;
  oauth?: OAuthCredentials;
  /** How many times a request that met a dropped connection, a 429 or a 503 is sent again (default 2). */
  retries?: number;
  /** The longest wait before sending again, in ms (default 5,000; a Retry-After longer than this is not waited for). */
  maxRetryWaitMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RENEW_BEFORE_MS = 60_000;

/** Access tokens of an OAuth client (client credentials), asked for once and renewed a minute before they expire. */
export function oauthTokens(baseUrl: string, credentials: OAuthCredentials, fetchImpl: typeof fetch = fetch): { token(): Promise<string> } {
  let current: { token: string; renewAt: number } | undefined;
  let asking: Promise<string> | undefined;
  const ask = async (): Promise<string> => {
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (credentials.scope) body.set('scope', Array.isArray(credentials.scope) ? credentials.scope.join(' ') : credentials.scope);
    const answer = await fetchImpl(new URL('/oauth/token', baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const json = (await answer.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!answer.ok || !json.access_token) {
      throw new OcsError(
        answer.status,
        json.error ?? 'oauth_error',
        json.error_description ?? `The token endpoint answered ${answer.status}`,
      );
    }
    current = { token: json.access_token, renewAt: Date.now() + (json.expires_in ?? 3600) * 1000 - RENEW_BEFORE_MS };
    return json.access_token;
  };
  return {
    token() {
      if (current && Date.now() < current.renewAt) return Promise.resolve(current.token);
      // one request for a token at a time, whoever asks meanwhile
      return (asking ??= ask().finally(() => (asking = undefined)));
    },
  };
}

/** How long to wait before sending again: the answer's Retry-After (seconds), else a short growing pause. */
function retryWait(answer: Response | undefined, attempt: number, maxMs: number): number | undefined {
  const header = answer?.headers.get('retry-after');
  const seconds = header === null || header === undefined ? Number.NaN : Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : 200 * 2 ** attempt;
  return ms > maxMs ? undefined : ms;
}

/** A fetch that sends a request again (the same request: the same Idempotency-Key) after a dropped connection, a 429 or a 503. */
function retryingFetch(fetchImpl: typeof fetch, retries: number, maxWaitMs: number): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // a body is read by the send: each send gets its own copy
      const sent = attempt < retries ? request.clone() : request;
      let answer: Response | undefined;
      try {
        answer = await fetchImpl(sent);
        if (answer.status !== 429 && answer.status !== 503) return answer;
      } catch (error) {
        if (attempt >= retries) throw error;
      }
      if (attempt >= retries && answer) return answer;
      const wait = retryWait(answer, attempt, maxWaitMs);
      if (wait === undefined && answer) return answer;
      await new Promise((resolve) => setTimeout(resolve, wait ?? 0));
    }
  };
}

/** A client of the service: every /v1 route typed, credentials, idempotency keys and retries handled. */
export function createOcsClient(options: OcsClientOptions): OcsApi {
  const fetchImpl = options.fetch ?? fetch;
  const tokens = options.oauth ? oauthTokens(options.baseUrl, options.oauth, fetchImpl) : undefined;
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: retryingFetch(fetchImpl, options.retries ?? 2, options.maxRetryWaitMs ?? 5_000),
  });
  const credentials: Middleware = {
    async onRequest({ request }) {
      if (!request.headers.has('authorization')) {
        const bearer = tokens ? await tokens.token() : options.apiKey;
        if (bearer) request.headers.set('authorization', `Bearer ${bearer}`);
      }
      if (WRITES.has(request.method) && !request.headers.has('idempotency-key'))
        request.headers.set('idempotency-key', crypto.randomUUID());
      return request;
    },
  };
  api.use(credentials);
  return api;
}

/** The service's envelope around an answer. */
interface Envelope<T> {
  success?: boolean;
  data?: T;
  code?: string;
  message?: string;
  errors?: { path?: string; message: string }[];
  requestId?: string;
}

/**
 * The `data` of an answer, or an OcsError for a refusal:
 * `const org = await unwrap(api.GET('/v1/organizations/{orgId}', { params: { path: { orgId } } }))`.
 */
export async function unwrap<T>(call: Promise<{ data?: Envelope<T>; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data?.success === true && data.data !== undefined) return data.data;
  const refusal = (error ?? data ?? {}) as Envelope<T>;
  throw new OcsError(
    response.status,
    refusal.code ?? 'unknown',
    refusal.message ?? `The service answered ${response.status}`,
    refusal.errors,
    refusal.requestId ?? response.headers.get('x-request-id') ?? undefined,
  );
}

/**
 * Every page of a cursor-paged list, first to last: `page(cursor)` asks for one page (`cursor` undefined for the
 * first) and answers its data, whose `pagination.nextCursor` leads to the next.
 */
export async function* allPages<P extends { pagination: { nextCursor: string | null } }>(
  page: (cursor: string | undefined) => Promise<P>,
): AsyncGenerator<P> {
  let cursor: string | undefined;
  do {
    const current = await page(cursor);
    yield current;
    cursor = current.pagination.nextCursor ?? undefined;
  } while (cursor);
}

/** A webhook delivery's event, as the service sends it. */
export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: string;
  orgId: string;
  data: unknown;
}

/**
 * Verifies a webhook delivery (Standard Webhooks: the webhook-id, webhook-timestamp and webhook-signature headers
 * over the raw body, within 5 minutes) with the endpoint's secret, or either of two during a rotation; answers its
 * event, or throws.
 */
export function verifyWebhook(
  secrets: string | string[],
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookEvent {
  const flat: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (flat[name] = value));
  else
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  let failure: unknown;
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    try {
      return new Webhook(secret).verify(body, flat) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure instanceof Error ? failure : new Error('the delivery is not signed with this secret');
}
