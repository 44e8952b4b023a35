// Organizations: reading one within reach, paging an account's children, renaming one or moving it to another
// time zone, and switching communications off and on (spec §3, docs/decisions.md §3). Organizations are read from the read model (one statement on a
// miss, none when warm); a record carries a child count and the first few child ids, never all of them,
// so that reading an account costs the same with 20 locations or 20,000.
import { z } from 'zod';
import { absentToUndefined, booleanParam } from '../shared/inputParams.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { KeyMaterial } from '../../crypto/derivedKeys.js';
import { CHILD_IDS_LIMIT, type OrganizationRecord } from '../shared/readModel.js';
import { type Actor, canReach, reaches, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { Forbidden, InvalidInput, NotFound, parseInput } from '../shared/errors.js';
import { recordEvent } from '../events/log.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../shared/storableText.js';
import { isValidTimezone } from '../shared/localTime.js';
import { uuidParam } from '../shared/ids.js';
import { openCursor, PAGE_CURSOR_MAX_LENGTH, sealCursor, pageCursorKey } from '../shared/pageCursors.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { childrenAfter as childRows, lockOrganization } from './sql.js';

export interface OrganizationView {
  id: string;
  name: string;
  timezone: string;
  isAccount: boolean;
  communicationsEnabled: boolean;
  /** When it was archived; null while active. */
  archivedAt: string | null;
  /** Null when there is no parent or the parent is outside the caller's reach. */
  parentId: string | null;
  /** Child organizations within the caller's reach. */
  childCount: number;
  /** Deprecated: the first CHILD_IDS_LIMIT of them, oldest first. */
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
      archivedAt: instantView()
        .nullable()
        .describe('When it was archived (its calls stop, it leaves lists unless asked for); null while active.'),
      parentId: z.uuid().nullable().describe("Null when there is no parent or the parent is outside the caller's reach."),
      childCount: z
        .int()
        .describe(
          "How many active (not archived) child organizations are within the caller's reach (0 for a location); list them with GET /v1/organizations/{id}/children.",
        ),
      childIds: z
        .array(z.uuid())
        .max(CHILD_IDS_LIMIT)
        .meta({ deprecated: true })
        .describe(
          `Deprecated: the first ${CHILD_IDS_LIMIT} child organizations within the caller's reach, oldest first (all of them when \`childCount\` ≤ ${CHILD_IDS_LIMIT}). Use \`childCount\` and GET /v1/organizations/{id}/children.`,
        ),
      createdAt: instantView(),
      updatedAt: instantView(),
    })
    .meta({ id: 'Organization' }),
);

/**
 * Whether the children of `org` are within the caller's reach: they are exactly when `org` is the
 * caller's own account organization (a child's children, if any, are not).
 */
export function childrenWithinReach(actor: Actor, org: Pick<OrganizationRecord, 'id'>): boolean {
  return actor.ownerIsAccount && org.id === actor.orgId;
}

export function organizationView(actor: Actor, org: OrganizationRecord, parentWithinReach: boolean): OrganizationView {
  const children = childrenWithinReach(actor, org);
  return {
    id: org.id,
    name: org.name,
    timezone: org.timezone,
    isAccount: org.isAccount,
    communicationsEnabled: org.communicationsEnabled,
    archivedAt: org.archivedAt?.toISOString() ?? null,
    parentId: parentWithinReach ? org.parentId : null,
    childCount: children ? org.childCount : 0,
    childIds: children ? org.firstChildIds : [],
    createdAt: org.createdAt.toISOString(),
    updatedAt: org.updatedAt.toISOString(),
  };
}

/** Loads an organization within the caller's reach, or throws NotFound. No scope check: callers do that. */
export async function loadReachableOrganization(deps: DomainDeps, actor: Actor, orgId: string): Promise<OrganizationRecord> {
  const id = uuidParam('orgId', orgId);
  // a location's credential reaches its own organization only: nothing to load for any other id
  if (id !== actor.orgId && !actor.ownerIsAccount) throw new NotFound('Organization');
  const org = await deps.readModel.organization(id);
  if (!reaches(actor, org)) throw new NotFound('Organization');
  return org!;
}

