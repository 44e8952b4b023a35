// Recall campaigns (issue 35 §1–3): the attempts of a call request, its retry policy, and the outcome a program
// can read. What the runtime reports goes into a list of attempts on the request (one per claim that started or
// failed); a retryable failure (busy, no_answer, voicemail, as the policy says) puts the request back in the queue,
// due at the first instant the calling policy allows after the policy's interval, found by the very function that
// computes a new request's dueAt (callRequests.ts firstCallInstant). The shapes and rules live here; callDispatch.ts
// applies them under the runtime's lease, callRequests.ts at creation, callingPolicy.ts as the organization's default.
import { z } from 'zod';
import { absentToUndefined } from '../shared/inputParams.js';
import { instantInputSchema } from '../shared/timeFormats.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';

/** Outcomes after which a retry policy may try again (`on`). */
export const RETRYABLE_OUTCOMES = ['busy', 'no_answer', 'voicemail'] as const;
export type RetryableOutcome = (typeof RETRYABLE_OUTCOMES)[number];

export const MAX_ATTEMPTS = 10;
/** An interval is at most 30 days (no request waits longer than that). */
export const MAX_INTERVAL_MINUTES = 30 * 24 * 60;

export interface RetryPolicy {
  on: RetryableOutcome[];
  maxAttempts: number;
  intervalsMinutes: number[];
}

const ATTEMPTS_ERROR = `must be an integer between 1 and ${MAX_ATTEMPTS}`;
const INTERVAL_ERROR = `must be a whole number of minutes between 1 and ${MAX_INTERVAL_MINUTES}`;

/** `{on, maxAttempts, intervalsMinutes}`: at most 10 attempts; after attempt k the k-th interval, the last one repeating. */
export const retryPolicySchema = z
  .strictObject(
    {
      on: z
        .preprocess(
          absentToUndefined,
          z
            .array(z.enum(RETRYABLE_OUTCOMES, { error: `must be one of ${RETRYABLE_OUTCOMES.join(', ')}` }), {
              error: `must be an array of outcomes (${RETRYABLE_OUTCOMES.join(', ')})`,
            })
            .min(1, 'must name at least one outcome')
            .max(RETRYABLE_OUTCOMES.length * 2, `must have at most ${RETRYABLE_OUTCOMES.length * 2} entries`)
            .default([...RETRYABLE_OUTCOMES]),
        )
        .describe(`The outcomes that are tried again (default all of ${RETRYABLE_OUTCOMES.join(', ')}).`),
      maxAttempts: z
        .number({ error: ATTEMPTS_ERROR })
        .int({ error: ATTEMPTS_ERROR })
        .min(1, ATTEMPTS_ERROR)
        .max(MAX_ATTEMPTS, ATTEMPTS_ERROR)
        .describe(`Attempts in all, the first one included (1..${MAX_ATTEMPTS}; 1: no retry).`),
      intervalsMinutes: z
        .preprocess(
          absentToUndefined,
          z
            .array(
              z
                .number({ error: INTERVAL_ERROR })
                .int({ error: INTERVAL_ERROR })
                .min(1, INTERVAL_ERROR)
                .max(MAX_INTERVAL_MINUTES, INTERVAL_ERROR),
              {
                error: 'must be an array of minutes',
              },
            )
            .max(MAX_ATTEMPTS, `must have at most ${MAX_ATTEMPTS} intervals`)
            .default([]),
        )
        .describe('Minutes from an outcome to the earliest retry: after attempt k the k-th, the last one repeating.'),
    },
    { error: 'must be an object {on, maxAttempts, intervalsMinutes}' },
  )
  .superRefine((policy, ctx) => {
    if (policy.maxAttempts > 1 && policy.intervalsMinutes.length === 0)
      ctx.addIssue({ code: 'custom', path: ['intervalsMinutes'], message: 'must have at least one interval when maxAttempts is above 1' });
  })
  .transform((policy): RetryPolicy => ({ ...policy, on: RETRYABLE_OUTCOMES.filter((o) => policy.on.includes(o)) }));

