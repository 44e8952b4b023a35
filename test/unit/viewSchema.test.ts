// viewSchema ties a documented response schema to its view type at compile time: `npm run typecheck`
// fails on each @ts-expect-error below that stops being an error.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { viewSchema } from '../../src/domain/shared/viewSchema.js';

type View = { id: string; note: string | null; tags: string[] };

it('accepts a schema of exactly the view type, and (at compile time) no other', () => {
  const schema = viewSchema<View>()(z.object({ id: z.uuid(), note: z.string().nullable(), tags: z.array(z.string()) }));
  expect(schema.safeParse({ id: '0b8e9a3c-5d2f-4e61-8a7b-3c9d1e2f4a50', note: null, tags: [] }).success).toBe(true);
  // @ts-expect-error a field the view type does not have
  viewSchema<View>()(z.object({ id: z.uuid(), note: z.string().nullable(), tags: z.array(z.string()), extra: z.int() }));
  // @ts-expect-error a field of the view type missing
  viewSchema<View>()(z.object({ id: z.uuid(), tags: z.array(z.string()) }));
  // @ts-expect-error not nullable where the view type is
  viewSchema<View>()(z.object({ id: z.uuid(), note: z.string(), tags: z.array(z.string()) }));
});
