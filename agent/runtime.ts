// The reference runtime's work, apart from its command line (agent/simulator.ts): the service's client, and what a
// simulated call does from its claim to its outcome. An API client of the service only (nothing from src/); the
// fetch, the clock and the waits are handed in, so that a test can run it against the app on a fake clock.

import {
  type DispositionOutcome,
  type FailureOutcome,
  isFailure,
  type Mix,
  type MixOutcome,
  outcomePicker,
  seededRandom,
} from './outcomes.js';

/** What the runtime needs of its command line to reach the service and claim. */
export interface ClientOptions {
  url: string;
  clientId: string;
  clientSecret: string;
  audience: string | undefined;
  max: number;
  leaseSeconds: number;
}

/** What the runtime reaches the world through: the real ones in a process, a test's own on a fake clock. */
export interface Io {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Milliseconds since the epoch, as the service's clock reads them (turn times, a callback's callbackAt). */
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export const REAL_IO: Io = {
  fetch: (url, init) => fetch(url, init),
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface Claim {
  leaseId: string;
  callRequest: { callRequestId: string; to: string; conversationId: string | null; expiresAt: string };
  availability: { state: string; greeting: string | null };
}

/** A call answered (a conversation, then complete, with its disposition if any), or one that did not take place. */
type Outcome = { kind: 'talk'; disposition?: DispositionOutcome } | { kind: 'fail'; code: FailureOutcome; message: string };

const FAILURE_MESSAGES: Readonly<Record<FailureOutcome, string>> = {
  busy: 'The line was busy.',
  no_answer: 'Nobody answered within 30 seconds.',
  voicemail: 'A voicemail greeting answered.',
  target_unavailable: 'The number called could not be reached.',
  rejected: 'The simulator dials only its test numbers.',
};

const fail = (code: FailureOutcome): Outcome => ({ kind: 'fail', code, message: FAILURE_MESSAGES[code] });

/** The documented table: the outcome the simulator plays for a test number, mix or not. */
const SIMULATED_OUTCOMES: Readonly<Record<string, Outcome>> = {
  '+15005550006': { kind: 'talk' },
  '+15005550009': { kind: 'talk', disposition: 'opt_out' },
  '+15005550007': fail('busy'),
  '+15005550008': fail('no_answer'),
  '+15005550010': fail('voicemail'),
  '+15005550001': fail('target_unavailable'),
};

function outcomeOf(drawn: MixOutcome): Outcome {
  return isFailure(drawn) ? fail(drawn) : { kind: 'talk', disposition: drawn };
}

export class ServiceClient {
  private token: { value: string; expiresAt: number } | undefined;

  constructor(
    private readonly options: ClientOptions,
    readonly io: Io = REAL_IO,
  ) {}

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > this.io.now() + 30_000) return this.token.value;
    const res = await this.io.fetch(`${this.options.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        ...(this.options.audience ? { audience: this.options.audience } : {}),
      }),
    });
    const body = (await res.json()) as { access_token?: string; expires_in?: number; message?: string };
    if (!res.ok || !body.access_token) throw new Error(`token request failed (${res.status}): ${body.message ?? JSON.stringify(body)}`);
    this.token = { value: body.access_token, expiresAt: this.io.now() + (body.expires_in ?? 300) * 1000 };
    return this.token.value;
  }

  /**
   * POSTs a JSON body and answers the status with the envelope's data. A 429 (the per-minute budget of
   * the route, spec §8) is retried after its Retry-After, a few times.
   */
  async post<T>(path: string, body: unknown): Promise<{ status: number; data: T; message?: string; code?: string }> {
    let res: Response;
    for (let attempt = 1; ; attempt++) {
      res = await this.io.fetch(`${this.options.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 429 || attempt >= 4) break;
      const wait = Math.min(60, Number(res.headers.get('retry-after')) || 1);
      await res.arrayBuffer();
      await this.io.sleep(wait * 1000);
    }
    const envelope = (await res.json()) as { data: T; message?: string; code?: string };
    return {
      status: res.status,
      data: envelope.data,
      ...(envelope.message !== undefined ? { message: envelope.message } : {}),
      ...(envelope.code !== undefined ? { code: envelope.code } : {}),
    };
  }
}

type Turn = { role: 'agent' | 'caller'; text: string };

/** What an answered call says and how the runtime sums it up, by disposition (`none`: the test number that just talks). */
interface Script {
  lines: Turn[];
  summary: string;
  topic: string;
  tag: string;
}

