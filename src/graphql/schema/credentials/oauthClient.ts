import {
  createOAuthClient,
  listOAuthClients,
  type OAuthClientView,
  type OAuthClientWithSecret,
  revokeOAuthClient,
  rotateOAuthClientSecret,
  setOAuthClientScopes,
} from '../../../domain/credentials/oauthClients.js';
import { type SecretAnswerType, secretDescriptions } from '../../../domain/shared/shownOnce.js';
import { builder, type FieldBuilderOf } from '../../builder.js';

/** The fields of the masked type, shared with the type that also carries the secret (a subtype of it). */
const clientFields = (t: FieldBuilderOf<OAuthClientView>) => ({
  id: t.exposeID('id', { description: 'Client record id (UUID).' }),
  orgId: t.exposeID('orgId', { description: 'The organization the client acts for.' }),
  name: t.exposeString('name', { description: 'A name to tell clients apart.' }),
  clientId: t.exposeString('clientId', { description: 'The `client_id` of the token request.' }),
  scopes: t.exposeStringList('scopes', { description: 'What its access tokens may do.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made.' }),
  previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
    type: 'DateTime',
    nullable: true,
    description: 'Until when the previous secret is still accepted.',
  }),
  revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When it was revoked.' }),
});

const OAuthClientRef = builder.objectRef<OAuthClientView>('OAuthClient').implement({
  description: 'An OAuth client (client credentials grant); its secret is shown only when made or rotated.',
  fields: (t) => clientFields(t),
});

const clientSecret = secretDescriptions('clientSecret', 'The `client_secret`');
const OAuthClientWithSecretRef = builder.objectRef<OAuthClientWithSecret>('OAuthClientWithSecret' satisfies SecretAnswerType).implement({
  description: 'A client just made or rotated, with its secret: shown only in this answer (null in an idempotent replay).',
  fields: (t) => ({
    ...clientFields(t),
    clientSecret: t.exposeString('clientSecret', { nullable: true, description: clientSecret.secret }),
    secretShownOnce: t.exposeBoolean('secretShownOnce', { description: clientSecret.shownOnce }),
  }),
});

const CreateOAuthClientInput = builder.inputType('CreateOAuthClientInput', {
  description: 'A new OAuth client.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A name to tell the client apart.' }),
    scopes: t.stringList({ required: true, description: 'What its access tokens may do.' }),
    orgId: t.id({ description: "The caller's own organization (default) or, for an account, a child." }),
  }),
});

builder.queryFields((t) => ({
  oauthClients: t.field({
    type: [OAuthClientRef],
    description: "An organization's live OAuth clients, newest first. Scope credentials:write.",
    args: { orgId: t.arg.id({ description: "The caller's own organization (default) or, for an account, a child." }) },
    resolve: async (_root, args, ctx) =>
      listOAuthClients(ctx.deps, await ctx.actor(), args.orgId == null ? {} : { orgId: String(args.orgId) }),
  }),
}));

builder.mutationFields((t) => ({
  createOAuthClient: t.field({
    type: OAuthClientWithSecretRef,
    description: 'Creates an OAuth client; the answer shows its secret once. Scope credentials:write.',
    args: { input: t.arg({ type: CreateOAuthClientInput, required: true, description: 'The client.' }) },
    resolve: async (_root, args, ctx) =>
      createOAuthClient(ctx.deps, await ctx.actor(), {
        name: args.input.name,
        scopes: args.input.scopes,
        ...(args.input.orgId == null ? {} : { orgId: String(args.input.orgId) }),
      }),
  }),
  rotateOAuthClientSecret: t.field({
    type: OAuthClientWithSecretRef,
    description:
      'A new secret (shown once); the previous one is accepted until `expiresAt` (now by default, at most 7 days ahead). Scope credentials:write.',
    args: {
      id: t.arg.id({ required: true, description: 'Client record id.' }),
      expiresAt: t.arg.string({ description: 'ISO 8601 instant until which the previous secret is accepted.' }),
    },
    resolve: async (_root, args, ctx) =>
      rotateOAuthClientSecret(ctx.deps, await ctx.actor(), String(args.id), args.expiresAt == null ? {} : { expiresAt: args.expiresAt }),
  }),
  setOAuthClientScopes: t.field({
    type: OAuthClientRef,
    description: "Replaces the client's scopes. Scope credentials:write.",
    args: {
      id: t.arg.id({ required: true, description: 'Client record id.' }),
      scopes: t.arg.stringList({ required: true, description: 'The new scopes.' }),
    },
    resolve: async (_root, args, ctx) => setOAuthClientScopes(ctx.deps, await ctx.actor(), String(args.id), { scopes: args.scopes }),
  }),
  revokeOAuthClient: t.field({
    type: OAuthClientRef,
    description: 'Revokes an OAuth client: its tokens are refused at once, on every instance. Scope credentials:write.',
    args: { id: t.arg.id({ required: true, description: 'Client record id.' }) },
    resolve: async (_root, args, ctx) => revokeOAuthClient(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));
