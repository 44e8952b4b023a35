// The public API documentation: GET /v1/openapi.json (rest/openapi.ts) and GET /v1/docs, Swagger UI
// over it with its files served from node_modules (swagger-ui-dist), so the page works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/appEnv.js';
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
export function registerApiDocs(app: Hono<AppEnv>, routes: readonly RouteDef[], options: OpenApiOptions = {}): void {
  let document: string | undefined; // built on first request, once per app
  app.get(OPENAPI_PATH, (c) => {
    c.set('route', `GET ${OPENAPI_PATH}`);
    document ??= JSON.stringify(buildOpenApiDocument(routes, options));
    return c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  app.get(DOCS_PATH, (c) => {
    c.set('route', `GET ${DOCS_PATH}`);
    return c.html(docsHtml);
  });
  app.get(`${DOCS_PATH}/:asset`, async (c) => {
    c.set('route', `GET ${DOCS_PATH}/:asset`);
    const asset = await docsAsset(c.req.param('asset'));
    if (!asset) return c.json(errorBody('not_found', `No route GET ${c.req.path}`), 404);
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(asset.body, 200, { 'content-type': asset.contentType });
  });
}
