// The HTTP answer of one executed operation (a regular result, not a stream) by the GraphQL-over-HTTP
// rules graphql-yoga applies (its `processRegularResult`): the status (200, or what the result's and its
// errors' `extensions.http` ask for; 200 for errors the client caused when it accepts only the legacy
// `application/json`; 500 for an unexpected error without data), the headers the extensions name, and the
// body without those internal extensions. Written here as status, headers and text, so that the prepared
// path can answer straight on node:http without building a fetch Response (overHttp.ts); the parity suite
// (test/api/graphqlPaths.parity.test.ts) holds it to yoga's answers for the same results.
import { type ExecutionResult, GraphQLError } from 'graphql';
import { stringifyInSlices } from '../http/slicedJson.js';

export type PlainMediaType = 'application/json' | 'application/graphql-response+json';

export interface RegularAnswer {
  status: number;
  /** As yoga names them (`Content-Type`, and the extensions' own); the transport adds its headers. */
  headers: Record<string, string>;
  body: string;
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  spec?: boolean;
}

const httpOf = (extensions: Readonly<Record<string, unknown>> | undefined) => extensions?.http as HttpExtension | undefined;

/** yoga's `isOriginalGraphQLError`: a GraphQL error all the way down (raised by GraphQL itself, not wrapping a throw). */
function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null ? true : isOriginalGraphQLError(error.originalError);
}

export async function regularAnswer(
  result: ExecutionResult & { stringify?: (value: unknown) => string },
  mediaType: PlainMediaType,
): Promise<RegularAnswer> {
  const headers: Record<string, string> = { 'Content-Type': `${mediaType}; charset=utf-8` };
  const errors = result.errors;
  // prefer 200 only when the client accepts application/json and every error is a GraphQL error
  const legacyJson =
    mediaType === 'application/json' &&
    !!errors?.length &&
    errors.some((e) => e instanceof GraphQLError) &&
    errors.some((e) => !e.extensions?.originalError || e.extensions.originalError instanceof GraphQLError);
  let status: number | undefined;
  const resultHttp = httpOf(result.extensions);
  if (resultHttp?.headers) Object.assign(headers, resultHttp.headers);
  if (resultHttp?.status) status = resultHttp.status;
  let unexpected = false;
  if (errors?.length) {
    for (const error of errors) {
      const http = httpOf(error.extensions);
      if (http) {
        if (http.headers) Object.assign(headers, http.headers);
        if (legacyJson && http.spec) continue;
        if (http.status && (!status || http.status > status)) status = http.status;
      } else if (!isOriginalGraphQLError(error) || error.extensions?.unexpected) {
        unexpected = true;
      }
    }
  } else {
    status ||= 200;
  }
  status ||= unexpected && !('data' in result) ? 500 : 200;
  // a large result is written in slices, so that other requests are not held while it is (http/slicedJson.ts)
  const clean = withoutInternals(result);
  return { status, headers, body: result.stringify ? result.stringify(clean) : await stringifyInSlices(clean) };
}

/** The result as the client sees it: no `http` in the extensions of the result or of its errors, no `unexpected`. */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length && !result.extensions?.http) return result;
  const out: ExecutionResult = { ...result };
  if (out.errors) out.errors = out.errors.map(errorWithoutInternals);
  if (out.extensions) {
    const { http: _http, ...extensions } = out.extensions;
    out.extensions = Object.keys(extensions).length ? extensions : undefined;
  }
  return out;
}

function errorWithoutInternals(error: GraphQLError): GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const { http: _http, unexpected: _unexpected, ...extensions } = error.toJSON().extensions ?? {};
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ? errorWithoutInternals(error.originalError as GraphQLError) : undefined,
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}
