// The GraphQL side of idempotency keys (idempotency/idempotentRequests.ts). A POST /graphql whose
// operation is a mutation and that carries `Idempotency-Key` is "the same request" when the operation
// (the document as printed, and the operation name) and the variables agree; its first HTTP answer is
// replayed with `Idempotent-Replayed: true`. Queries and subscriptions change nothing, so a key sent
// with them is ignored, as on GET and DELETE of /v1.
import { getOperationAST, type OperationDefinitionNode, parse, print } from 'graphql';
import type { AppDeps } from '../deps.js';
import type { Actor } from '../domain/access.js';
import { DomainError, InvalidInput } from '../domain/errors.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import { answerIdempotently } from '../idempotency/idempotentRequests.js';
import { IDEMPOTENCY_KEY_HEADER, ORIGINAL_REQUEST_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from '../idempotency/key.js';
import { authenticateBearer } from '../auth/authentication.js';
import { GRAPHQL_LIMITS } from './abuseLimits.js';
import { domainErrorExtensions, withRequestId } from './errors.js';

/** Runs the operation through yoga; `actor` is the caller when it was authenticated already (counted once). */
export type ForwardToYoga = (actor?: Promise<Actor>) => Promise<Response>;

interface MutationRequest {
  document: string;
  operationName: string | null;
  variables: unknown;
}

/** The mutation a JSON GraphQL body asks for, or undefined for anything else (yoga answers it as usual). */
function mutationOf(body: unknown): MutationRequest | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { query, operationName, variables } = body as Record<string, unknown>;
  if (typeof query !== 'string') return undefined;
  let operation: OperationDefinitionNode | null | undefined;
  try {
    // the same token bound as graphql-armor's, so that this early parse cannot be used to exhaust the CPU
    operation = getOperationAST(parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens }), typeof operationName === 'string' ? operationName : undefined);
  } catch {
    return undefined; // a syntax error: yoga reports it
  }
  if (operation?.operation !== 'mutation') return undefined;
  return { document: print(parse(query)), operationName: typeof operationName === 'string' ? operationName : null, variables: variables ?? null };
}

/** A GraphQL error answer made outside yoga (a bad key, 409, 422): the same `extensions` as inside. */
export function graphQLErrorResponse(error: DomainError, requestId: string | undefined): Response {
  const { http, ...extensions } = domainErrorExtensions(error) as { http?: { status?: number; headers?: Record<string, string> } };
  return new Response(JSON.stringify({ errors: [{ message: error.message, extensions: withRequestId(extensions, requestId) }] }), {
    status: http?.status ?? 400,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...http?.headers },
  });
}

const RETRYABLE_CODES = new Set(['RATE_LIMITED', 'INTERNAL_SERVER_ERROR']);

/**
 * A GraphQL answer that is only errors of the moment (rate limited, internal) with no mutation done is
 * not replayed, whatever its HTTP status: a retry must run again. An answer where some mutation field
 * produced data is kept (running it again would repeat what it did).
 */
export function onlyRetryableErrors(body: string): boolean {
  let result: { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
  try {
    result = JSON.parse(body);
  } catch {
    return false;
  }
  const errors = result.errors ?? [];
  if (errors.length === 0 || !errors.some((e) => RETRYABLE_CODES.has(e.extensions?.code ?? ''))) return false;
  return Object.values(result.data ?? {}).every((value) => value === null);
}

/** A POST /graphql as read: its headers and its body (bounded, already read). */
export interface GraphQLPost {
  headers: Headers;
  bodyText: string;
}

/** Answers a POST /graphql (its body already read and bounded), with idempotency for keyed mutations. */
export async function answerGraphQLPost(deps: AppDeps, post: GraphQLPost, clientAddress: string, forward: ForwardToYoga): Promise<Response> {
  const request = post;
  const header = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (header === null) return forward();
  let body: unknown;
  try {
    body = JSON.parse(post.bodyText);
  } catch {
    if (!(request.headers.get('content-type') ?? '').includes('json')) {
      return graphQLErrorResponse(InvalidInput.of(IDEMPOTENCY_KEY_HEADER, 'is accepted on GraphQL requests with a JSON body (application/json)'), deps.requestId);
    }
    return forward(); // malformed JSON: yoga reports it
  }
  const mutation = mutationOf(body);
  if (!mutation) return forward();

  try {
    const key = parseIdempotencyKey(header)!;
    const actor = authenticateBearer(deps, request.headers.get('authorization'), clientAddress);
    const owner = await actor.catch(() => undefined);
    // not authenticated: yoga answers the error (the failed attempt was counted once, here)
    if (!owner) return forward(actor);
    let first: { response: Response; text: string } | undefined;
    const outcome = await answerIdempotently(
      deps,
      {
        ownerOrgId: owner.orgId,
        key,
        fingerprint: requestFingerprint({ method: 'POST', path: '/graphql', ...mutation }),
        request: `POST /graphql mutation ${mutation.operationName ?? '(anonymous)'}`,
      },
      async () => {
        const response = await forward(actor);
        const text = await response.text();
        const captured = { status: response.status, body: text, contentType: response.headers.get('content-type') ?? 'application/json', retryable: onlyRetryableErrors(text) };
        first = { response, text };
        return captured;
      },
    );
    if (!outcome.replayed) {
      // the first answer goes out as yoga made it (its headers included)
      return new Response(first!.text, { status: first!.response.status, headers: first!.response.headers });
    }
    return new Response(outcome.response.body, {
      status: outcome.response.status,
      headers: { 'Content-Type': outcome.response.contentType, [REPLAYED_HEADER]: 'true', [ORIGINAL_REQUEST_HEADER]: outcome.originalRequestId },
    });
  } catch (err) {
    if (err instanceof DomainError) return graphQLErrorResponse(err, deps.requestId);
    throw err;
  }
}