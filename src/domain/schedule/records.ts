// What the read model holds for the schedule context: each organization's compiled schedule and the
// availability answers computed from it (readmodel/loaders.ts builds them, with this context's rules).
import type { Availability, CompiledSchedule, DaySchedule, Medium, PhoneGreetings, TemplateRule } from './availability.js';

/** Availability for one medium and phone number, without the instant's own fields, valid over [fromMs, untilMs). */
export interface AvailabilityAnswer {
  fromMs: number;
  untilMs: number;
  body: Omit<Availability, 'at' | 'localTime'>;
}

/**
 * Everything availability needs about one organization, compiled: its timezone, configured office
 * hours, the closures that can still apply, its templates and its phone numbers' greetings.
 */
export interface OrgSchedule {
  orgId: string;
  timezone: string;
  /** Configured days, breaks sorted by start (unconfigured days are closed). */
  officeHours: DaySchedule[];
  compiled: CompiledSchedule;
  /** Timed closures that ended before this instant were not loaded: the schedule answers for instants from here on. */
  validFromMs: number;
  templates: TemplateRule[];
  phoneGreetings: Map<string, PhoneGreetings>;
  /** Answers computed from this schedule, by `medium|phoneNumberId` (bounded by 4 × phone numbers + 4). */
  answers: Map<`${Medium}|${string}`, AvailabilityAnswer>;
}

/** The read the schedule context needs besides the organizations'. */
export interface ScheduleReads {
  schedule(orgId: string, fromMs: number): Promise<OrgSchedule | undefined>;
}
