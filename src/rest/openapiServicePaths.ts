// The route outside /v1 that every integrator calls (app.ts): the OAuth token endpoint. It answers in
// RFC 6749's shapes, not the /v1 envelope, so it is described here by hand, in the same OpenAPI document
// as the route registry (a generated client then gets its token with the same client).
import { ACCESS_TOKEN_TTL_SECONDS } from '../auth/tokens.js';
import { SCOPES } from '../domain/shared/access.js';
import { MAX_BODY_BYTES } from '../http/body.js';
import { DEMO } from './openapiExamples.js';

type JsonSchema = Record<string, unknown>;

const tokenRequest: JsonSchema = {
  type: 'object',
  required: ['grant_type', 'client_id', 'client_secret'],
  properties: {
    grant_type: { const: 'client_credentials' },
    client_id: { type: 'string', minLength: 1 },
    client_secret: { type: 'string', minLength: 1 },
    audience: {
      type: 'string',
      minLength: 1,
      description:
        'The service audience (`OAUTH_AUDIENCE`, by default `http://HOST:PORT/v1`); optional, the only audience tokens are issued for. Another is `invalid_grant`.',
    },
    resource: {
      type: 'string',
      minLength: 1,
      description: 'RFC 8707 resource indicator, accepted in place of `audience`: the same URI; another is `invalid_target`.',
    },
    scope: {
      type: 'string',
      description:
        'The scopes the token carries, space-separated (RFC 6749 §3.3); without it, every scope the client holds. A scope the client does not hold is `invalid_scope`.',
    },
  },
};

const oauthError = (codes: string[]): JsonSchema => ({
  type: 'object',
  required: ['error', 'error_description'],
  additionalProperties: false,
  properties: { error: { enum: codes }, error_description: { type: 'string' } },
});

const json = (schema: JsonSchema, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });

export const SERVICE_TAGS = [
  {
    name: 'OAuth',
    description:
      'OAuth 2.0 client credentials: exchange a client id and secret for a bearer access token (a JWT, verifiable with the keys at `GET /.well-known/jwks.json`).',
  },
];

export const servicePaths: Record<string, Record<string, unknown>> = {
  '/oauth/token': {
    post: {
      operationId: 'createAccessToken',
      tags: ['OAuth'],
      summary: 'Get an access token (client credentials)',
      description:
        `Takes JSON or form-urlencoded \`{grant_type: client_credentials, client_id, client_secret}\` (and optionally \`audience\` or \`resource\`, and \`scope\`) and answers a bearer token valid for ${ACCESS_TOKEN_TTL_SECONDS} s, ` +
        "carrying the scopes asked for (by default every scope the client holds); the token's claims include `client_id` and `jti` (RFC 9068). The client id and secret may instead come as HTTP Basic (`Authorization: Basic base64(urlencode(client_id):urlencode(client_secret))`, RFC 6749 §2.3.1); " +
        'both ways in one request is a 400. Errors follow RFC 6749 (`{error, error_description}`), not the /v1 envelope. ' +
        'Every answer but a token or `invalid_grant` (malformed, oversized, unknown client, wrong secret) counts against the budget of failed authentications of the client address.',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: tokenRequest, example: DEMO.tokenRequest },
          'application/x-www-form-urlencoded': { schema: tokenRequest },
        },
      },
      responses: {
        '200': {
          description: 'An access token.',
          headers: { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } },
          content: json(
            {
              type: 'object',
              required: ['access_token', 'token_type', 'expires_in', 'scope'],
              additionalProperties: false,
              properties: {
                access_token: { type: 'string', description: 'An ES256 JWT; send it as `Authorization: Bearer <token>`.' },
                token_type: { const: 'Bearer' },
                expires_in: { type: 'integer', description: 'Seconds.' },
                scope: { type: 'string', description: `The granted scopes, space-separated (of: ${SCOPES.join(' ')}).` },
              },
            },
            DEMO.tokenResponse,
          ),
        },
        '400': {
          description:
            'The request is malformed, names another grant type, names the wrong `audience` (`invalid_grant`) or `resource` (`invalid_target`), or asks for a scope the client does not hold (`invalid_scope`).',
          content: json(oauthError(['invalid_request', 'unsupported_grant_type', 'invalid_grant', 'invalid_scope', 'invalid_target']), {
            error: 'invalid_request',
            error_description: 'client_secret is required',
          }),
        },
        '401': {
          description: 'Unknown client, revoked client or wrong secret (one answer for all three).',
          headers: { 'WWW-Authenticate': { description: '`Basic realm="oauth"`', schema: { type: 'string' } } },
          content: json(oauthError(['invalid_client']), { error: 'invalid_client', error_description: 'Unknown client or wrong secret' }),
        },
        '413': {
          description: `The body exceeds ${MAX_BODY_BYTES} bytes.`,
          content: json(oauthError(['invalid_request']), {
            error: 'invalid_request',
            error_description: `The body exceeds ${MAX_BODY_BYTES} bytes`,
          }),
        },
        '415': {
          description: 'The body is neither JSON nor a form.',
          content: json(oauthError(['invalid_request']), {
            error: 'invalid_request',
            error_description: 'Unsupported content type "text/plain"',
          }),
        },
        '429': {
          description:
            'Too many failed authentications from this client address in this minute: the request is refused unchecked. ' +
            'RFC 6749 §5.2 has no rate-limit code; `invalid_client` says the client authentication failed, Retry-After when to try again.',
          headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
          content: json(oauthError(['invalid_client']), {
            error: 'invalid_client',
            error_description: 'Too many failed authentications from this address; retry after 42 s',
          }),
        },
      },
    },
  },
};

