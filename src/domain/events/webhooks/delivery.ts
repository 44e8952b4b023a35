// Delivering events to webhook endpoints, per the Standard Webhooks specification: a POST of
// `{id, type, occurredAt, orgId, data}` with the headers webhook-id (the event id, the same on every
// retry), webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256>`, signed with the maintained
// `standardwebhooks` package; during a rotation's overlap with both secrets, space-separated).
// A 2xx within 10 s is delivered; anything else is retried with growing gaps, then marked failed;
// a target refused by policy (not a public address) fails at once, for good; 410 Gone disables the
// endpoint, and so do 5 days of nothing but failures (from the first failed attempt after the last
// delivered one).
//
// Fairness (DeliverySlots): an instance makes at most `total` deliveries at once, one organization's
// endpoints at most `perOrganization` of them and one endpoint at most `perEndpoint`; the first attempts
// (dispatcher) and the retries (deliveries lane) draw on the same slots. A delivery past a bound waits
// without holding anything else, and freed slots go to the waiting organizations in turn; the lane does
// not even claim a delivery whose organization or endpoint is at its bound. So an organization whose
// receivers all hang delays its own deliveries, not another organization's.
//
// Two ways in, one attempt (`attemptOnce`): an event's first attempts are made by the dispatcher
// (dispatcher.ts), which reads the event log and writes each delivery's row once, when its attempt ended;
// a delivery to retry (or one the dispatcher handed over) is a pending row, an entry of the job queue's
// deliveries lane (jobs/queue.ts "Lanes"), claimed from its own row when its nextAttemptAt is due, under a
// lease (lockedUntil), so it survives a restart and is in flight on one instance at a time.
//
// Safety: the address is resolved at delivery time and the connection goes to the address that was
// checked (no second lookup an attacker's DNS could answer differently); a URL or a name resolving to any
// address that is not public (targets.ts) is refused, and only https:// is allowed, unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS. Redirects are not followed; at most 64 KB of an answer is read. What a
// failed attempt records is an error class (timeout, connection_refused, target_not_allowed …), never the
// error's text (which could say where a name led); the answer of a private target (allowed) is not kept
// at all, only its status and latency: the tenant must not read internal pages through its deliveries.
// Connections are kept alive per target (origin, undici's Pool) and reused: a reused connection goes to
// the address that was checked when it was opened, since every new connection is checked again.
//
// Cost: the deliveries a queue claims together are claimed and read in one statement (delivery, endpoint
// and event joined), and the delivered ones recorded together (one statement per 20 ms window); the
// signer of an endpoint's secret is kept (decrypting and decoding it is not repeated per delivery).
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
import {
  claimDeliveries,
  claimDeliveriesFairly,
  type ClaimedDeliveryRow,
  type Delivered,
  type DeliveryRow,
  deliveryRows,
  type AttemptOutcomeRow,
  type FairClaim,
  recordAttempt,
  recordDelivered,
  undispatchedEvents,
} from '../sql.js';
import { type HostLookup, isPrivateAddress, systemLookup, TARGET_NOT_ALLOWED, TargetRefused, urlProblem } from './targets.js';

/** The gaps before each retry: after the first failed attempt 5 s, then 5 min, …; after the last, failed. */
export const RETRY_GAPS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;
const KEPT_ANSWER_CHARS = 1024;

/**
 * The part of an answer that is kept: its first 1 KB, as text a database column and a JSON document can hold
 * (a receiver may answer anything: a NUL becomes U+FFFD, and a character cut in half at the end is dropped).
 */
