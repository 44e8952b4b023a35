// The redaction policy on GraphQL: the twins of GET|PUT /v1/organizations/{orgId}/redaction. Arguments go to the
// domain's schema, so both surfaces give the same verdicts.
import { SETTING_SOURCES, type SettingSource } from '../../../domain/governance/inheritedSettings.js';
import {
  getRedactionPolicy,
  putRedactionPolicy,
  type RedactionField,
  type RedactionPolicyView,
} from '../../../domain/governance/redactionPolicy.js';
import { builder } from '../../builder.js';

const SettingSourceEnum = builder.enumType('SettingSource', {
  description: "Where a setting's value comes from: the organization's own setting, its account's, or the default.",
  values: SETTING_SOURCES,
});

const RedactionSourcesRef = builder.objectRef<Record<RedactionField, SettingSource>>('RedactionPolicySources').implement({
  description: 'Per redaction setting, where its value comes from.',
  fields: (t) => ({
    emails: t.field({ type: SettingSourceEnum, description: 'Where emails comes from.', resolve: (s) => s.emails }),
    phones: t.field({ type: SettingSourceEnum, description: 'Where phones comes from.', resolve: (s) => s.phones }),
    keepOriginals: t.field({ type: SettingSourceEnum, description: 'Where keepOriginals comes from.', resolve: (s) => s.keepOriginals }),
  }),
});

const RedactionPolicyRef = builder.objectRef<RedactionPolicyView>('RedactionPolicy').implement({
  description:
    'What a turn loses before it is stored, beyond card numbers and SSNs (always [card], [ssn]); applies to turns written after it.',
  fields: (t) => ({
    orgId: t.exposeID('orgId', { description: 'The organization.' }),
    emails: t.exposeBoolean('emails', { description: 'E-mail addresses are stored as [email].' }),
    phones: t.exposeBoolean('phones', {
      description: "Phone numbers are stored as [phone] (read in the region of the conversation's numbers, else the US).",
    }),
    keepOriginals: t.exposeBoolean('keepOriginals', {
      description: 'The words as said are kept (sealed), readable with conversation(unredacted: true) and transcripts:read_unredacted.',
    }),
    sources: t.field({ type: RedactionSourcesRef, description: 'Where each value comes from.', resolve: (r) => r.sources }),
    inheritedFrom: t.exposeID('inheritedFrom', { nullable: true, description: 'The account some values are inherited from, or null.' }),
    updatedAt: t.exposeString('updatedAt', { nullable: true, description: "When the organization's own policy was last written." }),
  }),
});

const RedactionPolicyInput = builder.inputType('RedactionPolicyInput', {
  description: 'Redaction settings, each true, false, or null / absent to inherit; checked as PUT /v1/organizations/{orgId}/redaction.',
  fields: (t) => ({
    emails: t.boolean({ description: 'Replace e-mail addresses by [email].' }),
    phones: t.boolean({ description: 'Replace phone numbers by [phone].' }),
    keepOriginals: t.boolean({ description: 'Keep the words as said, sealed, readable with transcripts:read_unredacted.' }),
  }),
});

builder.queryFields((t) => ({
  redactionPolicy: t.field({
    type: RedactionPolicyRef,
    description: "An organization's redaction policy. Scope organizations:read.",
    args: { orgId: t.arg.id({ required: true, description: 'Organization id.' }) },
    resolve: async (_root, args, ctx) => getRedactionPolicy(ctx.deps, await ctx.actor(), String(args.orgId)),
  }),
}));

builder.mutationFields((t) => ({
  setRedactionPolicy: t.field({
    type: RedactionPolicyRef,
    description: "Replaces an organization's own redaction policy (event redaction_policy.updated). Scope organizations:write.",
    args: {
      orgId: t.arg.id({ required: true, description: 'Organization id.' }),
      input: t.arg({ type: RedactionPolicyInput, required: true, description: 'The settings.' }),
    },
    resolve: async (_root, args, ctx) => putRedactionPolicy(ctx.deps, await ctx.actor(), String(args.orgId), args.input),
  }),
}));
