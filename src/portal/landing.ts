// GET /: where a person (or a script) who opened the service's address begins. A browser gets a small HTML page
// linking the REST documentation, the OpenAPI document, GraphiQL, the developer portal and the health check; any
// other client the same links as JSON. Public, like the pages it links: it names nothing of any tenant.
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH, OPENAPI_PATH } from '../rest/docsPage.js';
import { PORTAL_PATH } from './page.js';

export const LANDING_PATH = '/';

/** The paths registered by registerLanding, for the 404-versus-405 decision. */
export const LANDING_ROUTES = [{ method: 'GET', path: LANDING_PATH }];

const LINKS = [
  { rel: 'docs', href: DOCS_PATH, title: 'REST API reference (Swagger UI)' },
  { rel: 'openapi', href: OPENAPI_PATH, title: 'OpenAPI document' },
  { rel: 'graphql', href: '/graphql', title: 'GraphQL (GraphiQL in a browser)' },
  { rel: 'portal', href: PORTAL_PATH, title: 'Developer portal: keys, hours, webhooks, transcripts' },
  { rel: 'health', href: '/healthz', title: 'Health check' },
] as const;

const NAME = 'Office Communications Service';

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${NAME}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}a{color:#0b5cad}li{margin:.4rem 0}</style>
</head>
<body>
<h1>${NAME}</h1>
<p>The API behind voice and chat agents for clinics: REST under <code>/v1</code>, GraphQL at <code>/graphql</code>.</p>
<ul>
${LINKS.map((l) => `<li><a href="${l.href}">${l.title}</a> <code>${l.href}</code></li>`).join('\n')}
</ul>
</body>
</html>
`;

const JSON_BODY = JSON.stringify({ name: NAME, links: Object.fromEntries(LINKS.map((l) => [l.rel, l.href])) });

/** No script, its own inline style, links only. */
const LANDING_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function registerLanding(app: FastifyInstance): void {
  app.get(LANDING_PATH, async (request, reply) => {
    request.label = `GET ${LANDING_PATH}`;
    const html = /\btext\/html\b/.test(request.headers.accept ?? '');
    reply.header('Vary', 'Accept');
    if (!html) return reply.type('application/json').send(JSON_BODY);
    return reply.header('Content-Security-Policy', LANDING_CSP).type('text/html; charset=UTF-8').send(HTML);
  });
}
