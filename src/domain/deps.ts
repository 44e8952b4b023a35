// What a domain function needs besides the actor and its input: the database, the in-memory read
// model the hot path is served from, the change feed every write reports to, and the time. AppDeps
// (src/deps.ts) is a superset, so a surface hands its own deps over as they are.
import type { Db } from '../db/client.js';

export interface DomainDeps {
  db: Db;
  /** The time; tests replace it to move through windows and across daylight-saving changes. */
  clock: () => Date;
}
