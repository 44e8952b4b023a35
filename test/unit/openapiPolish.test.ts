// The OpenAPI document as a client generator and a reader see it (issue 22 item 6): readable, unique
// operation ids; an example on every request body, valid for the route's own schema; the package's
// version; and the error codes of the catalogue, as the document and docs/errors.md list them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, REST_ERROR_CODES } from '../../src/domain/shared/errorCodes.js';
import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi.js';
import { REQUEST_EXAMPLES } from '../../src/rest/openapiExamples.js';
import { allRoutes } from '../../src/rest/routes/index.js';

const ROOT = join(import.meta.dirname, '../..');
const doc = buildOpenApiDocument(allRoutes);

/** The parts of the document's components the error tests read. */
interface Components {
  schemas: { ErrorEnvelope: { required: string[]; properties: { code: { enum: string[]; description: string } } } };
  responses: {
    NotFound: {
      content: { 'application/json': { schema: { allOf: { properties: { code: { enum: string[] } } }[] }; example: { code: string } } };
    };
  };
}
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
);

describe('OpenAPI operation ids', () => {
  it('names every operation with a unique camelCase id', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][a-zA-Z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads as verb and resource: listClosures, createClosure, getClosure, updateClosure, deleteClosure', () => {
    const idOf = (key: string) => operations.find((o) => o.key === key)?.op.operationId;
    const closures = '/v1/organizations/{orgId}/closures';
    expect(
      [
        `GET ${closures}`,
        `POST ${closures}`,
        `GET ${closures}/{closureId}`,
        `POST ${closures}/{closureId}`,
        `DELETE ${closures}/{closureId}`,
      ].map(idOf),
    ).toEqual(['listClosures', 'createClosure', 'getClosure', 'updateClosure', 'deleteClosure']);
    expect(idOf('POST /v1/organizations/{orgId}/disable')).toBe('disableOrganization');
    expect(idOf('POST /v1/webhook-endpoints/{endpointId}/rotate-secret')).toBe('rotateWebhookEndpointSecret');
  });
});

describe('OpenAPI request examples', () => {
  it('gives every request body a JSON example', () => {
    const without = operations
      .filter(
        ({ op }) =>
          op.requestBody &&
          (op.requestBody as { content: Record<string, { example?: unknown }> }).content['application/json']?.example === undefined,
      )
      .map((o) => o.key);
    expect(without).toEqual([]);
  });

  it("takes each example from the demo data, valid for the route's own schema", () => {
    for (const route of allRoutes.filter((r) => r.body)) {
      const key = `${route.method} ${route.path}`;
      expect(Object.hasOwn(REQUEST_EXAMPLES, key), key).toBe(true);
      const parsed = route.body!.safeParse(REQUEST_EXAMPLES[key]);
      expect(parsed.success, `${key}: ${parsed.error?.message}`).toBe(true);
      expect(doc.paths[openApiPath(route.path)]![route.method.toLowerCase()]).toBeDefined();
    }
  });
});

describe('OpenAPI version and error codes', () => {
  it('is the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((doc.info as { version: string }).version).toBe(pkg.version);
  });

  it('lists every REST code of the catalogue in the error envelope, each status narrowed to its own', () => {
    const envelope = (doc.components as Components).schemas.ErrorEnvelope;
    expect(envelope.required).toContain('code');
    expect(envelope.properties.code.enum).toEqual([...REST_ERROR_CODES]);
    for (const code of REST_ERROR_CODES) expect(envelope.properties.code.description).toContain(`\`${code}\``);
    const notFound = (doc.components as Components).responses.NotFound.content['application/json'];
    expect(notFound.schema.allOf[1]?.properties.code.enum).toEqual(['not_found']);
    expect(notFound.example.code).toBe('not_found');
  });

  it('docs/errors.md has one line per code with its status and GraphQL counterpart', () => {
    const text = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    for (const entry of ERROR_CATALOGUE) {
      const code = entry.rest ?? entry.graphql;
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`| \`${code}\``) || (entry.rest === null && l.startsWith(`| — | \`${code}\``)));
      expect(line, code).toBeDefined();
      expect(line).toContain(`| ${entry.status} |`);
      if (entry.graphql) expect(line).toContain(`\`${entry.graphql}\``);
    }
  });
});
