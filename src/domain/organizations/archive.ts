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
  const { record, changed } = await deps.db.$transaction(async (tx) => {
    const [state] = await lockArchiveState(tx, org.id);
    if (!state) throw new NotFound('Organization');
    // already so: answered as the locked row says (the read model may not have heard of it yet)
    if ((state.archivedAt !== null) === archive) return { record: { ...org, archivedAt: state.archivedAt }, changed: false };
    if (archive && state.isAccount) {
      const [{ active }] = (await activeChildCount(tx, org.id)) as [{ active: number }];
      if (active > 0) throw new Conflict(`Account ${org.id} has ${active} active location${active === 1 ? '' : 's'}; archive them first`);
    }
    if (!archive && state.parentId !== null)
      await assertAccountActive(tx, state.parentId, `The account of ${org.id} is archived; unarchive its account first`);
    const archivedAt = archive ? now : null;
    const row = await tx.organization.update({ where: { id: org.id }, data: { archivedAt, updatedAt: now } });
    const written: OrganizationRecord = { ...org, archivedAt: row.archivedAt, updatedAt: row.updatedAt };
    await recordEvent(tx, deps, actor, {
      type: archive ? 'organization.archived' : 'organization.unarchived',
      orgId: org.id,
      subject: { type: 'organization', id: org.id },
      // the parent is named in the event (within reach: only the account acts on a location), so that every
      // instance hears that the account's counts changed too
      data: organizationView(actor, written, true),
      previous: { archivedAt: state.archivedAt?.toISOString() ?? null },
    });
    return { record: written, changed: true };
  });
  if (changed) {
    deps.changes.publish({ kind: 'organization', orgId: org.id });
    if (org.parentId) deps.changes.publish({ kind: 'organization', orgId: org.parentId });
  }
  return { view: organizationView(actor, record, await canReach(deps, actor, record.parentId)), record };
}

/**
 * Refuses (409, with `refusal`) a location made or brought back under an archived account; call it in the writing
 * transaction (it share-locks the account).
 */
export async function assertAccountActive(
  tx: Parameters<typeof shareLockArchivedAt>[0],
  accountId: string,
  refusal = `Account ${accountId} is archived; unarchive it before adding locations`,
): Promise<void> {
  const [account] = await shareLockArchivedAt(tx, accountId);
  if (account?.archivedAt) throw new Conflict(refusal);
}
