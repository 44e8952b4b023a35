// Insurance acceptance settings (spec §2 "Insurance", §4): listing an organization's insurances and
// a partial update of one of them.
import { z } from 'zod';
import type { DomainDeps } from '../shared/deps.js';
import type { Insurance } from '../../generated/prisma/client.js';
import { type Actor, requireScope } from '../shared/access.js';
import { NotFound, parseInput } from '../shared/errors.js';
import { uuidParam } from '../shared/ids.js';
import { batchOf } from '../shared/batch.js';
import { changedFields, recordEvent } from '../events/log.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { viewSchema } from '../shared/viewSchema.js';
import { lockInsurance } from './sql.js';

export const INSURANCE_TYPES = ['PPO', 'HMO', 'EPO', 'MEDICAID', 'MEDICARE'] as const;
export const INSURANCE_STATUSES = ['IN_NETWORK', 'ACCEPTED', 'CAN_FILE', 'CONDITIONAL', 'NOT_ACCEPTED'] as const;
/** The specification gives no limit for notes; 2000 characters keeps a record readable and bounded. */
export const INSURANCE_NOTES_MAX = 2000;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/**
 * Body of PATCH /v1/organizations/{orgId}/insurances/{insuranceId} and the GraphQL UpdateInsuranceInput.
 * Only provided fields change; `notes: ""` clears the notes. An update that names no field is a 400
 * ("nothing to update"): it is almost always a client mistake (a misnamed or dropped field).
 */
export const updateInsuranceInput = z
  .strictObject({
    type: z.enum(INSURANCE_TYPES, { error: oneOf(INSURANCE_TYPES) }).optional(),
    status: z.enum(INSURANCE_STATUSES, { error: oneOf(INSURANCE_STATUSES) }).optional(),
    notes: z
      .string({ error: 'must be a string' })
      .max(INSURANCE_NOTES_MAX, { error: `must be at most ${INSURANCE_NOTES_MAX} characters` })
      .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE })
      .optional(),
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

/** The organization's insurances by name. Scope insurances:read. */
export async function listInsurances(deps: DomainDeps, actor: Actor, orgId: string): Promise<InsuranceView[]> {
  requireScope(actor, 'insurances:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const rows = await batchOf(deps).insurances.load(org.id); // by name, ties by id
  return rows.map(insuranceView);
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
    // locked and read first (the event records the values it replaces); only a row of this organization
    const locked = await lockInsurance(tx, org.id, id);
    if (locked.length === 0) throw new NotFound('Insurance');
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