export function keptAnswer(body: string): string {
  let kept = body.slice(0, KEPT_ANSWER_CHARS);
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return kept.replaceAll('\0', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const DELIVER_JOB = 'webhook.deliver';
/** An endpoint whose every delivery failed for this long, since its first failure, is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3_600_000;
export const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 4;
export const DEFAULT_MAX_IN_FLIGHT_PER_ORGANIZATION = 16;
export const DEFAULT_DELIVERY_SLOTS = 64;

export interface DeliveryDeps {
  db: Db;
  clock: () => Date;
  tokens: { key: KeyMaterial };
  config: { webhookAllowPrivateTargets: boolean };
  /** How target names are resolved (tests answer their own); node's dns.lookup by default. */
  resolveHost?: HostLookup;
}

export interface DeliveryHooks {
  /** Records that the service disabled an endpoint, in the transaction that did (the domain's webhook_endpoint.disabled event). */
  onDisabled?(tx: Prisma.TransactionClient, endpoint: WebhookEndpoint): Promise<void>;
  /** This instance's delivery slots; one set per queue (handleWebhookDeliveries makes it). */
  slots?: DeliverySlots;
}

export interface SlotLimits {
  /** Deliveries in flight at once on the instance. */
  total: number;
  /** … of one organization's endpoints (an organization's fair share of the total). */
  perOrganization: number;
  /** … to one endpoint. */
  perEndpoint: number;
}

interface Waiter {
  orgId: string;
  endpointId: string;
  grant: () => void;
}

/**
 * Bounds the deliveries in flight on an instance: in all, per organization and per endpoint. A delivery
 * past a bound waits; as slots free, the waiting organizations are served in turn (round-robin), and
 * within one its endpoints in turn, each endpoint's deliveries in order. Waiting holds no slot.
 */
export class DeliverySlots {
  readonly limits: SlotLimits;
  private inFlight = 0;
  private readonly byOrg = new Map<string, number>();
  private readonly byEndpoint = new Map<string, number>();
  /** Waiting deliveries: organization → endpoint → in order; both maps' order is the turn (served ones go last). */
  private readonly waiters = new Map<string, Map<string, Waiter[]>>();
  private readonly waitingByOrg = new Map<string, number>();
  private readonly waitingByEndpoint = new Map<string, number>();
  private waitingAll = 0;

  constructor(limits: Partial<SlotLimits> = {}) {
    const perEndpoint = limits.perEndpoint ?? DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;
    const perOrganization = Math.max(perEndpoint, limits.perOrganization ?? DEFAULT_MAX_IN_FLIGHT_PER_ORGANIZATION);
    this.limits = { perEndpoint, perOrganization, total: Math.max(perOrganization, limits.total ?? DEFAULT_DELIVERY_SLOTS) };
  }

  /** Takes a slot for a delivery of `orgId`'s endpoint, waiting for one if a bound is reached; answers its release. */
  async acquire(orgId: string, endpointId: string): Promise<() => void> {
    if (this.fits(orgId, endpointId)) this.take(orgId, endpointId);
    else {
      // the slot is taken for it by the release that frees one (grant), so the counts stay at their bounds meanwhile
      await new Promise<void>((grant) => {
        let byEndpoint = this.waiters.get(orgId);
        if (!byEndpoint) this.waiters.set(orgId, (byEndpoint = new Map<string, Waiter[]>()));
        const queue = byEndpoint.get(endpointId) ?? [];
        queue.push({ orgId, endpointId, grant });
        byEndpoint.set(endpointId, queue);
        add(this.waitingByOrg, orgId, 1);
        add(this.waitingByEndpoint, endpointId, 1);
        this.waitingAll++;
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      add(this.byOrg, orgId, -1);
      add(this.byEndpoint, endpointId, -1);
      this.grant();
    };
  }

  private fits(orgId: string, endpointId: string): boolean {
    return (
      this.inFlight < this.limits.total &&
      (this.byOrg.get(orgId) ?? 0) < this.limits.perOrganization &&
      (this.byEndpoint.get(endpointId) ?? 0) < this.limits.perEndpoint
    );
  }

  private take(orgId: string, endpointId: string): void {
    this.inFlight++;
    add(this.byOrg, orgId, 1);
    add(this.byEndpoint, endpointId, 1);
  }

  /** Hands free slots to waiting deliveries, organizations in turn. */
  private grant(): void {
    let granted = true;
    while (granted && this.waitingAll > 0 && this.inFlight < this.limits.total) {
      granted = false;
      for (const [orgId, byEndpoint] of this.waiters) {
        if ((this.byOrg.get(orgId) ?? 0) >= this.limits.perOrganization) continue;
        const endpointId = [...byEndpoint.keys()].find((id) => (this.byEndpoint.get(id) ?? 0) < this.limits.perEndpoint);
        if (endpointId === undefined) continue;
        const queue = byEndpoint.get(endpointId)!;
        const waiter = queue.shift()!;
        // served: its endpoint and its organization go to the back of the turn
        byEndpoint.delete(endpointId);
        if (queue.length > 0) byEndpoint.set(endpointId, queue);
        this.waiters.delete(orgId);
        if (byEndpoint.size > 0) this.waiters.set(orgId, byEndpoint);
        add(this.waitingByOrg, orgId, -1);
        add(this.waitingByEndpoint, endpointId, -1);
        this.waitingAll--;
        this.take(orgId, endpointId);
        waiter.grant();
        granted = true;
        break;
      }
    }
  }

  /** Deliveries to the endpoint in flight now (tests, metrics). */
  busy(endpointId: string): number {
    return this.byEndpoint.get(endpointId) ?? 0;
  }

  /** Deliveries to the endpoint waiting for a slot now. */
  waiting(endpointId: string): number {
    return this.waitingByEndpoint.get(endpointId) ?? 0;
  }

  /**
   * How many more deliveries may start now without waiting — in all, per organization and per endpoint
   * with a delivery in flight or waiting (any other: its full bound): what the deliveries lane may claim.
   */
  room(): { total: number; organizations: Map<string, number>; endpoints: Map<string, number> } {
    const organizations = new Map<string, number>();
    for (const id of new Set([...this.byOrg.keys(), ...this.waitingByOrg.keys()])) {
      organizations.set(id, this.limits.perOrganization - (this.byOrg.get(id) ?? 0) - (this.waitingByOrg.get(id) ?? 0));
    }
    const endpoints = new Map<string, number>();
    for (const id of new Set([...this.byEndpoint.keys(), ...this.waitingByEndpoint.keys()])) {
      endpoints.set(id, this.limits.perEndpoint - (this.byEndpoint.get(id) ?? 0) - (this.waitingByEndpoint.get(id) ?? 0));
    }
    // the total's room is what is not in flight: deliveries waiting for their organization's or endpoint's
    // slot do not compete for it (while the total itself is full, a delivery claimed waits its turn)
    return { total: this.limits.total - this.inFlight, organizations, endpoints };
  }
}

/** Adds `delta` to a count, dropping it at zero. */
function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/**
 * Disables an endpoint for `reason`, once: only the attempt that flips it records the event (another
 * instance failing at the same time finds it disabled already).
 */
async function disableEndpoint(deps: DeliveryDeps, hooks: DeliveryHooks, endpointId: string, reason: string, now: Date): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const flipped = await tx.webhookEndpoint.updateMany({
      where: { id: endpointId, enabled: true },
      data: { enabled: false, disabledReason: reason, updatedAt: now },
    });
    if (flipped.count === 0 || !hooks.onDisabled) return;
    await hooks.onDisabled(tx, await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } }));
  });
}

