import {
  createOAuthClient,
  createOAuthClientInput,
  emptyOAuthClientInput,
  listOAuthClients,
  listOAuthClientsInput,
  oauthClientListResponse,
  oauthClientResponse,
  oauthClientWithSecretResponse,
  revokeOAuthClient,
  rotateOAuthClientSecret,
  rotateOAuthClientSecretInput,
  setOAuthClientScopes,
  setOAuthClientScopesInput,
} from '../../../domain/credentials/oauthClients.js';
import { defineRoute } from '../../route.js';

const base = '/v1/oauth-clients';
const notFound = { 404: "The client is missing, revoked, or of an organization outside the caller's reach." };

export const oauthClientRoutes = [
  defineRoute({
    method: 'POST',
    path: base,
    tag: 'Credentials',
    summary: 'Create an OAuth client (client credentials grant)',
    description:
      "Body: `name`, `scopes` (at most the creating credential's own: 403 otherwise), `orgId` (an account may create a client " +
      'for a child). The answer shows `clientSecret` once (`secretShownOnce: false`); an idempotent replay answers ' +
      '`clientSecret: null`, `secretShownOnce: true`. Scope `credentials:write`. At most 100 clients per organization (409 past it).',
    scope: 'credentials:write',
    body: createOAuthClientInput,
    response: oauthClientWithSecretResponse,
    errors: {
      403: 'The credential lacks `credentials:write` or one of the scopes asked for.',
      404: "The organization named by `orgId` is missing or outside the caller's reach.",
      409: 'The organization has 100 OAuth clients (not revoked) already.',
    },
    handler: async ({ actor, deps, body }) => ({ data: await createOAuthClient(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: base,
    tag: 'Credentials',
    summary: "List an organization's OAuth clients",
    description: "Query: `orgId` (the caller's own organization by default; an account may name a child).",
    scope: 'credentials:write',
    query: listOAuthClientsInput,
    response: oauthClientListResponse,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: { oauthClients: await listOAuthClients(deps, actor, query) } }),
  }),
  defineRoute({
    method: 'POST',
    path: `${base}/:id/rotate-secret`,
    tag: 'Credentials',
    summary: 'Rotate the client secret; the previous one is accepted until `expiresAt`',
    description:
      'Body: `expiresAt`, until when the previous secret is still accepted by the token endpoint (now by default, at most 7 days ahead). The new secret is shown once.',
    scope: 'credentials:write',
    body: rotateOAuthClientSecretInput,
    response: oauthClientWithSecretResponse,
    errors: notFound,
    handler: async ({ actor, deps, params, body }) => ({ data: await rotateOAuthClientSecret(deps, actor, params.id!, body) }),
  }),
  defineRoute({
    method: 'PUT',
    path: `${base}/:id/scopes`,
    tag: 'Credentials',
    summary: "Replace the client's scopes",
    description: 'Body: `scopes`. Access tokens already issued carry at most the new scopes from now on, on every instance.',
    scope: 'credentials:write',
    body: setOAuthClientScopesInput,
    response: oauthClientResponse,
    errors: notFound,
    handler: async ({ actor, deps, params, body }) => ({ data: await setOAuthClientScopes(deps, actor, params.id!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: `${base}/:id/revoke`,
    tag: 'Credentials',
    summary: 'Revoke an OAuth client (its tokens are refused at once, on every instance)',
    scope: 'credentials:write',
    body: emptyOAuthClientInput,
    response: oauthClientResponse,
    errors: notFound,
    handler: async ({ actor, deps, params, body }) => ({ data: await revokeOAuthClient(deps, actor, params.id!, body) }),
  }),
];
