import { canReach } from '../../../domain/shared/access.js';
import {
  type ChildrenConnection,
  childrenConnection,
  childrenWithinReach,
  loadReachableOrganization,
  readOrganization,
  updateOrganization,
  reachableOrganizations,
  setCommunications,
} from '../../../domain/organizations/organizations.js';
import { CHILD_IDS_LIMIT, type OrganizationRecord } from '../../../domain/shared/readModel.js';
import { setArchived } from '../../../domain/organizations/archive.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { PageInfoRef } from '../calls/conversation.js';

export const OrganizationRef = builder.prismaObject('Organization', {
  interfaces: [NodeRef],
  description: 'A business location (or an account organization grouping child locations), with a timezone.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Organization id (UUID).' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    timezone: t.exposeString('timezone', { description: 'IANA timezone in which office hours, breaks and annual closures are read.' }),
    isAccount: t.exposeBoolean('isAccount', { description: 'True for an account organization, which may act on its child organizations.' }),
    communicationsEnabled: t.exposeBoolean('communicationsEnabled', { description: 'False when calls, chats and SMS are disabled.' }),
    archivedAt: t.expose('archivedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was archived (its calls stop, it leaves lists unless asked for); null while active.',
    }),
  }),
});

const OrganizationEdgeRef = builder.objectRef<ChildrenConnection['edges'][number]>('OrganizationEdge').implement({
  description: 'An organization and the cursor of its position in the list.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque; pass as `after` to continue after this organization.' }),
    node: t.field({ type: OrganizationRef, description: 'The organization.', resolve: (edge) => edge.node }),
  }),
});

const OrganizationConnectionRef = builder.objectRef<ChildrenConnection>('OrganizationConnection').implement({
  description: 'Organizations, oldest first (ties by id), one page at a time by cursor (a Relay connection).',
  fields: (t) => ({
    edges: t.expose('edges', { type: [OrganizationEdgeRef], description: 'The organizations of this page with their cursors.' }),
    pageInfo: t.expose('pageInfo', { type: PageInfoRef, description: 'hasNextPage, endCursor and the rest.' }),
    totalCount: t.exposeInt('totalCount', { description: 'Organizations in the list, over all pages.' }),
  }),
});

// relations to other organizations are filtered by reach, so they are plain fields over the domain rule
builder.prismaObjectFields(OrganizationRef, (t) => ({
  parent: t.field({
    type: OrganizationRef,
    nullable: true,
    description: "The parent account organization; null when there is none or it is outside the caller's reach.",
    resolve: async (org, _args, ctx) => {
      const actor = await ctx.actor();
      if (!org.parentId || !(await canReach(ctx.deps, actor, org.parentId))) return null;
      return (await ctx.deps.readModel.organization(org.parentId)) ?? null;
    },
  }),
  children: t.field({
    type: [OrganizationRef],
    description: `The first ${CHILD_IDS_LIMIT} child organizations within the caller's reach, oldest first (all of them when childCount ≤ ${CHILD_IDS_LIMIT}; empty for a location).`,
    deprecationReason: `Holds at most ${CHILD_IDS_LIMIT}; use childrenConnection (and childCount).`,
    resolve: async (org, _args, ctx) => {
      const actor = await ctx.actor();
      // the children of every organization of the operation are read together (read model, one statement when cold)
      const record = await ctx.deps.readModel.organization(org.id);
      if (!record || !childrenWithinReach(actor, record)) return [];
      return reachableOrganizations(ctx.deps, actor, record.firstChildIds);
    },
  }),
  childCount: t.int({
    description: "How many child organizations are within the caller's reach (0 for a location).",
    resolve: async (org, _args, ctx) => {
      const actor = await ctx.actor();
      const record = await ctx.deps.readModel.organization(org.id);
      return record && childrenWithinReach(actor, record) ? record.childCount : 0;
    },
  }),
  childrenConnection: t.field({
    type: OrganizationConnectionRef,
    description:
      "Child organizations within the caller's reach, oldest first, page by page with cursors (Relay): `first` after the cursor `after`; a page deep in the list costs what the first costs. A cursor is opaque, tamper-checked and bound to this organization (BAD_USER_INPUT on `after` otherwise). Scope organizations:read.",
    args: {
      first: t.arg.int({ description: 'Page size (1..200, default 50).' }),
      after: t.arg.string({ description: 'Continue after this cursor (an edge cursor or pageInfo.endCursor of the previous page).' }),
      includeArchived: t.arg.boolean({ description: 'Archived locations too (default: active ones only).' }),
    },
    resolve: async (org, args, ctx) => childrenConnection(ctx.deps, await ctx.actor(), org.id, { ...args }),
  }),
}));

