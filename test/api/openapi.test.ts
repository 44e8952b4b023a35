// GET /v1/openapi.json is a valid OpenAPI 3.1 document of exactly the routes the app serves, and
// GET /v1/docs shows it; both are public.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

type Operation = { description: string; tags: string[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

async function openApiDocument(): Promise<Document> {
  const res = await t.rest('GET', '/v1/openapi.json', { token: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.body as Document;
}

const documentedOperations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })));

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await openApiDocument();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every registered route with its method, tag, scope and errors', async () => {
    const doc = await openApiDocument();
    expect(allRoutes.length).toBeGreaterThan(0);
    for (const route of allRoutes) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path} is missing`).toBeDefined();
      expect(operation!.tags).toEqual([route.tag]);
      expect(operation!.description).toContain(`Scope: \`${route.scope}\``);
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '405', '429']));
      if (route.body) {
        expect(Object.keys(operation!.requestBody!.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
        expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['413', '415']));
      }
    }
  });

  it('documents nothing that is not a registered route', async () => {
    const doc = await openApiDocument();
    const registered = new Set(allRoutes.map((r) => `${r.method} ${openApiPath(r.path)}`));
    const documented = documentedOperations(doc).map((o) => `${o.method} ${o.path}`);
    expect(documented.filter((o) => !registered.has(o))).toEqual([]);
    expect(documented).toHaveLength(registered.size);
  });

  it('documents only operations the app answers (none is "No route" or 405)', async () => {
    const doc = await openApiDocument();
    for (const { method, path } of documentedOperations(doc)) {
      const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.rest(method, url, method === 'GET' || method === 'DELETE' ? {} : { json: {} });
      expect(res.status, `${method} ${url}`).not.toBe(405);
      if (res.status === 404) expect(res.body.message, `${method} ${url}`).not.toMatch(/^No route/);
    }
  });

  it('documents request ids, conditional GETs, idempotency keys and conversation cursors', async () => {
    const doc = (await openApiDocument()) as Document & { components: { parameters: Record<string, { name: string }> } };
    const paramNames = (op: Operation & { parameters?: ({ name?: string; $ref?: string })[] }) =>
      (op.parameters ?? []).map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]!.name : p.name));
    for (const route of allRoutes) {
      const op = doc.paths[openApiPath(route.path)]![route.method.toLowerCase()]! as Operation & { responses: Record<string, { headers?: Record<string, unknown> }> };
      const names = paramNames(op);
      expect(names, route.path).toContain('X-Request-Id');
      expect(Object.keys(op.responses['200']!.headers!)).toContain('X-Request-Id');
      if (route.method === 'GET') {
        expect(names).toContain('If-None-Match');
        expect(Object.keys(op.responses)).toContain('304');
        expect(Object.keys(op.responses['200']!.headers!)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
      }
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        expect(names, route.path).toContain('Idempotency-Key');
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
        expect(Object.keys(op.responses['200']!.headers!)).toContain('Idempotent-Replayed');
      } else {
        expect(names).not.toContain('Idempotency-Key');
      }
    }
    const conversations = doc.paths['/v1/conversations']!.get! as Operation & { parameters: { name: string }[] };
    expect(paramNames(conversations)).toEqual(expect.arrayContaining(['offset', 'cursor', 'limit']));
    expect(JSON.stringify(conversations.responses['200'])).toContain('nextCursor');
  });

  it('keeps recursive and reused schemas valid (their definitions move to components)', async () => {
    const step: z.ZodType = z.lazy(() => z.object({ title: z.string(), childSteps: z.array(step) }));
    const doc = buildOpenApiDocument([
      { method: 'POST', path: '/v1/things/:thingId', tag: 'Things', summary: 'A thing', scope: 'templates:write', body: z.object({ steps: z.array(step) }), handler: async () => ({ data: {} }) },
    ]);
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    const result = await new Validator().validate(structuredClone(doc) as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  });

  it('needs no credential, and answers 405 to another method', async () => {
    const res = await t.rest('POST', '/v1/openapi.json', { token: null, json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('GET /v1/docs', () => {
  it('answers the Swagger UI page over the document, with its files served locally', async () => {
    const res = await t.fetch('/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('/v1/openapi.json');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(expect.arrayContaining(['/v1/docs/swagger-ui-bundle.js', '/v1/docs/swagger-ui.css']));
    for (const asset of assets) {
      const file = await t.fetch(asset);
      expect(file.status, asset).toBe(200);
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
  });

  it('serves no other file', async () => {
    const res = await t.rest('GET', '/v1/docs/package.json', { token: null });
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