export const retryPolicyView = z
  .object({
    on: z.array(z.enum(RETRYABLE_OUTCOMES)),
    maxAttempts: z.int(),
    intervalsMinutes: z.array(z.int()),
  })
  .meta({ id: 'RetryPolicy' });

/** A stored retry policy (JSON), or null. */
export function retryPolicyOf(value: unknown): RetryPolicy | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as RetryPolicy) : null;
}

/**
 * When the request may be tried again after its `spent`-th attempt ended with `outcome` at `at`: the earliest
 * instant (outcome + interval) before the calling policy is asked, or null when the policy does not retry it.
 */
export function retryEarliest(policy: RetryPolicy | null, outcome: string, spent: number, at: Date): Date | null {
  if (!policy || !(policy.on as string[]).includes(outcome) || spent >= policy.maxAttempts) return null;
  const minutes = policy.intervalsMinutes[Math.min(spent, policy.intervalsMinutes.length) - 1];
  return minutes === undefined ? null : new Date(at.getTime() + minutes * 60_000);
}

// ---- the attempts list

export interface AttemptError {
  category: string;
  code: string;
  message: string;
}

/** One claim that started or failed. A lease that ended before either is counted (`claims`), not listed. */
export interface CallAttempt {
  /** 1, 2, … in order. */
  n: number;
  claimedAt: string | null;
  startedAt: string | null;
  /** Null while the attempt is under way. */
  endedAt: string | null;
  /** `completed`, or the failure code (busy, no_answer, voicemail, …; dispatch_timeout when the runtime vanished mid-call); null while under way. */
  outcome: string | null;
  error: AttemptError | null;
  conversationId: string | null;
}

export const callAttemptSchema = z
  .object({
    n: z.int().describe('1, 2, … in order.'),
    claimedAt: z.iso.datetime().nullable().describe('When the runtime claimed the request for this attempt.'),
    startedAt: z.iso.datetime().nullable().describe('When the call was answered (start); null when it never was.'),
    endedAt: z.iso.datetime().nullable().describe('When the outcome was reported; null while under way.'),
    outcome: z
      .string()
      .nullable()
      .describe(
        'completed, or the failure code (busy, no_answer, voicemail, target_unavailable, rejected, dispatch_timeout); null while under way.',
      ),
    error: z
      .object({ category: z.string(), code: z.string(), message: z.string() })
      .nullable()
      .describe("The runtime's reason for a failure."),
    conversationId: z.uuid().nullable().describe('The conversation this attempt opened.'),
  })
  .meta({ id: 'CallAttempt' });

export function attemptsOf(value: unknown): CallAttempt[] {
  return Array.isArray(value) ? (value as CallAttempt[]) : [];
}

/**
 * The earliest instant a queued request waiting for a retry may be tried again (its last attempt's end plus the
 * interval), or null when it is not waiting for one: what a re-timing must not move it before.
 */
export function pendingRetryEarliest(row: { retry: unknown; attemptLog: unknown }): Date | null {
  const attempts = attemptsOf(row.attemptLog);
  const last = attempts.at(-1);
  if (!last?.endedAt || !last.outcome) return null;
  return retryEarliest(retryPolicyOf(row.retry), last.outcome, attempts.length, new Date(last.endedAt));
}

/** The list with the attempt of the current claim ended as `outcome` (a new entry when the claim never started). */
export function endAttempt(
  log: readonly CallAttempt[],
  row: { startedAt: Date | null; claimedAt: Date | null; conversationId: string | null },
  now: Date,
  outcome: string,
  error: AttemptError | null,
): CallAttempt[] {
  const ended = { endedAt: now.toISOString(), outcome, error };
  const current = log.at(-1);
  if (row.startedAt !== null && current && current.endedAt === null) return [...log.slice(0, -1), { ...current, ...ended }];
  return [
    ...log,
    {
      n: log.length + 1,
      claimedAt: row.claimedAt?.toISOString() ?? null,
      startedAt: row.startedAt?.toISOString() ?? null,
      conversationId: row.startedAt !== null ? row.conversationId : null,
      ...ended,
    },
  ];
}

