// The OpenAPI 3.1 document of every /v1 route, generated from the route registry (rest/routes): the
// paths and methods, the domain's zod schemas (as JSON Schema: the input side for bodies and queries,
// the output side for each route's `response`), the envelope around every answer, the 4xx statuses each
// route can answer, the bearer credentials and each operation's scope; plus the OAuth token endpoint
// (openapiServicePaths.ts) and examples from the demo data set (openapiExamples.ts). Nothing is written
// by hand per /v1 route, and the test harness validates every REST answer of the suite against this
// document, so it cannot drift from what the app serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../domain/shared/access.js';
import { ERROR_CATALOGUE, REST_ERROR_CODES, restCodesOfStatus } from '../domain/shared/errorCodes.js';
import { projectRoot } from '../projectRoot.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_METHODS } from '../idempotency/key.js';
import { REQUEST_ID_PATTERN } from '../http/requestContext.js';
import type { RouteDef } from './route.js';
import { MAX_BODY_BYTES } from '../http/body.js';
import { CONDITIONAL_CACHE_CONTROL } from './conditionalGet.js';
import { ERROR_EXAMPLES, REQUEST_EXAMPLES, SUCCESS_EXAMPLES, SUCCESS_MESSAGES } from './openapiExamples.js';
import { SERVICE_TAGS, servicePaths } from './openapiServicePaths.js';

type JsonSchema = Record<string, unknown>;
type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

export interface OpenApiOptions {
  /** The public base URL of the service (`servers`); relative ("the host that served the document") when unset. */
  serverUrl?: string;
}

