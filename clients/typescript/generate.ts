// Generates generated/schema.ts, the types of every route, from the OpenAPI document the service serves (built here
// from its routes, as GET /v1/openapi.json answers it). Run by `npm install` and `npm run typecheck` at the
// repository's root (`npm run client:generate`): the client's types are always the service's own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The file's text for an OpenAPI document. */
export async function schemaSource(document: Record<string, unknown>): Promise<string> {
  return COMMENT_HEADER + astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
}

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), 'generated', 'schema.ts');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { loadConfig } = await import('../../src/config.js');
  const { buildOpenApiDocument, serverUrlFromAudience } = await import('../../src/rest/openapi.js');
  const { allRoutes } = await import('../../src/rest/routes/index.js');
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const document = buildOpenApiDocument(allRoutes, { serverUrl: serverUrlFromAudience(config.oauthAudience) });
  mkdirSync(dirname(SCHEMA_FILE), { recursive: true });
  writeFileSync(SCHEMA_FILE, await schemaSource(document));
}
