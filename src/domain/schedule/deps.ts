// What the schedule context's functions need: the domain's deps, with a read model that also answers
// compiled schedules (AppDeps's read model does; see shared/deps.ts).
import type { DomainDeps } from '../shared/deps.js';
import type { ReadModelReads } from '../shared/readModel.js';
import type { ScheduleReads } from './records.js';

export interface ScheduleDeps extends DomainDeps {
  readModel: ReadModelReads & ScheduleReads;
}
