// Insurance acceptance settings (spec §2 "Insurance", §4): an organization's insurances, their whole
// lifecycle (create, list with filters, partial update, delete). One insurance per name and type in an
// organization: creates and type changes check it under the organization's lock, and a unique index holds it.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import type { Insurance } from '../../generated/prisma/client.js';
import { type Actor, canReach, requireScope } from '../shared/access.js';
import { Conflict, NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { withoutNulls } from '../shared/inputParams.js';
import { batchOf } from '../shared/batch.js';
import { changedFields, recordEvent } from '../events/log.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { viewSchema } from '../shared/viewSchema.js';
import { assertRoomFor, LIMIT_TRANSACTION_OPTIONS, lockOrganizationForLimit } from '../shared/listLimits.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { deleteInsuranceRow, lockInsurance } from './sql.js';

export const INSURANCE_TYPES = ['PPO', 'HMO', 'EPO', 'MEDICAID', 'MEDICARE'] as const;
export const INSURANCE_STATUSES = ['IN_NETWORK', 'ACCEPTED', 'CAN_FILE', 'CONDITIONAL', 'NOT_ACCEPTED'] as const;
/** The specification gives no limit for notes; 2000 characters keeps a record readable and bounded. */
export const INSURANCE_NOTES_MAX = 2000;
/** The specification gives no limit for a name either; 200 characters holds any plan's name. */
export const INSURANCE_NAME_MAX = 200;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;
const insuranceType = z.enum(INSURANCE_TYPES, { error: oneOf(INSURANCE_TYPES) });
const insuranceStatus = z.enum(INSURANCE_STATUSES, { error: oneOf(INSURANCE_STATUSES) });
const notes = z
  .string({ error: 'must be a string' })
  .max(INSURANCE_NOTES_MAX, { error: `must be at most ${INSURANCE_NOTES_MAX} characters` })
  .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });

/**
 * Body of POST /v1/organizations/{orgId}/insurances and the GraphQL CreateInsuranceInput. The name is
 * trimmed (a name of spaces is empty); it is compared exactly, so "Aetna" and "AETNA" are two names.
 */
export const createInsuranceInput = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(INSURANCE_NAME_MAX, { error: `must be at most ${INSURANCE_NAME_MAX} characters` })
    .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE }),
  type: insuranceType,
  status: insuranceStatus,
  notes: notes.default(''),
});
export type CreateInsuranceInput = z.input<typeof createInsuranceInput>;

/** Query of GET /v1/organizations/{orgId}/insurances and the arguments of GraphQL `insurances`: each filter is one value. */
export const listInsurancesInput = z.strictObject({
  type: insuranceType.optional().describe('Only insurances of this plan type.'),
  status: insuranceStatus.optional().describe('Only insurances with this acceptance status.'),
});

/**
 * Body of PATCH /v1/organizations/{orgId}/insurances/{insuranceId} and the GraphQL UpdateInsuranceInput.
 * Only provided fields change; `notes: ""` clears the notes. An update that names no field is a 400
 * ("nothing to update"): it is almost always a client mistake (a misnamed or dropped field).
 */
export const updateInsuranceInput = z
  .strictObject({
    type: insuranceType.optional(),
    status: insuranceStatus.optional(),
    notes: notes.optional(),
  })
  .refine((input) => Object.values(input).some((v) => v !== undefined), {
    error: 'nothing to update: send at least one of type, status, notes',
  });
export type UpdateInsuranceInput = z.infer<typeof updateInsuranceInput>;

const instant = z.iso.datetime().describe('UTC instant, ISO 8601');

/** The insurance record as answered (documentation of the response; see InsuranceView). */
export const insuranceSchema = viewSchema<InsuranceView>()(
  z
    .object({
      id: z.uuid(),
      orgId: z.uuid(),
      name: z.string(),
      type: z.enum(INSURANCE_TYPES),
      status: z.enum(INSURANCE_STATUSES),
      notes: z.string(),
      createdAt: instant,
      updatedAt: instant,
    })
    .meta({ id: 'Insurance' }),
);
export const insuranceListResponse = viewSchema<{ insurances: InsuranceView[] }>()(
  z.object({ insurances: z.array(insuranceSchema).describe('By name.') }),
);
export const deletedInsuranceResponse = viewSchema<{ id: string; deleted: true }>()(z.object({ id: z.uuid(), deleted: z.literal(true) }));

export interface InsuranceView {
  id: string;
  orgId: string;
  name: string;
  type: (typeof INSURANCE_TYPES)[number];
  status: (typeof INSURANCE_STATUSES)[number];
  notes: string;
  createdAt: string;
  updatedAt: string;
}

export function insuranceView(row: Insurance): InsuranceView {
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    type: row.type,
    status: row.status,
    notes: row.notes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The organization's insurances by name, those of one type and/or status when filtered (query strings as
 * sent, or GraphQL arguments; null is no filter). Scope insurances:read.
 */
