// The shapes of the answers tests read, so that a test names what it expects instead of reading `any`. The
// /v1 schemas come from the OpenAPI document the service serves (test/generated/openapi.ts, written by
// `npm run openapi:types`); GraphQL errors are written here, as the service answers them.
import type { components } from '../generated/openapi.js';

export type Schemas = components['schemas'];

/** One item of a GraphQL answer's `errors`. */
export interface GraphQLErrorItem {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; issues?: { path: string; message: string }[]; retryAfter?: number };
}
