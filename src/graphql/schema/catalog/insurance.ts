import {
  INSURANCE_NOTES_MAX,
  INSURANCE_STATUSES,
  INSURANCE_TYPES,
  type InsuranceView,
  listInsurances,
  updateInsurance,
} from '../../../domain/catalog/insurances.js';
import { builder } from '../../builder.js';
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

builder.prismaObjectFields(OrganizationRef, (t) => ({
  insurances: t.field({
    type: [InsuranceRef],
    description: "The organization's insurance acceptance settings, by name. Scope insurances:read.",
    resolve: async (org, _args, ctx) => listInsurances(ctx.deps, await ctx.actor(), org.id),
  }),
}));

builder.mutationFields((t) => ({
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
