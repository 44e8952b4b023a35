// Delivering events to webhook endpoints, per the Standard Webhooks specification: a POST of
// `{id, type, occurredAt, orgId, data}` with the headers webhook-id (the event id, the same on every
// retry), webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256>`, signed with the maintained
// `standardwebhooks` package; during a rotation's overlap with both secrets, space-separated).
// A 2xx within 10 s is delivered; anything else is retried with growing gaps, then marked failed;
// 410 Gone disables the endpoint, and so do 5 days of nothing but failures (from the first failed attempt
// after the last delivered one). At most 4 deliveries to one endpoint (maxInFlightPerEndpoint) are in
// flight at once on an instance, the others waiting for a slot: a slow receiver holds up neither the
// other endpoints nor more than its share of the queue's batch.
//
// Two ways in, one attempt (`attemptOnce`): an event's first attempts are made by the dispatcher
// (dispatcher.ts), which reads the event log and writes each delivery's row once, when its attempt ended;
// a delivery to retry (or one the dispatcher handed over) is a pending row, an entry of the job queue's
// deliveries lane (jobs/queue.ts "Lanes"), claimed from its own row when its nextAttemptAt is due, under a
// lease (lockedUntil), so it survives a restart and is in flight on one instance at a time.
//
// Safety: the address is resolved at delivery time and the connection goes to the address that was
// checked (no second lookup an attacker's DNS could answer differently); loopback, private, link-local,
// metadata and other special addresses are refused, and only https:// is allowed, unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS. Redirects are not followed; at most 64 KB of an answer is read.
// Connections are kept alive per target (origin, undici's Pool) and reused: a reused connection goes to
// the address that was checked when it was opened, since every new connection is checked again.
//
// Cost: the deliveries a queue claims together are claimed and read in one statement (delivery, endpoint
// and event joined), and the delivered ones recorded together (one statement per 20 ms window); the
// signer of an endpoint's secret is kept (decrypting and decoding it is not repeated per delivery).
import { lookup } from 'node:dns/promises';
import DataLoader from 'dataloader';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type Dispatcher, Pool } from 'undici';
import type { KeyMaterial } from '../../../crypto/derivedKeys.js';
import type { Db } from '../../../db/client.js';
import { Prisma, type WebhookEndpoint } from '../../../generated/prisma/client.js';
import type { ClaimedJob, JobLane, JobOutcome, JobQueue } from '../../../jobs/queue.js';
import { type DispatcherOptions, WebhookDispatcher } from './dispatcher.js';
import { decryptSecret } from './secrets.js';
import { isPrivateAddress, TargetRefused } from './targets.js';

/** The gaps before each retry: after the first failed attempt 5 s, then 5 min, …; after the last, failed. */
export const RETRY_GAPS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;
const KEPT_ANSWER_CHARS = 1024;
export const DELIVER_JOB = 'webhook.deliver';
/** An endpoint whose every delivery failed for this long, since its first failure, is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3_600_000;
export const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 4;

export interface DeliveryDeps {
  db: Db;
  clock: () => Date;
  tokens: { key: KeyMaterial };
  config: { webhookAllowPrivateTargets: boolean };
}

export interface DeliveryHooks {
  /** Records that the service disabled an endpoint, in the transaction that did (the domain's webhook_endpoint.disabled event). */
  onDisabled?(tx: Prisma.TransactionClient, endpoint: WebhookEndpoint): Promise<void>;
  /** Slots per endpoint on this instance; one set per queue (handleWebhookDeliveries makes it). */
  slots?: EndpointSlots;
}

