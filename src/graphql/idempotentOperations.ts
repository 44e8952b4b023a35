// The GraphQL side of idempotency keys (idempotency/idempotentRequests.ts). A POST /graphql whose
// operation is a mutation and that carries `Idempotency-Key` is "the same request" when the operation
// (the document as printed, and the operation name) and the variables agree; its first HTTP answer is
// replayed with `Idempotent-Replayed: true`. Queries and subscriptions change nothing, so a key sent
// with them is ignored, as on GET and DELETE of /v1.
//
// The scopes of the mutation's root fields (MUTATION_SCOPES) are checked before the key is claimed or
// replayed: a credential that may not run the mutation gets FORBIDDEN, unstored and without running any
// of it, and never another credential's stored answer. What a mutation's answer shows of a secret (an
// API key, a client secret, a signing secret: secretAnswers.ts) is withheld from what is stored and
// replayed: the secret is shown once.
import {
  type DocumentNode,
  getOperationAST,
  Kind,
  OperationTypeNode,
  type OperationDefinitionNode,
  parse,
  print,
  type SelectionSetNode,
} from 'graphql';
import type { GraphQLDeps } from './deps.js';
import type { Actor, Scope } from '../domain/shared/access.js';
import { DomainError, Forbidden, InvalidInput } from '../domain/shared/errors.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import { answerIdempotently, type CapturedResponse, credentialOf, MAX_STORED_BODY_BYTES } from '../idempotency/idempotentRequests.js';
import { IDEMPOTENCY_KEY_HEADER, ORIGINAL_REQUEST_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from '../idempotency/key.js';
import { authenticateBearer } from '../auth/authentication.js';
import { GRAPHQL_LIMITS } from './abuseLimits.js';
import { domainErrorExtensions, withRequestId } from './errors.js';
import { schema } from './schema/index.js';
import { type SecretPaths, secretPathsOf, withholdSecrets } from './secretAnswers.js';

/** Runs the operation through yoga; `actor` is the caller when it was authenticated already (counted once). */
export type ForwardToYoga = (actor?: Promise<Actor>) => Promise<Response>;

/**
 * The scope each mutation field requires: the domain function its resolver calls checks it again (and
 * the schema's description names it); a test keeps this map equal to the Mutation type's fields.
 */
export const MUTATION_SCOPES: Readonly<Record<string, Scope>> = {
  attachPhoneNumber: 'phone-numbers:write',
  updatePhoneNumber: 'phone-numbers:write',
  registerPhoneNumber: 'phone-numbers:write',
  detachPhoneNumber: 'phone-numbers:write',
  deletePhoneNumber: 'phone-numbers:write',
  createBot: 'bots:write',
  updateBot: 'bots:write',
  deleteBot: 'bots:write',
  importWorkflows: 'templates:write',
  replaceBotWorkflows: 'bots:write',
  createClosure: 'closures:write',
  updateClosure: 'closures:write',
  deleteClosure: 'closures:write',
  createTemplate: 'templates:write',
  updateTemplate: 'templates:write',
  deleteTemplate: 'templates:write',
  updateOrganization: 'organizations:write',
  createLocation: 'organizations:write',
  disableOrganization: 'organizations:write',
  archiveOrganization: 'organizations:write',
  unarchiveOrganization: 'organizations:write',
  enableOrganization: 'organizations:write',
  setOfficeHours: 'office-hours:write',
  createInsurance: 'insurances:write',
  updateInsurance: 'insurances:write',
  deleteInsurance: 'insurances:write',
  createWebhookEndpoint: 'webhooks:write',
  updateWebhookEndpoint: 'webhooks:write',
  deleteWebhookEndpoint: 'webhooks:write',
  rotateWebhookSecret: 'webhooks:write',
  testWebhookEndpoint: 'webhooks:write',
  retryWebhookDelivery: 'webhooks:write',
  replayWebhookDeliveries: 'webhooks:write',
  setWeeklyHours: 'office-hours:write',
  createSpecialHours: 'office-hours:write',
  updateSpecialHours: 'office-hours:write',
  deleteSpecialHours: 'office-hours:write',
  createApiKey: 'credentials:write',
  rollApiKey: 'credentials:write',
  revokeApiKey: 'credentials:write',
  createOAuthClient: 'credentials:write',
  rotateOAuthClientSecret: 'credentials:write',
  setOAuthClientScopes: 'credentials:write',
  revokeOAuthClient: 'credentials:write',
  createCallRequest: 'call-requests:write',
  cancelCallRequest: 'call-requests:write',
  claimCallRequests: 'calls:dispatch',
  claimCalls: 'calls:dispatch',
  setCallingPolicy: 'organizations:write',
  setRetention: 'organizations:write',
  setRedactionPolicy: 'organizations:write',
  addSuppression: 'call-requests:write',
  addSuppressions: 'call-requests:write',
  createCallBatch: 'call-requests:write',
  cancelCallBatch: 'call-requests:write',
  removeSuppression: 'call-requests:write',
  heartbeatCallRequest: 'calls:dispatch',
  startCallRequest: 'calls:dispatch',
  completeCallRequest: 'calls:dispatch',
  failCallRequest: 'calls:dispatch',
  createConversation: 'conversations:write',
  addConversationMessage: 'conversations:write',
  endConversation: 'conversations:write',
  createErasureRequest: 'erasure:write',
};

interface MutationRequest {
  document: string;
  operationName: string | null;
  variables: unknown;
  /** The root fields it selects (through fragments too), by name. */
  rootFields: Set<string>;
  /** Where its answer shows a secret; undefined when it shows none. */
  secretPaths: SecretPaths | undefined;
}

/** Field names of a selection set, through inline fragments and fragment spreads (each fragment once). */
function rootFieldsOf(
  selectionSet: SelectionSetNode,
  document: DocumentNode,
  into = new Set<string>(),
  seen = new Set<string>(),
): Set<string> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) into.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) rootFieldsOf(selection.selectionSet, document, into, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) rootFieldsOf(fragment.selectionSet, document, into, seen);
    }
  }
  return into;
}

