// The outcome mix of the reference runtime (issue 35 §5): which outcome a simulated call to a number outside the
// test-number table comes to, drawn by weight from a mix such as `busy=2,no_answer=3,booked=3,callback=1,opt_out=1`.
// Pure code (no I/O, nothing from src/): the runtime parses its --mix and --seed here before it claims anything, and
// the tests read the same draws.

/** Outcomes reported with `fail` and an error code: the call did not take place (the retry policy may try again). */
export const FAILURE_OUTCOMES = ['busy', 'no_answer', 'voicemail', 'target_unavailable', 'rejected'] as const;
/** Outcomes reported with `complete` and this disposition: the call was answered. */
export const DISPOSITION_OUTCOMES = [
  'booked',
  'callback_requested',
  'opt_out',
  'information_given',
  'declined',
  'transferred',
  'voicemail_left',
  'other',
] as const;
/** Every outcome a mix may weigh, in the order the draw walks them (so a mix draws the same whatever order it was written in). */
export const MIX_OUTCOMES = [...FAILURE_OUTCOMES, ...DISPOSITION_OUTCOMES] as const;

export type FailureOutcome = (typeof FAILURE_OUTCOMES)[number];
export type DispositionOutcome = (typeof DISPOSITION_OUTCOMES)[number];
export type MixOutcome = (typeof MIX_OUTCOMES)[number];

/** Shorter names a person types (`callback=1`). */
const ALIASES: Readonly<Record<string, MixOutcome>> = { callback: 'callback_requested' };

/**
 * Without --mix a number outside the table is rejected, as before the mix existed: the simulator dials only its test
 * numbers unless asked to make believe.
 */
export const DEFAULT_MIX = 'rejected=1';

/** A parsed mix: the outcomes of positive weight, in MIX_OUTCOMES order. */
export type Mix = readonly { outcome: MixOutcome; weight: number }[];

export class MixError extends Error {}

function isOutcome(name: string): name is MixOutcome {
  return (MIX_OUTCOMES as readonly string[]).includes(name);
}

/**
 * `busy=2,no_answer=3,booked=1` → the mix. Every fault names its part and where it came from (`source`, e.g. --mix or
 * AGENT_OUTCOME_MIX): an entry without `=`, an unknown outcome, an outcome given twice, a weight that is not a finite
 * number ≥ 0, or no positive weight at all.
 */
export function parseMix(text: string, source = '--mix'): Mix {
  const entries = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) throw new MixError(`${source} is empty: give outcome=weight pairs, e.g. ${DEFAULT_MIX}`);
  const weights = new Map<MixOutcome, number>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 0) throw new MixError(`${source}: "${entry}" is not outcome=weight`);
    const name = entry.slice(0, eq).trim();
    const outcome = ALIASES[name] ?? name;
    if (!isOutcome(outcome))
      throw new MixError(
        `${source}: unknown outcome "${name}" in "${entry}"; the outcomes are ${[...MIX_OUTCOMES, 'callback'].join(', ')}`,
      );
    if (weights.has(outcome)) throw new MixError(`${source}: ${outcome} is given twice`);
    const raw = entry.slice(eq + 1).trim();
    const weight = Number(raw);
    if (raw === '' || !Number.isFinite(weight) || weight < 0)
      throw new MixError(`${source}: the weight of ${name} must be a number ≥ 0, not "${raw}"`);
    weights.set(outcome, weight);
  }
  const mix = MIX_OUTCOMES.filter((o) => (weights.get(o) ?? 0) > 0).map((outcome) => ({ outcome, weight: weights.get(outcome)! }));
  if (mix.length === 0) throw new MixError(`${source}: every weight is 0; give at least one outcome a positive weight`);
  return mix;
}

/** The mix as the runtime reports it (`busy=2,booked=1`), in draw order. */
export function formatMix(mix: Mix): string {
  return mix.map(({ outcome, weight }) => `${outcome}=${weight}`).join(',');
}

/** --seed: an integer from 0 to 2^32 − 1. */
export function parseSeed(text: string, source = '--seed'): number {
  const seed = Number(text);
  if (text.trim() === '' || !Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff)
    throw new MixError(`${source} must be an integer from 0 to 4294967295, not "${text}"`);
  return seed;
}

/**
 * A seeded generator of numbers in [0, 1) (mulberry32): small, and the same sequence on every platform, which is all a
 * reproducible run needs (Math.random cannot be seeded).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws outcomes by weight: one number of `random` per draw, so the n-th call worked gets the n-th draw of the seed. */
export function outcomePicker(mix: Mix, random: () => number): () => MixOutcome {
  const total = mix.reduce((sum, { weight }) => sum + weight, 0);
  return () => {
    let point = random() * total;
    for (const { outcome, weight } of mix) {
      if (point < weight) return outcome;
      point -= weight;
    }
    return mix[mix.length - 1]!.outcome; // rounding at the very top of the range
  };
}

export function isFailure(outcome: MixOutcome): outcome is FailureOutcome {
  return (FAILURE_OUTCOMES as readonly string[]).includes(outcome);
}
