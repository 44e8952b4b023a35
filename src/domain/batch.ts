// Per-request batching (DataLoader) of the lists that are read per organization. A GraphQL operation
// that asks for `children { closures phoneNumbers insurances }` resolves each field once per child; the
// loaders turn those N calls into one statement per list, so that the statements of an operation do
// not grow with children × fields. REST answers one organization and gets a fresh batch per call.
import DataLoader from 'dataloader';
import type { Db } from '../db/client.js';
import type { Bot, Closure, Insurance, PhoneNumber } from '../generated/prisma/client.js';

// a batch collects every load until the event loop turns (sibling resolvers arrive after different numbers of awaits)
const options = { batchScheduleFn: (dispatch: () => void) => setImmediate(dispatch) };

function groupBy<T extends { orgId: string }>(rows: T[], keys: readonly string[]): T[][] {
  const groups = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(row.orgId)?.push(row);
  return keys.map((k) => groups.get(k)!);
}

export function createRequestBatch(db: Db) {
  return {
    closures: new DataLoader<string, Closure[]>(async (orgIds) =>
      groupBy(await db.closure.findMany({ where: { orgId: { in: [...orgIds] } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }), orgIds),
      options,
    ),
    phoneNumbers: new DataLoader<string, PhoneNumber[]>(async (orgIds) =>
      groupBy(await db.phoneNumber.findMany({ where: { orgId: { in: [...orgIds] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }), orgIds),
      options,
    ),
    insurances: new DataLoader<string, Insurance[]>(async (orgIds) =>
      groupBy(await db.insurance.findMany({ where: { orgId: { in: [...orgIds] } }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }), orgIds),
      options,
    ),
    bots: new DataLoader<string, Bot[]>(async (orgIds) =>
      groupBy(await db.bot.findMany({ where: { orgId: { in: [...orgIds] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }), orgIds),
      options,
    ),
  };
}

export type RequestBatch = ReturnType<typeof createRequestBatch>;

/** The request's batch, or a fresh one (a single call batches with nobody). */
export function batchOf(deps: { db: Db; batch?: RequestBatch }): RequestBatch {
  return deps.batch ?? createRequestBatch(deps.db);
}
