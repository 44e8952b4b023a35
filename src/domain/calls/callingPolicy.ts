// The calling policy of an organization (issue 34): when a call may start in the callee's own zone
// (windows per weekday, blocked local dates), how many calls it may have in progress at once, and which
// purposes need recorded consent. An account's policy applies to its children that set none; with none
// anywhere the default applies to each location. Read by the create (dueAt, consent), the claim (windows,
// capacity) and the start (windows) of call requests, on both surfaces.
import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.js';
import { recordSettingsChange } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { parseInput } from '../shared/errors.js';
import { formatLocalTime, parseLocalTime } from '../shared/localTime.js';
import { viewSchema } from '../shared/viewSchema.js';
import { enqueueJob } from '../../jobs/queue.js';
import { type CallDay, type CompiledCallingPolicy, compileCallingPolicy, DAYS_OF_WEEK } from './callWindows.js';
import { type RetryPolicy, retryPolicyOf, retryPolicySchema, retryPolicyView } from './callAttempts.js';

export const CALL_PURPOSES = ['informational', 'marketing'] as const;
export type CallPurpose = (typeof CALL_PURPOSES)[number];

/** Durable work (jobs/queue.ts): re-evaluate the queued requests of an organization (and its locations) after its policy changed. */
export const REEVALUATE_JOB = 'calling_policy.reevaluate';

export const MAX_BLOCKED_DATES = 366;
export const MAX_WINDOWS = 70;
export const MAX_CONCURRENT_CALLS = 100_000;

/** The policy of an organization that has none and whose account has none (issue 34). */
export const DEFAULT_CALLING_POLICY: CallingPolicyFields = Object.freeze({
  windows: DAYS_OF_WEEK.map((dayOfWeek) => ({ dayOfWeek, start: '08:00', end: '21:00' })),
  blockedDates: [],
  maxConcurrentCalls: 10,
  requireConsentFor: ['marketing' as const],
  retry: null,
});

export interface CallWindowView {
  dayOfWeek: CallDay;
  /** `HH:mm` in the callee's zone. */
  start: string;
  /** `HH:mm` (24:00 for the end of the day), after start. */
  end: string;
}

export interface CallingPolicyFields {
  windows: CallWindowView[];
  blockedDates: string[];
  maxConcurrentCalls: number;
  requireConsentFor: CallPurpose[];
  /** The organization's default retry policy for its call requests (issue 35); null: one attempt each. */
  retry: RetryPolicy | null;
}

export interface CallingPolicyView extends CallingPolicyFields {
  orgId: string;
  /** The account whose policy this is, or null: the organization's own, or the default. */
  inheritedFrom: string | null;
  /** Whether no policy is set for the organization or its account (the default applies). */
  isDefault: boolean;
}

const START_ERROR = 'must be a time HH:mm between 00:00 and 23:59';
const END_ERROR = 'must be a time HH:mm between 00:01 and 24:00';

/** Minutes after local midnight of a window's end (`24:00` is 1440), or null. */
function endMinutes(value: string): number | null {
  return value === '24:00' ? 1440 : parseLocalTime(value);
}

const windowSchema = z.strictObject({
  dayOfWeek: z.enum(DAYS_OF_WEEK, { error: `must be one of ${DAYS_OF_WEEK.join(', ')}` }),
  start: z
    .string({ error: START_ERROR })
    .refine((v) => parseLocalTime(v) !== null, { error: START_ERROR, abort: true })
    .transform((v) => formatLocalTime(parseLocalTime(v)!)),
  end: z
    .string({ error: END_ERROR })
    .refine((v) => endMinutes(v) !== null && endMinutes(v)! > 0, { error: END_ERROR, abort: true })
    .transform((v) => (v === '24:00' ? v : formatLocalTime(parseLocalTime(v)!))),
});

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