/** Organizations by id that are within the caller's reach, in the order asked; others are left out. */
export async function reachableOrganizations(deps: DomainDeps, actor: Actor, ids: readonly string[]): Promise<OrganizationRecord[]> {
  const records = await deps.readModel.organizations(ids);
  return records.filter((r): r is OrganizationRecord => reaches(actor, r));
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
  const org = await readOrganization(deps, actor, orgId);
  return organizationView(actor, org, await canReach(deps, actor, org.parentId));
}

// ── children, page by page ─────────────────────────────────────────────────────────────────────

export const CHILDREN_DEFAULT_LIMIT = 50;
export const CHILDREN_MAX_LIMIT = 200;

const pageSize = (error: string) =>
  z.preprocess(
    (value) => {
      const v = absentToUndefined(value);
      return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
    },
    z.number({ error }).int({ error, abort: true }).min(1, { error }).max(CHILDREN_MAX_LIMIT, { error }).default(CHILDREN_DEFAULT_LIMIT),
  );
const pageCursor = z.preprocess(
  absentToUndefined,
  z
    .string({ error: 'must be a cursor from a previous page' })
    .min(1, { error: 'must not be empty' })
    .max(PAGE_CURSOR_MAX_LENGTH, { error: `must be at most ${PAGE_CURSOR_MAX_LENGTH} characters` })
    .optional(),
);
const sizeError = `must be an integer between 1 and ${CHILDREN_MAX_LIMIT}`;

/** Query of GET /v1/organizations/{id}/children (unknown parameters are a 400). */
export const listChildrenInput = z.strictObject({
  limit: pageSize(sizeError).describe(`Page size (1..${CHILDREN_MAX_LIMIT}, default ${CHILDREN_DEFAULT_LIMIT}).`),
  cursor: pageCursor.describe('Continue after the page whose `pagination.nextCursor` this is (opaque; bound to the organization).'),
  includeArchived: booleanParam.describe('Archived locations too (default: active ones only).'),
});

/** The arguments of GraphQL `Organization.childrenConnection`. */
export const childrenConnectionInput = z.strictObject({ first: pageSize(sizeError), after: pageCursor, includeArchived: booleanParam });

export interface ChildrenPage {
  children: OrganizationView[];
  pagination: { limit: number; totalCount: number; nextCursor: string | null };
}

/** The answer of GET /v1/organizations/{id}/children. */
export const childrenPageSchema = viewSchema<ChildrenPage>()(
  z
    .object({
      children: z.array(organizationResponse).describe('Oldest first (creation time, ties by id).'),
      pagination: z.object({
        limit: z.int(),
        totalCount: z.int().describe("Child organizations within the caller's reach, over all pages (archived ones when asked for)."),
        nextCursor: z.string().nullable().describe('The `cursor` of the next page; null on the last page.'),
      }),
    })
    .meta({ id: 'OrganizationChildrenPage' }),
);