export async function listInsurances(deps: DomainDeps, actor: Actor, orgId: string, filters: unknown = {}): Promise<InsuranceView[]> {
  requireScope(actor, 'insurances:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const { type, status } = parseInput(listInsurancesInput, withoutNulls(filters));
  const rows = await batchOf(deps).insurances.load(org.id); // by name, ties by id; at most LIST_LIMITS.insurances
  return rows
    .filter((row) => (type === undefined || row.type === type) && (status === undefined || row.status === status))
    .map(insuranceView);
}

/** One insurance within the caller's reach, by its id alone (GraphQL `node`). Scope insurances:read. */
export async function getInsurance(deps: DomainDeps, actor: Actor, insuranceId: string): Promise<InsuranceView> {
  requireScope(actor, 'insurances:read');
  const id = uuidParam('insuranceId', insuranceId);
  const row = await deps.db.insurance.findUnique({ where: { id } });
  if (!row || !(await canReach(deps, actor, row.orgId))) throw new NotFound('Insurance');
  return insuranceView(row);
}

/**
 * Adds an insurance to the organization. 409 when it already has one of that name and type, or has
 * reached its limit; both are counted under the organization's lock. Scope insurances:write.
 */
export async function createInsurance(deps: DomainDeps, actor: Actor, orgId: string, input: unknown): Promise<InsuranceView> {
  requireScope(actor, 'insurances:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const data = parseInput(createInsuranceInput, input ?? {});
  return deps.db.$transaction(async (tx) => {
    await lockOrganizationForLimit(tx, org.id);
    assertRoomFor('insurances', await tx.insurance.count({ where: { orgId: org.id } }));
    await assertNameFree(tx, org.id, data.name, data.type);
    const view = insuranceView(await tx.insurance.create({ data: { orgId: org.id, ...data } }));
    await recordEvent(tx, deps, actor, {
      type: 'insurance.created',
      orgId: org.id,
      subject: { type: 'insurance', id: view.id },
      data: view,
    });
    return view;
  }, LIMIT_TRANSACTION_OPTIONS);
}

/** Deletes one insurance of the organization (another organization's is a 404 here). Scope insurances:write. */
export async function deleteInsurance(
  deps: DomainDeps,
  actor: Actor,
  orgId: string,
  insuranceId: string,
): Promise<{ id: string; deleted: true }> {
  requireScope(actor, 'insurances:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('insuranceId', insuranceId);
  await deps.db.$transaction(async (tx) => {
    // one statement that answers what it deleted (the event's data: the insurance as it was)
    const deleted = await deleteInsuranceRow(tx, org.id, id);
    if (deleted.length === 0) throw new NotFound('Insurance');
    await recordEvent(tx, deps, actor, {
      type: 'insurance.deleted',
      orgId: org.id,
      subject: { type: 'insurance', id },
      data: insuranceView(deleted[0]!),
    });
  });
  return { id, deleted: true };
}

/** 409 when the organization already has an insurance of this name and type (other than `except`). */
async function assertNameFree(tx: Prisma.TransactionClient, orgId: string, name: string, type: InsuranceView['type'], except?: string) {
  const clash = await tx.insurance.findFirst({
    where: { orgId, name, type, ...(except ? { id: { not: except } } : {}) },
    select: { id: true },
  });
  if (clash)
    throw new Conflict(`The organization already has an insurance named "${name}" of type ${type} (${clash.id}); change that one instead`);
}

/**
 * Updates the provided fields of one insurance of the organization. An insurance of another
 * organization (even one within reach) is a 404 under this orgId. Scope insurances:write.
 */
export async function updateInsurance(
  deps: DomainDeps,
  actor: Actor,
  orgId: string,
  insuranceId: string,
  input: unknown,
): Promise<InsuranceView> {
  const { db } = deps;
  requireScope(actor, 'insurances:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const id = uuidParam('insuranceId', insuranceId);
  const changes = parseInput(updateInsuranceInput, input ?? {});
  return db.$transaction(async (tx) => {
    // a new type may meet another insurance of the same name: checked under the lock creates take
    if (changes.type !== undefined) await lockOrganizationForLimit(tx, org.id);
    // locked and read first (the event records the values it replaces); only a row of this organization
    const locked = await lockInsurance(tx, org.id, id);
    if (locked.length === 0) throw new NotFound('Insurance');
    if (changes.type !== undefined && changes.type !== locked[0]!.type) await assertNameFree(tx, org.id, locked[0]!.name, changes.type, id);
    const row = await tx.insurance.update({ where: { id, orgId: org.id }, data: changes });
    const view = insuranceView(row);
    const previous = changedFields(insuranceView(locked[0]!), view);
    if (previous)
      await recordEvent(tx, deps, actor, {
        type: 'insurance.updated',
        orgId: org.id,
        subject: { type: 'insurance', id },
        data: view,
        previous,
      });
    return view;
  });
}
