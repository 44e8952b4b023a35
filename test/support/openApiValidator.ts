// Checks an HTTP answer against the OpenAPI document the app serves: the operation (method + path) must
// document the status, and the body must match that status's JSON schema (JSON Schema 2020-12, with
// ajv's 2020 build and ajv-formats). The test harness (testApp.ts `t.rest`) runs it on every REST call
// of the suite, so a route whose answer drifts from its documentation fails the test that called it.
//
// A /v1 request that no documented operation matches must be refused the /v1 way (404 or 405 in the error
// envelope); the documentation's own pages (/v1/openapi.json, /v1/docs) and the routes outside /v1 that the
// document does not describe (/graphql, /healthz, /.well-known/jwks.json, …) are not checked.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`: under Node's ESM interop the default import is the module
const addFormats = formatsModule.default;

type JsonObject = Record<string, unknown>;

export interface CheckedResponse {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body (or the text when it was not JSON). */
  body: unknown;
}

const UNDOCUMENTED = [/^\/v1\/openapi\.json$/, /^\/v1\/docs(\/|$)/];

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: JsonObject;
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: JsonObject) {
    // strict: false, because the document holds OpenAPI keywords (`example`, …) beside JSON Schema's; the
    // document is not itself a JSON Schema, so it is not checked against the meta-schema (openapi.test.ts
    // checks it against OpenAPI's)
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    this.operations = Object.entries(document.paths as JsonObject).flatMap(([template, item]) =>
      Object.entries(item as JsonObject).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
        responses: (operation as JsonObject).responses as JsonObject,
      })),
    );
  }

  /** The problems of one answer; [] when it is documented. */
  check(res: CheckedResponse): string[] {
    const path = res.path.split('?')[0]!;
    const what = `${res.method} ${path} → ${res.status}`;
    if (UNDOCUMENTED.some((p) => p.test(path))) return [];
    const operation = this.operations.find((o) => o.method === res.method && o.pattern.test(path));
    if (!operation) {
      if (!path.startsWith('/v1/')) return [];
      if (res.status !== 404 && res.status !== 405)
        return [`${what}: no documented operation answers this request, yet it was not refused with 404 or 405`];
      return this.validate('#/components/schemas/ErrorEnvelope', res.body).map((e) => `${what} (undocumented): ${e}`);
    }
    const key = `${operation.method.toLowerCase()} ${operation.template}`;
    let pointer = `#/paths/${escape(operation.template)}/${operation.method.toLowerCase()}/responses/${res.status}`;
    let response = operation.responses[String(res.status)] as JsonObject | undefined;
    if (!response)
      return [`${what}: status ${res.status} is not documented for ${key} (documented: ${Object.keys(operation.responses).join(', ')})`];
    if (typeof response.$ref === 'string') {
      pointer = response.$ref;
      response = this.resolve(response.$ref);
    }
    const content = response.content as JsonObject | undefined;
    if (!content) return [];
    const mediaType = (res.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!Object.hasOwn(content, mediaType))
      return [`${what}: answered ${mediaType || 'no content type'}, documented ${Object.keys(content).join(', ')}`];
    const schema = `${pointer}/content/${escape(mediaType)}/schema`;
    // NDJSON: the schema is each line's (the body is the array of lines, testApp.ts)
    if (mediaType === 'application/x-ndjson') {
      if (!Array.isArray(res.body)) return [`${what}: an NDJSON answer whose lines are not each JSON`];
      return res.body.flatMap((line, i) => this.validate(schema, line).map((e) => `${what} line ${i + 1}: ${e}`));
    }
    return this.validate(schema, res.body).map((e) => `${what}: ${e}`);
  }

  private resolve(ref: string): JsonObject {
    let node: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/'))
      node = (node as JsonObject | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!node) throw new Error(`unresolved $ref ${ref}`);
    return node as JsonObject;
  }

  private validate(pointer: string, body: unknown): string[] {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `body${e.instancePath} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  }
}

/** A JSON pointer segment. */
function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
