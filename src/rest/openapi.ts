// The OpenAPI 3.1 document of every /v1 route, generated from the route registry (rest/routes): the
// paths and methods, the domain's zod schemas (as JSON Schema, the input side for bodies and queries),
// the envelope around every answer, the errors, the bearer credentials and each operation's scope.
// Nothing here is written by hand per route, so the document cannot drift from what the app serves.
import { z } from 'zod';
import { SCOPES } from '../domain/access.js';
import type { RouteDef } from './route.js';
import { MAX_BODY_BYTES } from './body.js';

type JsonSchema = Record<string, unknown>;
type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

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
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  },
};

const statusOfError: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'TooManyRequests',
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, UTC epoch seconds.', schema: { type: 'integer' } },
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

  const errors = ['400', '401', '403', '404', '405', ...(takesBody ? ['413', '415'] : []), '429'];
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
    ...(parameters.length ? { parameters } : {}),
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
      '200': { description: 'Success.', headers: rateLimitHeaders, content: { 'application/json': { schema: successEnvelope(data) } } },
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
        'The same operations exist in GraphQL at `/graphql`.',
    },
    tags,
    security: [{ bearerAuth: [] }, { oauth2: [] }],
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([name, r]) => [name, { ...r, content: { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } } }]),
      ),
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
