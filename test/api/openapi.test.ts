// GET /v1/openapi.json is a valid OpenAPI 3.1 document of exactly the routes the app serves, with the
// real shape of every answer, that passes Redocly's recommended lint; GET /v1/docs shows it; both are
// public. (That every answer of the suite matches the document is checked by the harness: t.rest.)
import { brotliDecompressSync } from 'node:zlib';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, errorStatusesOf, openApiPath, TAG_DESCRIPTIONS } from '../../src/rest/openapi.js';
import { SUCCESS_EXAMPLES } from '../../src/rest/openapiExamples.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import { OpenApiValidator } from '../support/openApiValidator.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();

type Operation = {
  description: string;
  tags: string[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, Response>;
};
/** A response as these tests read it: its headers, and the JSON answer's schema and example. */
type Response = {
  headers: Record<string, unknown>;
  content: Record<
    string,
    { schema: { properties: { data: { $ref?: string; properties?: unknown } } }; example: { data: { name?: string } } }
  >;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  servers: unknown[];
  info: { license: unknown };
  tags: unknown[];
};

async function openApiDocument(): Promise<Document> {
  const res = await t.rest('GET', '/v1/openapi.json', { token: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.body as Document;
}

const documentedOperations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
  );

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await openApiDocument();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every registered route with its method, tag, scope, answer and errors', async () => {
    const doc = await openApiDocument();
    expect(allRoutes.length).toBeGreaterThan(0);
    for (const route of allRoutes) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path} is missing`).toBeDefined();
      expect(operation!.tags).toEqual([route.tag]);
      expect(operation!.description).toContain(`Scope: \`${route.scope}\``);
      // the success and exactly the 4xx statuses the route can answer (405 belongs to the other methods)
      // (and 304 for a conditional GET)
      expect(Object.keys(operation!.responses).sort()).toEqual(
        [String(route.successStatus ?? 200), ...(route.method === 'GET' && !route.stream ? ['304'] : []), ...errorStatusesOf(route)].sort(),
      );
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
      // `data` is the route's real shape, not a bare object (a stream's lines are, without the envelope)
      const success = operation!.responses[String(route.successStatus ?? 200)]!.content;
      const media = success[route.stream ? 'application/x-ndjson' : 'application/json']!;
      const data = (route.stream ? media.schema : media.schema.properties.data) as { $ref?: string; properties?: unknown };
      expect(data.$ref ?? data.properties, `${route.method} ${route.path}: data`).toBeDefined();
      expect(media.example, `${route.method} ${route.path}: example`).toBeDefined();
      if (route.body) {
        expect(Object.keys(operation!.requestBody!.content).sort()).toEqual([
          'application/json',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
        ]);
        expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['400', '413', '415']));
      }
      if (route.path.includes('/:')) expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['400', '404']));
    }
  });

  it('documents no 404 where no id is named, and the route-specific reasons of an error', async () => {
    const doc = await openApiDocument();
    // the list reads a query (its filters), so a 400; it names no id, so no 404
    expect(Object.keys(doc.paths['/v1/templates']!.get!.responses).sort()).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(doc.paths['/v1/templates']!.post!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(doc.paths['/v1/conversations']!.get!.responses['404']).toMatchObject({
      $ref: '#/components/responses/NotFound',
      description: expect.stringContaining('botId'),
    });
  });

  it('names its server, license and tags (each with a description), with examples from the demo data', async () => {
    const doc = await openApiDocument();
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:4000', description: expect.any(String) }]);
    expect(doc.info.license).toEqual({ name: expect.any(String), identifier: expect.any(String) });
    const tags = new Set(allRoutes.map((r) => r.tag));
    for (const tag of tags) expect(doc.tags).toContainEqual({ name: tag, description: TAG_DESCRIPTIONS[tag] });
    expect(Object.keys(SUCCESS_EXAMPLES).sort()).toEqual(allRoutes.map((r) => `${r.method} ${r.path}`).sort());
    expect(doc.paths['/v1/organizations/{orgId}']!.get!.responses['200']!.content['application/json']!.example.data.name).toBe(
      'Bright Smiles Downtown',
    );
  });

  it("lists Organizations first, each tag's operations together, and says what each scope lets a credential do", async () => {
    const doc = (await openApiDocument()) as unknown as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { tags?: string[] }>>;
      components: { securitySchemes: { oauth2: { flows: { clientCredentials: { scopes: Record<string, string> } } } } };
    };
    expect(doc.tags[0]!.name).toBe('Organizations');
    // the order Swagger UI shows: each tag's operations in one run, tags in the order of the document's list
    const seen = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? []));
    const runs = seen.filter((tag, i) => tag !== seen[i - 1]);
    expect(runs).toEqual([...new Set(runs)]);
    expect(runs).toEqual(doc.tags.map((t) => t.name).filter((name) => runs.includes(name)));
    const scopes = doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes;
    expect(scopes['calls:dispatch']).toMatch(/^Run calls as an agent runtime/);
    expect(scopes['transcripts:read_unredacted']).toContain('behind redactions');
  });

  it('documents every example so that it matches its own schema', async () => {
    const validator = new OpenApiValidator(await openApiDocument());
    for (const route of allRoutes) {
      const path = route.path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
      const data = SUCCESS_EXAMPLES[`${route.method} ${route.path}`];
      // a streaming route's example is one of its lines
      const [contentType, example] = route.stream ? ['application/x-ndjson', [data]] : ['application/json', { success: true, data }];
      expect(
        validator.check({ method: route.method, path, status: route.successStatus ?? 200, contentType, body: example }),
        `${route.method} ${route.path}`,
      ).toEqual([]);
    }
  });

  it("passes Redocly's recommended lint with no error and no warning", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ocs-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(await openApiDocument()));
    const { stdout } = await promisify(execFile)(
      'node_modules/.bin/redocly',
      ['lint', '--config', 'redocly.yaml', '--format', 'json', file],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('tells drift apart: an undocumented status, a missing, extra or mistyped field', async () => {
    const validator = new OpenApiValidator(await openApiDocument());
    const res = await t.rest('GET', `/v1/organizations/${t.demo.organizations.clinic.id}`);
    const answer = {
      method: 'GET',
      path: `/v1/organizations/${t.demo.organizations.clinic.id}`,
      status: 200,
      contentType: 'application/json',
      body: res.body,
    };
    expect(validator.check(answer)).toEqual([]);
    const { name: _name, ...withoutName } = res.body.data;
    expect(validator.check({ ...answer, status: 418 })).toEqual([expect.stringContaining('status 418 is not documented')]);
    expect(validator.check({ ...answer, body: { ...res.body, data: withoutName } }).join()).toContain("must have required property 'name'");
    expect(validator.check({ ...answer, body: { ...res.body, data: { ...res.body.data, extra: 1 } } }).join()).toContain(
      'must NOT have additional properties',
    );
    expect(validator.check({ ...answer, body: { ...res.body, data: { ...res.body.data, childIds: 'none' } } }).join()).toContain(
      '/data/childIds must be array',
    );
    expect(validator.check({ ...answer, status: 404, body: { success: false, data: {} } }).join()).toContain(
      "must have required property 'message'",
    );
    expect(validator.check({ ...answer, method: 'PUT', status: 200 })).toEqual([expect.stringContaining('no documented operation')]);
    expect(validator.check({ ...answer, contentType: 'text/plain' })).toEqual([expect.stringContaining('answered text/plain')]);
  });

  it('documents nothing that is not a registered route (beyond POST /oauth/token and /oauth/revoke)', async () => {
    const doc = await openApiDocument();
    const registered = new Set([...allRoutes.map((r) => `${r.method} ${openApiPath(r.path)}`), 'POST /oauth/token', 'POST /oauth/revoke']);
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
    const paramNames = (op: Operation & { parameters?: { name?: string; $ref?: string }[] }) =>
      (op.parameters ?? []).map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]!.name : p.name));
    for (const route of allRoutes) {
      const op = doc.paths[openApiPath(route.path)]![route.method.toLowerCase()]! as Operation & {
        responses: Record<string, { headers?: Record<string, unknown> }>;
      };
      const names = paramNames(op);
      expect(names, route.path).toContain('X-Request-Id');
      expect(Object.keys(op.responses[String(route.successStatus ?? 200)]!.headers)).toContain('X-Request-Id');
      if (route.method === 'GET' && !route.stream) {
        expect(names).toContain('If-None-Match');
        expect(Object.keys(op.responses)).toContain('304');
        expect(Object.keys(op.responses['200']!.headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
      }
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        expect(names, route.path).toContain('Idempotency-Key');
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
        expect(Object.keys(op.responses[String(route.successStatus ?? 200)]!.headers)).toContain('Idempotent-Replayed');
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
      {
        method: 'POST',
        path: '/v1/things/:thingId',
        tag: 'Templates',
        summary: 'A thing',
        scope: 'templates:write',
        body: z.object({ steps: z.array(step) }),
        response: z.object({ steps: z.array(step) }),
        handler: () => Promise.resolve({ data: { steps: [] } }),
      },
    ]);
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  });

  it('is sent compressed to a client that accepts it, with an ETag that revalidates', async () => {
    const res = await t.fetch('/v1/openapi.json', { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    const bytes = Buffer.from(await res.arrayBuffer());
    const plain = await t.fetch('/v1/openapi.json');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const text = await plain.text();
    expect(JSON.parse(brotliDecompressSync(bytes).toString('utf8'))).toEqual(JSON.parse(text));
    expect(bytes.byteLength).toBeLessThan(Buffer.byteLength(text) / 4);
    const again = await t.fetch('/v1/openapi.json', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
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