export const callingPolicyInput = z
  .strictObject({
    windows: z
      .array(windowSchema, { error: 'must be an array of {dayOfWeek, start, end}' })
      .max(MAX_WINDOWS, `must have at most ${MAX_WINDOWS} windows`)
      .describe("Wall-clock windows in the callee's zone; a day without one has no calls."),
    blockedDates: z
      .preprocess(
        (v) => (v === null ? undefined : v),
        z
          .array(z.string({ error: 'must be a date YYYY-MM-DD' }).refine(isCalendarDate, 'must be a date YYYY-MM-DD'), {
            error: 'must be an array of dates YYYY-MM-DD',
          })
          .max(MAX_BLOCKED_DATES, `must have at most ${MAX_BLOCKED_DATES} dates`)
          .default([]),
      )
      .describe('Local dates of the callee without calls (at most 366; default none).'),
    maxConcurrentCalls: z
      .number({ error: `must be an integer between 1 and ${MAX_CONCURRENT_CALLS}` })
      .int({ error: `must be an integer between 1 and ${MAX_CONCURRENT_CALLS}` })
      .min(1, `must be an integer between 1 and ${MAX_CONCURRENT_CALLS}`)
      .max(MAX_CONCURRENT_CALLS, `must be an integer between 1 and ${MAX_CONCURRENT_CALLS}`)
      .describe('Calls in progress at once (for an account: over all its locations).'),
    requireConsentFor: z
      .preprocess(
        (v) => (v === null ? undefined : v),
        z
          .array(z.enum(CALL_PURPOSES, { error: `must be one of ${CALL_PURPOSES.join(', ')}` }), {
            error: 'must be an array of purposes',
          })
          .default(['marketing']),
      )
      .describe('Purposes that need `consent` on the call request (default ["marketing"]).'),
    retry: z
      .preprocess((v) => (v === null ? undefined : v), retryPolicySchema.optional())
      .describe('The default retry policy of the call requests that set none (default none: one attempt).'),
  })
  .superRefine((policy, ctx) => {
    const minutes = policy.windows.map((w) => ({ day: w.dayOfWeek, start: parseLocalTime(w.start)!, end: endMinutes(w.end)! }));
    minutes.forEach((w, i) => {
      if (w.end <= w.start) ctx.addIssue({ code: 'custom', path: ['windows', i, 'end'], message: 'must be after start' });
    });
    minutes.forEach((w, i) => {
      const j = minutes.findIndex((o, k) => k < i && o.day === w.day && o.start < w.end && w.start < o.end && o.end > o.start);
      if (w.end > w.start && j >= 0) ctx.addIssue({ code: 'custom', path: ['windows', i], message: `overlaps windows.${j} on ${w.day}` });
    });
  });

export const callingPolicyResponse = viewSchema<CallingPolicyView>()(
  z
    .object({
      orgId: z.uuid(),
      windows: z.array(z.object({ dayOfWeek: z.enum(DAYS_OF_WEEK), start: z.string(), end: z.string() })),
      blockedDates: z.array(z.string()),
      maxConcurrentCalls: z.int(),
      requireConsentFor: z.array(z.enum(CALL_PURPOSES)),
      retry: retryPolicyView.nullable().describe('The default retry policy of its call requests; null: one attempt each.'),
      inheritedFrom: z.uuid().nullable().describe("The account whose policy applies, or null (the organization's own, or the default)."),
      isDefault: z.boolean().describe('No policy is set for the organization or its account: the default applies.'),
    })
    .meta({ id: 'CallingPolicy' }),
);

interface PolicyRow {
  orgId: string;
  windows: Prisma.JsonValue;
  blockedDates: string[];
  maxConcurrentCalls: number;
  requireConsentFor: string[];
  retry: Prisma.JsonValue;
}

function fieldsOf(row: PolicyRow): CallingPolicyFields {
  return {
    windows: row.windows as unknown as CallWindowView[],
    blockedDates: row.blockedDates,
    maxConcurrentCalls: row.maxConcurrentCalls,
    requireConsentFor: row.requireConsentFor as CallPurpose[],
    retry: retryPolicyOf(row.retry),
  };
}

/** The policy that applies to an organization, with where it comes from. */
export interface EffectivePolicy {
  fields: CallingPolicyFields;
  /** Whose row it is: the organization's, its account's, or none (the default). */
  source: 'own' | 'account' | 'default';
  /** The account's own policy when the organization has one of its own too (it bounds the sum over the account). */
  accountPolicy: CallingPolicyFields | null;
}

