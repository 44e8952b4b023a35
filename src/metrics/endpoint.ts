// GET /metrics: the app's registry in Prometheus's text format. Public unless METRICS_TOKEN is set;
// then only `Authorization: Bearer <METRICS_TOKEN>` reads it (401 otherwise). The token is compared in
// constant time (over SHA-256 digests, so that its length is not revealed either), and a wrong one
// counts against the client address's budget of failed authentications like a wrong API key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { addressOverBudget, countFailedAuthentication } from '../auth/authentication.js';
import { clientAddress } from '../http/clientAddress.js';
import { headerAsSent } from '../http/repeatedFields.js';
import { errorBody } from '../rest/envelope.js';
import type { MetricsDeps } from './deps.js';

export const METRICS_ROUTE = 'GET /metrics';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsEndpoint(deps: Pick<MetricsDeps, 'config' | 'rateLimit'>, registry: Registry) {
  const expected = deps.config.metricsToken === undefined ? undefined : digest(deps.config.metricsToken);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.label = METRICS_ROUTE;
    reply.header('Cache-Control', 'no-store');
    if (expected) {
      const address = clientAddress(request.raw, deps.config.trustProxy);
      const refused = await addressOverBudget(deps.rateLimit, address);
      if (refused) {
        reply.header('Retry-After', String(refused.retryAfter));
        return reply.code(429).type('application/json').send(errorBody('rate_limited', refused.message));
      }
      const given = /^Bearer +(\S+)\s*$/i.exec(headerAsSent(request.raw, 'authorization') ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        await countFailedAuthentication(deps.rateLimit, address);
        reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
        return reply
          .code(401)
          .type('application/json')
          .send(errorBody('unauthenticated', 'GET /metrics requires Authorization: Bearer <METRICS_TOKEN>'));
      }
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  };
}
