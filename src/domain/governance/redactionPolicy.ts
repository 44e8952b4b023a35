// What an organization's transcripts lose before they are stored (issue 36 §5, docs/decisions.md §16). Card numbers
// and SSNs are always replaced (redaction.ts); the policy adds e-mail addresses (`emails`) and phone numbers
// (`phones`), and says whether the words as said are kept beside the redacted text (`keepOriginals`), sealed like
// it and read only with transcripts:read_unredacted (an access-log entry marked `unredacted`). Each setting is the
// organization's own, else its account's, else off (inheritedSettings.ts). GET|PUT
// /v1/organizations/{orgId}/redaction and their GraphQL twins; event redaction_policy.updated. A policy applies to
// turns written after it: what is stored is never rewritten by a change of policy.
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { SqlRunner } from '../../db/sql.js';
import { recordSettingsChange } from '../events/log.js';
import { loadReachableOrganization } from '../organizations/organizations.js';
import { type Actor, requireScope } from '../shared/access.js';
import type { DomainDeps } from '../shared/deps.js';
import { parseInput } from '../shared/errors.js';
import { instantView, viewSchema } from '../shared/viewSchema.js';
import { inheritSettings, SETTING_SOURCES, type SettingSource } from './inheritedSettings.js';
import type { RedactionOptions } from './redaction.js';
import { redactionPolicyRows, redactionPolicyRowsOf, type RedactionPolicyRow } from './sql.js';

export const REDACTION_FIELDS = ['emails', 'phones', 'keepOriginals'] as const;
export type RedactionField = (typeof REDACTION_FIELDS)[number];
type RedactionSettings = Record<RedactionField, boolean>;

/** Off, each: an organization opts in (docs/decisions.md §16). */
const DEFAULT_POLICY: RedactionSettings = { emails: false, phones: false, keepOriginals: false };

/** The region a phone number said without its country code is read in when the conversation's numbers tell none. */
export const DEFAULT_PHONE_REGION: CountryCode = 'US';

export interface RedactionPolicyView extends RedactionSettings {
  orgId: string;
  sources: Record<RedactionField, SettingSource>;
  inheritedFrom: string | null;
  updatedAt: string | null;
}

const flag = z.boolean({ error: 'must be true, false, or null to inherit' }).nullable().optional();
export const redactionPolicyInput = z.strictObject({
  emails: flag.describe('Replace e-mail addresses by `[email]`.'),
  phones: flag.describe("Replace phone numbers by `[phone]` (read in the region of the conversation's numbers)."),
  keepOriginals: flag.describe(
    'Keep the words as said, sealed beside the redacted text, readable only with `transcripts:read_unredacted`.',
  ),
});

const sourceSchema = z.enum(SETTING_SOURCES);
export const redactionPolicyResponse = viewSchema<RedactionPolicyView>()(
  z
    .object({
      orgId: z.uuid(),
      emails: z.boolean().describe('E-mail addresses are stored as `[email]`.'),
      phones: z.boolean().describe('Phone numbers are stored as `[phone]`.'),
      keepOriginals: z.boolean().describe('The words as said are kept (sealed), readable with `transcripts:read_unredacted`.'),
      sources: z
        .object({ emails: sourceSchema, phones: sourceSchema, keepOriginals: sourceSchema })
        .describe("Per setting: `own`, `account` (the account's, `inheritedFrom`) or `default` (off)."),
      inheritedFrom: z.uuid().nullable().describe('The account some values are inherited from, or null.'),
      updatedAt: instantView().nullable().describe("When the organization's own policy was last written; null: none set."),
    })
    .meta({ id: 'RedactionPolicy' }),
);

function policyView(orgId: string, rows: readonly RedactionPolicyRow[]): RedactionPolicyView {
  const own = rows.find((r) => r.orgId === orgId);
  const parentId = rows.find((r) => r.orgId !== orgId)?.orgId ?? null;
  const applied = inheritSettings<RedactionField, boolean>(REDACTION_FIELDS, { id: orgId, parentId }, rows, DEFAULT_POLICY);
  return {
    orgId,
    ...applied.values,
    sources: applied.sources,
    inheritedFrom: applied.inheritedFrom,
    updatedAt: own ? own.updatedAt.toISOString() : null,
  };
}

/** The policy that applies to an organization (its own row and its account's, read in one statement). */
export async function effectiveRedactionPolicy(db: SqlRunner, orgId: string): Promise<RedactionPolicyView> {
  return policyView(orgId, await redactionPolicyRows(db, orgId));
}

/** GET …/redaction: the policy that applies (scope organizations:read). */
export async function getRedactionPolicy(deps: DomainDeps, actor: Actor, orgId: string): Promise<RedactionPolicyView> {
  requireScope(actor, 'organizations:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  return effectiveRedactionPolicy(deps.db, org.id);
}

/**
 * PUT …/redaction: the organization's own settings, replaced (a setting absent or null is unset: inherited). Scope
 * organizations:write; event redaction_policy.updated when what applies changed.
 */
export async function putRedactionPolicy(deps: DomainDeps, actor: Actor, orgId: string, input: unknown): Promise<RedactionPolicyView> {
  const data = parseInput(redactionPolicyInput, input ?? {});
  requireScope(actor, 'organizations:write');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const now = deps.clock();
  const row = Object.fromEntries(REDACTION_FIELDS.map((f) => [f, data[f] ?? null])) as Record<RedactionField, boolean | null>;
  return deps.db.$transaction(async (tx) => {
    const before = await effectiveRedactionPolicy(tx, org.id);
    await tx.redactionPolicy.upsert({
      where: { orgId: org.id },
      create: { orgId: org.id, ...row, updatedAt: now },
      update: { ...row, updatedAt: now },
    });
    const view = await effectiveRedactionPolicy(tx, org.id);
    await recordSettingsChange(
      tx,
      deps,
      actor,
      { type: 'redaction_policy.updated', subjectType: 'redaction_policy', orgId: org.id },
      before,
      view,
    );
    return view;
  });
}

/** The region of the first of `numbers` that is a phone number libphonenumber-js knows, else the default. */
function regionOf(numbers: readonly string[]): CountryCode {
  for (const number of numbers) {
    const country = number ? parsePhoneNumberFromString(number)?.country : undefined;
    if (country) return country;
  }
  return DEFAULT_PHONE_REGION;
}

/**
 * How a turn of a conversation is redacted under its organization's policy, from the policy rows read with the
 * conversation (sql.ts redactionPolicyRowsJson). The region phone numbers are read in is the caller's number's, else
 * the called line's, else the default.
 */
export function turnRedaction(conversation: { orgId: string; fromNumber: string; toNumber: string; redactionPolicies: unknown }): {
  options: RedactionOptions;
  keepOriginals: boolean;
} {
  const policy = policyView(conversation.orgId, redactionPolicyRowsOf(conversation.redactionPolicies));
  return {
    options: {
      emails: policy.emails,
      phones: policy.phones,
      ...(policy.phones ? { region: regionOf([conversation.fromNumber, conversation.toNumber]) } : {}),
    },
    keepOriginals: policy.keepOriginals,
  };
}
