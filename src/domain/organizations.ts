// Organizations: reading one within reach, and switching communications off and on (spec §3, CONTRACT §3).
// Organizations are read from the read model (one statement on a miss, none when warm).
import { z } from 'zod';
import type { OrganizationRecord } from '../readmodel/records.js';
import { type Actor, assertReach, canReach, requireScope } from './access.js';
import type { DomainDeps } from './deps.js';
import { Forbidden, NotFound, parseInput } from './errors.js';
import { recordEvent } from './events.js';
import { uuidParam } from './ids.js';
import { instantView, viewSchema } from './viewSchema.js';

export interface OrganizationView {
  id: string;
  name: string;
  timezone: string;
  isAccount: boolean;
  communicationsEnabled: boolean;
  /** Null when there is no parent or the parent is outside the caller's reach. */
  parentId: string | null;
  childIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** The organization as answered (documented in the OpenAPI document). */
export const organizationResponse = viewSchema<OrganizationView>()(
  z
    .object({
      id: z.uuid(),
      name: z.string(),
      timezone: z.string().describe('IANA time zone, e.g. America/New_York.'),
      isAccount: z.boolean().describe('An account organization may act on its child organizations.'),
      communicationsEnabled: z.boolean().describe('False while calls, chats and SMS are disabled.'),
      parentId: z.uuid().nullable().describe("Null when there is no parent or the parent is outside the caller's reach."),
      childIds: z.array(z.uuid()).describe("The child organizations within the caller's reach."),
      createdAt: instantView(),
      updatedAt: instantView(),
    })
    .meta({ id: 'Organization' }),
);

export function organizationView(actor: Actor, org: OrganizationRecord): OrganizationView {
  return {
    id: org.id,
    name: org.name,
    timezone: org.timezone,
    isAccount: org.isAccount,
    communicationsEnabled: org.communicationsEnabled,
    parentId: canReach(actor, org.parentId) ? org.parentId : null,
    childIds: org.childIds.filter((id) => canReach(actor, id)),
    createdAt: org.createdAt.toISOString(),
    updatedAt: org.updatedAt.toISOString(),
  };
}

/** Loads an organization within the caller's reach, or throws NotFound. No scope check: callers do that. */
export async function loadReachableOrganization(deps: DomainDeps, actor: Actor, orgId: string): Promise<OrganizationRecord> {
  const id = uuidParam('orgId', orgId);
  assertReach(actor, id);
  const org = await deps.readModel.organization(id);
  if (!org) throw new NotFound('Organization');
  return org;
}

/** Organizations by id that are within the caller's reach, in the order asked; others are left out. */
export async function reachableOrganizations(deps: DomainDeps, actor: Actor, ids: readonly string[]): Promise<OrganizationRecord[]> {
  const records = await deps.readModel.organizations(ids.filter((id) => canReach(actor, id)));
  return records.filter((r): r is OrganizationRecord => r !== undefined);
}

/**
 * The rule of reading an organization (scope organizations:read, within reach) on both surfaces: REST
 * answers its view (getOrganization), GraphQL resolves the fields it was asked for from the record (it
 * used to build REST's whole view, two dates formatted, only to throw it away).
 */
export async function readOrganization(deps: DomainDeps, actor: Actor, orgId: string): Promise<OrganizationRecord> {
  requireScope(actor, 'organizations:read');
  return loadReachableOrganization(deps, actor, orgId);
}

export async function getOrganization(deps: DomainDeps, actor: Actor, orgId: string): Promise<OrganizationView> {
  return organizationView(actor, await readOrganization(deps, actor, orgId));
}

export interface CommunicationsChange {
  status: 'enabled' | 'disabled';
  changed: boolean;
}

/** The answer of disable and enable. */
export const communicationsChangeResponse = viewSchema<CommunicationsChange>()(
  z
    .object({
      status: z.enum(['enabled', 'disabled']).describe('The state after the request.'),
      changed: z.boolean().describe('False when the organization was already in that state.'),
    })
    .meta({ id: 'CommunicationsChange' }),
);

/** Disable and enable take no body; a body, if sent, must be empty (unknown properties are a 400 on every write route). */
export const communicationsInput = z.strictObject({});

/**
 * Turns calls, chats and SMS off or on. The update is conditional on the current value so that
 * concurrent callers agree on who changed it. Account organizations cannot be disabled (403, unchanged).
 */
export async function setCommunications(deps: DomainDeps, actor: Actor, orgId: string, enabled: boolean, input?: unknown): Promise<CommunicationsChange> {
  requireScope(actor, 'organizations:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  parseInput(communicationsInput, input ?? {});
  if (!enabled && org.isAccount) throw new Forbidden('Account organizations cannot be disabled');
  const answer = await deps.db.$transaction(async (tx) => {
    const result = await tx.organization.updateMany({
      where: { id: org.id, communicationsEnabled: !enabled },
      data: { communicationsEnabled: enabled },
    });
    const answer: CommunicationsChange = { status: enabled ? 'enabled' : 'disabled', changed: result.count === 1 };
    // only the caller that changed the state records it (a repeat changes nothing)
    if (answer.changed) {
      await recordEvent(tx, deps, actor, {
        type: enabled ? 'organization.enabled' : 'organization.disabled',
        orgId: org.id,
        subject: { type: 'organization', id: org.id },
        data: organizationView(actor, { ...org, communicationsEnabled: enabled, updatedAt: deps.clock() }),
        previous: { communicationsEnabled: !enabled },
      });
    }
    return answer;
  });
  if (answer.changed) deps.changes.publish({ kind: 'organization', orgId: org.id });
  return answer;
}