type PolicyReader = Pick<Prisma.TransactionClient, 'callingPolicy'>;

/** The policies of an organization and its account, in one read. */
export async function effectivePolicy(db: PolicyReader, org: { id: string; parentId: string | null }): Promise<EffectivePolicy> {
  const ids = org.parentId ? [org.id, org.parentId] : [org.id];
  const rows = await db.callingPolicy.findMany({ where: { orgId: { in: ids } } });
  const own = rows.find((r) => r.orgId === org.id);
  const account = org.parentId ? rows.find((r) => r.orgId === org.parentId) : undefined;
  const accountPolicy = account ? fieldsOf(account) : null;
  if (own) return { fields: fieldsOf(own), source: 'own', accountPolicy };
  if (accountPolicy) return { fields: accountPolicy, source: 'account', accountPolicy };
  return { fields: DEFAULT_CALLING_POLICY, source: 'default', accountPolicy: null };
}

/** The windows and blocked dates of a policy, ready for callWindows.ts (memoized per policy object: compiled once per read). */
const compiled = new WeakMap<CallingPolicyFields, CompiledCallingPolicy>();
export function compiledPolicy(fields: CallingPolicyFields): CompiledCallingPolicy {
  let found = compiled.get(fields);
  if (!found) {
    found = compileCallingPolicy(
      fields.windows.map((w) => ({ dayOfWeek: w.dayOfWeek, start: parseLocalTime(w.start)!, end: endMinutes(w.end)! })),
      fields.blockedDates,
    );
    compiled.set(fields, found);
  }
  return found;
}

function policyView(orgId: string, org: { parentId: string | null }, effective: EffectivePolicy): CallingPolicyView {
  return {
    orgId,
    ...effective.fields,
    inheritedFrom: effective.source === 'account' ? org.parentId : null,
    isDefault: effective.source === 'default',
  };
}

/** GET …/calling-policy: the effective policy (scope organizations:read). */
export async function getCallingPolicy(deps: DomainDeps, actor: Actor, orgId: string): Promise<CallingPolicyView> {
  requireScope(actor, 'organizations:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  return policyView(org.id, org, await effectivePolicy(deps.db, org));
}

/** PUT …/calling-policy: sets the organization's own policy (scope organizations:write); event calling_policy.updated. */
export async function putCallingPolicy(deps: DomainDeps, actor: Actor, orgId: string, input: unknown): Promise<CallingPolicyView> {
  const data = parseInput(callingPolicyInput, input ?? {});
  requireScope(actor, 'organizations:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const fields: CallingPolicyFields = {
    windows: [...data.windows].sort(
      (a, b) => DAYS_OF_WEEK.indexOf(a.dayOfWeek) - DAYS_OF_WEEK.indexOf(b.dayOfWeek) || a.start.localeCompare(b.start),
    ),
    blockedDates: [...new Set(data.blockedDates)].sort(),
    maxConcurrentCalls: data.maxConcurrentCalls,
    requireConsentFor: CALL_PURPOSES.filter((p) => data.requireConsentFor.includes(p)),
    retry: data.retry ?? null,
  };
  const now = deps.clock();
  return deps.db.$transaction(async (tx) => {
    const before = policyView(org.id, org, await effectivePolicy(tx, org));
    const row = {
      ...fields,
      windows: fields.windows as unknown as Prisma.InputJsonValue,
      retry: fields.retry ? (fields.retry as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
      updatedAt: now,
    };
    await tx.callingPolicy.upsert({ where: { orgId: org.id }, create: { orgId: org.id, ...row }, update: row });
    const view = policyView(org.id, org, await effectivePolicy(tx, org));
    if (
      await recordSettingsChange(
        tx,
        deps,
        actor,
        { type: 'calling_policy.updated', subjectType: 'calling_policy', orgId: org.id },
        before,
        view,
      )
    ) {
      // the queued requests' dueAt follows the new policy: in bounded batches, kept across restarts (callDispatch.ts)
      await enqueueJob(tx, now, { kind: REEVALUATE_JOB, payload: { orgId: org.id, after: null }, runAt: now });
    }
    return view;
  });
}
