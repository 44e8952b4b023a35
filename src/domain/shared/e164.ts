// A phone number as the service keeps it: E.164, in one canonical spelling (call destinations, caller ids,
// forwarding numbers).
import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from 'zod';

/**
 * An E.164 number (`+` and 8 to 15 digits) that libphonenumber-js knows as a valid number, kept in its one
 * canonical spelling: `+4402079460000` (a trunk 0 after the country code) is `+442079460000`, as the
 * suppression list stores it, so that no spelling of a listed number escapes the list.
 */
export const e164Schema = z
  .string({ error: 'must be a phone number in E.164 form, e.g. +14155552671' })
  .regex(/^\+[1-9]\d{6,14}$/, { error: 'must be a phone number in E.164 form, e.g. +14155552671', abort: true })
  .refine((n) => isValidPhoneNumber(n), { error: 'is not a valid phone number (no such number plan)', abort: true })
  .transform((n) => parsePhoneNumberFromString(n)!.number);
