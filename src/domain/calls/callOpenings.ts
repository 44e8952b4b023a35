// When an officeHoursOnly call may be dialed: the first instant, from a given one on, at which the
// organization's PHONE availability is OPEN. The availability engine answers each state with the
// instant it next changes (closures, special hours, breaks, daylight-saving changes included), so the
// next opening is found by walking those changes.
import type { Availability } from '../schedule/availability.js';
import { availabilityFromSchedule, loadSchedule } from '../schedule/availabilityQuery.js';
import type { ScheduleDeps } from '../schedule/deps.js';

/** Changes walked before giving up (a week of opens, breaks and closes is far fewer). */
const MAX_STEPS = 64;
/** When no opening is in sight (closed for the whole lookahead), look again this much later. */
const NO_OPENING_RETRY_MS = 24 * 3_600_000;

/** PHONE availability of an organization at an instant, with the greetings of the caller-id number (a number no longer the organization's answers the organization's). */
export async function phoneAvailabilityAt(
  deps: ScheduleDeps,
  orgId: string,
  phoneNumberId: string | null,
  atMs: number,
): Promise<Availability> {
  const schedule = await loadSchedule(deps, orgId, atMs);
  const known = phoneNumberId !== null && schedule.phoneGreetings.has(phoneNumberId.toLowerCase());
  return availabilityFromSchedule(schedule, atMs, 'PHONE', known ? phoneNumberId : null);
}

/** The first instant at or after `from` with PHONE availability OPEN (or a day later when none is in sight, to look again then). */
export async function nextPhoneOpening(deps: ScheduleDeps, orgId: string, phoneNumberId: string | null, from: Date): Promise<Date> {
  let atMs = from.getTime();
  for (let step = 0; step < MAX_STEPS; step++) {
    const availability = await phoneAvailabilityAt(deps, orgId, phoneNumberId, atMs);
    if (availability.state === 'OPEN') return new Date(atMs);
    if (availability.nextChangeAt === null) break;
    const next = Date.parse(availability.nextChangeAt);
    if (!(next > atMs)) break;
    atMs = next;
  }
  return new Date(atMs + NO_OPENING_RETRY_MS);
}