const SCRIPTS: Readonly<Record<DispositionOutcome | 'none', Script>> = {
  none: {
    lines: [
      { role: 'caller', text: 'Hi, yes, this is about my appointment?' },
      { role: 'agent', text: 'We wanted to confirm your visit on Tuesday at ten.' },
      { role: 'caller', text: 'That works, thank you.' },
    ],
    summary: 'Confirmed the appointment on Tuesday at ten.',
    topic: 'Appointment confirmation',
    tag: 'confirmation',
  },
  opt_out: {
    lines: [
      { role: 'caller', text: 'Please stop calling this number.' },
      { role: 'agent', text: 'Understood. We will not call this number again.' },
    ],
    summary: 'Asked not to be called again.',
    topic: 'Opt-out',
    tag: 'opt-out',
  },
  booked: {
    lines: [
      { role: 'caller', text: 'Yes, I would like to book my recall visit.' },
      { role: 'agent', text: 'You are booked; we will send a reminder the day before.' },
    ],
    summary: 'Booked the recall visit.',
    topic: 'Recall booking',
    tag: 'booked',
  },
  callback_requested: {
    lines: [
      { role: 'caller', text: 'This is not a good time. Could you call me back?' },
      { role: 'agent', text: 'Of course, we will call you back.' },
    ],
    summary: 'Asked to be called back.',
    topic: 'Callback',
    tag: 'callback',
  },
  information_given: {
    lines: [
      { role: 'caller', text: 'What do I need to bring to the visit?' },
      { role: 'agent', text: 'Your insurance card and a list of the medicines you take.' },
    ],
    summary: 'Told what to bring to the visit.',
    topic: 'Information',
    tag: 'information',
  },
  declined: {
    lines: [
      { role: 'caller', text: 'No thank you, I do not want to book now.' },
      { role: 'agent', text: 'Understood. Thank you for your time.' },
    ],
    summary: 'Declined to book.',
    topic: 'Recall declined',
    tag: 'declined',
  },
  transferred: {
    lines: [
      { role: 'caller', text: 'Can I speak to someone at the front desk?' },
      { role: 'agent', text: 'Certainly, transferring you now.' },
    ],
    summary: 'Transferred to the front desk.',
    topic: 'Transfer',
    tag: 'transferred',
  },
  voicemail_left: {
    lines: [
      { role: 'caller', text: 'You have reached my voicemail. Please leave a message.' },
      { role: 'agent', text: 'This is the office about your recall visit; please call us back.' },
    ],
    summary: 'Left a voicemail message.',
    topic: 'Voicemail',
    tag: 'voicemail',
  },
  other: {
    lines: [
      { role: 'caller', text: 'Sorry, I think you have the wrong number.' },
      { role: 'agent', text: 'Apologies for the trouble. Goodbye.' },
    ],
    summary: 'Wrong number.',
    topic: 'Other',
    tag: 'other',
  },
};

/** Seconds each simulated turn takes (the conversation's duration is the sum). */
const SECONDS_PER_TURN = 4;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** A callback closer than this to now is not worth asking for (the request is about to expire): the call informs instead. */
const MIN_CALLBACK_MS = 5 * MINUTE_MS;

/**
 * What `complete` is sent for a disposition: notes, a booked slot as `data`, a callback's `callbackAt` — a day later,
 * or halfway to the request's notAfter when that comes first (the service refuses a callbackAt at or after notAfter).
 * Null when a callback has no room left before notAfter.
 */
/** The body of `complete` besides the lease. */
interface CompleteBody {
  disposition?: DispositionOutcome;
  notes?: string;
  data?: Record<string, unknown>;
  callbackAt?: string;
}

function completion(disposition: DispositionOutcome, claim: Claim, now: number): CompleteBody | null {
  if (disposition === 'booked') {
    const start = new Date(now + 2 * DAY_MS);
    start.setUTCHours(15, 0, 0, 0);
    return { disposition, notes: 'Booked the recall visit.', data: { slot: { start: start.toISOString(), minutes: 30 } } };
  }
  if (disposition === 'callback_requested') {
    const notAfter = Date.parse(claim.callRequest.expiresAt);
    const at = Math.ceil(Math.min(now + DAY_MS, now + (notAfter - now) / 2) / MINUTE_MS) * MINUTE_MS;
    if (!(at - now >= MIN_CALLBACK_MS && at < notAfter)) return null;
    return { disposition, notes: 'Asked to be called back.', callbackAt: new Date(at).toISOString() };
  }
  return { disposition, notes: SCRIPTS[disposition].summary };
}

/** A callback the request has no room for (or the service refused): the call informed the callee instead. */
const NO_ROOM_FOR_CALLBACK: CompleteBody = {
  disposition: 'information_given',
  notes: "Asked to be called back; no time allowed for calls was left before the request's notAfter.",
};

/** What became of one call the runtime worked: the line it prints for it. */
export interface WorkedCall {
  callRequestId: string;
  to?: string;
  /** The request's status as the service answered it, or why the runtime could not report. */
  status: string;
  /** A failure's code (busy, no_answer, …). */
  code?: string;
  disposition?: string;
  conversationId?: string;
  /** A callback's follow-up request. */
  followUpId?: string;
  /** When a failure is retried (status queued). */
  dueAt?: string;
}