interface Answer {
  status: number;
  body: string;
  /** The answer came from a private address (private targets allowed): its body is not to be kept. */
  fromPrivate: boolean;
}

/** What the connections of one pool reached: once a private address, its answers are never kept (it stays so). */
interface Reached {
  private: boolean;
}

/**
 * Resolves the host once, refuses it when any of its addresses is not public (unless allowed), and connects
 * to the address it checked. The refusal says nothing of the addresses.
 */
function checkedLookup(allowPrivate: boolean, resolve: HostLookup, reached: Reached): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        const anyPrivate = addresses.some((a) => isPrivateAddress(a.address));
        if (anyPrivate && !allowPrivate) throw new TargetRefused();
        if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
        if (anyPrivate) reached.private = true;
        const chosen = addresses[0]!;
        if ((options as { all?: boolean }).all)
          (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [chosen]);
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
  /** What the pool's connections reached (a literal private address: private from the start). */
  reached: Reached;
  path: string;
  /** Why the URL is refused as written (urlProblem: a scheme, a literal or local host not allowed), or null. */
  refused: string | null;
}

const pools = new Map<string, { pool: Pool; reached: Reached }>();
const targets = new Map<string, Target>();
/** Each resolver's number, for the keys of pools (a test's own resolver never shares a pool with DNS's). */
const resolvers = new WeakMap<HostLookup, number>();
let resolversSeen = 0;

function resolverKey(resolve: HostLookup): number {
  let n = resolvers.get(resolve);
  if (n === undefined) resolvers.set(resolve, (n = resolversSeen++));
  return n;
}

/**
 * One pool of kept-alive connections per origin and rule (private targets allowed or not). undici rather
 * than node:http's client: a delivery is one small POST on a kept connection, which undici's client
 * makes with about a quarter less CPU (measured side by side against the bench's receiver).
 */