/** Bounds the deliveries in flight per endpoint; a delivery past the bound waits, in order, for a slot. */
export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly queued = new Map<string, (() => void)[]>();

  constructor(readonly limit: number) {}

  async acquire(endpointId: string): Promise<() => void> {
    const busy = this.inFlight.get(endpointId) ?? 0;
    if (busy >= this.limit) {
      // the slot is handed over by the release that frees it, so the count stays at the limit meanwhile
      await new Promise<void>((resolve) => {
        const queue = this.queued.get(endpointId) ?? [];
        queue.push(resolve);
        this.queued.set(endpointId, queue);
      });
    } else {
      this.inFlight.set(endpointId, busy + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queued.get(endpointId)?.shift();
      if (next) return next();
      if (this.queued.get(endpointId)?.length === 0) this.queued.delete(endpointId);
      const left = (this.inFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(endpointId, left);
      else this.inFlight.delete(endpointId);
    };
  }

  /** Deliveries to the endpoint in flight now (tests, metrics). */
  busy(endpointId: string): number {
    return this.inFlight.get(endpointId) ?? 0;
  }

  /** Deliveries to the endpoint waiting for a slot now. */
  waiting(endpointId: string): number {
    return this.queued.get(endpointId)?.length ?? 0;
  }
}

/**
 * Disables an endpoint for `reason`, once: only the attempt that flips it records the event (another
 * instance failing at the same time finds it disabled already).
 */
async function disableEndpoint(deps: DeliveryDeps, hooks: DeliveryHooks, endpointId: string, reason: string, now: Date): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const flipped = await tx.webhookEndpoint.updateMany({ where: { id: endpointId, enabled: true }, data: { enabled: false, disabledReason: reason, updatedAt: now } });
    if (flipped.count === 0 || !hooks.onDisabled) return;
    await hooks.onDisabled(tx, await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } }));
  });
}

interface Answer {
  status: number;
  body: string;
}

/** Resolves the host once, refuses what is not public (unless allowed), and connects to that very address. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true })
      .then((addresses) => {
        const usable = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
        if (usable.length === 0) throw new TargetRefused(`${hostname} resolves to no public address`);
        const chosen = usable[0]!;
        if ((options as { all?: boolean }).all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [chosen]);
        else callback(null, chosen.address, chosen.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}

/** Idle connections kept per target: fewer than receivers usually keep theirs (Node's default is 5 s). */
const IDLE_CONNECTION_MS = 4_000;
/** Connections open at once to one target (origin and rule); the per-endpoint slots bound each endpoint below it. */
const CONNECTIONS_PER_TARGET = 32;

/** A URL as a request needs it, parsed once, with the pool of kept-alive connections to its origin. */
interface Target {
  pool: Pool;
  path: string;
  /** The host as a literal address (brackets removed), when it is one: no lookup checks it. */
  literal: string | null;
}

const pools = new Map<string, Pool>();
const targets = new Map<string, Target>();

/**
 * One pool of kept-alive connections per origin and rule (private targets allowed or not). undici rather
 * than node:http's client: a delivery is one small POST on a kept connection, which undici's client
 * makes with about a quarter less CPU (measured side by side against the bench's receiver).
 */
function poolFor(target: URL, allowPrivate: boolean): Pool {
  const key = `${allowPrivate ? 'any' : 'public'} ${target.origin}`;
  let pool = pools.get(key);
  if (!pool) {
    // every new connection resolves through checkedLookup (undici hands `connect` to net/tls.connect): a kept
    // one stays on the address checked when it opened. Redirects are not followed (no interceptor does).
    pool = new Pool(target.origin, {
      connections: CONNECTIONS_PER_TARGET,
      keepAliveTimeout: IDLE_CONNECTION_MS,
      keepAliveMaxTimeout: IDLE_CONNECTION_MS,
      connect: { lookup: checkedLookup(allowPrivate), timeout: DELIVERY_TIMEOUT_MS },
    });
    if (pools.size >= 1_000) {
      for (const old of pools.values()) void old.destroy();
      pools.clear();
      targets.clear();
    }
    pools.set(key, pool);
  }
  return pool;
}

/** The parsed target of `url` under the rule (kept: each delivery to an endpoint posts to the same URL). */
function targetFor(url: string, allowPrivate: boolean): Target {
  const key = `${allowPrivate ? 'any' : 'public'} ${url}`;
  let target = targets.get(key);
  if (!target) {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    target = { pool: poolFor(parsed, allowPrivate), path: `${parsed.pathname}${parsed.search}`, literal: isIP(host) ? host : null };
    if (targets.size >= 10_000) targets.clear();
    targets.set(key, target);
  }
  return target;
}

