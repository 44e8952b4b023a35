// A view type (what a domain function answers) and the zod schema that documents it (the `data` of a
// REST answer in the OpenAPI document) are written side by side in each domain module. `viewSchema`
// ties them together at compile time: it accepts a schema only when the values it describes are exactly
// the view type's, so a field added to one and not the other breaks `npm run typecheck`. (At run time,
// every REST answer of the test suite is validated against the document, which catches the rest.)
import { z } from 'zod';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** `viewSchema<ClosureView>()(z.object({…}))`: the schema, checked against the view type. */
export function viewSchema<View>() {
  return <S extends z.ZodType>(
    schema: S & (Same<z.output<S>, View> extends true ? unknown : { 'the schema does not describe the view type': never }),
  ): S => schema;
}

/** An instant as answered: UTC ISO 8601 (`Date.toISOString()`). */
export const instantView = () => z.iso.datetime().describe('UTC instant, ISO 8601');

/** The `pagination` of a list paged by cursor: the page size, and the `cursor` of the next page. */
export const cursorPaginationView = () =>
  z.object({
    limit: z.int(),
    nextCursor: z.string().nullable().describe('The `cursor` of the next page; null on the last page.'),
  });
