// Delivering events to webhook endpoints, per the Standard Webhooks specification: a POST of
// `{id, type, occurredAt, orgId, data}` with the headers webhook-id (the event id, the same on every
// retry), webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256>`, signed with the
// `standardwebhooks` package; during a rotation's overlap with both secrets, space-separated).
// A 2xx within 10 s is delivered; anything else is retried with growing gaps, then marked failed;
// 410 Gone disables the endpoint. Each delivery is a job (jobs/queue.ts) enqueued with its event, so it
// survives a restart, and is in flight on one instance at a time.
//
// Safety: the address is resolved at delivery time and the connection goes to the address that was
// checked (no second lookup an attacker's DNS could answer differently); loopback, private, link-local,
// metadata and other special addresses are refused, and only https:// is allowed, unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS. Redirects are not followed; at most 64 KB of an answer is read.
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { KeyMaterial } from '../crypto/derivedKeys.js';
import type { Db } from '../db/client.js';
import type { ClaimedJob, JobOutcome, JobQueue } from '../jobs/queue.js';
import { decryptSecret } from './secrets.js';
import { isPrivateAddress, TargetRefused } from './targets.js';

/** The gaps before each retry: after the first failed attempt 5 s, then 5 min, …; after the last, failed. */
export const RETRY_GAPS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;
const KEPT_ANSWER_CHARS = 1024;
export const DELIVER_JOB = 'webhook.deliver';

export interface DeliveryDeps {
  db: Db;
  clock: () => Date;
  tokens: { key: KeyMaterial };
  config: { webhookAllowPrivateTargets: boolean };
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

/** POSTs `body`; answers the status and up to 64 KB of the answer. Never follows a redirect. */
export function post(url: string, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<Answer> {
  const target = new URL(url);
  // a literal address is checked here (no lookup happens for it)
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !allowPrivate && isPrivateAddress(literal)) return Promise.reject(new TargetRefused(`${literal} is not a public address`));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'office-communications-webhooks/1' },
        lookup: checkedLookup(allowPrivate),
        timeout: DELIVERY_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    // the whole exchange, not only idle time, is bounded
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)), DELIVERY_TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}

/** The three Standard Webhooks headers; every secret given signs (a rotation's overlap sends both signatures). */
export function signedHeaders(msgId: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(msgId, at, body)).join(' '),
  };
}

/** One attempt of one delivery (the job's handler). */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string): Promise<JobOutcome> {
  const { db } = deps;
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true } });
  if (!delivery || delivery.status !== 'pending') return { done: true, label: 'skipped' };
  const endpoint = delivery.endpoint;
  const now = deps.clock();
  const finish = (status: 'delivered' | 'failed', fields: { statusCode?: number | null; latencyMs?: number | null; response: string }) =>
    db.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status, attempts: { increment: 1 }, lastAttemptAt: now, nextAttemptAt: null, statusCode: fields.statusCode ?? null, latencyMs: fields.latencyMs ?? null, response: fields.response },
    });
  if (!endpoint.enabled) {
    await finish('failed', { response: 'the endpoint is disabled' });
    return { done: true, label: 'failed' };
  }
  const event = await db.event.findUnique({ where: { id: delivery.eventId } });
  if (!event) {
    await finish('failed', { response: 'the event is past retention' });
    return { done: true, label: 'failed' };
  }
  const body = JSON.stringify({ id: event.id, type: event.type, occurredAt: event.occurredAt.toISOString(), orgId: event.orgId, data: event.data });
  const secrets = [decryptSecret(deps.tokens.key, endpoint.secret)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) secrets.push(decryptSecret(deps.tokens.key, endpoint.previousSecret));

  const started = performance.now();
  let answer: Answer | undefined;
  let failure = '';
  try {
    answer = await post(endpoint.url, signedHeaders(event.id, now, body, secrets), body, deps.config.webhookAllowPrivateTargets);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
  }
  const latencyMs = Math.round(performance.now() - started);
  const statusCode = answer?.status ?? null;
  const response = (answer ? answer.body : failure).slice(0, KEPT_ANSWER_CHARS);

  if (answer && answer.status >= 200 && answer.status < 300) {
    await finish('delivered', { statusCode, latencyMs, response });
    return { done: true, label: 'delivered' };
  }
  if (answer?.status === 410) {
    // the receiver says the endpoint is gone for good: stop sending anything to it
    await db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: false, disabledReason: 'the endpoint answered 410 Gone', updatedAt: now } });
    await finish('failed', { statusCode, latencyMs, response });
    return { done: true, label: 'gone' };
  }
  const attempt = delivery.attempts + 1;
  if (attempt > RETRY_GAPS_MS.length) {
    await finish('failed', { statusCode, latencyMs, response });
    return { done: true, label: 'failed' };
  }
  const retryAt = new Date(now.getTime() + RETRY_GAPS_MS[attempt - 1]!);
  await db.webhookDelivery.update({
    where: { id: delivery.id },
    data: { attempts: attempt, lastAttemptAt: now, nextAttemptAt: retryAt, statusCode, latencyMs, response },
  });
  return { retryAt, error: answer ? `answered ${answer.status}` : failure };
}

/** Registers the delivery handler on the job queue. */
export function handleWebhookDeliveries(queue: JobQueue, deps: DeliveryDeps): JobQueue {
  return queue.handle(DELIVER_JOB, (job: ClaimedJob) => attemptDelivery(deps, (job.payload as { deliveryId: string }).deliveryId));
}
