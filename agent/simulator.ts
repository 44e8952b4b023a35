// The reference agent runtime: a separate process and an API client of the service only (it imports
// nothing from src/). It authenticates with an OAuth client (client credentials; the client needs the
// scopes calls:dispatch and conversations:write), claims due calls, and — with --simulate — plays an
// outcome: a deterministic one for the test numbers, in the manner of Twilio's test numbers, and for any
// other number one drawn from the outcome mix (--mix; agent/outcomes.ts). The usage is HELP below
// (`npm run agent -- --help`).

import {
  DEFAULT_MIX,
  formatMix,
  isFailure,
  type DispositionOutcome,
  type FailureOutcome,
  type Mix,
  type MixOutcome,
  MixError,
  outcomePicker,
  parseMix,
  parseSeed,
  seededRandom,
} from './outcomes.js';

const HELP = `Usage: npm run agent -- --simulate [--once] [--mix busy=2,no_answer=3,booked=3,callback=1,opt_out=1] [--seed 7]
       [--url http://127.0.0.1:4000] [--client-id …] [--client-secret …] [--audience …] [--max 5] [--lease-seconds 60] [--poll-ms 1000]

Claims due calls and plays an outcome for each; it dials no real number. The test numbers always play theirs:
  +15005550006  answers and talks: start, a short transcript, the conversation ended, completed
  +15005550009  answers and asks not to be called again: completed with disposition opt_out (the
                service puts the number on the organization's suppression list)
  +15005550007  busy:             failed, code busy
  +15005550008  never answers:    failed, code no_answer
  +15005550010  voicemail:        failed, code voicemail (a retry policy tries again)
  +15005550001  unreachable:      failed, code target_unavailable
Any other number plays an outcome drawn by weight from --mix, outcome=weight pairs (weights ≥ 0, any scale):
  failures, reported with fail (a retry policy re-queues busy, no_answer and voicemail):
    busy, no_answer, voicemail, target_unavailable, rejected
  dispositions, reported with complete after a short conversation:
    booked (with data {slot}), callback (callback_requested, callbackAt a day later or halfway to the
    request's notAfter; information_given when no time is left), opt_out, information_given, declined,
    transferred, voicemail_left, other
  Without --mix the mix is ${DEFAULT_MIX}: other numbers are rejected, as the simulator dials only its test numbers.
--seed N (0 to 4294967295) makes the draws reproducible: the n-th call worked gets the n-th draw. Without it the
seed is random; the runtime names it on stderr (with the mix) so that a run can be replayed.
--once works until nothing is due, then exits; without it the runtime polls until SIGINT/SIGTERM.
One line of JSON per call outcome goes to stdout.
Environment: SERVICE_URL, AGENT_CLIENT_ID, AGENT_CLIENT_SECRET, AGENT_AUDIENCE, AGENT_OUTCOME_MIX, AGENT_SEED
(an option wins over its variable).`;

interface Options {
  url: string;
  clientId: string;
  clientSecret: string;
  audience: string | undefined;
  max: number;
  leaseSeconds: number;
  pollMs: number;
  once: boolean;
  simulate: boolean;
  /** Null without --mix or AGENT_OUTCOME_MIX: DEFAULT_MIX, and nothing said about it. */
  mix: Mix | null;
  seed: number;
}

interface Claim {
  leaseId: string;
  callRequest: { callRequestId: string; to: string; conversationId: string | null; expiresAt: string };
  availability: { state: string; greeting: string | null };
}

