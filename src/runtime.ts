// Opens what the app needs from a Config: the database (migrated), the signing key, the logger.
// Shared by the server, the command-line tools and the benchmark.
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrations.js';
import { loadSigningKey } from './auth/signingKey.js';
import type { AppDeps } from './deps.js';
import { createLogger, type Logger } from './logger.js';
import { createRateLimiter } from './ratelimit/limiter.js';

export interface Runtime {
  database: Database;
  deps: AppDeps;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export async function openRuntime(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Runtime> {
  const database = await openDatabase(config.databaseUrl);
  try {
    const appliedMigrations = await applyMigrations(database.adapterFactory);
    const key = await loadSigningKey(database.prisma, config.jwtPrivateKey);
    const clock = () => new Date();
    // rate-limit counters: in memory, or in Redis (REDIS_URL) shared by every instance
    const rateLimit = createRateLimiter(config, logger, clock);
    // a short wait so the first requests are counted in Redis; a Redis that is down is not waited for (counted per instance)
    await rateLimit.store.inner.ready(1_000);
    const deps: AppDeps = {
      config,
      db: database.prisma,
      tokens: { key, issuer: config.oauthIssuer, audience: config.oauthAudience },
      logger,
      clock,
      rateLimit,
    };
    const close = async () => {
      try {
        await rateLimit.close();
      } finally {
        await database.close();
      }
    };
    return { database, deps, appliedMigrations, close };
  } catch (err) {
    await database.close();
    throw err;
  }
}
