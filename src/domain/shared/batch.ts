// Per-request batching (DataLoader) of the lists that are read per organization. A GraphQL operation
// that asks for `children { closures phoneNumbers insurances }` resolves each field once per child; the
// loaders turn those N calls into one statement per list, so that the statements of an operation do
// not grow with children × fields. REST answers one organization and gets a fresh batch per call.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import type { Bot, Closure, Insurance, PhoneNumber } from '../../generated/prisma/client.js';
import { type NodeTableRow, tablesOfIds } from './sql.js';

// a batch collects every load until the event loop turns (sibling resolvers arrive after different numbers of awaits)
const options = { batchScheduleFn: (dispatch: () => void) => setImmediate(dispatch) };

function groupBy<T extends { orgId: string }>(rows: T[], keys: readonly string[]): T[][] {
  const groups = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(row.orgId)?.push(row);
  return keys.map((k) => groups.get(k)!);
}

/** Reads of one request that run at once when it fans out (RequestBatch.inTurn). */
export const REQUEST_READ_SLOTS = 4;

/** One loader per list, each made on first use (most operations read none of them). */
export class RequestBatch {
  private loaders: Partial<Record<'closures' | 'phoneNumbers' | 'insurances' | 'bots', DataLoader<string, unknown[]>>> = {};

  private nodeLoader: DataLoader<string, NodeTableRow | null> | undefined;
  private attemptLogLoader: DataLoader<string, unknown> | undefined;
  private readonly slots: { active: number; waiting: (() => void)[] } = { active: 0, waiting: [] };

  constructor(private readonly db: Db) {}

  /** Which table holds each id, with its owner and the owner's parent (global ids: every alias of node/nodes in one statement). */
  get nodeTables(): DataLoader<string, NodeTableRow | null> {
    return (this.nodeLoader ??= new DataLoader(async (ids) => {
      const found = new Map((await tablesOfIds(this.db, ids)).map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    }, options));
  }

  /**
   * Runs `work` when fewer than REQUEST_READ_SLOTS reads of this request are running: an operation that fans out
   * (100 aliases of `nodes`, each of 100 ids) takes its share of the database a few statements at a time, rather
   * than filling the queue every request waits in.
   */
  async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.slots.active >= REQUEST_READ_SLOTS) await new Promise<void>((resolve) => this.slots.waiting.push(resolve));
    else this.slots.active++;
    try {
      return await work();
    } finally {
      const next = this.slots.waiting.shift();
      if (next) next();
      else this.slots.active--;
    }
  }

  private loader<T extends { orgId: string }>(
    name: keyof RequestBatch['loaders'],
    load: (orgIds: string[]) => Promise<T[]>,
  ): DataLoader<string, T[]> {
    return (this.loaders[name] ??= new DataLoader<string, T[]>(
      async (orgIds) => groupBy(await load([...orgIds]), orgIds),
      options,
    ) as DataLoader<string, unknown[]>) as DataLoader<string, T[]>;
  }

  get closures(): DataLoader<string, Closure[]> {
    return this.loader('closures', (orgIds) =>
      this.db.closure.findMany({ where: { orgId: { in: orgIds } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    );
  }

  get phoneNumbers(): DataLoader<string, PhoneNumber[]> {
    return this.loader('phoneNumbers', (orgIds) =>
      this.db.phoneNumber.findMany({ where: { orgId: { in: orgIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    );
  }

  get insurances(): DataLoader<string, Insurance[]> {
    return this.loader('insurances', (orgIds) =>
      this.db.insurance.findMany({ where: { orgId: { in: orgIds } }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    );
  }

  get bots(): DataLoader<string, Bot[]> {
    return this.loader('bots', (orgIds) =>
      this.db.bot.findMany({ where: { orgId: { in: orgIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    );
  }

  /** The attempt logs of webhook deliveries already read (and checked) by id: a page's items ask for theirs in one statement. */
  get webhookAttemptLogs(): DataLoader<string, unknown> {
    return (this.attemptLogLoader ??= new DataLoader(async (ids) => {
      const rows = await this.db.webhookDelivery.findMany({ where: { id: { in: [...ids] } }, select: { id: true, attemptLog: true } });
      const byId = new Map(rows.map((row) => [row.id, row.attemptLog]));
      return ids.map((id) => byId.get(id) ?? []);
    }, options));
  }
}

export function createRequestBatch(db: Db): RequestBatch {
  return new RequestBatch(db);
}

/** The request's batch, or a fresh one (a single call batches with nobody). */
export function batchOf(deps: { db: Db; batch?: RequestBatch }): RequestBatch {
  return deps.batch ?? createRequestBatch(deps.db);
}
