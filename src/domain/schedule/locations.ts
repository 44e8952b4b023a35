// A new location of an account (issue 38 §1): an organization under the account, with its weekly hours when
// given, made in one transaction so that a location never exists without the hours it was created with. It
// lives in the schedule context because its hours are written here; the organization itself is the
// organizations context's record, answered by its view.
import { z } from 'zod';
import { type Actor, requireScope } from '../shared/access.js';
import { Conflict, parseInput } from '../shared/errors.js';
import { recordEvent } from '../events/log.js';
import type { OrganizationRecord } from '../shared/readModel.js';
import {
  loadReachableOrganization,
  organizationView,
  type OrganizationView,
  updateOrganizationInput,
} from '../organizations/organizations.js';
import { assertAccountActive } from '../organizations/archive.js';
import type { ScheduleDeps } from './deps.js';
import { setWeeklyHoursSchema, writeWeek } from './officeHours.js';

/**
 * Body of POST /v1/organizations/{accountId}/children and the GraphQL CreateLocationInput: a name, an IANA time
 * zone, and optionally the seven days of its week, as PUT /v1/organizations/{id}/office-hours takes them.
 */
export const createLocationInput = z
  .strictObject({
    name: updateOrganizationInput.shape.name.unwrap(),
    timezone: updateOrganizationInput.shape.timezone.unwrap(),
    // checked below by the week's own schema (the seven days, each once), named under officeHours as the PUT names them
    officeHours: z
      .unknown()
      .optional()
      .describe('The seven days, each once, as PUT /v1/organizations/{orgId}/office-hours takes them in `officeHours`.'),
  })
  .transform((value, ctx) => {
    if (value.officeHours === undefined) return { ...value, officeHours: undefined };
    const week = setWeeklyHoursSchema.safeParse({ officeHours: value.officeHours });
    if (week.success) return { ...value, officeHours: week.data.officeHours };
    for (const issue of week.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

/**
 * Creates a location under an account the caller reaches (its own account: an account's children are within
 * its reach, a location's are not). Under a location it is a 409: locations have no locations. Scope
 * organizations:write, and office-hours:write when the week is given. Events organization.created and, with
 * a week, office_hours.updated, in one transaction.
 */
export async function createLocation(
  deps: ScheduleDeps,
  actor: Actor,
  accountId: string,
  input: unknown,
): Promise<{ view: OrganizationView; record: OrganizationRecord }> {
  requireScope(actor, 'organizations:write');
  const parsed = parseInput(createLocationInput, input ?? {});
  if (parsed.officeHours !== undefined) requireScope(actor, 'office-hours:write');
  const account = await loadReachableOrganization(deps, actor, accountId);
  if (!account.isAccount) throw new Conflict('A location cannot have locations: only an account organization has children');
  const { record, withHours } = await deps.db.$transaction(
    async (tx) => {
      await assertAccountActive(tx, account.id);
      const created = await tx.organization.create({
        data: { name: parsed.name, timezone: parsed.timezone, isAccount: false, parentId: account.id },
      });
      const record: OrganizationRecord = { ...created, childCount: 0, archivedChildCount: 0, firstChildIds: [] };
      await recordEvent(tx, deps, actor, {
        type: 'organization.created',
        orgId: created.id,
        subject: { type: 'organization', id: created.id },
        data: organizationView(actor, record, true),
      });
      if (parsed.officeHours !== undefined) await writeWeek(tx, deps, actor, created.id, { officeHours: parsed.officeHours });
      return { record, withHours: parsed.officeHours !== undefined };
    },
    { maxWait: 15_000, timeout: 15_000 },
  );
  // the account's record counts its children
  deps.changes.publish({ kind: 'organization', orgId: account.id });
  if (withHours) deps.changes.publish({ kind: 'officeHours', orgId: record.id });
  return { view: organizationView(actor, record, true), record };
}
