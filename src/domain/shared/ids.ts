// Identifiers are UUIDs (spec §2). A malformed id in a path or argument is a 400 naming the field.
import { z } from 'zod';
import { InvalidInput } from './errors.js';

export const uuidSchema = z.uuid({ message: 'must be a UUID' });

export function uuidParam(field: string, value: unknown): string {
  const result = uuidSchema.safeParse(value);
  if (!result.success) throw InvalidInput.of(field, 'must be a UUID');
  return result.data.toLowerCase();
}