builder.queryFields((t) => ({
  organization: t.field({
    type: OrganizationRef,
    nullable: true,
    description: "An organization within the caller's reach (its own, or a child of an account organization). Scope organizations:read.",
    args: { id: t.arg.id({ required: true, description: 'Organization id.' }) },
    resolve: async (_root, args, ctx) => {
      // the same rule as GET /v1/organizations/{id}: the scope, then the reach
      return readOrganization(ctx.deps, await ctx.actor(), String(args.id));
    },
  }),
}));

const CommunicationsChange = builder.objectRef<{ status: string; changed: boolean }>('CommunicationsChange').implement({
  description: 'The result of disabling or enabling communications.',
  fields: (t) => ({
    status: t.exposeString('status', { description: '"disabled" or "enabled": the state after the operation.' }),
    changed: t.exposeBoolean('changed', { description: 'False when the organization was already in that state.' }),
  }),
});

/**
 * What a mutation that writes an organization answers. The organization is nullable inside it: an error in one of
 * its fields (a bad argument to availabilityTimeline, say) must null that organization, not the whole answer, or
 * a write that happened would read as one that was refused.
 */
export const OrganizationPayload = builder.objectRef<{ organization: OrganizationRecord }>('OrganizationPayload').implement({
  description: 'The organization as written.',
  fields: (t) => ({
    organization: t.field({
      type: OrganizationRef,
      nullable: true,
      description: 'The organization after the write (null only when one of its selected fields failed; the write happened).',
      resolve: (payload) => payload.organization,
    }),
  }),
});

const UpdateOrganizationInput = builder.inputType('UpdateOrganizationInput', {
  description: 'A new name and/or time zone; at least one. Checked by the same rules as PATCH /v1/organizations/{orgId}.',
  fields: (t) => ({
    name: t.string({ description: 'The name, trimmed; 1..200 characters.' }),
    timezone: t.string({ description: 'An IANA time zone, e.g. America/New_York.' }),
  }),
});

builder.mutationFields((t) => ({
  archiveOrganization: t.field({
    type: OrganizationPayload,
    description:
      "Archives a location (its account's to do: FORBIDDEN to its own credential) or an account without active locations (CONFLICT otherwise): its calls stop and it leaves lists unless asked for. Scope organizations:write.",
    args: { orgId: t.arg.id({ required: true, description: 'Organization id (UUID).' }) },
    resolve: async (_root, args, ctx) => ({
      organization: (await setArchived(ctx.deps, await ctx.actor(), String(args.orgId), true)).record,
    }),
  }),
  unarchiveOrganization: t.field({
    type: OrganizationPayload,
    description: 'Brings an archived organization back (CONFLICT for a location whose account is archived). Scope organizations:write.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id (UUID).' }) },
    resolve: async (_root, args, ctx) => ({
      organization: (await setArchived(ctx.deps, await ctx.actor(), String(args.orgId), false)).record,
    }),
  }),
  updateOrganization: t.field({
    type: OrganizationPayload,
    description:
      'Renames an organization or moves it to another time zone (its availability, live streams and hours-timed queued calls follow the new zone). Scope organizations:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id (UUID).' }),
      input: t.arg({ type: UpdateOrganizationInput, required: true, description: 'What to change.' }),
    },
    resolve: async (_root, args, ctx) => ({
      organization: (await updateOrganization(ctx.deps, await ctx.actor(), String(args.orgId), { ...args.input })).record,
    }),
  }),
  disableOrganization: t.field({
    type: CommunicationsChange,
    description:
      'Disables calls, chats and SMS for an organization. Account organizations cannot be disabled (FORBIDDEN). Scope organizations:write.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id (UUID).' }) },
    resolve: async (_root, args, ctx) => setCommunications(ctx.deps, await ctx.actor(), String(args.orgId), false),
  }),
  enableOrganization: t.field({
    type: CommunicationsChange,
    description: 'Re-enables calls, chats and SMS for an organization. Scope organizations:write.',
    args: { orgId: t.arg.id({ required: true, description: 'Organization id (UUID).' }) },
    resolve: async (_root, args, ctx) => setCommunications(ctx.deps, await ctx.actor(), String(args.orgId), true),
  }),
}));

const Viewer = builder.objectRef<{ orgId: string; scopes: string[] }>('Viewer').implement({
  description: 'The caller: the organization that owns the credential, and the scopes it carries.',
  fields: (t) => ({
    organization: t.field({
      type: OrganizationRef,
      description: 'The credential owner organization.',
      resolve: async (viewer, _args, ctx) => {
        const actor = await ctx.actor();
        return loadReachableOrganization(ctx.deps, actor, viewer.orgId);
      },
    }),
    scopes: t.exposeStringList('scopes', { description: 'Scopes of the credential.' }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: Viewer,
    description: 'The authenticated caller.',
    resolve: async (_root, _args, ctx) => {
      const actor = await ctx.actor();
      return { orgId: actor.orgId, scopes: [...actor.scopes].sort() };
    },
  }),
}));
