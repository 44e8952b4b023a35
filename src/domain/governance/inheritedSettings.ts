// Settings an organization may set for itself or leave to its account (retention, the redaction policy): each
// setting is the organization's own when it set one, else its account's, else the default, and the answer says
// which (docs/decisions.md §15, §16).

/** Where a setting's value comes from: the organization's own setting, its account's, or the default. */
export const SETTING_SOURCES = ['own', 'account', 'default'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

export interface InheritedSettings<F extends string, V> {
  values: Record<F, V>;
  sources: Record<F, SettingSource>;
  /** The account some values come from, or null. */
  inheritedFrom: string | null;
}

type StoredSettings<F extends string, V> = { orgId: string } & { [K in F]: V | null };

/** The values that apply to `org`, from the stored rows of the organization and its account (either may be missing). */
export function inheritSettings<F extends string, V>(
  fields: readonly F[],
  org: { id: string; parentId: string | null },
  rows: readonly StoredSettings<F, V>[],
  defaults: Record<F, V>,
): InheritedSettings<F, V> {
  const own = rows.find((r) => r.orgId === org.id);
  const account = org.parentId ? rows.find((r) => r.orgId === org.parentId) : undefined;
  const out = { values: {}, sources: {}, inheritedFrom: null } as InheritedSettings<F, V>;
  for (const field of fields) {
    const ownValue = own?.[field] ?? null;
    const accountValue = account?.[field] ?? null;
    const [value, source]: [V, SettingSource] =
      ownValue !== null ? [ownValue, 'own'] : accountValue !== null ? [accountValue, 'account'] : [defaults[field], 'default'];
    out.values[field] = value;
    out.sources[field] = source;
    if (source === 'account') out.inheritedFrom = org.parentId;
  }
  return out;
}