/** A Relay connection of child organizations (GraphQL `Organization.childrenConnection`). */
export interface ChildrenConnection {
  edges: { cursor: string; node: OrganizationRecord }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** What paging children needs besides the database: the signing key its cursors' MAC key derives from. */
export interface ChildrenDeps extends DomainDeps {
  tokens: { key: KeyMaterial };
}

interface ChildPosition {
  t: number;
  i: string;
}

function cursorFilters(parentId: string, includeArchived: boolean) {
  // a page of active children does not continue a list with archived ones, nor the other way round
  return includeArchived ? { list: 'organizationChildren', parentId, includeArchived } : { list: 'organizationChildren', parentId };
}

function openChildPosition(deps: ChildrenDeps, parentId: string, includeArchived: boolean, cursor: string, field: string): ChildPosition {
  const p = openCursor(pageCursorKey(deps.tokens.key), cursor, cursorFilters(parentId, includeArchived), field) as Partial<ChildPosition>;
  if (typeof p?.t !== 'number' || !Number.isFinite(p.t) || typeof p.i !== 'string' || !/^[0-9a-f-]{36}$/.test(p.i)) {
    throw InvalidInput.of(field, 'is not a cursor this service issued (altered or made up); start again without it');
  }
  return { t: p.t, i: p.i };
}

function sealChildPosition(deps: ChildrenDeps, parentId: string, includeArchived: boolean, child: OrganizationRecord): string {
  return sealCursor(
    pageCursorKey(deps.tokens.key),
    { t: child.createdAt.getTime(), i: child.id },
    cursorFilters(parentId, includeArchived),
  );
}

/**
 * Up to `take` children of `parentId` after `after`, oldest first: a keyset read of the index
 * (parentId, createdAt, id), as cheap deep in the list as at its start. Read straight from the
 * database (not through the read model, which a walk over every child would only churn).
 */
async function childrenAfter(
  deps: DomainDeps,
  parentId: string,
  after: ChildPosition | undefined,
  take: number,
  includeArchived: boolean,
): Promise<OrganizationRecord[]> {
  const rows = await childRows(deps.db, parentId, after, take, includeArchived);
  // a child's own children are outside every reach (only the caller's own account has children within
  // reach), so they are neither counted nor listed
  return rows.map((row) => ({ ...row, childCount: 0, archivedChildCount: 0, firstChildIds: [] }));
}

async function childrenPage(
  deps: ChildrenDeps,
  actor: Actor,
  orgId: string,
  page: { take: number; cursor: string | undefined; includeArchived: boolean },
  field: string,
) {
  requireScope(actor, 'organizations:read');
  const { take, cursor, includeArchived } = page;
  const org = await loadReachableOrganization(deps, actor, orgId);
  const after = cursor === undefined ? undefined : openChildPosition(deps, org.id, includeArchived, cursor, field);
  const within = childrenWithinReach(actor, org);
  const rows = within ? await childrenAfter(deps, org.id, after, take + 1, includeArchived) : [];
  const totalCount = within ? org.childCount + (includeArchived ? org.archivedChildCount : 0) : 0;
  return { org, after, rows, totalCount };
}

/** One page of an organization's children within the caller's reach, oldest first. Scope organizations:read. */
export async function listChildren(deps: ChildrenDeps, actor: Actor, orgId: string, input: unknown): Promise<ChildrenPage> {
  const query = parseInput(listChildrenInput, input ?? {});
  const page = { take: query.limit, cursor: query.cursor, includeArchived: query.includeArchived };
  const { org, rows, totalCount } = await childrenPage(deps, actor, orgId, page, 'cursor');
  const children = rows.slice(0, query.limit);
  return {
    children: children.map((child) => organizationView(actor, child, true)),
    pagination: {
      limit: query.limit,
      totalCount,
      nextCursor: rows.length > query.limit ? sealChildPosition(deps, org.id, query.includeArchived, children.at(-1)!) : null,
    },
  };
}

/** The same pages as a Relay connection (GraphQL). Scope organizations:read. */
export async function childrenConnection(deps: ChildrenDeps, actor: Actor, orgId: string, input: unknown): Promise<ChildrenConnection> {
  const query = parseInput(childrenConnectionInput, input ?? {});
  const page = { take: query.first, cursor: query.after, includeArchived: query.includeArchived };
  const { org, after, rows, totalCount } = await childrenPage(deps, actor, orgId, page, 'after');
  const edges = rows.slice(0, query.first).map((node) => ({ cursor: sealChildPosition(deps, org.id, query.includeArchived, node), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > query.first,
      hasPreviousPage: after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
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
export async function setCommunications(
  deps: DomainDeps,
  actor: Actor,
  orgId: string,
  enabled: boolean,
  input?: unknown,
): Promise<CommunicationsChange> {
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
        data: organizationView(
          actor,
          { ...org, communicationsEnabled: enabled, updatedAt: deps.clock() },
          await canReach(deps, actor, org.parentId),
        ),
        previous: { communicationsEnabled: !enabled },
      });
    }
    return answer;
  });
  if (answer.changed) deps.changes.publish({ kind: 'organization', orgId: org.id });
  return answer;
}

