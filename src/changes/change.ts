// What a write tells every instance: which kind of data of which organization changed. The read model
// forgets what it cached of it; live availability subscriptions recompute. A change names data, not
// rows, so that one message covers a multi-row write and carries nothing secret.

export const CHANGE_KINDS = [
  /** Name, timezone, communications switch, or the set of children (published for the parent). */
  'organization',
  'officeHours',
  'closures',
  'templates',
  /** Phone numbers of the organization (their greetings, their bot). */
  'phoneNumbers',
  /** API keys and OAuth clients owned by the organization: created, revoked, scopes changed. */
  'credentials',
] as const;

export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface Change {
  kind: ChangeKind;
  orgId: string;
}

/** A change as it travels: stamped with the instance that published it. */
export interface ChangeMessage extends Change {
  origin: string;
}

/** The kinds that change what availability answers (and so what the compiled schedule holds). */
export const SCHEDULE_KINDS: ReadonlySet<ChangeKind> = new Set(['organization', 'officeHours', 'closures', 'templates', 'phoneNumbers']);

const KIND_SET: ReadonlySet<string> = new Set(CHANGE_KINDS);

/** A message from the channel, or null when it is not one of ours (anyone may publish on a channel). */
export function parseChangeMessage(text: string): ChangeMessage | null {
  try {
    const value = JSON.parse(text) as Partial<ChangeMessage>;
    if (typeof value !== 'object' || value === null) return null;
    if (typeof value.kind !== 'string' || !KIND_SET.has(value.kind)) return null;
    if (typeof value.orgId !== 'string' || value.orgId.length > 64) return null;
    if (typeof value.origin !== 'string' || value.origin.length > 64) return null;
    return { kind: value.kind as ChangeKind, orgId: value.orgId, origin: value.origin };
  } catch {
    return null;
  }
}

/** What a domain write needs: report a committed change. */
export interface ChangePublisher {
  publish(change: Change): void;
}

/** Hears every change, this instance's and the others' (feed.ts). */
export interface ChangeListener {
  /** `local` is true for a change published by this instance. */
  onChange(change: Change, local: boolean): void;
  /** The channel to the other instances was lost (false) or is back (true). */
  onChannel?(connected: boolean): void;
}

/** Publishing and listening: what live subscriptions need. */
export interface ChangeChannel extends ChangePublisher {
  subscribe(listener: ChangeListener): () => void;
}
