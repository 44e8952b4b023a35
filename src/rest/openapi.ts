// The OpenAPI 3.1 document of every /v1 route, generated from the route registry (rest/routes): the
// paths and methods, the domain's zod schemas (as JSON Schema, the input side for bodies and queries),
// the envelope around every answer, the errors, the bearer credentials and each operation's scope.
// Nothing here is written by hand per route, so the document cannot drift from what the app serves.
import { z } from 'zod';
import { SCOPES } from '../domain/access.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_METHODS } from '../idempotency/key.js';
import { REQUEST_ID_PATTERN } from '../requestContext.js';
import type { RouteDef } from './route.js';
import { MAX_BODY_BYTES } from './body.js';
import { CONDITIONAL_CACHE_CONTROL } from './conditionalGet.js';

type JsonSchema = Record<string, unknown>;
type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Headers of every answer, and of particular ones (components.headers). */
const headers = {
  XRequestId: {
    description: `The id of this request: the incoming \`X-Request-Id\` when it matches \`${REQUEST_ID_PATTERN.source}\`, else a new UUID. Every log line of the request carries it; quote it when reporting a problem.`,
    schema: { type: 'string' },
  },
  ETag: { description: 'A weak validator of the answer, derived from its data; send it back in `If-None-Match` to get 304 while nothing changed.', schema: { type: 'string' } },
  CacheControl: { description: `\`${CONDITIONAL_CACHE_CONTROL}\`: the answer is the caller's own, and must be revalidated (If-None-Match) before reuse.`, schema: { type: 'string' } },
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
    description: 'Your id for this request (1..128 of `A-Z a-z 0-9 . _ : -`), answered in `X-Request-Id` and written in the logs; anything else is replaced by a generated id.',
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
    description:
      `Makes retries safe (Stripe's semantics): the first request with a key runs; the same request with the same key within 24 hours answers the first answer again (status and body, with \`Idempotent-Replayed: true\`). The same key with a different request (method, path, query, body) is a 422; while the first is still running, a 409. Keys are 1..${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (else 400) and belong to the credential's organization. 5xx and 429 answers are not kept: a retry runs again.`,
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7e]+$' },
  },
};

/** `/v1/organizations/:orgId` → `/v1/organizations/{orgId}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `GET /v1/organizations/:orgId/closures` → `getOrganizationsByOrgIdClosures` */
function operationId(route: RouteDef): string {
  const words = route.path
    .split('/')
    .filter((s) => s && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `By-${s.slice(1)}` : s))
    .join('-')
    .split(/[-_]/)
    .filter(Boolean);
  return route.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Definitions that zod puts under
 * `$defs` (reused or recursive parts) move to components.schemas, since a `#/$defs/…` reference would
 * otherwise resolve against the OpenAPI document's root.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output', name: string, components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  let selfReferenced = false;
  const rewrite = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(rewrite);
    if (!node || typeof node !== 'object') return;
    const record = node as JsonSchema;
    if (record.$ref === '#') {
      selfReferenced = true;
      record.$ref = `#/components/schemas/${name}`;
    } else if (typeof record.$ref === 'string' && record.$ref.startsWith('#/$defs/')) {
      record.$ref = `#/components/schemas/${name}_${record.$ref.slice('#/$defs/'.length)}`;
    }
    Object.values(record).forEach(rewrite);
  };
  rewrite(json);
  for (const [key, def] of Object.entries(defs)) {
    rewrite(def);
    components[`${name}_${key}`] = def;
  }
  if (!selfReferenced) return json;
  components[name] = json;
  return ref('schemas', name);
}

/** `office-hours:write` → "Write office hours" */
function scopeDescription(scope: string): string {
  const [resource = '', access = ''] = scope.split(':');
  return `${access === 'write' ? 'Write' : 'Read'} ${resource.replace(/-/g, ' ')}`;
}

function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: {
      success: { const: true },
      data,
      message: { type: 'string', description: 'Optional on success: what happened, e.g. "Communications disabled".' },
    },
  };
}

