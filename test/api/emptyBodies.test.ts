// Operations whose body may be empty (a cancel, an enable, a rotation: every field optional) take no body at all
// (issue 37 §1: a typed client must not be forced to send `{}`): the OpenAPI document declares their body optional,
// and the service answers a request without one exactly as it answers `{}`.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/rest/routes/index.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });

/** The routes whose body schema takes `{}` (but for a body needed by a rule across its fields, such as "exactly one of"). */
const optionalBodies = allRoutes.filter((route) => route.body?.safeParse({}).success && !route.bodyRequired);

describe('an operation whose body may be empty', () => {
  it('exists (the list below is not empty); one needed by a rule across its fields stays required', async () => {
    expect(optionalBodies.length).toBeGreaterThan(10);
    const doc = (await t.rest('GET', '/v1/openapi.json', { token: null })).body;
    expect(doc.paths['/v1/erasure-requests'].post.requestBody.required).toBe(true);
    expect(doc.paths['/v1/organizations/{orgId}/closures'].post.requestBody.required).toBe(true);
  });

  it.each(optionalBodies.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s is declared with an optional body',
    async (key) => {
      const doc = (await t.rest('GET', '/v1/openapi.json', { token: null })).body;
      const [method, path] = key.split(' ');
      const openApiPath = path!.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[openApiPath][method!.toLowerCase()].requestBody.required, key).toBe(false);
    },
  );

  it.each(optionalBodies.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers no body as it answers {}',
    async (_key, route) => {
      // ids of nothing: both answers are the same refusal (or the same success) when the body is truly optional
      const ids = new Map<string, string>();
      const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
        if (!ids.has(name)) ids.set(name, name === 'orgId' ? t.demo.organizations.clinic.id : randomUUID());
        return ids.get(name)!;
      });
      const without = await t.rest(route.method, path, {});
      const empty = await t.rest(route.method, path, { json: {} });
      expect({ status: without.status, code: without.body.code }).toEqual({ status: empty.status, code: empty.body.code });
      expect(without.status).toBeLessThan(500);
    },
  );
});
