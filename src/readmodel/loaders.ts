// How the read model fills itself: each kind of record in ONE statement for any number of keys, so that
// a cold cache costs a constant number of round trips however many organizations an operation touches.
import {
  compileSchedule,
  type ClosureRule,
  type DaySchedule,
  type Medium,
  type PhoneGreetings,
  type SpecialDayRule,
  type TemplateRule,
} from '../domain/schedule/availability.js';
import { minutesOf } from '../domain/shared/timeFormats.js';
import type { Db } from '../db/client.js';
import type { ApiKeyRecord, OAuthClientRecord, OrganizationRecord } from '../domain/shared/readModel.js';
import { organizationRows, scheduleRows } from './sql.js';
import type { OrgSchedule } from '../domain/schedule/records.js';

/** JSON values come back parsed from some drivers and as text from others. */
function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A `timestamp(3)` (stored in UTC, without zone) as json_build_object writes it: "2026-03-10T13:00:00.123". */
function utc(value: string | null): Date | null {
  return value === null ? null : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
}

/**
 * Organizations with their child count and first CHILD_IDS_LIMIT child ids: a record's size and its
 * load time do not grow with an account's number of locations (the index on (parentId, createdAt, id)
 * counts them and reads the first ones without a sort).
 */
export async function loadOrganizations(db: Db, ids: readonly string[]): Promise<Map<string, OrganizationRecord>> {
  // the record's own fields, as the row gives them (an organization without children reads no array)
  const rows = await organizationRows(db, ids);
  return new Map(rows.map((r) => [r.id, { ...r, childCount: Number(r.childCount), firstChildIds: r.firstChildIds ?? [] }]));
}

export async function loadApiKeys(db: Db, hashes: readonly string[]): Promise<Map<string, ApiKeyRecord>> {
  const rows = await db.apiKey.findMany({
    where: { hash: { in: [...hashes] } },
    select: { id: true, orgId: true, name: true, hash: true, revokedAt: true, restricted: true, scopes: true, expiresAt: true },
  });
  return new Map(
    rows.map((r) => [
      r.hash,
      {
        id: r.id,
        orgId: r.orgId,
        name: r.name,
        hash: r.hash,
        revoked: r.revokedAt !== null,
        scopes: r.restricted ? r.scopes : null,
        expiresAtMs: r.expiresAt?.getTime() ?? null,
      },
    ]),
  );
}

/** The clients, each with the access tokens revoked before they expire that have not expired at `now`. */
export async function loadOAuthClients(db: Db, clientIds: readonly string[], now: Date): Promise<Map<string, OAuthClientRecord>> {
  const rows = await db.oAuthClient.findMany({
    where: { clientId: { in: [...clientIds] } },
    select: {
      id: true,
      clientId: true,
      name: true,
      orgId: true,
      scopes: true,
      revokedAt: true,
      revokedAccessTokens: { where: { expiresAt: { gt: now } }, select: { jti: true } },
    },
  });
  return new Map(
    rows.map((r) => [
      r.clientId,
      {
        id: r.id,
        clientId: r.clientId,
        name: r.name,
        orgId: r.orgId,
        scopes: r.scopes,
        revoked: r.revokedAt !== null,
        revokedTokens: r.revokedAccessTokens.map((t) => t.jti),
      },
    ]),
  );
}

type ClosureJson = Omit<ClosureRule, 'createdAt' | 'startAt' | 'endAt'> & {
  createdAt: string;
  startAt: string | null;
  endAt: string | null;
};

/**
 * The schedules of several organizations in one statement. Only the timed closures that end after
 * `closuresEndingAfter` are read (with every annual one): those are all that can apply from then on, so
 * an organization with years of past closures costs what one with none costs. Special hours likewise: only
 * those dated from the day before that instant's UTC date on (no zone's local date is earlier).
 */
export async function loadSchedules(db: Db, orgIds: readonly string[], closuresEndingAfter: Date): Promise<Map<string, OrgSchedule>> {
  const specialFrom = new Date(closuresEndingAfter.getTime() - 86_400_000).toISOString().slice(0, 10);
  const rows = await scheduleRows(db, orgIds, closuresEndingAfter, specialFrom);
  const schedules = new Map<string, OrgSchedule>();
  for (const row of rows) {
    const officeHours = json<DaySchedule[]>(row.officeHours).map((day) => ({
      ...day,
      dayOfWeek: day.dayOfWeek,
      breaks: [...day.breaks].sort((a, b) => minutesOf(a.start) - minutesOf(b.start)),
    }));
    const closures: ClosureRule[] = json<ClosureJson[]>(row.closures).map((c) => ({
      ...c,
      createdAt: utc(c.createdAt)!,
      startAt: utc(c.startAt),
      endAt: utc(c.endAt),
    }));
    const specialHours = json<SpecialDayRule[]>(row.specialHours).map((day) => ({
      ...day,
      breaks: [...json<SpecialDayRule['breaks']>(day.breaks)].sort((a, b) => minutesOf(a.start) - minutesOf(b.start)),
    }));
    const templates = json<
      { id: string; name: string; applicableMediums: Medium[] | null; officeHoursAvailability: 'OPEN' | 'CLOSED' | null }[]
    >(row.templates).map((t): TemplateRule => ({
      id: t.id,
      name: t.name,
      applicableMediums: t.applicableMediums ?? [],
      officeHoursAvailability: t.officeHoursAvailability,
    }));
    const phones = json<({ id: string } & PhoneGreetings)[]>(row.phoneNumbers);
    schedules.set(row.orgId, {
      orgId: row.orgId,
      timezone: row.timezone,
      officeHours,
      compiled: compileSchedule({ timezone: row.timezone, officeHours, specialHours, closures }),
      validFromMs: closuresEndingAfter.getTime(),
      templates,
      phoneGreetings: new Map(
        phones.map((p) => [p.id, { customGreeting: p.customGreeting, customClosedGreeting: p.customClosedGreeting }]),
      ),
      answers: new Map(),
    });
  }
  return schedules;
}