function poolFor(target: URL, allowPrivate: boolean, resolve: HostLookup): { pool: Pool; reached: Reached } {
  const key = `${allowPrivate ? 'any' : 'public'} ${resolverKey(resolve)} ${target.origin}`;
  let entry = pools.get(key);
  if (!entry) {
    // every new connection resolves through checkedLookup (undici hands `connect` to net/tls.connect): a kept
    // one stays on the address checked when it opened. Redirects are not followed (no interceptor does).
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const reached: Reached = { private: isIP(host) !== 0 && isPrivateAddress(host) };
    const pool = new Pool(target.origin, {
      connections: CONNECTIONS_PER_TARGET,
      keepAliveTimeout: IDLE_CONNECTION_MS,
      keepAliveMaxTimeout: IDLE_CONNECTION_MS,
      connect: { lookup: checkedLookup(allowPrivate, resolve, reached), timeout: DELIVERY_TIMEOUT_MS },
    });
    if (pools.size >= 1_000) {
      for (const old of pools.values()) void old.pool.destroy();
      pools.clear();
      targets.clear();
    }
    pools.set(key, (entry = { pool, reached }));
  }
  return entry;
}

/** The parsed target of `url` under the rule (kept: each delivery to an endpoint posts to the same URL). */
function targetFor(url: string, allowPrivate: boolean, resolve: HostLookup): Target {
  const key = `${allowPrivate ? 'any' : 'public'} ${resolverKey(resolve)} ${url}`;
  let target = targets.get(key);
  if (!target) {
    const parsed = new URL(url);
    // checked again here, whatever was checked when it was saved (the rule may have changed since)
    const refused = urlProblem(url, allowPrivate);
    target = { ...poolFor(parsed, allowPrivate, resolve), path: `${parsed.pathname}${parsed.search}`, refused };
    if (targets.size >= 10_000) targets.clear();
    targets.set(key, target);
  }
  return target;
}

