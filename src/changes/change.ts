// What a write changed, as the instances that hold data hear it: which kind of data of which organization.
// The read model forgets what it cached of it; live availability subscriptions recompute. A change names
// data, not rows, so that one covers a multi-row write and carries nothing secret. Every change stands
// for an event committed in the write's own transaction (domain/events/log.ts): the writing instance hears
// it at once, every other instance by reading that event from the log (eventTail.ts).

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

/** The kinds that change what availability answers (and so what the compiled schedule holds). */
export const SCHEDULE_KINDS: ReadonlySet<ChangeKind> = new Set(['organization', 'officeHours', 'closures', 'templates', 'phoneNumbers']);

/**
 * A notice: the wake-up one instance sends the others after a write, so that they read the event log now
 * rather than at their next poll. Only `origin` is read (an instance ignores its own notices); `kind` and
 * `orgId` are still sent for instances of earlier versions during a rolling upgrade, and never acted on
 * here: what changed is read from the log, so a notice that lies, or names a write that rolled back,
 * costs one read of the log and nothing else.
 */
export interface Notice {
  origin: string;
}

/** A notice from the channel, or null when it is not one of ours (anyone may publish on a channel). */
export function parseNotice(text: string): Notice | null {
  try {
    const value = JSON.parse(text) as Partial<Notice>;
    if (typeof value !== 'object' || value === null) return null;
    if (typeof value.origin !== 'string' || value.origin.length === 0 || value.origin.length > 64) return null;
    return { origin: value.origin };
  } catch {
    return null;
  }
}

/** What a domain write needs: once its transaction committed, report the change its event stands for. */
export interface ChangePublisher {
  publish(change: Change): void;
}

/** Hears every change, this instance's and the others' (feed.ts). */
export interface ChangeListener {
  /** `local` is true for a change published by this instance (false: read from the event log). */
  onChange(change: Change, local: boolean): void;
  /**
   * Whether every change committed by other instances up to a moment ago has been heard: false while the
   * event log cannot be read (changes may be going unheard), true again once it was read (everything
   * committed meanwhile has then been heard, in order). Always true on one process (embedded database).
   */
  onSync?(inSync: boolean): void;
}

/** Publishing and listening: what live subscriptions need. */
export interface ChangeChannel extends ChangePublisher {
  subscribe(listener: ChangeListener): () => void;
}

/** An event of the log as live subscriptions hear it (liveEvents.ts): once each, in the log's order, from any instance. */
export interface LiveEvent {
  id: string;
  type: string;
  orgId: string;
  occurredAt: Date;
  /** The resource as answered after the change (domain/events/log.ts). */
  data: unknown;
}

/** The events of the log as they commit, for live subscriptions. */
export interface LiveEventSource {
  /**
   * Hears every event of `orgId` that commits from now on, on this instance or another; resolves once
   * listening (nothing committed after it resolved is missed) to a function that stops.
   */
  watch(orgId: string, listener: (event: LiveEvent) => void): Promise<() => void>;
}
