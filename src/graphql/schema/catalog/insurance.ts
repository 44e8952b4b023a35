import { LIST_LIMITS } from '../../../domain/shared/listLimits.js';
import {
  createInsurance,
  deleteInsurance,
  INSURANCE_NAME_MAX,
  INSURANCE_NOTES_MAX,
  INSURANCE_STATUSES,
  INSURANCE_TYPES,
  type InsuranceView,
  listInsurances,
  updateInsurance,
} from '../../../domain/catalog/insurances.js';
import { builder } from '../../builder.js';
import { NodeRef } from '../node.js';
import { OrganizationRef } from '../organizations/organization.js';

const InsuranceTypeEnum = builder.enumType('InsuranceType', {
  description: 'The kind of insurance plan.',
  values: INSURANCE_TYPES,
});

const InsuranceStatusEnum = builder.enumType('InsuranceStatus', {
  description: 'Whether and how the organization accepts an insurance.',
  values: INSURANCE_STATUSES,
});

export const InsuranceRef = builder.objectRef<InsuranceView>('Insurance').implement({
  interfaces: [NodeRef],
  description: 'An insurance acceptance setting of an organization.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Insurance id (UUID).' }),
    orgId: t.exposeID('orgId', { description: 'The organization the setting belongs to.' }),
    name: t.exposeString('name', { description: 'The insurance name.' }),
    type: t.expose('type', { type: InsuranceTypeEnum, description: 'The plan type.' }),
    status: t.expose('status', { type: InsuranceStatusEnum, description: 'Whether and how the insurance is accepted.' }),
    notes: t.exposeString('notes', { description: 'Free-text notes.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the setting was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the setting was last changed.' }),
  }),
});

const UpdateInsuranceInput = builder.inputType('UpdateInsuranceInput', {
  description: 'Only the provided fields change; at least one is required.',
  fields: (t) => ({
    type: t.field({ type: InsuranceTypeEnum, description: 'The plan type.' }),
    status: t.field({ type: InsuranceStatusEnum, description: 'Whether and how the insurance is accepted.' }),
    notes: t.string({ description: `Free-text notes, at most ${INSURANCE_NOTES_MAX} characters; "" clears them.` }),
  }),
});

const CreateInsuranceInput = builder.inputType('CreateInsuranceInput', {
  description: 'A new insurance acceptance setting; one per name and type in an organization.',
  fields: (t) => ({
    name: t.string({ required: true, description: `The insurance name, trimmed; 1..${INSURANCE_NAME_MAX} characters.` }),
    type: t.field({ type: InsuranceTypeEnum, required: true, description: 'The plan type.' }),
    status: t.field({ type: InsuranceStatusEnum, required: true, description: 'Whether and how the insurance is accepted.' }),
    notes: t.string({ description: `Free-text notes, at most ${INSURANCE_NOTES_MAX} characters (default "").` }),
  }),
});

builder.prismaObjectFields(OrganizationRef, (t) => ({
  insurances: t.field({
    type: [InsuranceRef],
    description:
      "The organization's insurance acceptance settings, by name; only those of a type and/or status when given. Scope insurances:read.",
    args: {
      type: t.arg({ type: InsuranceTypeEnum, description: 'Only insurances of this plan type.' }),
      status: t.arg({ type: InsuranceStatusEnum, description: 'Only insurances with this acceptance status.' }),
    },
    resolve: async (org, args, ctx) => listInsurances(ctx.deps, await ctx.actor(), org.id, args),
  }),
}));

builder.mutationFields((t) => ({
  createInsurance: t.field({
    type: InsuranceRef,
    description: `Adds an insurance acceptance setting; CONFLICT when the organization has one of that name and type, or has ${LIST_LIMITS.insurances} (the most it may have). Scope insurances:write.`,
    args: {
      orgId: t.arg.id({ required: true, description: 'The organization.' }),
      input: t.arg({
        type: CreateInsuranceInput,
        required: true,
        description: 'The insurance; checked by the same rules as POST /v1/organizations/{orgId}/insurances.',
      }),
    },
    resolve: async (_root, args, ctx) =>
      // checked once, in the domain; notes: null is no notes
      createInsurance(ctx.deps, await ctx.actor(), String(args.orgId), { ...args.input, notes: args.input.notes ?? undefined }),
  }),
  deleteInsurance: t.boolean({
    description: 'Deletes an insurance of the organization; true when it was deleted (a missing one is NOT_FOUND). Scope insurances:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'The organization.' }),
      insuranceId: t.arg.id({ required: true, description: 'The insurance of that organization.' }),
    },
    resolve: async (_root, args, ctx) =>
      (await deleteInsurance(ctx.deps, await ctx.actor(), String(args.orgId), String(args.insuranceId))).deleted,
  }),
  updateInsurance: t.field({
    type: InsuranceRef,
    description:
      'Updates the provided fields of an insurance of the organization; an insurance of another organization is NOT_FOUND. Scope insurances:write.',
    args: {
      orgId: t.arg.id({ required: true, description: 'The organization.' }),
      insuranceId: t.arg.id({ required: true, description: 'The insurance of that organization.' }),
      input: t.arg({ type: UpdateInsuranceInput, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, args, ctx) =>
      // the input goes to the domain as sent (omitted fields absent), where it is validated once
      updateInsurance(ctx.deps, await ctx.actor(), String(args.orgId), String(args.insuranceId), { ...args.input }),
  }),
}));