/**
 * POSTs `body`; answers the status and up to 64 KB of the answer. Never follows a redirect. A target refused
 * by policy (as written, or by the address its name resolves to) rejects with TargetRefused.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  resolve: HostLookup = systemLookup,
): Promise<Answer> {
  const target = targetFor(url, allowPrivate, resolve);
  if (target.refused) return Promise.reject(new TargetRefused());
  return send(target, { ...headers, 'content-type': 'application/json', 'user-agent': 'office-communications-webhooks/1' }, body, true);
}

/** Why an attempt got no answer, as the class a delivery records (its text could say where a name led). */
export function failureClass(err: unknown): string {
  if (err instanceof TargetRefused || (err as { cause?: unknown })?.cause instanceof TargetRefused) return TARGET_NOT_ALLOWED;
  if (err instanceof TimedOut) return 'timeout';
  const raw = (err as { code?: unknown })?.code;
  const code = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return 'dns_failed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(code)) return 'timeout';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return 'connection_reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'unreachable';
  if (/^(ERR_TLS|ERR_SSL|ERR_OSSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) return 'tls_failed';
  return 'connection_failed';
}

/** No answer within DELIVERY_TIMEOUT_MS. */
class TimedOut extends Error {}

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
    // a private target's answer is not even decoded: only its status is kept
    const answer = (): Answer => {
      const fromPrivate = target.reached.private;
      return { status, fromPrivate, body: fromPrivate || chunks.length === 0 ? '' : Buffer.concat(chunks).toString('utf8') };
    };
    const settle = (err: Error | null) => {
      if (settled) return false;
      settled = true;
      clearTimeout(deadline);
      if (err) reject(err);
      else resolve(answer());
      return true;
    };
    const deadline = setTimeout(() => {
      const err = new TimedOut(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`);
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
    'webhook-signature': secrets
      .map((secret) => (typeof secret === 'string' ? new Webhook(secret) : secret).sign(msgId, at, body))
      .join(' '),
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
    body = JSON.stringify({
      id: event.id,
      type: event.type,
      occurredAt: event.occurredAt.toISOString(),
      orgId: event.orgId,
      data: event.data,
    });
    if (bodies.size >= 1_000) bodies.clear();
    bodies.set(event.id, body);
  }
  return body;
}

/**
 * How long delivered outcomes are collected before they are written together: answers arrive one by one,
 * and the row stays claimed meanwhile (a process that dies before the write delivers again, at least once).
 */
const RECORD_WINDOW_MS = 20;

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
          const rows = await deliveryRows(db, ids);
          const byId = new Map(rows.map((row) => [row.id, row]));
          return ids.map((id) => byId.get(id));
        },
        { cache: false },
      ),
      delivered: new DataLoader(
        async (list) => {
          await recordDelivered(db, list);
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
  /** Its owner (whose share of the slots its deliveries take). */
  orgId: string;
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

/** What a delivery's row says after an attempt (sql.ts writes it). */
export interface AttemptRecord extends AttemptOutcomeRow {
  status: 'delivered' | 'failed' | 'pending';
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
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now)
    secrets.push(signerFor(deps.tokens.key, endpoint.previousSecret));

  const release = await hooks.slots?.acquire(endpoint.orgId, endpoint.id);
  const started = performance.now();
  let answer: Answer | undefined;
  let failure = '';
  try {
    const headers = signedHeaders(event.id, now, body, secrets);
    answer = await post(endpoint.url, headers, body, deps.config.webhookAllowPrivateTargets, deps.resolveHost);
  } catch (err) {
    failure = failureClass(err);
  } finally {
    release?.();
  }
  const attempts = attemptsBefore + 1;
  const latencyMs = Math.round(performance.now() - started);
  const statusCode = answer?.status ?? null;
  const kept = answer && !answer.fromPrivate ? keptAnswer(answer.body) : null;
  const base = {
    attempts,
    lastAttemptAt: now,
    latencyMs,
    statusCode,
    response: answer ? kept : failure,
    entry: { at: now.toISOString(), statusCode, latencyMs, errorClass: answer ? null : failure, response: kept },
  };
  const ended = (status: 'delivered' | 'failed', label: string, latencyMs?: number) => ({
    outcome: { done: true as const, label, ...(latencyMs === undefined ? {} : { latencyMs }) },
    record: { ...base, status, nextAttemptAt: null },
  });

  if (answer && answer.status >= 200 && answer.status < 300) {
    // failing no more: the 5 days start again at the next failure
    if (endpoint.failingSince)
      await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: { not: null } }, data: { failingSince: null } });
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
  if (!endpoint.failingSince)
    await db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: now } });
  // refused by policy: trying again would be refused again
  if (failure === TARGET_NOT_ALLOWED) return ended('failed', TARGET_NOT_ALLOWED);
  if (attempts > RETRY_GAPS_MS.length) return ended('failed', 'failed');
  const retryAt = new Date(now.getTime() + RETRY_GAPS_MS[attempts - 1]!);
  return {
    outcome: { retryAt, error: answer ? `answered ${answer.status}` : failure },
    record: { ...base, status: 'pending', nextAttemptAt: retryAt },
  };
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
  const write = (record: AttemptRecord) => recordAttempt(db, row.id, record);
  if (!row.enabled || !row.eventId || !row.eventType || !row.occurredAt || !row.orgId) {
    const [response, errorClass] = row.enabled
      ? ['the event is past retention', 'event_past_retention']
      : ['the endpoint is disabled', 'endpoint_disabled'];
    await write({
      status: 'failed',
      attempts: row.attempts + 1,
      lastAttemptAt: now,
      nextAttemptAt: null,
      statusCode: null,
      latencyMs: null,
      response,
      entry: { at: now.toISOString(), statusCode: null, latencyMs: null, errorClass, response: null },
    });
    return { done: true, label: 'failed' };
  }
  const endpoint: DeliveryEndpoint = {
    id: row.endpointId,
    orgId: row.endpointOrgId,
    url: row.url,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    failingSince: row.failingSince,
  };
  const event: DeliveryEvent = { id: row.eventId, type: row.eventType, occurredAt: row.occurredAt, orgId: row.orgId, data: row.data };
  const { outcome, record } = await attemptOnce(deps, hooks, endpoint, event, row.attempts);
  if (record.status === 'delivered') {
    await batcher.delivered.load({
      id: row.id,
      at: record.lastAttemptAt,
      statusCode: record.statusCode!,
      latencyMs: record.latencyMs!,
      response: record.response,
      entry: record.entry,
    });
  } else {
    await write(record);
  }
  return outcome;
}

/** Claims of one look at most (each after the last came back with its window full and organizations at their bound). */
const CLAIM_ROUNDS = 3;

/**
 * The deliveries lane of the job queue: a pending delivery is due at its nextAttemptAt, and is claimed from
 * its own row, read with its endpoint and event in the claim's statement. With a dispatcher, each look
 * first has it make the first attempts of the events recorded since the last (dispatcher.ts).
 *
 * With the instance's slots, a claim takes only what may start at once: nothing of an organization or an
 * endpoint at its bound, within each the room it has left, and organizations interleaved (each one's
 * oldest first, then each one's second …), so a claimed delivery never holds one of the queue's slots
 * waiting for its organization's, and one organization's backlog does not stand before another's.
 */
export function deliveriesLane(db: Db, dispatcher?: WebhookDispatcher, slots?: DeliverySlots): JobLane {
  const claimRows = (limit: number, now: Date, lockedUntil: Date, fair: FairClaim | null): Promise<ClaimedDeliveryRow[]> =>
    fair ? claimDeliveriesFairly(db, limit, now, lockedUntil, fair) : claimDeliveries(db, limit, now, lockedUntil);
  return {
    kind: DELIVER_JOB,
    ...(dispatcher ? { look: (settle: boolean) => dispatcher.look(settle), stop: () => dispatcher.stop() } : {}),
    async claim(limit, now, lockedUntil) {
      const claimed: DeliveryRow[] = [];
      if (!slots) claimed.push(...(await claimRows(limit, now, lockedUntil, null)));
      else {
        const room = slots.room();
        const { organizations, endpoints } = room;
        let left = Math.min(limit, room.total);
        for (let round = 0; round < CLAIM_ROUNDS && left > 0; round++) {
          const window = Math.max(4 * left, 64);
          const rows = await claimRows(left, now, lockedUntil, { window, organizations, endpoints, limits: slots.limits });
          for (const row of rows) {
            organizations.set(row.endpointOrgId, (organizations.get(row.endpointOrgId) ?? slots.limits.perOrganization) - 1);
            endpoints.set(row.endpointId, (endpoints.get(row.endpointId) ?? slots.limits.perEndpoint) - 1);
          }
          claimed.push(...rows);
          left -= rows.length;
          // the window held every due delivery: nothing more to find
          if (rows.length === 0 || rows[0]!.candidates < window) break;
        }
      }
      return claimed.map(({ candidates: _, ...row }: DeliveryRow & { candidates?: number }) => ({
        id: row.id,
        kind: DELIVER_JOB,
        payload: row,
        attempts: row.attempts + 1,
      }));
    },
    async release(job, retryAt, error) {
      await db.webhookDelivery.updateMany({
        where: { id: job.id, status: 'pending' },
        data: { nextAttemptAt: retryAt, lockedUntil: null, response: error.slice(0, KEPT_ANSWER_CHARS) },
      });
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
      const undispatched = await undispatchedEvents(db);
      const first = dispatcher?.backlog() ?? { pending: 0, oldestOccurredAt: null };
      let oldestRunAt = oldest?.nextAttemptAt ?? null;
      for (const at of [first.oldestOccurredAt, undispatched?.oldest ?? null])
        if (at && (!oldestRunAt || at < oldestRunAt)) oldestRunAt = at;
      return { pending: pending + first.pending + (undispatched?.count ?? 0), oldestRunAt };
    },
  };
}

/**
 * Registers webhook delivery on the job queue: the dispatcher's first attempts and the deliveries lane's
 * retries, with this queue's (this instance's) delivery slots (`deliverySlots`, default 64; per organization
 * `maxInFlightPerOrganization`, default 16; per endpoint `maxInFlightPerEndpoint`, default 4);
 * `onDisabled` records webhook_endpoint.disabled (the runtime passes the domain's recordEndpointDisabled).
 */
export function handleWebhookDeliveries(
  queue: JobQueue,
  deps: DeliveryDeps,
  options: Pick<DeliveryHooks, 'onDisabled'> & {
    maxInFlightPerEndpoint?: number;
    maxInFlightPerOrganization?: number;
    deliverySlots?: number;
    dispatcher?: DispatcherOptions;
  } = {},
): JobQueue {
  const slots = new DeliverySlots({
    perEndpoint: options.maxInFlightPerEndpoint,
    perOrganization: options.maxInFlightPerOrganization,
    total: options.deliverySlots,
  });
  const hooks = { onDisabled: options.onDisabled, slots };
  const dispatcher = new WebhookDispatcher(deps, hooks, (outcome) => queue.record(DELIVER_JOB, outcome), options.dispatcher);
  const attempt = (job: ClaimedJob) => attemptDelivery(deps, job.payload as DeliveryRow, hooks);
  return queue.lane(deliveriesLane(deps.db, dispatcher, slots), attempt);
}
