// Availability at an instant (docs/decisions.md §4), from the organization's compiled schedule in the read model
// (no statement when warm). An answer is remembered on the schedule for as long as it stays exactly
// right (until the answer itself changes: its state, closure, break or greeting, which can happen
// before its nextChangeAt): a voice agent asking on every call costs a map lookup and the formatting of
// the instant.
import { z } from 'zod';
import type { OrgSchedule } from './records.js';
import type { ScheduleDeps } from './deps.js';
import { type Actor, requireScope } from '../shared/access.js';
import {
  type Availability,
  availabilityAnswer,
  availabilityAt,
  type Medium,
  type PhoneGreetings,
  type TimelineInterval,
  timelineCost,
  timelineSteps,
} from './availability.js';
import { processTenantWork, runInSlices } from '../shared/tenantWork.js';
import { formatInstant, WindowOffsets } from '../shared/localTime.js';
import { viewSchema } from '../shared/viewSchema.js';
import { InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { uuidSchema } from '../shared/ids.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { instantArgSchema, isoInstantToDate } from '../shared/timeFormats.js';

export const MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const satisfies readonly Medium[];

export const mediumSchema = z.enum(MEDIUMS, {
  error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : `must be one of ${MEDIUMS.join(', ')}`),
});

/**
 * The query of GET …/availability (strings) and the arguments of Organization.availability.
 * `at` is an ISO-8601 instant; GraphQL's DateTime scalar hands over a Date, which is accepted as is.
 */
export const availabilityQuerySchema = z.object({
  at: instantArgSchema(() => 'must be an ISO-8601 instant with Z or an offset, such as 2026-03-09T13:30:00Z')
    .nullable()
    .optional(),
  medium: mediumSchema,
  phoneNumberId: uuidSchema.nullable().optional(),
});

export type AvailabilityQuery = z.input<typeof availabilityQuerySchema>;

/** How long an answer without a next change within the lookahead is reused (it is then looked at again). */
const NO_CHANGE_REUSE_MS = 60_000;

/** An instant argument: a Date (GraphQL), an ISO-8601 string (REST), or now. */
export function instantMs(deps: ScheduleDeps, at: string | Date | null | undefined): number {
  return (at == null ? deps.clock() : at instanceof Date ? at : isoInstantToDate(at)).getTime();
}

/** The compiled schedule of an organization the caller may reach, able to answer from `fromMs` on. */
export async function loadSchedule(deps: ScheduleDeps, orgId: string, fromMs: number): Promise<OrgSchedule> {
  const schedule = await deps.readModel.schedule(orgId, fromMs);
  if (!schedule) throw new NotFound('Organization');
  return schedule;
}

/** The greetings of one of the organization's phone numbers; a number of another organization is not found, like a missing one. */
export function phoneGreetingsOf(schedule: OrgSchedule, phoneNumberId: string | null | undefined): PhoneGreetings | null {
  if (phoneNumberId == null) return null;
  const greetings = schedule.phoneGreetings.get(phoneNumberId.toLowerCase());
  if (!greetings) throw new NotFound('Phone number');
  return greetings;
}

/** Availability at `atMs` and the instant until which it stays exactly right, reusing a remembered answer while it is. */
export function answerFromSchedule(
  schedule: OrgSchedule,
  atMs: number,
  medium: Medium,
  phoneNumberId: string | null | undefined,
): { availability: Availability; untilMs: number } {
  const phone = phoneGreetingsOf(schedule, phoneNumberId);
  const key = `${medium}|${phoneNumberId?.toLowerCase() ?? ''}` as const;
  let answer = schedule.answers.get(key);
  if (!answer || atMs < answer.fromMs || atMs >= answer.untilMs) {
    const { body, untilMs } = availabilityAnswer(schedule.compiled, atMs, medium, schedule.templates, phone, NO_CHANGE_REUSE_MS);
    answer = { fromMs: atMs, untilMs, body };
    schedule.answers.set(key, answer);
  }
  return { availability: availabilityAt(schedule.compiled, atMs, answer.body), untilMs: answer.untilMs };
}

/** Availability at `atMs` from a schedule, reusing a remembered answer while it is exactly right. */
export function availabilityFromSchedule(
  schedule: OrgSchedule,
  atMs: number,
  medium: Medium,
  phoneNumberId: string | null | undefined,
): Availability {
  return answerFromSchedule(schedule, atMs, medium, phoneNumberId).availability;
}

/** Availability of an organization at `query.at` (default: now). Scope office-hours:read. */
export async function getAvailability(deps: ScheduleDeps, actor: Actor, orgId: string, query: unknown): Promise<Availability> {
  const parsed = parseInput(availabilityQuerySchema, query ?? {});
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const atMs = instantMs(deps, parsed.at);
  return availabilityFromSchedule(await loadSchedule(deps, org.id, atMs), atMs, parsed.medium, parsed.phoneNumberId);
}

/** The longest range a timeline covers. */
export const TIMELINE_MAX_DAYS = 31;