export async function play(client: ServiceClient, claim: Claim, options: ClientOptions, draw: () => MixOutcome): Promise<WorkedCall> {
  const id = claim.callRequest.callRequestId;
  const to = claim.callRequest.to;
  const lease = { leaseId: claim.leaseId };
  const outcome = SIMULATED_OUTCOMES[to] ?? outcomeOf(draw());
  if (outcome.kind === 'fail') {
    const res = await client.post<{ status: string; dueAt: string }>(`/v1/call-requests/${id}/fail`, {
      ...lease,
      error: { category: 'request', code: outcome.code, message: outcome.message },
    });
    if (res.status !== 200) return { callRequestId: id, to, status: `not reported (${res.status}: ${res.message})`, code: outcome.code };
    // queued again when the request's retry policy tries again (at dueAt), failed otherwise
    return {
      callRequestId: id,
      to,
      status: res.data.status,
      code: outcome.code,
      ...(res.data.status === 'queued' ? { dueAt: res.data.dueAt } : {}),
    };
  }
  const started = await client.post<{ conversationId: string }>(`/v1/call-requests/${id}/start`, lease);
  // the callee's calling window closed between the claim and the start: the service keeps the request for its next
  // window (that lease does not count against it); nothing to report
  if (started.status === 409 && started.code === 'call_window_closed')
    return { callRequestId: id, to, status: 'held back: the calling window closed' };
  if (started.status !== 200) return { callRequestId: id, to, status: `not started (${started.status}: ${started.message})` };
  const conversationId = started.data.conversationId;
  const script = SCRIPTS[outcome.disposition ?? 'none'];
  const turns: Turn[] = [{ role: 'agent', text: claim.availability.greeting ?? 'Hello, this is the office calling.' }, ...script.lines];
  const startedAt = client.io.now();
  for (const [i, turn] of turns.entries()) {
    await client.post(`/v1/conversations/${conversationId}/messages`, {
      ...turn,
      at: new Date(startedAt + i * SECONDS_PER_TURN * 1000).toISOString(),
    });
    // a long call keeps its lease: one heartbeat half-way through
    if (i === Math.floor(turns.length / 2))
      await client.post(`/v1/call-requests/${id}/heartbeat`, { ...lease, leaseSeconds: options.leaseSeconds });
  }
  await client.post(`/v1/conversations/${conversationId}/end`, {
    summary: script.summary,
    topic: script.topic,
    tags: ['simulated', script.tag],
    duration: turns.length * SECONDS_PER_TURN,
  });
  // an opt-out is the service's to keep: the number goes on the suppression list and is never called again; a
  // callback is too: the service places the follow-up request (followUpOf) due at the first allowed instant
  let sent: CompleteBody = outcome.disposition ? (completion(outcome.disposition, claim, client.io.now()) ?? NO_ROOM_FOR_CALLBACK) : {};
  let done = await client.post<{ followUpId: string | null }>(`/v1/call-requests/${id}/complete`, { ...lease, ...sent });
  // a callback the calling policy leaves no instant for before notAfter is refused whole (400): say so instead
  if (done.status === 400 && sent.disposition === 'callback_requested') {
    sent = NO_ROOM_FOR_CALLBACK;
    done = await client.post(`/v1/call-requests/${id}/complete`, { ...lease, ...sent });
  }
  const disposition = sent.disposition;
  return {
    callRequestId: id,
    to,
    status: done.status === 200 ? 'completed' : `not completed (${done.status}: ${done.message})`,
    ...(disposition ? { disposition } : {}),
    conversationId,
    ...(done.status === 200 && done.data.followUpId ? { followUpId: done.data.followUpId } : {}),
  };
}

/**
 * One claim and its calls played, in claim order, a line each to `write`; answers how many were claimed (0: nothing
 * is due). `draw` is the mix's: the n-th call outside the test table takes its n-th draw.
 */
export async function claimAndPlay(
  client: ServiceClient,
  options: ClientOptions,
  draw: () => MixOutcome,
  write: (line: WorkedCall) => void,
): Promise<number> {
  const claimed = await client.post<{ claims: Claim[] }>('/v1/dispatch/claim', { max: options.max, leaseSeconds: options.leaseSeconds });
  if (claimed.status !== 200) throw new Error(`claim failed (${claimed.status}): ${claimed.message}`);
  for (const claim of claimed.data.claims) write(await play(client, claim, options, draw));
  return claimed.data.claims.length;
}

/** The draws of a mix and a seed, as the runtime takes them. */
export function drawsOf(mix: Mix, seed: number): () => MixOutcome {
  return outcomePicker(mix, seededRandom(seed));
}
