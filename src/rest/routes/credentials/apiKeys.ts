import {
  apiKeyListResponse,
  apiKeyResponse,
  apiKeyWithSecretResponse,
  createApiKey,
  createApiKeyInput,
  emptyApiKeyInput,
  listApiKeys,
  listApiKeysInput,
  revokeApiKey,
  rollApiKey,
  rollApiKeyInput,
} from '../../../domain/credentials/apiKeys.js';
import { defineRoute } from '../../route.js';

const base = '/v1/api-keys';
const notFound = { 404: "The key is missing, revoked, or of an organization outside the caller's reach." };

export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: base,
    tag: 'Credentials',
    summary: 'Create an API key',
    description:
      "Body: `name`, `scopes` (a restricted key holds only these, at most the creating credential's own; omitted: a full key, " +
      'every scope including ones added later, which only a full key may create: 403 otherwise), `expiresAt` (from then on the ' +
      'key answers 401), `orgId` (an account may create a key for a child). The answer shows the key `apiKey` once ' +
      '(`secretShownOnce: false`); only a masked form is shown afterwards, and an idempotent replay answers `apiKey: null`, ' +
      '`secretShownOnce: true`. Scope `credentials:write`.',
    scope: 'credentials:write',
    body: createApiKeyInput,
    response: apiKeyWithSecretResponse,
    errors: {
      403: 'The credential lacks `credentials:write` or one of the scopes asked for, or is not a full key and asked for a full key.',
      404: "The organization named by `orgId` is missing or outside the caller's reach.",
      409: 'The organization has 100 live API keys (neither revoked nor expired) already.',
    },
    handler: async ({ actor, deps, body }) => ({ data: await createApiKey(deps, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: base,
    tag: 'Credentials',
    summary: "List an organization's API keys (masked)",
    description: "Query: `orgId` (the caller's own organization by default; an account may name a child).",
    scope: 'credentials:write',
    query: listApiKeysInput,
    response: apiKeyListResponse,
    errors: { 404: "The organization named by `orgId` is missing or outside the caller's reach." },
    handler: async ({ actor, deps, query }) => ({ data: { apiKeys: await listApiKeys(deps, actor, query) } }),
  }),
  defineRoute({
    method: 'POST',
    path: `${base}/:keyId/roll`,
    tag: 'Credentials',
    summary: 'Roll an API key: a new key; the old one works until `expiresAt`',
    description:
      'Body: `expiresAt`, until when the old key keeps working (now by default, at most 7 days ahead). The new key (same name, ' +
      'scopes and expiry) is shown once (an idempotent replay answers `apiKey: null`, `secretShownOnce: true`).',
    scope: 'credentials:write',
    body: rollApiKeyInput,
    response: apiKeyWithSecretResponse,
    errors: {
      ...notFound,
      403: "The credential lacks `credentials:write` or one of the key's scopes, or the key is a full key and the credential is not.",
      409: 'The old key would keep working beside the new one while the organization has 100 live API keys: roll without an overlap.',
    },
    handler: async ({ actor, deps, params, body }) => ({ data: await rollApiKey(deps, actor, params.keyId!, body) }),
  }),
  defineRoute({
    method: 'POST',
    path: `${base}/:keyId/revoke`,
    tag: 'Credentials',
    summary: 'Revoke an API key (it answers 401 at once, on every instance)',
    scope: 'credentials:write',
    body: emptyApiKeyInput,
    response: apiKeyResponse,
    errors: notFound,
    handler: async ({ actor, deps, params, body }) => ({ data: await revokeApiKey(deps, actor, params.keyId!, body) }),
  }),
];