/**
 * The most intervals one timeline answers. The schedule's own bounds keep the worst legal week's 31 days
 * (24 breaks every day, 100 timed closures) under it; a range that would hold more (a schedule stored
 * before those bounds) is refused before any interval is computed (docs/lists.md).
 */
export const TIMELINE_MAX_INTERVALS = 2_500;

/** Candidate instants a timeline evaluates between two looks at the clock (runInSlices). */
const TIMELINE_STEP = 64;

const instantArg = instantArgSchema((iss) =>
  iss.input === undefined || iss.input === null
    ? 'is required'
    : 'must be an ISO-8601 instant with Z or an offset, such as 2026-03-09T13:30:00Z',
);

/** The query of GET …/availability/timeline and the arguments of Organization.availabilityTimeline. */
export const availabilityTimelineQuerySchema = z
  .object({
    from: instantArg.describe('Start of the range (inclusive), an ISO-8601 instant.'),
    to: instantArg.describe(`End of the range (exclusive); at most ${TIMELINE_MAX_DAYS} days after from.`),
    medium: mediumSchema,
    phoneNumberId: uuidSchema.nullable().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.from === undefined || value.to === undefined) return; // already reported
    const from = toMs(value.from);
    const to = toMs(value.to);
    if (to <= from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    else if (to - from > TIMELINE_MAX_DAYS * 86_400_000)
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${TIMELINE_MAX_DAYS} days after from` });
  });

function toMs(value: string | Date): number {
  return (value instanceof Date ? value : isoInstantToDate(value)).getTime();
}

export interface AvailabilityTimeline {
  timezone: string;
  medium: Medium;
  from: string;
  to: string;
  intervals: TimelineInterval[];
}

/** The timeline as answered (documented in the OpenAPI document), checked against the type. */
export const availabilityTimelineResponse = viewSchema<AvailabilityTimeline>()(
  z
    .object({
      timezone: z.string().describe("The organization's IANA time zone."),
      medium: mediumSchema,
      from: z.iso.datetime().describe('Start of the range, UTC (inclusive).'),
      to: z.iso.datetime().describe('End of the range, UTC (exclusive).'),
      intervals: z
        .array(
          z
            .object({
              start: z.iso.datetime().describe('Start, UTC (inclusive).'),
              end: z.iso.datetime().describe('End, UTC (exclusive).'),
              state: z.enum(['CLOSURE', 'CLOSED', 'BREAK', 'OPEN']),
              closure: z.object({ id: z.uuid(), description: z.string() }).nullable().describe('The closure that applies, if any.'),
              specialHours: z
                .object({ id: z.uuid(), description: z.string() })
                .nullable()
                .describe('The special hours of the local date when they decide the answer.'),
              break: z
                .object({ start: z.string(), end: z.string(), reason: z.string() })
                .nullable()
                .describe('The break that applies (PHONE only), if any.'),
              greeting: z.string().nullable().describe('What the caller hears or reads; null when nothing is configured for the medium.'),
            })
            .meta({ id: 'AvailabilityInterval' }),
        )
        .describe('Consecutive intervals covering [from, to) without gaps; neighbours differ.'),
    })
    .meta({ id: 'AvailabilityTimeline' }),
);

/**
 * The intervals covering [from, to) (at most 31 days; instants are taken to the whole second), each
 * with the state, closure, break and greeting that hold at every instant in it. Scope office-hours:read.
 */
export async function getAvailabilityTimeline(
  deps: ScheduleDeps,
  actor: Actor,
  orgId: string,
  query: unknown,
): Promise<AvailabilityTimeline> {
  const parsed = parseInput(availabilityTimelineQuerySchema, query ?? {});
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const fromMs = Math.floor(toMs(parsed.from) / 1000) * 1000;
  const toMsValue = Math.floor(toMs(parsed.to) / 1000) * 1000;
  // the credential owner's timelines run a few at a time, in its own line (tenantWork.ts), in short slices
  return (deps.tenantWork ?? processTenantWork).run(
    actor.orgId,
    'timeline',
    async () => {
      const schedule = await loadSchedule(deps, org.id, fromMs);
      const phone = phoneGreetingsOf(schedule, parsed.phoneNumberId);
      const offsets = new WindowOffsets(schedule.compiled.zone, fromMs, toMsValue);
      const cost = timelineCost(schedule.compiled, parsed.medium, fromMs, toMsValue, offsets);
      if (cost > TIMELINE_MAX_INTERVALS) {
        throw InvalidInput.of(
          'to',
          `the range may hold up to ${cost} changes of availability, more than the ${TIMELINE_MAX_INTERVALS} intervals one timeline answers; ask for a shorter range`,
        );
      }
      const intervals = await runInSlices(
        timelineSteps(schedule.compiled, fromMs, toMsValue, parsed.medium, phone, TIMELINE_STEP, offsets),
      );
      return { timezone: schedule.timezone, medium: parsed.medium, from: formatInstant(fromMs), to: formatInstant(toMsValue), intervals };
    },
    deps.answerMade,
  );
}