const errorResponses: Record<string, { description: string; headers?: Record<string, unknown> }> = {
  BadRequest: { description: 'The request is invalid or malformed; `message` names every invalid field and why, `errors` lists them.' },
  Unauthorized: {
    description: 'The credential is missing, malformed, unknown, revoked or expired.',
    headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
  },
  Forbidden: { description: 'The credential is valid but lacks the scope for the operation (or the operation is refused).' },
  NotFound: { description: "The resource does not exist, or is outside the caller's reach (the two are indistinguishable)." },
  MethodNotAllowed: {
    description: 'The path exists but not with this method.',
    headers: { Allow: { description: 'The methods the path answers.', schema: { type: 'string' } } },
  },
  PayloadTooLarge: { description: `The body exceeds ${MAX_BODY_BYTES} bytes.` },
  UnsupportedMediaType: { description: 'The body is not JSON, form-urlencoded or multipart/form-data.' },
  TooManyRequests: {
    description: 'The budget of the endpoint pattern (or of call-request polling) is spent; retry after `Retry-After` seconds.',
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  },
  Conflict: {
    description: 'A request with the same `Idempotency-Key` is still being answered; retry after `Retry-After` seconds to get its answer.',
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  },
  UnprocessableEntity: { description: 'The `Idempotency-Key` was already used with a different request; the message names the key. Use a new key for a new request.' },
  InternalServerError: { description: 'Never expected. The message names the request id (also in `X-Request-Id`) to quote when reporting it.' },
};

const statusOfError: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '413': 'PayloadTooLarge',
  '409': 'Conflict',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableEntity',
  '429': 'TooManyRequests',
  '500': 'InternalServerError',
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, UTC epoch seconds.', schema: { type: 'integer' } },
  'X-Request-Id': ref('headers', 'XRequestId'),
};

function operationOf(route: RouteDef, schemas: Record<string, JsonSchema>): Record<string, unknown> {
  const id = operationId(route);
  const takesBody = route.method !== 'GET' && route.method !== 'DELETE';
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
  const data = route.response ? jsonSchemaOf(route.response, 'output', `${id}Response`, schemas) : { type: 'object', description: 'The payload; see the summary.' };

  const idempotent = IDEMPOTENT_METHODS.has(route.method);
  const conditional = route.method === 'GET';
  const errors = ['400', '401', '403', '404', '405', ...(idempotent ? ['409'] : []), ...(takesBody ? ['413', '415'] : []), ...(idempotent ? ['422'] : []), '429', '500'];
  const headerParameters = [ref('parameters', 'XRequestId'), ...(conditional ? [ref('parameters', 'IfNoneMatch')] : []), ...(idempotent ? [ref('parameters', 'IdempotencyKey')] : [])];
  const successHeaders = {
    ...rateLimitHeaders,
    ...(conditional ? { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'CacheControl') } : {}),
    ...(idempotent ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'), 'Original-Request': ref('headers', 'OriginalRequest') } : {}),
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
            required: true,
            content: {
              'application/json': { schema: body },
              'application/x-www-form-urlencoded': { schema: body },
              'multipart/form-data': { schema: body },
            },
          },
        }
      : {}),
    responses: {
      '200': {
        description: idempotent ? 'Success (or, with `Idempotent-Replayed: true`, the stored answer of the first request with this `Idempotency-Key`, whatever its status).' : 'Success.',
        headers: successHeaders,
        content: { 'application/json': { schema: successEnvelope(data) } },
      },
      ...(conditional
        ? { '304': { description: 'Not modified: `If-None-Match` names the current ETag. No body.', headers: { ETag: ref('headers', 'ETag'), 'X-Request-Id': ref('headers', 'XRequestId') } } }
        : {}),
      ...Object.fromEntries(errors.map((status) => [status, ref('responses', statusOfError[status]!)])),
    },
  };
}

export function buildOpenApiDocument(routes: readonly RouteDef[]): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'data', 'message'],
      properties: {
        success: { const: false },
        data: { type: 'object', maxProperties: 0, description: 'Always an empty object on errors.' },
        message: { type: 'string', description: 'What went wrong, naming every invalid field and why.' },
        errors: {
          type: 'array',
          description: 'On 400s: each invalid field and why.',
          items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
  };
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route, schemas);
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Office Communications Service',
      version: '1.0.0',
      description:
        'Office hours, closures, availability, templates, workflows, phone numbers, insurances, call requests and conversations of the organizations behind AI voice and chat agents. ' +
        'Every answer is the envelope `{success, data, message}`. Bodies may be JSON, form-urlencoded or multipart/form-data. ' +
        'The same operations exist in GraphQL at `/graphql`. ' +
        'Every answer carries `X-Request-Id`. GET answers carry a weak `ETag` (send `If-None-Match` to get 304 while nothing changed). ' +
        'POST, PUT and PATCH accept an `Idempotency-Key` that makes retries safe. `GET /v1/conversations` pages by `offset` or by `cursor` (`pagination.nextCursor`).',
    },
    tags,
    security: [{ bearerAuth: [] }, { oauth2: [] }],
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([name, r]) => [
          name,
          { ...r, headers: { ...r.headers, 'X-Request-Id': ref('headers', 'XRequestId') }, content: { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } } },
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
            clientCredentials: { tokenUrl: '/oauth/token', scopes: Object.fromEntries(SCOPES.map((s) => [s, scopeDescription(s)])) },
          },
        },
      },
    },
  };
}
