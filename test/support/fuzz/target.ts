// A fuzz target: one operation (a REST route, a GraphQL root field, the token endpoint …) and the
// arbitrary of the requests fuzzed against it.
import fc from 'fast-check';
import type { FuzzRequest } from './request.js';

export interface FuzzTarget {
  /** "POST /v1/organizations/{orgId}/closures", "Mutation.createClosure", "POST /oauth/token", "unknown paths" */
  name: string;
  surface: 'rest' | 'graphql' | 'other';
  /** Whether a successful answer may change the database. */
  writes: boolean;
  request: fc.Arbitrary<FuzzRequest>;
}

/** undefined five times out of six, else a value. */
export const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary, weight: 1 });