/**
 * `canReach` inside a transaction: the organization's parent is read with the transaction's own connection
 * (on the embedded database a read through the read model would wait for the connection the transaction holds).
 */
export async function reachableInTransaction(tx: Prisma.TransactionClient, actor: Actor, orgId: string): Promise<boolean> {
  if (orgId === actor.orgId) return true;
  if (!actor.ownerIsAccount) return false;
  const org = await tx.organization.findUnique({ where: { id: orgId }, select: { id: true, parentId: true } });
  return reaches(actor, org);
}

export const ORGANIZATION_NAME_MAX = 200;

/**
 * Body of PATCH /v1/organizations/{orgId} and the GraphQL UpdateOrganizationInput: a new name (trimmed, 1..200
 * characters) and/or an IANA time zone. A body naming neither is a 400.
 */
export const updateOrganizationInput = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(ORGANIZATION_NAME_MAX, { error: `must be at most ${ORGANIZATION_NAME_MAX} characters` })
      .refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE })
      .optional(),
    timezone: z
      .string({ error: 'must be an IANA time zone, e.g. America/New_York' })
      .max(64, { error: 'must be an IANA time zone, e.g. America/New_York' })
      .refine(isValidTimezone, {
        error: 'must be an IANA time zone, e.g. America/New_York',
      })
      .optional(),
  })
  .refine((input) => input.name !== undefined || input.timezone !== undefined, { error: 'nothing to update: send name or timezone' });

/**
 * Renames an organization or moves it to another time zone. A new zone changes what its hours mean: availability, live streams and the due
 * instants of calls timed by its hours are computed again, as after a change of its hours; the event keeps
 * the old zone. Scope organizations:write.
 */
export async function updateOrganization(
  deps: DomainDeps,
  actor: Actor,
  orgId: string,
  input: unknown,
): Promise<{ view: OrganizationView; record: OrganizationRecord }> {
  requireScope(actor, 'organizations:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const changes = parseInput(updateOrganizationInput, input ?? {});
  const parentWithinReach = await canReach(deps, actor, org.parentId);
  const result = await deps.db.$transaction(async (tx) => {
    const [locked] = await lockOrganization(tx, org.id);
    if (!locked) throw new NotFound('Organization');
    const current: OrganizationRecord = { ...org, ...locked };
    // a name or zone it already has changes nothing: no write, no event
    const data = Object.fromEntries(
      Object.entries(changes).filter(([field, value]) => value !== undefined && value !== locked[field as 'name']),
    );
    if (Object.keys(data).length === 0) return { record: current, changed: false };
    const updated = await tx.organization.update({ where: { id: org.id }, data, select: { name: true, timezone: true, updatedAt: true } });
    const record: OrganizationRecord = { ...current, ...updated };
    const view = organizationView(actor, record, parentWithinReach);
    await recordEvent(tx, deps, actor, {
      type: 'organization.updated',
      orgId: org.id,
      subject: { type: 'organization', id: org.id },
      data: view,
      previous: Object.fromEntries(Object.keys(data).map((field) => [field, locked[field as 'name']])),
    });
    return { record, changed: true };
  });
  // the account's record holds its children's ids, not their names: only this organization's record changed
  if (result.changed) deps.changes.publish({ kind: 'organization', orgId: org.id });
  return { view: organizationView(actor, result.record, parentWithinReach), record: result.record };
}