/** What each tag of the route registry groups (Redocly's `tag-description`); a route with another tag is an error. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Organizations:
    'Organizations (business locations such as clinics) and their account organization; switching calls, chats and SMS off and on.',
  Closures: 'One-time (timed) and annual closures; a closure overrides the office hours and breaks of its time.',
  'Office hours': "Weekly office hours, one record per day, with recurring breaks, in the organization's timezone.",
  Availability: 'The rules put to work: the state, greeting and usable templates at an instant, and when that next changes.',
  Templates: "Workflow templates of the credential owner's organization; `version` grows when the workflow definition changes.",
  Bots: 'The AI agents that answer phones, SMS and chats for an organization.',
  Workflows: "A bot's workflows in the portable export form, and their import into another bot.",
  'Phone numbers': "An organization's phone numbers, their greetings and the bot each one is attached to.",
  Insurances: 'Which insurances an organization accepts, and on what terms.',
  Calls: 'Calls placed by integrators: queued, in_progress, then completed, failed, canceled or expired; polled, listed and canceled.',
  Dispatch:
    'The agent runtime (scope calls:dispatch): claims due calls under a lease, keeps it with heartbeats, starts them and reports the outcome.',
  Conversations: 'The conversations the agents had, newest first, one page at a time.',
  Webhooks: 'Endpoints that receive events as signed POSTs (Standard Webhooks), retried until delivered; their deliveries.',
  Credentials:
    'API keys and OAuth clients of an organization: create (restricted to scopes, expiring), list (keys masked), roll or rotate ' +
    'with an overlap, change scopes, revoke. Scope `credentials:write`, and a credential grants and manages only what it holds ' +
    'itself: scopes it holds, and a full key only from a full key.',
  Events: 'Every change made through the API, recorded with the change: the event log and audit trail (who changed what, when).',
  'Access log':
    'Who read which transcript: one entry per answer holding transcript text, written before the text is read; append-only and ' +
    'hash-chained per organization, with a verification of any range. Scope `access-log:read`.',
  Erasure:
    "A patient's data erased on request (a phone number, a conversation or a call request), by a durable job in bounded " +
    'batches, with its progress and counts. Scope `erasure:write`.',
  Retention:
    'How long an organization keeps transcripts, conversations, call requests, events, webhook deliveries and request logs; ' +
    "an account's settings apply to its locations that set none. What is older is purged daily; the access log never is.",
  Redaction:
    'What a turn loses before it is stored: card numbers and SSNs always, e-mail addresses and phone numbers as the ' +
    "organization's policy says, and whether the words as said are kept (sealed), readable with `transcripts:read_unredacted`.",
};

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Headers of every answer, and of particular ones (components.headers). */
const headers = {
  XRequestId: {
    description: `The id of this request: the incoming \`X-Request-Id\` when it matches \`${REQUEST_ID_PATTERN.source}\`, else a new UUID. Every log line of the request carries it; quote it when reporting a problem.`,
    schema: { type: 'string' },
  },
  ETag: {
    description: 'A weak validator of the answer, derived from its data; send it back in `If-None-Match` to get 304 while nothing changed.',
    schema: { type: 'string' },
  },
  CacheControl: {
    description: `\`${CONDITIONAL_CACHE_CONTROL}\`: the answer is the caller's own, and must be revalidated (If-None-Match) before reuse.`,
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key` (absent otherwise).',
    schema: { type: 'string', enum: ['true'] },
  },
  OriginalRequest: { description: 'On a replayed answer: the `X-Request-Id` of the request that produced it.', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait.', schema: { type: 'integer' } },
};

/** Request headers every route or a group of routes takes (components.parameters). */
const parameters = {
  XRequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your id for this request (1..128 of `A-Z a-z 0-9 . _ : -`), answered in `X-Request-Id` and written in the logs; anything else is replaced by a generated id.',
    schema: { type: 'string', maxLength: 128 },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'ETags of answers you hold (or `*`); when one still matches, the answer is 304 with an empty body.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: `Makes retries safe (Stripe's semantics): the first request with a key runs; the same request with the same key within 24 hours answers the first answer again (status and body, with \`Idempotent-Replayed: true\`). The same key with a different request (method, path, query, body) is a 422; while the first is still running, a 409. Keys are 1..${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (else 400) and belong to the credential's organization. 5xx and 429 answers are not kept: a retry runs again.`,
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7e]+$' },
  },
};

/** `/v1/organizations/:orgId` → `/v1/organizations/{orgId}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Operation ids the rule below would not make readable: a POST that is an action rather than a create,
 * a GET that answers one record rather than a list, a PUT that sets a part.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /v1/bots/:botId/workflows': 'exportWorkflows',
  'GET /v1/organizations/:orgId/children': 'listChildOrganizations',
  'GET /v1/organizations/:orgId/office-hours': 'getOfficeHours',
  'POST /v1/organizations/:orgId/office-hours': 'setOfficeHoursDay',
  'PUT /v1/organizations/:orgId/office-hours': 'setOfficeHoursWeek',
  'GET /v1/organizations/:orgId/availability': 'getAvailability',
  'GET /v1/organizations/:orgId/availability/timeline': 'getAvailabilityTimeline',
  'POST /v1/dispatch/claim': 'claimCallRequests',
  'POST /v1/conversations/:conversationId/messages': 'appendConversationMessage',
  'GET /v1/webhook-endpoints/:endpointId/deliveries': 'listWebhookDeliveries',
  'POST /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry': 'retryWebhookDelivery',
  'GET /v1/webhook-endpoints/:endpointId/deliveries/:deliveryId': 'getWebhookDelivery',
  'POST /v1/webhook-endpoints/:endpointId/replays': 'replayWebhookDeliveries',
  'GET /v1/webhook-endpoints/:endpointId/replays/:replayId': 'getWebhookReplay',
  'PUT /v1/oauth-clients/:id/scopes': 'setOauthClientScopes',
  'POST /v1/erasure-requests': 'createErasureRequest',
  'POST /v1/call-batches': 'createCallBatch',
  'GET /v1/call-batches/:callBatchId/call-requests': 'listCallBatchRequests',
};

const pascal = (segment: string) =>
  segment
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** `closures` → `Closure`, `call-requests` → `CallRequest`; `special-hours` stays plural (one record is "the hours of a date"). */
function singular(segment: string): string {
  const word = pascal(segment);
  if (word.endsWith('Hours')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/**
 * A readable operation id (camelCase, unique): `listClosures`, `createClosure`, `getClosure`,
 * `updateClosure`, `deleteClosure`, and for an action after a record, the action and the record
 * (`disableOrganization`, `rotateWebhookEndpointSecret`); OPERATION_IDS names the rest. A POST to a path
 * that also answers GET creates; a POST to any other path is an action.
 */
export function operationIdOf(route: Pick<RouteDef, 'method' | 'path'>, routes: readonly Pick<RouteDef, 'method' | 'path'>[]): string {
  const named = OPERATION_IDS[`${route.method} ${route.path}`];
  if (named) return named;
  const segments = route.path.split('/').filter((s) => s && s !== 'v1');
  const last = segments.at(-1)!;
  const isParam = (s: string | undefined) => s?.startsWith(':') ?? false;
  if (isParam(last)) {
    const record = singular(segments.at(-2)!);
    const verb = { GET: 'get', DELETE: 'delete', POST: 'update', PUT: 'update', PATCH: 'update' }[route.method];
    return `${verb}${record}`;
  }
  if (route.method === 'GET') return `list${pascal(last)}`;
  const isCollection = routes.some((r) => r.method === 'GET' && r.path === route.path);
  if (isCollection) return `${route.method === 'POST' ? 'create' : 'set'}${singular(last)}`;
  // an action: `rotate-secret` on a webhook endpoint → rotateWebhookEndpointSecret
  const [verb = '', ...rest] = last.split('-');
  const owner = segments.at(-2)!;
  const object = isParam(owner) ? singular(segments.at(-3)!) : pascal(owner);
  return `${verb}${object}${pascal(rest.join('-'))}`;
}

/**
 * A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Definitions that zod puts under
 * `$defs` move to components.schemas, since a `#/$defs/…` reference would otherwise resolve against the
 * OpenAPI document's root: a schema named in the domain with `.meta({id})` (Closure, Template, …) keeps
 * its name, so every route that answers one shares one component; other (reused or recursive) parts are
 * named after the operation.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output', name: string, components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // a Date (GraphQL's DateTime, accepted beside the ISO string of a REST query) travels over HTTP as that string
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  const componentName = (key: string) => (key.startsWith('__') ? `${name}_${key}` : key);
  let selfReferenced = false;
  const rewrite = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(rewrite);
    if (!node || typeof node !== 'object') return;
    const record = node as JsonSchema;
    if (record.$ref === '#') {
      selfReferenced = true;
      record.$ref = `#/components/schemas/${name}`;
    } else if (typeof record.$ref === 'string' && record.$ref.startsWith('#/$defs/')) {
      record.$ref = `#/components/schemas/${componentName(record.$ref.slice('#/$defs/'.length))}`;
    }
    Object.values(record).forEach(rewrite);
  };
  rewrite(json);
  for (const [key, def] of Object.entries(defs)) {
    rewrite(def);
    const target = componentName(key);
    if (components[target] && JSON.stringify(components[target]) !== JSON.stringify(def)) {
      throw new Error(`OpenAPI: two different schemas are named ${target} (${io} of ${name})`);
    }
    components[target] = def;
  }
  // the schema itself named with .meta({id}): a reference to its component
  const id = typeof json.id === 'string' ? json.id : undefined;
  if (id) {
    delete json.id;
    components[id] = json;
    return ref('schemas', id);
  }
  if (!selfReferenced) return json;
  components[name] = json;
  return ref('schemas', name);
}

/** `office-hours:write` → "Write office hours" */
function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'data'],
    additionalProperties: false,
    properties: {
      success: { const: true },
      data,
      message: { type: 'string', description: 'Optional on success: what happened, e.g. "Communications disabled".' },
    },
  };
}

/** The error statuses a /v1 route can answer, with the shared response of each. */
const errorResponses: Record<string, { name: string; description: string; headers?: Record<string, unknown> }> = {
  '400': {
    name: 'BadRequest',
    description: 'The request is invalid or malformed; `message` names every invalid field and why, `errors` lists them.',
  },
  '401': {
    name: 'Unauthorized',
    description: 'The credential is missing, malformed, unknown, revoked or expired.',
    headers: { 'WWW-Authenticate': { description: '`Bearer …`', schema: { type: 'string' } } },
  },
  '403': { name: 'Forbidden', description: 'The credential is valid but lacks the scope for the operation.' },
  '404': {
    name: 'NotFound',
    description: "The resource does not exist, or is outside the caller's reach (the two are indistinguishable).",
  },
  '413': { name: 'PayloadTooLarge', description: `The body exceeds ${MAX_BODY_BYTES} bytes.` },
  '415': { name: 'UnsupportedMediaType', description: 'The body is not JSON, form-urlencoded or multipart/form-data.' },
  '429': {
    name: 'TooManyRequests',
    description:
      'The budget of the endpoint pattern (or of call-request polling, or of failed authentications from the client address) is spent; retry after `Retry-After` seconds.',
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  },
  '409': {
    name: 'Conflict',
    description: 'A request with the same `Idempotency-Key` is still being answered; retry after `Retry-After` seconds to get its answer.',
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  },
  '422': {
    name: 'UnprocessableEntity',
    description:
      'The `Idempotency-Key` was already used with a different request; the message names the key. Use a new key for a new request.',
  },
  '500': {
    name: 'InternalServerError',
    description: 'Never expected. The message names the request id (also in `X-Request-Id`) to quote when reporting it.',
  },
  '503': {
    name: 'ServiceUnavailable',
    description:
      'The service cannot take the request now: too much work is already waiting for the database, or the database did not answer in time or cannot be reached. Nothing was changed; retry after `Retry-After` seconds.',
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  },
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, UTC epoch seconds.', schema: { type: 'integer' } },
  'X-Request-Id': ref('headers', 'XRequestId'),
};

/**
 * The error statuses a route can answer: 401, 403, 429 and 503 on every route; 400 when it reads a path id
 * (a malformed UUID), a query or a body; 404 when it names a resource by id; 413 and 415 when it takes a
 * body; 409 and 422 (Idempotency-Key) on POST, PUT and PATCH; 500 (never expected, but documented with the
 * request id it names); and any status the route lists in `errors` (e.g. the 404 of a filter naming a foreign id).
 */
export function errorStatusesOf(route: Pick<RouteDef, 'method' | 'path' | 'query' | 'body' | 'errors'>): string[] {
  const hasPathId = /:[A-Za-z0-9_]+/.test(route.path);
  const takesBody = route.method !== 'GET' && route.method !== 'DELETE';
  const statuses = new Set(['401', '403', '429', '503', ...Object.keys(route.errors ?? {})]);
  if (hasPathId || route.query || route.body || takesBody) statuses.add('400');
  if (hasPathId) statuses.add('404');
  if (takesBody) statuses.add('413').add('415');
  if (IDEMPOTENT_METHODS.has(route.method)) statuses.add('409').add('422');
  statuses.add('500');
  return [...statuses].sort();
}

function operationOf(route: RouteDef, routes: readonly RouteDef[], schemas: Record<string, JsonSchema>): Record<string, unknown> {
  const id = operationIdOf(route, routes);
  const key = `${route.method} ${route.path}`;
  const parameters: Record<string, unknown>[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  if (route.query) {
    const query = jsonSchemaOf(route.query, 'input', `${id}Query`, schemas);
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  const body = route.body ? jsonSchemaOf(route.body, 'input', `${id}Body`, schemas) : undefined;
  const data = jsonSchemaOf(route.response, 'output', `${id}Response`, schemas);
  const example = !Object.hasOwn(SUCCESS_EXAMPLES, key)
    ? {}
    : route.stream
      ? { example: SUCCESS_EXAMPLES[key] }
      : { example: { success: true, data: SUCCESS_EXAMPLES[key], ...(SUCCESS_MESSAGES[key] ? { message: SUCCESS_MESSAGES[key] } : {}) } };

  const idempotent = IDEMPOTENT_METHODS.has(route.method);
  // a stream has no tag: its lines are read as they are written
  const conditional = route.method === 'GET' && !route.stream;
  const headerParameters = [
    ref('parameters', 'XRequestId'),
    ...(conditional ? [ref('parameters', 'IfNoneMatch')] : []),
    ...(idempotent ? [ref('parameters', 'IdempotencyKey')] : []),
  ];
  const successHeaders = {
    ...rateLimitHeaders,
    ...(conditional ? { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'CacheControl') } : {}),
    ...(idempotent
      ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'), 'Original-Request': ref('headers', 'OriginalRequest') }
      : {}),
  };
  const budget =
    route.budget === 'callRequestPoll'
      ? 'Draws on the per-second call-request polling budget of the credential owner, not on the per-minute budget.'
      : 'Draws on the per-minute budget of the organization for this endpoint pattern.';
  return {
    operationId: id,
    tags: [route.tag],
    summary: route.summary,
    description: [route.description, `Scope: \`${route.scope}\`.`, budget].filter(Boolean).join('\n\n'),
    security: [{ bearerAuth: [] }, { oauth2: [route.scope] }],
    parameters: [...parameters, ...headerParameters],
    ...(body
      ? {
          requestBody: {
            // a body whose every field is optional may be left out (issue 37 §1): the router answers none as `{}`
            required: route.bodyRequired === true || !route.body?.safeParse({}).success,
            content: {
              'application/json': { schema: body, ...(Object.hasOwn(REQUEST_EXAMPLES, key) ? { example: REQUEST_EXAMPLES[key] } : {}) },
              'application/x-www-form-urlencoded': { schema: body },
              'multipart/form-data': { schema: body },
            },
          },
        }
      : {}),
    responses: {
      [String(route.successStatus ?? 200)]: {
        description: idempotent
          ? (route.successStatus === 202 ? 'Accepted: the work is queued. ' : '') +
            'Success (or, with `Idempotent-Replayed: true`, the stored answer of the first request with this `Idempotency-Key`, whatever its status).'
          : 'Success.',
        headers: successHeaders,
        content: route.stream
          ? { 'application/x-ndjson': { schema: data, ...example } }
          : { 'application/json': { schema: successEnvelope(data), ...example } },
      },
      ...(conditional
        ? {
            '304': {
              description: 'Not modified: `If-None-Match` names the current ETag. No body.',
              headers: { ETag: ref('headers', 'ETag'), 'X-Request-Id': ref('headers', 'XRequestId') },
            },
          }
        : {}),
      ...Object.fromEntries(
        errorStatusesOf(route).map((status) => {
          const reason = route.errors?.[Number(status) as keyof NonNullable<RouteDef['errors']>];
          const shared = ref('responses', errorResponses[status]!.name);
          return [status, reason ? { ...shared, description: reason } : shared];
        }),
      ),
    },
  };
}

export function buildOpenApiDocument(routes: readonly RouteDef[], options: OpenApiOptions = {}): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'data', 'message', 'code'],
      additionalProperties: false,
      properties: {
        success: { const: false },
        data: { type: 'object', maxProperties: 0, description: 'Always an empty object on errors.' },
        message: { type: 'string', description: 'What went wrong, naming every invalid field and why.' },
        code: {
          type: 'string',
          enum: [...REST_ERROR_CODES],
          description:
            'What kind of error, for programs to match on (`message` is for people and may change). GraphQL answers the same kind of error with the `extensions.code` in parentheses.\n\n' +
            ERROR_CATALOGUE.filter((e) => e.rest !== null)
              .map((e) => `- \`${e.rest}\` (${e.status}${e.graphql ? `; GraphQL \`${e.graphql}\`` : ''}): ${e.when} ${e.action}`)
              .join('\n'),
        },
        errors: {
          type: 'array',
          description: 'On 400s: each invalid field and why.',
          items: {
            type: 'object',
            required: ['path', 'message'],
            additionalProperties: false,
            properties: {
              path: { type: 'string', description: 'Dotted path of the field, e.g. `annualDate.month`; "" for the whole input.' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  };
  const paths: OpenApiDocument['paths'] = {};
  // grouped by tag in TAG_DESCRIPTIONS' order (organizations first), whatever order the route files are listed in:
  // Swagger UI shows the groups in the order it meets them
  const tagOrder = Object.keys(TAG_DESCRIPTIONS);
  const byTag = [...routes].sort((a, b) => tagOrder.indexOf(a.tag) - tagOrder.indexOf(b.tag));
  for (const route of byTag) {
    if (!Object.hasOwn(TAG_DESCRIPTIONS, route.tag))
      throw new Error(`OpenAPI: the tag "${route.tag}" of ${route.method} ${route.path} has no description`);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route, routes, schemas);
  }
  Object.assign(paths, structuredClone(servicePaths));
  const tags = [...[...new Set(byTag.map((r) => r.tag))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name]! })), ...SERVICE_TAGS];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Office Communications Service',
      version: packageVersion(),
      description:
        'Office hours, closures, availability, templates, workflows, phone numbers, insurances, call requests and conversations of the organizations behind AI voice and chat agents. ' +
        'Every /v1 answer is the envelope `{success, data, message}`; an error adds a stable `code` (the ErrorEnvelope schema lists them). Bodies may be JSON, form-urlencoded or multipart/form-data. ' +
        'The same operations exist in GraphQL at `/graphql`. ' +
        'Every answer carries `X-Request-Id`. GET answers carry a weak `ETag` (send `If-None-Match` to get 304 while nothing changed). ' +
        'POST, PUT and PATCH accept an `Idempotency-Key` that makes retries safe. `GET /v1/conversations` pages by `offset` or by `cursor` (`pagination.nextCursor`).',
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      options.serverUrl
        ? { url: options.serverUrl, description: 'This deployment (the origin of its OAuth audience).' }
        : { url: '/', description: 'The host that serves this document.' },
    ],
    tags,
    security: [{ bearerAuth: [] }, { oauth2: [] }],
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([status, { name, ...r }]) => [
          name,
          {
            ...r,
            headers: { ...r.headers, 'X-Request-Id': ref('headers', 'XRequestId') },
            content: {
              'application/json': {
                // the codes this status is answered with (the catalogue's), on top of the envelope
                schema: {
                  allOf: [
                    ref('schemas', 'ErrorEnvelope'),
                    { type: 'object', properties: { code: { enum: restCodesOfStatus(Number(status)) } } },
                  ],
                },
                example: { success: false, data: {}, ...ERROR_EXAMPLES[status] },
              },
            },
          },
        ]),
      ),
      headers,
      parameters,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`svc-sk-v2-…`, every scope) or an OAuth access token from `POST /oauth/token`.',
        },
        oauth2: {
          type: 'oauth2',
          description: 'Client credentials; the token request also names the service `audience`. Send the token as a bearer token.',
          flows: {
            clientCredentials: { tokenUrl: '/oauth/token', scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])) },
          },
        },
      },
    },
  };
}

/** The version in package.json, read (not copied) so that the document names the release that serves it. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The public base URL of the service, from its OAuth audience (`https://api.example.com/v1` → `https://api.example.com`); undefined when the audience is not an http(s) URL. */
export function serverUrlFromAudience(audience: string): string | undefined {
  if (!/^https?:\/\//i.test(audience)) return undefined;
  try {
    const url = new URL(audience);
    return `${url.origin}${url.pathname.replace(/\/v1\/?$/, '').replace(/\/$/, '')}`;
  } catch {
    return undefined;
  }
}
