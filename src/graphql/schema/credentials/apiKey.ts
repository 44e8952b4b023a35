import {
  type ApiKeyView,
  type ApiKeyWithSecret,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
} from '../../../domain/credentials/apiKeys.js';
import { type SecretAnswerType, secretDescriptions } from '../../../domain/shared/shownOnce.js';
import { builder, type FieldBuilderOf } from '../../builder.js';

/** The fields of the masked type, shared with the type that also carries the secret (a subtype of it). */
const apiKeyFields = (t: FieldBuilderOf<ApiKeyView>) => ({
  id: t.exposeID('id', { description: 'Key id (UUID).' }),
  orgId: t.exposeID('orgId', { description: 'The organization the key acts for.' }),
  name: t.exposeString('name', { description: 'A name to tell keys apart.' }),
  masked: t.exposeString('masked', { description: 'The key with its middle hidden (`svc-sk-v2-AbCd…wXyZ`).' }),
  scopes: t.exposeStringList('scopes', { description: 'What the key may do; every scope for a full key.' }),
  restricted: t.exposeBoolean('restricted', { description: 'True when the key holds only `scopes`; false for a full key.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was made.' }),
  lastUsedAt: t.expose('lastUsedAt', {
    type: 'DateTime',
    nullable: true,
    description: 'When it last authenticated a request (recorded within a minute).',
  }),
  expiresAt: t.expose('expiresAt', {
    type: 'DateTime',
    nullable: true,
    description: 'From this instant the key is refused; null when it does not expire.',
  }),
  revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When it was revoked.' }),
});

const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key, masked: the key itself is shown only when made or rolled.',
  fields: (t) => apiKeyFields(t),
});

const keySecret = secretDescriptions('apiKey', 'The key (`svc-sk-v2-…`)');
const ApiKeyWithSecretRef = builder.objectRef<ApiKeyWithSecret>('ApiKeyWithSecret' satisfies SecretAnswerType).implement({
  description: 'A key just made or rolled, with the key itself: shown only in this answer (null in an idempotent replay).',
  fields: (t) => ({
    ...apiKeyFields(t),
    apiKey: t.exposeString('apiKey', { nullable: true, description: keySecret.secret }),
    secretShownOnce: t.exposeBoolean('secretShownOnce', { description: keySecret.shownOnce }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A name to tell the key apart.' }),
    scopes: t.stringList({
      description:
        "A restricted key holds only these (at most the creating credential's own); " +
        'omitted: a full key, which only a full key may create.',
    }),
    expiresAt: t.string({ description: 'ISO 8601 instant from which the key is refused; omitted: it does not expire.' }),
    orgId: t.id({ description: "The caller's own organization (default) or, for an account, a child." }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: "An organization's live API keys, masked, newest first. Scope credentials:write.",
    args: { orgId: t.arg.id({ description: "The caller's own organization (default) or, for an account, a child." }) },
    resolve: async (_root, args, ctx) => listApiKeys(ctx.deps, await ctx.actor(), args.orgId == null ? {} : { orgId: String(args.orgId) }),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: ApiKeyWithSecretRef,
    description: 'Creates an API key; the answer shows the key once. Scope credentials:write.',
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'The key.' }) },
    resolve: async (_root, args, ctx) =>
      createApiKey(ctx.deps, await ctx.actor(), {
        ...args.input,
        ...(args.input.orgId == null ? {} : { orgId: String(args.input.orgId) }),
      }),
  }),
  rollApiKey: t.field({
    type: ApiKeyWithSecretRef,
    description:
      'A new key (shown once) with the same name, scopes and expiry; the old one works until `expiresAt` (now by default, at most 7 days ahead). Scope credentials:write.',
    args: {
      id: t.arg.id({ required: true, description: 'Key id.' }),
      expiresAt: t.arg.string({ description: 'ISO 8601 instant until which the old key keeps working.' }),
    },
    resolve: async (_root, args, ctx) =>
      rollApiKey(ctx.deps, await ctx.actor(), String(args.id), args.expiresAt == null ? {} : { expiresAt: args.expiresAt }),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    description: 'Revokes an API key: it is refused at once, on every instance. Scope credentials:write.',
    args: { id: t.arg.id({ required: true, description: 'Key id.' }) },
    resolve: async (_root, args, ctx) => revokeApiKey(ctx.deps, await ctx.actor(), String(args.id)),
  }),
}));