const token = servicePaths['/oauth/token']!.post as { responses: Record<string, unknown> };

/** POST /oauth/revoke (RFC 7009): the same client authentication, budget and body errors as the token endpoint. */
servicePaths['/oauth/revoke'] = {
  post: {
    operationId: 'revokeAccessToken',
    tags: ['OAuth'],
    summary: 'Revoke an access token (RFC 7009)',
    description:
      'Takes JSON or form-urlencoded `{token, token_type_hint?, client_id, client_secret}` (the client credentials may come as HTTP Basic, as at `/oauth/token`) ' +
      'and refuses the token from then on, on every instance. Answers 200 with no body for a token of the client, ' +
      'and the same for a token that is invalid, expired, already revoked or not the client’s (RFC 7009 §2.2: nothing to do, and nothing said about another client’s tokens). ' +
      'A token issued before tokens carried a `jti` is `unsupported_token_type`: revoke the client instead. Errors follow RFC 6749.',
    security: [],
    requestBody: {
      required: true,
      content: Object.fromEntries(
        ['application/json', 'application/x-www-form-urlencoded'].map((type) => [
          type,
          {
            ...(type === 'application/json'
              ? {
                  example: {
                    token: '<an access token of this client>',
                    client_id: DEMO.tokenRequest.client_id,
                    client_secret: DEMO.tokenRequest.client_secret,
                  },
                }
              : {}),
            schema: {
              type: 'object',
              required: ['token'],
              properties: {
                token: { type: 'string', minLength: 1, description: 'The access token to revoke.' },
                token_type_hint: { type: 'string', description: 'Ignored: the service issues access tokens only.' },
                client_id: { type: 'string', minLength: 1 },
                client_secret: { type: 'string', minLength: 1 },
              },
            },
          },
        ]),
      ),
    },
    responses: {
      '200': {
        description: 'Revoked, or nothing to revoke.',
        headers: { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } },
      },
      '400': {
        description: 'The request is malformed, or the token cannot be revoked on its own (`unsupported_token_type`).',
        content: json(oauthError(['invalid_request', 'unsupported_token_type']), {
          error: 'invalid_request',
          error_description: 'token is required',
        }),
      },
      '401': token.responses['401'],
      '413': token.responses['413'],
      '415': token.responses['415'],
      '429': token.responses['429'],
    },
  },
};
