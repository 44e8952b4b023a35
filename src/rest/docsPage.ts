// The public API documentation: GET /v1/openapi.json (rest/openapi.ts) and GET /v1/docs, Swagger UI
// over it with its files served from node_modules (swagger-ui-dist), so the page works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pathOf } from '../http/requestTarget.js';
import { errorBody } from './envelope.js';
import { buildOpenApiDocument, type OpenApiOptions } from './openapi.js';
import type { RouteDef } from './route.js';

export const DOCS_PATH = '/v1/docs';
export const OPENAPI_PATH = '/v1/openapi.json';

/** The files of swagger-ui-dist the page loads, with their content types; nothing else is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Uint8Array<ArrayBuffer>>();

/** One of the page's files, or null for any other name. */
async function docsAsset(name: string): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string } | null> {
  const contentType = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!contentType) return null;
  let body = cache.get(name);
  if (!body) {
    body = new Uint8Array(await readFile(join(distDir, name)));
    cache.set(name, body);
  }
  return { body, contentType };
}

const docsHtml = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Office Communications Service — REST API v1</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script>
      window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATH}', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });
    </script>
  </body>
</html>
`;

/** The paths registered by registerApiDocs, for the 404-versus-405 decision. */
export const API_DOCS_ROUTES = [
  { method: 'GET', path: OPENAPI_PATH },
  { method: 'GET', path: DOCS_PATH },
  { method: 'GET', path: `${DOCS_PATH}/:asset` },
];

/** Public (no credential) routes; registered before the /v1 routes. */
export function registerApiDocs(app: FastifyInstance, routes: readonly RouteDef[], options: OpenApiOptions = {}): void {
  let document: string | undefined; // built on first request, once per app
  app.get(OPENAPI_PATH, async (request, reply) => {
    request.label = `GET ${OPENAPI_PATH}`;
    document ??= JSON.stringify(buildOpenApiDocument(routes, options));
    return reply.type('application/json; charset=utf-8').send(document);
  });
  app.get(DOCS_PATH, async (request, reply) => {
    request.label = `GET ${DOCS_PATH}`;
    return reply.type('text/html; charset=UTF-8').send(docsHtml);
  });
  app.get(`${DOCS_PATH}/:asset`, async (request, reply) => {
    request.label = `GET ${DOCS_PATH}/:asset`;
    const asset = await docsAsset((request.params as { asset: string }).asset);
    if (!asset)
      return reply
        .code(404)
        .type('application/json')
        .send(errorBody('not_found', `No route GET ${pathOf(request.url)}`));
    reply.header('Cache-Control', 'public, max-age=86400');
    return reply.type(asset.contentType).send(asset.body);
  });
}
