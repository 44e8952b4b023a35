// What a read model entry costs in memory, estimated from its contents: the read model bounds each part
// by these estimates (READ_MODEL_MAX_MB) as well as by a count, since one organization's schedule may
// hold a handful of rules or thousands of closures. The constants approximate V8's layout on 64-bit Node
// (object header and 8-byte fields, strings of one byte a character, Map tables), checked against the
// heap measured with thousands of loaded entries: within a few percent for a schedule of 10,000 closures,
// and above it for small schedules (the answers they may remember are counted in advance).
import type { ClosureRule } from '../domain/schedule/availability.js';
import type { ApiKeyRecord, OAuthClientRecord, OrganizationRecord } from '../domain/shared/readModel.js';
import type { OrgSchedule } from '../domain/schedule/records.js';

/** An object of `fields` properties (header: map, properties, elements). */
const object = (fields: number): number => 24 + 8 * fields;
/** A string's own bytes; `null` costs nothing beyond its field. */
const text = (s: string | null | undefined): number => (s == null ? 0 : 24 + s.length);
/** An array's object and its backing store. */
const array = (length: number): number => 32 + 16 + 8 * length;
/** A Map's object and hash table. */
const map = (size: number): number => 64 + 40 * Math.max(size, 2);
const DATE = 104;
/** What the LRU spends on a key: its string, the key map's entry and the list slots. */
const ENTRY = 48 + 24 + 36;
/** An availability answer remembered on a schedule: the answer, its body and the body's strings. */
const ANSWER = 520;

export function organizationBytes(r: OrganizationRecord): number {
  return (
    ENTRY +
    object(22) +
    text(r.id) +
    text(r.name) +
    text(r.timezone) +
    text(r.parentId) +
    array(r.firstChildIds.length) +
    60 * r.firstChildIds.length +
    2 * DATE
  );
}

export function apiKeyBytes(r: ApiKeyRecord): number {
  return (
    ENTRY +
    object(7) +
    text(r.id) +
    text(r.orgId) +
    text(r.name) +
    text(r.hash) +
    (r.scopes ? array(r.scopes.length) + r.scopes.reduce((n, s) => n + text(s), 0) : 0)
  );
}

export function oauthClientBytes(r: OAuthClientRecord): number {
  return (
    ENTRY +
    object(7) +
    text(r.id) +
    text(r.clientId) +
    text(r.name) +
    text(r.orgId) +
    array(r.scopes.length) +
    r.scopes.reduce((n, s) => n + text(s), 0) +
    array(r.revokedTokens.length) +
    r.revokedTokens.reduce((n, s) => n + text(s), 0)
  );
}

const breakBytes = (b: { start: string; end: string; reason: string; greeting: string }): number =>
  // the rule, and its compiled form (minutes and a reference to the rule)
  object(4) + text(b.start) + text(b.end) + text(b.reason) + text(b.greeting) + object(3);

const closureBytes = (c: ClosureRule): number =>
  object(10) +
  text(c.id) +
  text(c.description) +
  text(c.chatGreeting) +
  text(c.phoneGreeting) +
  DATE * ((c.startAt ? 1 : 0) + (c.endAt ? 1 : 0) + 1);

/**
 * A compiled schedule with the answers it is likely to remember (they are added after the entry is
 * stored): two mediums' answers, and one per phone number for the medium that reads phone greetings.
 */
export function scheduleBytes(s: OrgSchedule): number {
  let bytes = ENTRY + object(10) + text(s.orgId) + text(s.timezone);
  // the configured days (each also compiled: open, close, its breaks)
  bytes += array(s.officeHours.length) + map(s.compiled.days.size);
  for (const day of s.officeHours)
    bytes +=
      object(5) +
      text(day.open) +
      text(day.close) +
      array(day.breaks.length) +
      object(3) +
      array(day.breaks.length) +
      day.breaks.reduce((n, b) => n + breakBytes(b), 0);
  // closures: the rules held (three dates each), the timed index's segments and the annual map
  bytes += object(6) + 3 * array(s.compiled.timed.segments) + 16 * s.compiled.timed.segments + map(s.compiled.annual.size);
  for (const rule of [...s.compiled.timed.heldRules(), ...s.compiled.annual.values()]) bytes += closureBytes(rule);
  // special hours
  bytes += map(s.compiled.special.size);
  for (const { rule } of s.compiled.special.values()) {
    bytes +=
      object(7) +
      text(rule.id) +
      text(rule.date) +
      text(rule.description) +
      text(rule.open) +
      text(rule.close) +
      object(3) +
      2 * array(rule.breaks.length);
    bytes += rule.breaks.reduce((n, b) => n + breakBytes(b), 0);
  }
  // templates and phone numbers' greetings
  bytes += array(s.templates.length);
  for (const t of s.templates) bytes += object(4) + text(t.id) + text(t.name) + array(t.applicableMediums?.length ?? 0);
  bytes += map(s.phoneGreetings.size);
  for (const [id, g] of s.phoneGreetings) bytes += text(id) + object(2) + text(g.customGreeting) + text(g.customClosedGreeting);
  bytes += map(2 + s.phoneGreetings.size) + (2 + s.phoneGreetings.size) * ANSWER;
  return bytes;
}
