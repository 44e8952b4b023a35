import { canReach } from '../../domain/access.js';
import { loadReachableOrganization, readOrganization, reachableOrganizations, setCommunications } from '../../domain/organizations.js';
import { builder } from '../builder.js';

export const OrganizationRef = builder.prismaObject('Organization', {
  description: 'A business location (or an account organization grouping child locations), with a timezone.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Organization id (UUID).' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    timezone: t.exposeString('timezone', { description: 'IANA timezone in which office hours, breaks and annual closures are read.' }),
    isAccount: t.exposeBoolean('isAccount', { description: 'True for an account organization, which may act on its child organizations.' }),
    communicationsEnabled: t.exposeBoolean('communicationsEnabled', { description: 'False when calls, chats and SMS are disabled.' }),
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
        if (!org.parentId || !canReach(actor, org.parentId)) return null;
        return (await ctx.deps.readModel.organization(org.parentId)) ?? null;
      },
    }),
    children: t.field({
      type: [OrganizationRef],
      description: "Child organizations within the caller's reach (empty for a location).",
      resolve: async (org, _args, ctx) => {
        const actor = await ctx.actor();
        // the children of every organization of the operation are read together (read model, one statement when cold)
        const record = await ctx.deps.readModel.organization(org.id);
        return reachableOrganizations(ctx.deps, actor, record?.childIds ?? []);
      },
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

const CommunicationsChange = builder
  .objectRef<{ status: string; changed: boolean }>('CommunicationsChange')
  .implement({
    description: 'The result of disabling or enabling communications.',
    fields: (t) => ({
      status: t.exposeString('status', { description: '"disabled" or "enabled": the state after the operation.' }),
      changed: t.exposeBoolean('changed', { description: 'False when the organization was already in that state.' }),
    }),
  });

builder.mutationFields((t) => ({
  disableOrganization: t.field({
    type: CommunicationsChange,
    description: 'Disables calls, chats and SMS for an organization. Account organizations cannot be disabled (FORBIDDEN). Scope organizations:write.',
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

