// Writes the OpenAPI document the app serves at GET /v1/openapi.json to a file (default
// test/generated/openapi.json), for the tools that read it offline: Redocly's lint (`npm run
// openapi:lint`) and openapi-typescript, which generates the types of the tests' client.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../config.js';
import { buildOpenApiDocument, serverUrlFromAudience } from '../rest/openapi.js';
import { allRoutes } from '../rest/routes/index.js';

const target = process.argv[2] ?? 'test/generated/openapi.json';
const config = loadConfig({ LOG_LEVEL: 'silent' });
mkdirSync(dirname(target), { recursive: true });
writeFileSync(
  target,
  JSON.stringify(buildOpenApiDocument(allRoutes, { serverUrl: serverUrlFromAudience(config.oauthAudience) }), null, 2) + '\n',
);