/** The list with the current claim's attempt begun (the call was answered). */
export function startAttempt(log: readonly CallAttempt[], claimedAt: Date | null, now: Date, conversationId: string): CallAttempt[] {
  return [
    ...log,
    {
      n: log.length + 1,
      claimedAt: claimedAt?.toISOString() ?? null,
      startedAt: now.toISOString(),
      endedAt: null,
      outcome: null,
      error: null,
      conversationId,
    },
  ];
}

// ---- outcomes a program can read

export const CALL_DISPOSITIONS = [
  'booked',
  'callback_requested',
  'opt_out',
  'transferred',
  'voicemail_left',
  'information_given',
  'declined',
  'other',
] as const;
export type CallDisposition = (typeof CALL_DISPOSITIONS)[number];

/** A count of zero for every disposition (a batch nothing of has been completed yet). */
export function noDispositionCounts(): Record<CallDisposition, number> {
  return Object.fromEntries(CALL_DISPOSITIONS.map((disposition) => [disposition, 0])) as Record<CallDisposition, number>;
}

export const MAX_NOTES_LENGTH = 2_000;
export const MAX_OUTCOME_DATA_BYTES = 16 * 1024;
/** Nesting of `data` (its bytes bound it too; this refuses a deep one before it is serialized). */
const MAX_DATA_DEPTH = 32;

/** Whether `value` nests no deeper than `max` levels (iteratively: a hostile value cannot overflow the stack). */
function nestsAtMost(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return false;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return true;
}

const DATA_ERROR = `must be a JSON object of at most ${MAX_OUTCOME_DATA_BYTES} bytes (16 KB) serialized`;

export const outcomeDataSchema = z.preprocess(
  absentToUndefined,
  z
    .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), { error: 'must be a JSON object' })
    .refine((v) => nestsAtMost(v, MAX_DATA_DEPTH), { error: `must nest at most ${MAX_DATA_DEPTH} levels`, abort: true })
    .refine((v) => Buffer.byteLength(JSON.stringify(v), 'utf8') <= MAX_OUTCOME_DATA_BYTES, { error: DATA_ERROR })
    .optional(),
);

/** The fields of `complete` beyond the lease: what the call came to. */
export const outcomeFields = {
  disposition: z
    .preprocess(absentToUndefined, z.enum(CALL_DISPOSITIONS, { error: `must be one of ${CALL_DISPOSITIONS.join(', ')}` }).optional())
    .describe(
      'What the call came to. opt_out puts the number on the suppression list (source opt_out); callback_requested with callbackAt places a follow-up call.',
    ),
  notes: z
    .preprocess(
      absentToUndefined,
      z
        .string({ error: 'must be a string' })
        .max(MAX_NOTES_LENGTH, `must be at most ${MAX_NOTES_LENGTH} characters`)
        .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
        .optional(),
    )
    .describe(`Free text for people (at most ${MAX_NOTES_LENGTH} characters).`),
  data: outcomeDataSchema.describe('A JSON object for programs, e.g. the booked slot (at most 16 KB serialized).'),
  callbackAt: z
    .preprocess(
      (v) => (v instanceof Date ? v.toISOString() : absentToUndefined(v)),
      instantInputSchema('must be an ISO 8601 instant, e.g. 2026-03-02T15:00:00Z').optional(),
    )
    .describe(
      "With disposition callback_requested: a follow-up call request (followUpOf) is placed, due at the first allowed instant at or after it; not in the past, before the request's notAfter.",
    ),
};
