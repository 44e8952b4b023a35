// Archiving an organization and bringing it back (issue 38 §1, docs/decisions.md §19). An archived organization
// keeps its data (under the retention rules) and stays readable by id; its calls stop (placing one is a 409, its
// queued ones are not handed out) and it leaves its account's lists and counts unless they are asked for archived
// ones. A location is its account's to archive; an account (or a stand-alone organization) its own.
//
// Locks, so that no active location is ever left under an archived account: archiving takes the organization's
// row FOR UPDATE and, for an account, counts its active locations under it; creating a location and bringing one
// back take the account's row FOR SHARE and look at its archivedAt, so each waits for the other and then sees
// what it decided.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import { Conflict, Forbidden, NotFound, parseInput } from '../shared/errors.js';
import type { OrganizationRecord } from '../shared/readModel.js';
import { recordEvent } from '../events/log.js';
import { loadReachableOrganization, type OrganizationView, organizationView } from './organizations.js';
import { activeChildCount, lockArchiveState, shareLockArchivedAt } from './sql.js';

/** Archive and unarchive take no body; a body, if sent, must be empty. */
export const archiveInput = z.strictObject({});

/**
 * Archives (`archive` true) or brings back an organization within reach; doing what is already done changes nothing
 * and writes no event. Scope organizations:write. Events organization.archived and organization.unarchived.
 */
export async function setArchived(
  deps: DomainDeps,
  actor: Actor,
  orgId: string,
  archive: boolean,
  input?: unknown,
): Promise<{ view: OrganizationView; record: OrganizationRecord }> {
  requireScope(actor, 'organizations:write');
  parseInput(archiveInput, input ?? {});
  const org = await loadReachableOrganization(deps, actor, orgId);
  // a location's own credential would switch itself off with no way back: it is its account's to do
  if (org.parentId !== null && actor.orgId === org.id)
    throw new Forbidden(`Only its account ${archive ? 'archives' : 'unarchives'} a location`);
  const now = deps.clock();
  const changed = await deps.db.$transaction(async (tx) => {
    const [state] = await lockArchiveState(tx, org.id);
    if (!state) throw new NotFound('Organization');
    if ((state.archivedAt !== null) === archive) return null;
    if (archive && state.isAccount) {
      const [{ active }] = (await activeChildCount(tx, org.id)) as [{ active: number }];
      if (active > 0) throw new Conflict(`Account ${org.id} has ${active} active location${active === 1 ? '' : 's'}; archive them first`);
    }
    if (!archive && state.parentId !== null) {
      const [parent] = await shareLockArchivedAt(tx, state.parentId);
      if (parent?.archivedAt) throw new Conflict(`The account of ${org.id} is archived; unarchive its account first`);
    }
    const archivedAt = archive ? now : null;
    const row = await tx.organization.update({ where: { id: org.id }, data: { archivedAt, updatedAt: now } });
    const record: OrganizationRecord = { ...org, archivedAt: row.archivedAt, updatedAt: row.updatedAt };
    await recordEvent(tx, deps, actor, {
      type: archive ? 'organization.archived' : 'organization.unarchived',
      orgId: org.id,
      subject: { type: 'organization', id: org.id },
      // the parent is named in the event (within reach: only the account acts on a location), so that every
      // instance hears that the account's counts changed too
      data: organizationView(actor, record, true),
      previous: { archivedAt: state.archivedAt?.toISOString() ?? null },
    });
    return record;
  });
  if (changed) {
    deps.changes.publish({ kind: 'organization', orgId: org.id });
    if (org.parentId) deps.changes.publish({ kind: 'organization', orgId: org.parentId });
  }
  const record = changed ?? (await loadReachableOrganization(deps, actor, org.id));
  return { view: organizationView(actor, record, await canReach(deps, actor, record.parentId)), record };
}

/** Refuses (409) a location made under an archived account; call it in the creating transaction (it share-locks the account). */
export async function assertAccountActive(tx: Parameters<typeof shareLockArchivedAt>[0], accountId: string): Promise<void> {
  const [account] = await shareLockArchivedAt(tx, accountId);
  if (account?.archivedAt) throw new Conflict(`Account ${accountId} is archived; unarchive it before adding locations`);
}
