// GraphQL enums shared by several type modules. Each helper appends its enums here; import them
// from this file rather than declaring the same GraphQL name twice.
import { builder } from '../builder.js';

export const DAYS_OF_WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export const MEDIUMS = ['CHAT', 'PHONE', 'GHL', 'SMS'] as const;

export const DayOfWeekEnum = builder.enumType('DayOfWeek', {
  description: "A day of the week; office hours are kept per day, in the organization's timezone.",
  values: DAYS_OF_WEEK,
});

export const MediumEnum = builder.enumType('Medium', {
  description: 'A conversation type: CHAT, PHONE, GHL or SMS.',
  values: MEDIUMS,
});

export const OFFICE_HOURS_AVAILABILITIES = ['OPEN', 'CLOSED'] as const;

export const OfficeHoursAvailabilityEnum = builder.enumType('OfficeHoursAvailability', {
  description: 'When a template can be used: OPEN = during office hours; CLOSED = outside office hours (null = any time).',
  values: OFFICE_HOURS_AVAILABILITIES,
});
