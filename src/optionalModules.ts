// Libraries only some deployments use, loaded on first use from node_modules rather than with the app:
// without REDIS_URL, ioredis and yoga's Redis event target are never loaded (measured on their own: about
// 20 MB of resident memory and 150 ms of loading that a single instance on the embedded database or on
// PostgreSQL alone would pay for nothing). Both packages ship CommonJS, so a plain synchronous require
// keeps the classes that use them constructible as before.
import { createRequire } from 'node:module';

// not named `require`: the bundle's banner (src/cli/build.mjs) declares that name at the top of each file
const loadCommonJs = createRequire(import.meta.url);

export function ioredis(): typeof import('ioredis') {
  return loadCommonJs('ioredis') as typeof import('ioredis');
}

export function redisEventTarget(): typeof import('@graphql-yoga/redis-event-target') {
  return loadCommonJs('@graphql-yoga/redis-event-target') as typeof import('@graphql-yoga/redis-event-target');
}
