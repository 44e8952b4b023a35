// Libraries only some deployments use, loaded on first use rather than with the app. Measured on their own:
//   - ioredis and yoga's Redis event target (only with REDIS_URL): about 20 MB of resident memory and 150 ms
//     of loading; both ship CommonJS, so a plain synchronous require keeps the classes that use them
//     constructible as before (loaded from node_modules, not from the bundle);
//   - PGlite and its Prisma adapter (only for an embedded database, and the migration tools): megabytes and
//     start time that a deployment on a PostgreSQL server would pay for nothing; ES modules, loaded by import()
//     (a chunk of their own in the bundle);
//   - pg and Prisma's adapter for it (only for a PostgreSQL server): on Node 20 pg's first load also loads
//     undici (it probes `new Response()` for Cloudflare Workers), a noticeable part of an embedded start.
import { createRequire } from 'node:module';

// not named `require`: the bundle's banner (src/cli/build.mjs) declares that name at the top of each file
const loadCommonJs = createRequire(import.meta.url);

export function ioredis(): typeof import('ioredis') {
  return loadCommonJs('ioredis') as typeof import('ioredis');
}

export function redisEventTarget(): typeof import('@graphql-yoga/redis-event-target') {
  return loadCommonJs('@graphql-yoga/redis-event-target') as typeof import('@graphql-yoga/redis-event-target');
}

export async function loadPGlite(): Promise<{
  PGlite: typeof import('@electric-sql/pglite').PGlite;
  PrismaPGlite: typeof import('pglite-prisma-adapter').PrismaPGlite;
}> {
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import('@electric-sql/pglite'), import('pglite-prisma-adapter')]);
  return { PGlite, PrismaPGlite };
}

export async function loadPostgresDriver(): Promise<{
  pg: typeof import('pg').default;
  PrismaPg: typeof import('@prisma/adapter-pg').PrismaPg;
}> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import('pg'), import('@prisma/adapter-pg')]);
  return { pg, PrismaPg };
}
