// The demo's schedule for the Downtown clinic, added by `npm start` on a fresh embedded database (never by
// `npm run seed`, whose data set docs/decisions.md §6 fixes without office hours, special hours or closures): a
// realistic week, an annual closure, and — relative to now, so that they are always ahead — a timed
// closure and a special day, so that availability, the week view and the live subscription show OPEN,
// BREAK, CLOSED and CLOSURE. Written through the domain functions, as the account's demo key: the event
// log records them like any other write.
import { DateTime } from 'luxon';
import { SCOPES, type Actor } from '../domain/shared/access.js';
import { createClosure } from '../domain/schedule/closures.js';
import type { ScheduleDeps } from '../domain/schedule/deps.js';
import { setWeeklyHours } from '../domain/schedule/officeHours.js';
import { createSpecialHours } from '../domain/schedule/specialHours.js';
import type { DemoData } from './demoData.js';

export interface DemoSchedule {
  /** The timed closure: UTC instants. */
  timedClosure: { id: string; startAt: string; endAt: string };
  annualClosure: { id: string; month: number; day: number };
  /** The special day: the clinic's local date. */
  specialHours: { id: string; date: string };
}

const LUNCH = { start: '12:00', end: '13:00', reason: 'Lunch', greeting: 'We are at lunch until 1 pm; please hold or call back.' };

/** The clinic's week, the same every demo: Monday-Friday 08:00-17:00 with lunch, Saturday 09:00-12:00, Sunday closed. */
export const DEMO_WEEK = [
  ...(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const).map((dayOfWeek) => ({
    dayOfWeek,
    isClosed: false,
    open: '08:00',
    close: '17:00',
    breaks: [LUNCH],
  })),
  { dayOfWeek: 'SATURDAY' as const, isClosed: false, open: '09:00', close: '12:00', breaks: [] },
  { dayOfWeek: 'SUNDAY' as const, isClosed: true, breaks: [] },
];

export async function createDemoSchedule(deps: ScheduleDeps, demo: DemoData, now = deps.clock()): Promise<DemoSchedule> {
  const { account, clinic } = demo.organizations;
  const key = await deps.db.apiKey.findFirstOrThrow({ where: { orgId: account.id }, select: { id: true, name: true } });
  const actor: Actor = {
    orgId: account.id,
    ownerIsAccount: true,
    scopes: new Set(SCOPES),
    full: true,
    credential: { kind: 'apiKey', id: key.id, name: key.name },
  };
  await setWeeklyHours(deps, actor, clinic.id, { officeHours: DEMO_WEEK });

  const annual = await createClosure(deps, actor, clinic.id, {
    description: 'Independence Day',
    annualDate: { month: 7, day: 4 },
    chatGreeting: 'We are closed for Independence Day and reply on the next working day.',
    phoneGreeting: 'We are closed today for Independence Day. For an emergency, please call 911.',
  });

  // the next weekday from tomorrow on (local), 14:00-16:00: a staff training afternoon
  const today = DateTime.fromJSDate(now, { zone: clinic.timezone }).startOf('day');
  let training = today.plus({ days: 1 });
  while (training.weekday > 5) training = training.plus({ days: 1 });
  const startAt = training.set({ hour: 14 }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:00'Z'");
  const endAt = training.set({ hour: 16 }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:00'Z'");
  const timed = await createClosure(deps, actor, clinic.id, {
    description: 'Staff training',
    startAt,
    endAt,
    chatGreeting: null,
    phoneGreeting: 'Our team is in training this afternoon; we are back at 4 pm.',
  });

  // the Saturday after next opens for a long flu-shot morning instead of 09:00-12:00
  let special = today.plus({ days: 8 });
  while (special.weekday !== 6) special = special.plus({ days: 1 });
  const date = special.toFormat('yyyy-MM-dd');
  const day = await createSpecialHours(deps, actor, clinic.id, {
    date,
    description: 'Flu-shot Saturday: extended hours',
    isClosed: false,
    open: '08:00',
    close: '15:00',
    breaks: [{ start: '11:30', end: '12:00', reason: 'Restock', greeting: 'We are restocking vaccines; back at noon.' }],
  });

  return {
    timedClosure: { id: timed.id, startAt, endAt },
    annualClosure: { id: annual.id, month: 7, day: 4 },
    specialHours: { id: day.id, date },
  };
}

/**
 * GraphiQL's Variables for the demo: the clinic, and three local weeks from the Monday of the week holding `now` (as UTC
 * instants): they hold the demo's training afternoon (the next weekday) and its special Saturday (8 to 14 days ahead),
 * so that the Week example shows CLOSURE and the special day whatever the day the demo was made.
 */
export function demoGraphiqlVariables(clinicId: string, now: Date, timezone = 'America/New_York'): Record<string, string> {
  const monday = DateTime.fromJSDate(now, { zone: timezone }).startOf('week');
  const utc = (at: DateTime) => at.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
  return { id: clinicId, from: utc(monday), to: utc(monday.plus({ weeks: 3 })) };
}