/** The scopes `fields` require that `actor` lacks. */
function missingScopes(actor: Actor, fields: Iterable<string>): Scope[] {
  const missing = new Set<Scope>();
  for (const field of fields) {
    const scope = MUTATION_SCOPES[field];
    if (scope && !actor.scopes.has(scope)) missing.add(scope);
  }
  return [...missing];
}

/** The mutation a JSON GraphQL body asks for, or undefined for anything else (yoga answers it as usual). */
function mutationOf(body: unknown): MutationRequest | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { query, operationName, variables } = body as Record<string, unknown>;
  if (typeof query !== 'string') return undefined;
  let operation: OperationDefinitionNode | null | undefined;
  let document: DocumentNode;
  try {
    // the same token bound as graphql-armor's, so that this early parse cannot be used to exhaust the CPU
    document = parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
  } catch {
    return undefined; // a syntax error: yoga reports it
  }
  if (operation?.operation !== OperationTypeNode.MUTATION) return undefined;
  return {
    document: print(document),
    operationName: typeof operationName === 'string' ? operationName : null,
    variables: variables ?? null,
    rootFields: rootFieldsOf(operation.selectionSet, document),
    secretPaths: secretPathsOf(schema, document, operation),
  };
}

/**
 * A GraphQL answer as a replay shows it: each secret it showed null and `secretShownOnce` true. An answer
 * showing a secret in a form other than one JSON result (an event stream, a multipart answer) is kept as
 * an error saying the mutation was done instead, never as it is.
 */
export function graphQLReplayOf(response: CapturedResponse, paths: SecretPaths | undefined, requestId: string): CapturedResponse {
  if (!paths) return response;
  let result: { data?: unknown } | undefined;
  if (/json/i.test(response.contentType)) {
    try {
      result = JSON.parse(response.body) as { data?: unknown };
    } catch {
      result = undefined;
    }
  }
  if (!result || typeof result !== 'object') {
    const message = `Done by request ${requestId}; its answer showed a secret, which is shown only once: query the result to see the rest`;
    return {
      status: response.status,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ data: null, errors: [{ message, extensions: { code: 'REPLAY_WITHHELD', requestId } }] }),
    };
  }
  withholdSecrets(result.data, paths);
  return { ...response, body: JSON.stringify(result) };
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
    result = JSON.parse(body) as typeof result;
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
export async function answerGraphQLPost(
  deps: GraphQLDeps,
  post: GraphQLPost,
  clientAddress: string,
  forward: ForwardToYoga,
): Promise<Response> {
  const request = post;
  const header = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (header === null) return forward();
  let body: unknown;
  try {
    body = JSON.parse(post.bodyText);
  } catch {
    if (!(request.headers.get('content-type') ?? '').includes('json')) {
      return graphQLErrorResponse(
        InvalidInput.of(IDEMPOTENCY_KEY_HEADER, 'is accepted on GraphQL requests with a JSON body (application/json)'),
        deps.requestId,
      );
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
    const missing = missingScopes(owner, mutation.rootFields);
    if (missing.length > 0) {
      const refusal = graphQLErrorResponse(new Forbidden(`This credential lacks the scope ${missing.join(', ')}`), deps.requestId);
      return new Response(refusal.body, { status: 403, headers: refusal.headers });
    }
    let first: { response: Response; text: string } | undefined;
    const outcome = await answerIdempotently(
      deps,
      {
        ownerOrgId: owner.orgId,
        credential: credentialOf(owner),
        key,
        fingerprint: requestFingerprint({
          method: 'POST',
          path: '/graphql',
          document: mutation.document,
          operationName: mutation.operationName,
          variables: mutation.variables,
          rootFields: mutation.rootFields,
        }),
        request: `POST /graphql mutation ${mutation.operationName ?? '(anonymous)'}`,
        forReplay: (response, requestId) => graphQLReplayOf(response, mutation.secretPaths, requestId),
        tooLargeToStore: (response, requestId) => ({
          status: response.status,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify({
            data: null,
            errors: [
              {
                message: `Done by request ${requestId}; its answer (${Buffer.byteLength(response.body)} bytes) is larger than a replay keeps (${MAX_STORED_BODY_BYTES} bytes): query the result to see it`,
                extensions: { code: 'REPLAY_TOO_LARGE', requestId },
              },
            ],
          }),
        }),
      },
      async () => {
        const response = await forward(actor);
        const text = await response.text();
        const captured = {
          status: response.status,
          body: text,
          contentType: response.headers.get('content-type') ?? 'application/json',
          retryable: onlyRetryableErrors(text),
        };
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
      headers: {
        'Content-Type': outcome.response.contentType,
        [REPLAYED_HEADER]: 'true',
        [ORIGINAL_REQUEST_HEADER]: outcome.originalRequestId,
      },
    });
  } catch (err) {
    if (err instanceof DomainError) return graphQLErrorResponse(err, deps.requestId);
    throw err;
  }
}
