// availability.changed: one event per real change of an organization's availability state, per medium
// (CHAT, PHONE, GHL, SMS), with the availability answer as `data` (and its `medium`), exactly once
// across instances. What was last said lives in one row per organization ("AvailabilityStatus": the
// state of each medium and when to look again). A look claims due rows with FOR UPDATE SKIP LOCKED
// and, in the same transaction, computes the answers from the committed schedule, records an event for
// each medium whose state differs from the row's, and writes the new states and the next look (the
// earliest nextChangeAt): two instances can never both record a change, and a look that dies records
// nothing and is done again. Looks are due when the clock reaches the next change, and at once after a
// write that can change the answer (events/log.ts AVAILABILITY_INPUTS, in the write's transaction). The job queue
// runs them with its own work (jobs/queue.ts alsoRun), on the app's clock.
import type { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db/client.js';
import { answerFromSchedule, MEDIUMS } from './availabilityQuery.js';
import type { ScheduleDeps } from './deps.js';
import { recordEvent } from '../events/log.js';
import type { OrgSchedule } from './records.js';
import { adoptAvailabilityStatuses, type AvailabilityStates, claimDueAvailabilityStatuses, saveAvailabilityStatus } from './sql.js';

/** Loads schedules from the database as committed, with the look's transaction (the read model's loader). */
export type ScheduleLoader = (tx: Prisma.TransactionClient, orgIds: readonly string[], from: Date) => Promise<Map<string, OrgSchedule>>;

export interface AvailabilityEventsDeps extends Pick<ScheduleDeps, 'clock'> {
  db: Db;
  loadSchedules: ScheduleLoader;
}

type States = AvailabilityStates;

/** With no change of state within nextChangeAt's lookahead, the next look (a change may come within it later). */
const LOOK_AGAIN_WITHOUT_CHANGE_MS = 24 * 3_600_000;
/** How often organizations without a row are given one (new ones are looked at first without an event). */
const ADOPT_EVERY_MS = 60_000;

export class AvailabilityEvents {
  private lastAdoptMs = -Infinity;

  constructor(
    private readonly deps: AvailabilityEventsDeps,
    private readonly options: { batchSize?: number } = {},
  ) {}

  /**
   * Gives every organization without a row one, due now, with no states: its first look records what it
   * answers without an event (an organization that existed before this service started recording).
   */
  async adopt(): Promise<number> {
    const at = this.deps.clock();
    this.lastAdoptMs = at.getTime();
    return adoptAvailabilityStatuses(this.deps.db, at);
  }

  /** Looks at the organizations that are due (one batch), recording their changes; answers how many it looked at. */
  async runDue(): Promise<number> {
    if (this.deps.clock().getTime() - this.lastAdoptMs >= ADOPT_EVERY_MS) await this.adopt();
    const now = this.deps.clock();
    const nowMs = now.getTime();
    return this.deps.db.$transaction(async (tx) => {
      const rows = await claimDueAvailabilityStatuses(tx, now, this.options.batchSize ?? 50);
      if (rows.length === 0) return 0;
      const schedules = await this.deps.loadSchedules(
        tx,
        rows.map((r) => r.orgId),
        now,
      );
      for (const row of rows) {
        const schedule = schedules.get(row.orgId);
        if (!schedule) continue; // the organization is gone, and its row with it
        const before = row.states;
        // the look fell due when the change happened (the write's commit, or the nextChangeAt crossed): the new state's start
        const since = new Date(row.dueAt).toISOString();
        const after: States = {};
        let nextMs = Infinity;
        for (const medium of MEDIUMS) {
          const { availability } = answerFromSchedule(schedule, nowMs, medium, null);
          // never looked at (an empty record, made by a write): it said what an organization without hours says
          const said = before === null ? availability.state : (before[medium]?.state ?? 'CLOSED');
          after[medium] = {
            state: availability.state,
            since: said === availability.state && before?.[medium] ? before[medium].since : since,
          };
          if (said !== availability.state) {
            await recordEvent(tx, this.deps, null, {
              type: 'availability.changed',
              orgId: row.orgId,
              subject: { type: 'organization', id: row.orgId },
              data: { medium, ...availability },
              previous: { state: said },
            });
          }
          if (availability.nextChangeAt) nextMs = Math.min(nextMs, Math.max(nowMs + 1, Date.parse(availability.nextChangeAt)));
        }
        if (nextMs === Infinity) nextMs = nowMs + LOOK_AGAIN_WITHOUT_CHANGE_MS;
        await saveAvailabilityStatus(tx, row.orgId, after, new Date(nextMs));
      }
      return rows.length;
    });
  }
}