/** POSTs `body`; answers the status and up to 64 KB of the answer. Never follows a redirect. */
export function post(url: string, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<Answer> {
  const target = targetFor(url, allowPrivate);
  // a literal address is checked here (no lookup happens for it)
  if (target.literal && !allowPrivate && isPrivateAddress(target.literal)) return Promise.reject(new TargetRefused(`${target.literal} is not a public address`));
  return send(target, { ...headers, 'content-type': 'application/json', 'user-agent': 'office-communications-webhooks/1' }, body, true);
}

/** The connection was closed or reset before an answer: most often a kept one the receiver closed as it was reused. */
function closedUnderUs(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * Posts on the target's pool and reads at most 64 KB of the answer, with undici's handler API: the answer's
 * chunks arrive as calls, without a stream or a promise per chunk, which cost a delivery more than the
 * request itself. The whole exchange, from connecting to the answer's end, is bounded (one timer).
 */
function send(target: Target, headers: Record<string, string>, body: string, mayRetry: boolean): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let size = 0;
    const chunks: Buffer[] = [];
    const answer = (): Answer => ({ status, body: chunks.length === 0 ? '' : Buffer.concat(chunks).toString('utf8') });
    const settle = (err: Error | null) => {
      if (settled) return false;
      settled = true;
      clearTimeout(deadline);
      if (err) reject(err);
      else resolve(answer());
      return true;
    };
    const deadline = setTimeout(() => {
      const err = new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`);
      settle(err);
      controller?.abort(err);
    }, DELIVERY_TIMEOUT_MS);
    target.pool.dispatch(
      { path: target.path, method: 'POST', headers, body },
      {
        onRequestStart(c) {
          controller = c;
          // given up on before it was sent (still connecting at the deadline)
          if (settled) c.abort(new Error('given up'));
        },
        onResponseStart(_c, statusCode) {
          status = statusCode;
        },
        onResponseData(c, chunk) {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
          size += chunk.length;
          // enough read: the answer is what it is; its connection is closed rather than read on
          if (size >= MAX_ANSWER_BYTES && settle(null)) c.abort(new Error(`answer longer than ${MAX_ANSWER_BYTES} bytes`));
        },
        onResponseEnd() {
          settle(null);
        },
        onResponseError(_c, err) {
          if (settled) return;
          // sent again once, on another connection (at least once: receivers tell repeats apart by webhook-id)
          if (mayRetry && closedUnderUs(err)) {
            settled = true;
            clearTimeout(deadline);
            send(target, headers, body, false).then(resolve, reject);
            return;
          }
          settle(err);
        },
      },
    );
  });
}

/** The three Standard Webhooks headers; every secret given signs (a rotation's overlap sends both signatures). */
export function signedHeaders(msgId: string, at: Date, body: string, secrets: readonly (string | Webhook)[]): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => (typeof secret === 'string' ? new Webhook(secret) : secret).sign(msgId, at, body)).join(' '),
  };
}

/** Signers by stored (encrypted) secret: a rotation stores a new one, so a kept signer is never stale. */
const signers = new Map<string, Webhook>();

function signerFor(key: KeyMaterial, stored: string): Webhook {
  let signer = signers.get(stored);
  if (!signer) {
    if (signers.size >= 10_000) signers.clear();
    signers.set(stored, (signer = new Webhook(decryptSecret(key, stored))));
  }
  return signer;
}

/**
 * The body of an event's deliveries, made once per event: its endpoints' deliveries are claimed together
 * and send the same body (an event never changes, so a kept one is never stale).
 */
const bodies = new Map<string, string>();

function bodyOf(event: { id: string; type: string; occurredAt: Date; orgId: string; data: unknown }): string {
  let body = bodies.get(event.id);
  if (body === undefined) {
    body = JSON.stringify({ id: event.id, type: event.type, occurredAt: event.occurredAt.toISOString(), orgId: event.orgId, data: event.data });
    if (bodies.size >= 1_000) bodies.clear();
    bodies.set(event.id, body);
  }
  return body;
}

/** A delivery as an attempt needs it: its row, its endpoint's and its event's (null past retention). */
export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  endpointId: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  eventId: string | null;
  eventType: string | null;
  occurredAt: Date | null;
  orgId: string | null;
  data: unknown;
}

/**
 * How long delivered outcomes are collected before they are written together: answers arrive one by one,
 * and the row stays claimed meanwhile (a process that dies before the write delivers again, at least once).
 */
const RECORD_WINDOW_MS = 20;

interface Delivered {
  id: string;
  at: Date;
  statusCode: number;
  latencyMs: number;
  response: string;
}

/**
 * Per database: the reads and the delivered records of its deliveries, coalesced (DataLoader, nothing
 * cached): the deliveries a claim hands out start together, so they are read with one statement (the keys
 * of one turn of the event loop), and their delivered outcomes written with one (RECORD_WINDOW_MS).
 */
const batchers = new WeakMap<Db, { load: DataLoader<string, DeliveryRow | undefined>; delivered: DataLoader<Delivered, true> }>();

function batcherFor(db: Db) {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = {
      load: new DataLoader(
        async (ids) => {
          const rows = await db.$queryRaw<DeliveryRow[]>`
            SELECT ${DELIVERY_COLUMNS}
            FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId" LEFT JOIN "Event" ev ON ev."id" = d."eventId"
            WHERE d."id" = ANY(${ids as string[]}::uuid[])`;
          const byId = new Map(rows.map((row) => [row.id, row]));
          return ids.map((id) => byId.get(id));
        },
        { cache: false },
      ),
      delivered: new DataLoader(
        async (list) => {
          await db.$executeRaw`
            UPDATE "WebhookDelivery" AS d
            SET "status" = 'delivered', "attempts" = d."attempts" + 1, "lastAttemptAt" = v."at", "nextAttemptAt" = NULL, "lockedUntil" = NULL,
                "statusCode" = v."code", "latencyMs" = v."ms", "response" = v."response"
            FROM unnest(${list.map((x) => x.id)}::uuid[], ${list.map((x) => x.at.toISOString())}::timestamp(3)[], ${list.map((x) => x.statusCode)}::int[],
                        ${list.map((x) => x.latencyMs)}::int[], ${list.map((x) => x.response)}::text[]) AS v("id", "at", "code", "ms", "response")
            WHERE d."id" = v."id"`;
          return list.map(() => true as const);
        },
        { cache: false, batchScheduleFn: (run) => setTimeout(run, RECORD_WINDOW_MS) },
      ),
    };
    batchers.set(db, batcher);
  }
  return batcher;
}

/** An endpoint as an attempt needs it. */
export interface DeliveryEndpoint {
  id: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
}

/** An event as its deliveries send it. */
export interface DeliveryEvent {
  id: string;
  type: string;
  occurredAt: Date;
  orgId: string;
  data: unknown;
}

/** What a delivery's row says after an attempt. */
export interface AttemptRecord {
  status: 'delivered' | 'failed' | 'pending';
  attempts: number;
  lastAttemptAt: Date;
  /** When it is tried again (pending), else null. */
  nextAttemptAt: Date | null;
  statusCode: number | null;
  latencyMs: number | null;
  /** The first 1 KB of the answer, or why there was none. */
  response: string;
}

/**
 * One attempt of one event to one endpoint (`attemptsBefore` made already), whichever way it came (the
 * dispatcher's first attempt, or the lane's retry): posts it in one of the endpoint's slots, applies
 * what the answer means to the endpoint (410 or 5 days of failures disable it; a delivery ends its
 * failing streak), and answers the outcome and what the delivery's row is to say. The caller writes the row.
 */
export async function attemptOnce(
  deps: DeliveryDeps,
  hooks: DeliveryHooks,
  endpoint: DeliveryEndpoint,
  event: DeliveryEvent,
  attemptsBefore: number,
): Promise<{ outcome: JobOutcome; record: AttemptRecord }> {
  const { db } = deps;
  const now = deps.clock();
  const body = bodyOf(event);
  const secrets = [signerFor(deps.tokens.key, endpoint.secret)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) secrets.push(signerFor(deps.tokens.key, endpoint.previousSecret));

  const release = await hooks.slots?.acquire(endpoint.id);
  const started = performance.now();
  let answer: Answer | undefined;
  let failure = '';
  try {
    answer = await post(endpoint.url, signedHeaders(event.id, now, body, secrets), body, deps.config.webhookAllowPrivateTargets);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
  } finally {
    release?.();
  }
  const attempts = attemptsBefore + 1;
  const base = {
    attempts,
    lastAttemptAt: now,
    latencyMs: Math.round(performance.now() - started),
    statusCode: answer?.status ?? null,
    response: (answer ? answer.body : failure).slice(0, KEPT_ANSWER_CHARS),
  };
  const ended = (status: 'delivered' | 'failed', label: string, latencyMs?: number) => ({
    outcome: { done: true as const, label, ...(latencyMs === undefined ? {} : { latencyMs }) },
    record: { ...base, status, nextAttemptAt: null },
  });

  if (answer && answer.status >= 200 && answer.status < 300) {
    // failing no more: the 5 days start again at the next failure
    if (endpoint.failingSince) await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: { not: null } }, data: { failingSince: null } });
    // the event was recorded in the transaction of its change: its time is the commit's, on the app's clock
    return ended('delivered', 'delivered', Math.max(0, deps.clock().getTime() - event.occurredAt.getTime()));
  }
  if (answer?.status === 410) {
    // the receiver says the endpoint is gone for good: stop sending anything to it
    await disableEndpoint(deps, hooks, endpoint.id, 'the endpoint answered 410 Gone', now);
    return ended('failed', 'gone');
  }
  if (endpoint.failingSince && now.getTime() - endpoint.failingSince.getTime() >= FAILING_DISABLES_AFTER_MS) {
    await disableEndpoint(deps, hooks, endpoint.id, `every delivery failed for 5 days (since ${endpoint.failingSince.toISOString()})`, now);
    return ended('failed', 'disabled');
  }
  if (!endpoint.failingSince) await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: now } });
  if (attempts > RETRY_GAPS_MS.length) return ended('failed', 'failed');
  const retryAt = new Date(now.getTime() + RETRY_GAPS_MS[attempts - 1]!);
  return { outcome: { retryAt, error: answer ? `answered ${answer.status}` : failure }, record: { ...base, status: 'pending', nextAttemptAt: retryAt } };
}

/**
 * One attempt of one pending delivery (the deliveries lane's handler, given the row its claim read; or by
 * id). Every outcome is recorded on the delivery's row, ending its lease.
 */
export async function attemptDelivery(deps: DeliveryDeps, delivery: string | DeliveryRow, hooks: DeliveryHooks = {}): Promise<JobOutcome> {
  const batcher = batcherFor(deps.db);
  const row = typeof delivery === 'string' ? await batcher.load.load(delivery) : delivery;
  if (!row || row.status !== 'pending') return { done: true, label: 'skipped' };
  const { db } = deps;
  const now = deps.clock();
  const write = (record: AttemptRecord) =>
    db.webhookDelivery.update({ where: { id: row.id }, data: { ...record, lockedUntil: null } });
  if (!row.enabled || !row.eventId || !row.eventType || !row.occurredAt || !row.orgId) {
    const response = row.enabled ? 'the event is past retention' : 'the endpoint is disabled';
    await write({ status: 'failed', attempts: row.attempts + 1, lastAttemptAt: now, nextAttemptAt: null, statusCode: null, latencyMs: null, response });
    return { done: true, label: 'failed' };
  }
  const endpoint: DeliveryEndpoint = {
    id: row.endpointId,
    url: row.url,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    failingSince: row.failingSince,
  };
  const event: DeliveryEvent = { id: row.eventId, type: row.eventType, occurredAt: row.occurredAt, orgId: row.orgId, data: row.data };
  const { outcome, record } = await attemptOnce(deps, hooks, endpoint, event, row.attempts);
  if (record.status === 'delivered') {
    await batcher.delivered.load({ id: row.id, at: record.lastAttemptAt, statusCode: record.statusCode!, latencyMs: record.latencyMs!, response: record.response });
  } else {
    await write(record);
  }
  return outcome;
}

/** The columns an attempt reads (DeliveryRow), of `d` (the delivery), `e` (its endpoint) and `ev` (its event). */
const DELIVERY_COLUMNS = Prisma.sql`d."id"::text AS "id", d."status", d."attempts", e."id"::text AS "endpointId", e."url", e."enabled", e."secret",
  e."previousSecret", e."previousSecretExpiresAt", e."failingSince",
  ev."id"::text AS "eventId", ev."type" AS "eventType", ev."occurredAt", ev."orgId"::text AS "orgId", ev."data"`;

/**
 * The deliveries lane of the job queue: a pending delivery is due at its nextAttemptAt, and is claimed from
 * its own row, read with its endpoint and event in the claim's statement. With a dispatcher, each look
 * first has it make the first attempts of the events recorded since the last (dispatcher.ts).
 */
export function deliveriesLane(db: Db, dispatcher?: WebhookDispatcher): JobLane {
  const at = (d: Date) => d.toISOString();
  return {
    kind: DELIVER_JOB,
    ...(dispatcher ? { look: (settle: boolean) => dispatcher.look(settle), stop: () => dispatcher.stop() } : {}),
    async claim(limit, now, lockedUntil) {
      const rows = await db.$queryRaw<DeliveryRow[]>`
        WITH d AS (
          UPDATE "WebhookDelivery" SET "lockedUntil" = ${at(lockedUntil)}::timestamp(3)
          WHERE "id" IN (
            SELECT "id" FROM "WebhookDelivery"
            WHERE "status" = 'pending' AND "nextAttemptAt" <= ${at(now)}::timestamp(3)
              AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${at(now)}::timestamp(3))
            ORDER BY "nextAttemptAt" LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING "id", "status", "attempts", "endpointId", "eventId")
        SELECT ${DELIVERY_COLUMNS}
        FROM d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId" LEFT JOIN "Event" ev ON ev."id" = d."eventId"`;
      return rows.map((row) => ({ id: row.id, kind: DELIVER_JOB, payload: row, attempts: row.attempts + 1 }));
    },
    async release(job, retryAt, error) {
      await db.webhookDelivery.updateMany({ where: { id: job.id, status: 'pending' }, data: { nextAttemptAt: retryAt, lockedUntil: null, response: error.slice(0, KEPT_ANSWER_CHARS) } });
    },
    async releaseAll() {
      await db.webhookDelivery.updateMany({ where: { lockedUntil: { not: null } }, data: { lockedUntil: null } });
      // the dispatcher's lease too (a process that died held it)
      await db.webhookDispatch.updateMany({ data: { owner: null, leaseUntil: null } });
    },
    async depth() {
      const [pending, oldest] = await Promise.all([
        db.webhookDelivery.count({ where: { status: 'pending' } }),
        db.webhookDelivery.findFirst({ where: { status: 'pending' }, orderBy: { nextAttemptAt: 'asc' }, select: { nextAttemptAt: true } }),
      ]);
      // the events the dispatcher has not handed out yet (after its cursor, whichever instance dispatches: a
      // dispatcher that stopped shows here), and the first attempts waiting or in flight on this instance,
      // each due since its event occurred
      const [undispatched] = await db.$queryRaw<{ count: number; oldest: Date | null }[]>`
        SELECT count(*)::int AS "count", min("occurredAt") AS "oldest" FROM "Event"
        WHERE "seq" > COALESCE((SELECT "cursor" FROM "WebhookDispatch" WHERE "id" = 1), 0)`;
      const first = dispatcher?.backlog() ?? { pending: 0, oldestOccurredAt: null };
      let oldestRunAt = oldest?.nextAttemptAt ?? null;
      for (const at of [first.oldestOccurredAt, undispatched?.oldest ?? null]) if (at && (!oldestRunAt || at < oldestRunAt)) oldestRunAt = at;
      return { pending: pending + first.pending + (undispatched?.count ?? 0), oldestRunAt };
    },
  };
}

/**
 * Registers webhook delivery on the job queue: the dispatcher's first attempts and the deliveries lane's
 * retries, with this queue's (this instance's) slots per endpoint (`maxInFlightPerEndpoint`, default 4);
 * `onDisabled` records webhook_endpoint.disabled (the runtime passes the domain's recordEndpointDisabled).
 */
export function handleWebhookDeliveries(
  queue: JobQueue,
  deps: DeliveryDeps,
  options: Pick<DeliveryHooks, 'onDisabled'> & { maxInFlightPerEndpoint?: number; dispatcher?: DispatcherOptions } = {},
): JobQueue {
  const slots = new EndpointSlots(options.maxInFlightPerEndpoint ?? DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
  const hooks = { onDisabled: options.onDisabled, slots };
  const dispatcher = new WebhookDispatcher(deps, hooks, (outcome) => queue.record(DELIVER_JOB, outcome), options.dispatcher);
  return queue.lane(deliveriesLane(deps.db, dispatcher), (job: ClaimedJob) => attemptDelivery(deps, job.payload as DeliveryRow, hooks));
}