type Outcome =
  /** Answered: a conversation, then complete (with this disposition, if any). */
  { kind: 'talk'; disposition?: DispositionOutcome } | { kind: 'fail'; code: FailureOutcome; message: string };

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

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const number = (name: string, fallback: number) => {
    const raw = value(name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  // the mix first: a bad one is named before anything else is asked of the caller, and long before a claim
  const mixText = value('mix') ?? env.AGENT_OUTCOME_MIX;
  if (argv.includes('--mix') && mixText === undefined) throw new MixError('--mix needs a value, e.g. --mix busy=1,booked=1');
  const mix = mixText === undefined ? null : parseMix(mixText, value('mix') !== undefined ? '--mix' : 'AGENT_OUTCOME_MIX');
  const seedText = value('seed') ?? env.AGENT_SEED;
  const seed = seedText === undefined ? randomSeed() : parseSeed(seedText, value('seed') !== undefined ? '--seed' : 'AGENT_SEED');
  const clientId = value('client-id') ?? env.AGENT_CLIENT_ID;
  const clientSecret = value('client-secret') ?? env.AGENT_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new Error('an OAuth client is needed: --client-id and --client-secret (or AGENT_CLIENT_ID, AGENT_CLIENT_SECRET)');
  return {
    url: (value('url') ?? env.SERVICE_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, ''),
    clientId,
    clientSecret,
    audience: value('audience') ?? env.AGENT_AUDIENCE,
    max: number('max', 5),
    leaseSeconds: number('lease-seconds', 60),
    pollMs: number('poll-ms', 1_000),
    once: argv.includes('--once'),
    simulate: argv.includes('--simulate'),
    mix,
    seed,
  };
}

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

class ServiceClient {
  private token: { value: string; expiresAt: number } | undefined;

  constructor(private readonly options: Options) {}

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 30_000) return this.token.value;
    const res = await fetch(`${this.options.url}/oauth/token`, {
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
    this.token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 300) * 1000 };
    return this.token.value;
  }

  /**
   * POSTs a JSON body and answers the status with the envelope's data. A 429 (the per-minute budget of
   * the route, spec §8) is retried after its Retry-After, a few times.
   */
  async post<T>(path: string, body: unknown): Promise<{ status: number; data: T; message?: string; code?: string }> {
    let res: Response;
    for (let attempt = 1; ; attempt++) {
      res = await fetch(`${this.options.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 429 || attempt >= 4) break;
      const wait = Math.min(60, Number(res.headers.get('retry-after')) || 1);
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
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

async function play(client: ServiceClient, claim: Claim, options: Options, draw: () => MixOutcome): Promise<Record<string, unknown>> {
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
  if (started.status !== 200) return { callRequestId: id, status: `not started (${started.status}: ${started.message})` };
  const conversationId = started.data.conversationId;
  const script = SCRIPTS[outcome.disposition ?? 'none'];
  const turns: Turn[] = [{ role: 'agent', text: claim.availability.greeting ?? 'Hello, this is the office calling.' }, ...script.lines];
  const startedAt = Date.now();
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
  let sent: CompleteBody = outcome.disposition ? (completion(outcome.disposition, claim, Date.now()) ?? NO_ROOM_FOR_CALLBACK) : {};
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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const options = parseOptions(argv, process.env);
  if (!options.simulate) throw new Error('only --simulate is implemented: this reference runtime dials no real numbers');
  const draw = outcomePicker(options.mix ?? parseMix(DEFAULT_MIX), seededRandom(options.seed));
  if (options.mix)
    process.stderr.write(`agent: numbers outside the test table answer by the mix ${formatMix(options.mix)} (--seed ${options.seed})\n`);
  const client = new ServiceClient(options);
  let stopping = false;
  process.on('SIGINT', () => (stopping = true));
  process.on('SIGTERM', () => (stopping = true));
  while (!stopping) {
    const claimed = await client.post<{ claims: Claim[] }>('/v1/dispatch/claim', { max: options.max, leaseSeconds: options.leaseSeconds });
    if (claimed.status !== 200) throw new Error(`claim failed (${claimed.status}): ${claimed.message}`);
    for (const claim of claimed.data.claims) process.stdout.write(`${JSON.stringify(await play(client, claim, options, draw))}\n`);
    if (claimed.data.claims.length === 0) {
      if (options.once) break;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    }
  }
}

main().catch((err: unknown) => {
  // fetch's own message is only "fetch failed": what failed is its cause (a refused connection, a reset socket)
  const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
  process.stderr.write(`agent: ${err instanceof Error ? err.message : String(err)}${cause}\n`);
  process.exit(1);
});
