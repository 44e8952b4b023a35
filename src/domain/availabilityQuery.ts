// Availability at an instant (CONTRACT §4): loads the organization's office hours, closures,
// templates and (optionally) phone number, and hands them to the pure computeAvailability.
import { z } from 'zod';
import type { Db } from '../db/client.js';
import type { DomainDeps } from './deps.js';
import { type Actor, requireScope } from './access.js';
import { type Availability, computeAvailability, type Medium } from './availability.js';
import { NotFound, parseInput } from './errors.js';
import { uuidSchema } from './ids.js';
import { loadDaySchedules } from './officeHours.js';
import { loadReachableOrganization } from './organizations.js';
import { isoInstantSchema, isoInstantToDate } from './timeFormats.js';

export const MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const satisfies readonly Medium[];

export const mediumSchema = z.enum(MEDIUMS, {
  error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : `must be one of ${MEDIUMS.join(', ')}`),
});

/**
 * The query of GET …/availability (strings) and the arguments of Organization.availability.
 * `at` is an ISO-8601 instant; GraphQL's DateTime scalar hands over a Date, which is accepted as is.
 */
export const availabilityQuerySchema = z.object({
  at: z.union([isoInstantSchema, z.date()], { error: 'must be an ISO-8601 instant with Z or an offset, such as 2026-03-09T13:30:00Z' }).nullable().optional(),
  medium: mediumSchema,
  phoneNumberId: uuidSchema.nullable().optional(),
});

export type AvailabilityQuery = z.input<typeof availabilityQuerySchema>;

/** Availability of an organization at `query.at` (default: now). Scope office-hours:read. */
export async function getAvailability(deps: DomainDeps, actor: Actor, orgId: string, query: unknown): Promise<Availability> {
  const { db } = deps;
  const parsed = parseInput(availabilityQuerySchema, query ?? {});
  requireScope(actor, 'office-hours:read');
  const org = await loadReachableOrganization(deps, actor, orgId);
  const at = parsed.at == null ? deps.clock() : parsed.at instanceof Date ? parsed.at : isoInstantToDate(parsed.at);

  const [officeHours, closures, templates, phoneNumber] = await Promise.all([
    loadDaySchedules(db, org.id),
    db.closure.findMany({ where: { orgId: org.id } }),
    db.workflowTemplate.findMany({
      where: { orgId: org.id },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, applicableMediums: true, officeHoursAvailability: true },
    }),
    parsed.phoneNumberId == null
      ? Promise.resolve(null)
      : db.phoneNumber.findFirst({
          where: { id: parsed.phoneNumberId.toLowerCase(), orgId: org.id },
          select: { customGreeting: true, customClosedGreeting: true },
        }),
  ]);
  // a phone number of another organization is not found, exactly like a missing one
  if (parsed.phoneNumberId != null && phoneNumber === null) throw new NotFound('Phone number');

  return computeAvailability({
    at,
    timezone: org.timezone,
    medium: parsed.medium,
    officeHours,
    closures,
    templates,
    phoneNumber,
  });
}
