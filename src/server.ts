// Entry point: validate configuration, open and migrate the database, create the demo data on a fresh
// embedded database, listen, and shut down gracefully on SIGTERM/SIGINT (in-flight requests finish,
// then the database closes).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { startAdminEndpoint } from './admin/endpoint.js';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseLockedError } from './db/pgliteLock.js';
import { createDemoData } from './demo/demoData.js';
import { createHttpServer, listen } from './httpServer.js';
import { createLogger, errorFields } from './logger.js';
import { openRuntime } from './runtime.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  if (runtime.appliedMigrations.length) logger.info('migrations applied', { migrations: runtime.appliedMigrations });

  let demoKey: string | undefined;
  let demoCreated = false;
  if (runtime.database.embedded) {
    // kept beside the data folder (not in the database) so that later starts can show it again
    const credentialsFile =
      config.databaseUrl === 'pglite:memory' ? undefined : resolve(dirname(resolve(config.databaseUrl.slice('pglite:'.length))), 'demo-credentials.json');
    if ((await runtime.deps.db.organization.count()) === 0) {
      const demo = await createDemoData(runtime.deps.db, config.oauthAudience);
      demoKey = demo.organizations.account.apiKey;
      demoCreated = true;
      if (credentialsFile) writeFileSync(credentialsFile, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
    } else if (credentialsFile) {
      demoKey = readDemoKey(credentialsFile);
    }
  }
  // GraphiQL opens with the demo key in its headers (embedded database only, never postgresql://)
  runtime.deps.demoApiKey = demoKey;

  const app = createApp(runtime.deps);
  // timeouts and header limits against slow and oversized requests (httpServer.ts)
  const server = createHttpServer(app.fetch, config.http, logger);
  const info = await listen(server, config.port, config.host);
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${info.port}`;
  if (demoCreated) {
    process.stderr.write(
      `\nDemo data created on the embedded database.\n  Demo API key (account organization): ${demoKey}\n  GraphiQL: ${base}/graphql\n\n`,
    );
  }
  // the admin command line runs its commands through this process while it holds the embedded folder
  const stopAdmin =
    runtime.database.embedded && config.databaseUrl !== 'pglite:memory'
      ? await startAdminEndpoint(runtime.deps, config.databaseUrl.slice('pglite:'.length), logger)
      : async () => {};
  logger.info('listening', { address: base, database: runtime.database.kind });
  // durable work (jobs/queue.ts) runs on every instance; runtime.close() stops it before the database closes
  runtime.deps.jobs?.start();

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => {
      logger.warn('forcing shutdown: requests still open after 10 s');
      process.exit(1);
    }, 10_000);
    force.unref();
    // stop accepting, let in-flight requests finish, then close the database
    server.close(async (err) => {
      if (err) logger.error('server close failed', errorFields(err));
      try {
        await stopAdmin();
        await runtime.close();
      } finally {
        clearTimeout(force);
        logger.info('stopped');
        process.exit(0);
      }
    });
    server.closeIdleConnections();
    // live subscriptions end cleanly (their SSE responses complete), so that their connections close too
    void runtime.deps.liveStreams.closeAll().then(() => server.closeIdleConnections());
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** The account organization's key from a demo-credentials.json written by an earlier start, if any. */
function readDemoKey(file: string): string | undefined {
  try {
    const key = (JSON.parse(readFileSync(file, 'utf8')) as { organizations?: { account?: { apiKey?: unknown } } }).organizations?.account?.apiKey;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined; // no file (the data predates it, or it was deleted): GraphiQL just opens without a key
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseLockedError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
