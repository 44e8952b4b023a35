// What a domain function needs besides the actor and its input: the database, the in-memory read
// model the hot path is served from, the change feed every write reports to, and the time. AppDeps
// (src/deps.ts) is a superset, so a surface hands its own deps over as they are.
import type { ChangePublisher } from '../changes/change.js';
import type { Db } from '../db/client.js';
import type { ReadModel } from '../readmodel/readModel.js';
import type { RequestBatch } from './batch.js';

export interface DomainDeps {
  db: Db;
  /** The time; tests replace it to move through windows and across daylight-saving changes. */
  clock: () => Date;
  /** Organizations, credentials and compiled schedules, cached; reads of the hot path go through it. */
  readModel: ReadModel;
  /** Every committed write reports what it changed here (cache invalidation, live subscriptions). */
  changes: ChangePublisher;
  /**
   * Per-request batching of per-organization lists (GraphQL nested fields ask for the closures of many
   * organizations at once); without it each call loads its own.
   */
  batch?: RequestBatch;
}
