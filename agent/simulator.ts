// The reference agent runtime: a separate process and an API client of the service only (it imports
// nothing from src/). It authenticates with an OAuth client (client credentials; the client needs the
// scopes calls:dispatch and conversations:write), claims due calls, and — with --simulate — plays a
// deterministic outcome chosen by the destination number, in the manner of Twilio's test numbers:
//
//   +15005550006  answers and talks: start, a short transcript, the conversation ended, completed
//   +15005550009  answers and asks not to be called again: completed with disposition opt_out (the
//                 service puts the number on the organization's suppression list)
//   +15005550007  busy:             failed, code busy
//   +15005550008  never answers:    failed, code no_answer
//   +15005550010  voicemail:        failed, code voicemail (a retry policy tries again)
//   +15005550001  unreachable:      failed, code target_unavailable
//   anything else rejected:         failed, code rejected (the simulator dials no real number)
//
// Usage: npm run agent -- --simulate [--once] [--url http://127.0.0.1:4000] [--client-id …] [--client-secret …]
//        [--audience …] [--max 5] [--lease-seconds 60] [--poll-ms 1000]
// The options may also come from the environment: SERVICE_URL, AGENT_CLIENT_ID, AGENT_CLIENT_SECRET,
// AGENT_AUDIENCE. --once works until nothing is due, then exits; without it the runtime polls until
// SIGINT/SIGTERM. One line of JSON per call outcome goes to stdout.

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
}

interface Claim {
  leaseId: string;
  callRequest: { callRequestId: string; to: string; conversationId: string | null };
  availability: { state: string; greeting: string | null };
}

type Outcome =
  | { kind: 'talk'; optOut?: boolean }
  | { kind: 'fail'; code: 'busy' | 'no_answer' | 'voicemail' | 'target_unavailable' | 'rejected'; message: string };

/** The documented table: the outcome the simulator plays for a destination. */
const SIMULATED_OUTCOMES: Readonly<Record<string, Outcome>> = {
  '+15005550006': { kind: 'talk' },
  '+15005550009': { kind: 'talk', optOut: true },
  '+15005550007': { kind: 'fail', code: 'busy', message: 'The line was busy.' },
  '+15005550008': { kind: 'fail', code: 'no_answer', message: 'Nobody answered within 30 seconds.' },
  '+15005550010': { kind: 'fail', code: 'voicemail', message: 'A voicemail greeting answered.' },
  '+15005550001': { kind: 'fail', code: 'target_unavailable', message: 'The number called could not be reached.' },
};

function outcomeFor(to: string): Outcome {
  return SIMULATED_OUTCOMES[to] ?? { kind: 'fail', code: 'rejected', message: 'The simulator dials only its test numbers.' };
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
  };
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

/** A patient who asks not to be called again. */
function optOutTranscriptOf(claim: Claim): { role: 'agent' | 'caller'; text: string }[] {
  return [
    { role: 'agent', text: claim.availability.greeting ?? 'Hello, this is the office calling.' },
    { role: 'caller', text: 'Please stop calling this number.' },
    { role: 'agent', text: 'Understood. We will not call this number again.' },
  ];
}

/** A short scripted conversation: the greeting the service answered, then a few turns. */
function transcriptOf(claim: Claim): { role: 'agent' | 'caller'; text: string }[] {
  return [
    { role: 'agent', text: claim.availability.greeting ?? 'Hello, this is the office calling.' },
    { role: 'caller', text: 'Hi, yes, this is about my appointment?' },
    { role: 'agent', text: 'We wanted to confirm your visit on Tuesday at ten.' },
    { role: 'caller', text: 'That works, thank you.' },
  ];
}

/** Seconds each simulated turn takes (the conversation's duration is the sum). */
const SECONDS_PER_TURN = 4;

async function play(client: ServiceClient, claim: Claim, options: Options): Promise<Record<string, unknown>> {
  const id = claim.callRequest.callRequestId;
  const lease = { leaseId: claim.leaseId };
  const outcome = outcomeFor(claim.callRequest.to);
  if (outcome.kind === 'fail') {
    const res = await client.post(`/v1/call-requests/${id}/fail`, {
      ...lease,
      error: { category: 'request', code: outcome.code, message: outcome.message },
    });
    return {
      callRequestId: id,
      to: claim.callRequest.to,
      status: res.status === 200 ? 'failed' : `not reported (${res.status}: ${res.message})`,
      code: outcome.code,
    };
  }
  const started = await client.post<{ conversationId: string }>(`/v1/call-requests/${id}/start`, lease);
  // the callee's calling window closed between the claim and the start: the service keeps the request for its next
  // window (that lease does not count against it); nothing to report
  if (started.status === 409 && started.code === 'call_window_closed')
    return { callRequestId: id, to: claim.callRequest.to, status: 'held back: the calling window closed' };
  if (started.status !== 200) return { callRequestId: id, status: `not started (${started.status}: ${started.message})` };
  const conversationId = started.data.conversationId;
  const turns = outcome.optOut ? optOutTranscriptOf(claim) : transcriptOf(claim);
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
    summary: outcome.optOut ? 'Asked not to be called again.' : 'Confirmed the appointment on Tuesday at ten.',
    topic: outcome.optOut ? 'Opt-out' : 'Appointment confirmation',
    tags: ['simulated', outcome.optOut ? 'opt-out' : 'confirmation'],
    duration: turns.length * SECONDS_PER_TURN,
  });
  // an opt-out is the service's to keep: the number goes on the suppression list and is never called again
  const done = await client.post(`/v1/call-requests/${id}/complete`, outcome.optOut ? { ...lease, disposition: 'opt_out' } : lease);
  return {
    callRequestId: id,
    to: claim.callRequest.to,
    status: done.status === 200 ? 'completed' : `not completed (${done.status}: ${done.message})`,
    ...(outcome.optOut ? { disposition: 'opt_out' } : {}),
    conversationId,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  if (!options.simulate) throw new Error('only --simulate is implemented: this reference runtime dials no real numbers');
  const client = new ServiceClient(options);
  let stopping = false;
  process.on('SIGINT', () => (stopping = true));
  process.on('SIGTERM', () => (stopping = true));
  while (!stopping) {
    const claimed = await client.post<{ claims: Claim[] }>('/v1/dispatch/claim', { max: options.max, leaseSeconds: options.leaseSeconds });
    if (claimed.status !== 200) throw new Error(`claim failed (${claimed.status}): ${claimed.message}`);
    for (const claim of claimed.data.claims) process.stdout.write(`${JSON.stringify(await play(client, claim, options))}\n`);
    if (claimed.data.claims.length === 0) {
      if (options.once) break;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
