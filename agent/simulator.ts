// The reference agent runtime: a separate process and an API client of the service only (it imports
// nothing from src/). It authenticates with an OAuth client (client credentials; the client needs the
// scopes calls:dispatch and conversations:write), claims due calls, and — with --simulate — plays an
// outcome: a deterministic one for the test numbers, in the manner of Twilio's test numbers, and for any
// other number one drawn from the outcome mix (--mix; agent/outcomes.ts). This file is its command line
// (the usage is HELP below, `npm run agent -- --help`); what a call does is agent/runtime.ts.

import { DEFAULT_MIX, formatMix, type Mix, MixError, parseMix, parseSeed } from './outcomes.js';
import { claimAndPlay, type ClientOptions, drawsOf, ServiceClient } from './runtime.js';

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

interface Options extends ClientOptions {
  pollMs: number;
  once: boolean;
  simulate: boolean;
  /** Null without --mix or AGENT_OUTCOME_MIX: DEFAULT_MIX, and nothing said about it. */
  mix: Mix | null;
  seed: number;
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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const options = parseOptions(argv, process.env);
  if (!options.simulate) throw new Error('only --simulate is implemented: this reference runtime dials no real numbers');
  const draw = drawsOf(options.mix ?? parseMix(DEFAULT_MIX), options.seed);
  if (options.mix)
    process.stderr.write(`agent: numbers outside the test table answer by the mix ${formatMix(options.mix)} (--seed ${options.seed})\n`);
  const client = new ServiceClient(options);
  let stopping = false;
  process.on('SIGINT', () => (stopping = true));
  process.on('SIGTERM', () => (stopping = true));
  while (!stopping) {
    const claimed = await claimAndPlay(client, options, draw, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));
    if (claimed === 0) {
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
