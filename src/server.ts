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
import { createDemoSchedule, demoGraphiqlVariables } from './demo/demoSchedule.js';
import { checkPortFree, createHttpServer, createRequestScheduler, listen, PortTakenError } from './http/server.js';
import { createLogger, errorFields } from './logger.js';
import { openRuntime } from './runtime.js';

/** How long after listening durable work first looks for due work, and GraphQL is loaded (ms). */
const DURABLE_WORK_DELAY_MS = 1_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // before migrations and the demo data: a taken port stops the start with nothing made
  await checkPortFree(config.port, config.host);
  const runtime = await openRuntime(config, logger);
  if (runtime.appliedMigrations.length) logger.info('migrations applied', { migrations: runtime.appliedMigrations });

  let demoKey: string | undefined;
  let clinicKey: string | undefined;
  let demoClinicId: string | undefined;
  let demoCreated = false;
  let credentialsFile: string | undefined;
  if (runtime.database.embedded) {
    // kept beside the data folder (not in the database) so that later starts can show it again
    credentialsFile =
      config.databaseUrl === 'pglite:memory'
        ? undefined
        : resolve(dirname(resolve(config.databaseUrl.slice('pglite:'.length))), 'demo-credentials.json');
    if ((await runtime.deps.db.organization.count()) === 0) {
      const demo = await createDemoData(runtime.deps.db, config.oauthAudience);
      // the Downtown clinic's week, closures and special day (through the domain, so recorded as events)
      const schedule = await createDemoSchedule(runtime.deps, demo);
      demoKey = demo.organizations.account.apiKey;
      clinicKey = demo.organizations.clinic.apiKey;
      demoClinicId = demo.organizations.clinic.id;
      demoCreated = true;
      if (credentialsFile) writeFileSync(credentialsFile, JSON.stringify({ ...demo, schedule }, null, 2) + '\n', { mode: 0o600 });
    } else if (credentialsFile) {
      ({ clinicKey, clinicId: demoClinicId } = readDemoCredentials(credentialsFile));
    }
  }
  // GraphiQL's headers hold a key only when asked for (GRAPHIQL_DEMO_KEY), on the embedded database (never
  // postgresql://), and then the Downtown clinic's (it reaches that clinic alone, the account's key both), for a
  // browser on this machine only (http/loopback.ts); its Variables hold the clinic's ids for that browser alone
  runtime.deps.demoApiKey = config.graphiqlDemoKey ? clinicKey : undefined;
  if (config.graphiqlDemoKey && !runtime.database.embedded)
    logger.warn('GRAPHIQL_DEMO_KEY is ignored: there is no demo key on postgresql://');
  const clinicId = demoClinicId;
  runtime.deps.demoVariables = clinicId ? () => demoGraphiqlVariables(clinicId, runtime.deps.clock()) : undefined;

  // the queue of requests waiting to start: bounded, its depth in /metrics (http/requestScheduler.ts)
  const scheduler = createRequestScheduler(config.http, logger);
  runtime.deps.requestQueue = scheduler;
  const app = createApp(runtime.deps);
  // timeouts and header limits against slow and oversized requests (http/server.ts)
  await app.ready();
  const server = createHttpServer(app.listener, config.http, logger, scheduler);
  const info = await listen(server, config.port, config.host);
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${info.port}`;
  if (runtime.database.embedded) {
    // every embedded start says where to begin (the credentials stay in their file, not in logs, after the first start)
    const where = credentialsFile
      ? `  Demo credentials (API keys, OAuth clients, ids): ${credentialsFile}\n`
      : '  Demo credentials: not kept (pglite:memory); the key is below\n';
    process.stderr.write(
      `\n${demoCreated ? 'Demo data created on the embedded database.' : 'Embedded database.'}\n` +
        (demoCreated
          ? `  Demo API key (account organization): ${demoKey}\n` +
            `  Demo API key (Downtown clinic, the location with a week, closures and a special day): ${clinicKey}\n`
          : '') +
        `  Start page: ${base}/\n` +
        `  Developer portal: ${base}/portal (paste a key; the Downtown clinic's shows its week)\n` +
        `  GraphiQL: ${base}/graphql (${runtime.deps.demoApiKey ? "the Downtown clinic's key in its headers, for a browser on this machine" : 'put an API key into its headers'})\n` +
        `  REST API docs: ${base}/v1/docs\n${where}\n`,
    );
  }
  // the admin command line runs its commands through this process while it holds the embedded folder
  const stopAdmin =
    runtime.database.embedded && config.databaseUrl !== 'pglite:memory'
      ? await startAdminEndpoint(runtime.deps, config.databaseUrl.slice('pglite:'.length), logger)
      : async () => {};
  logger.info('listening', { address: base, database: runtime.database.kind });
  // durable work (jobs/queue.ts) runs on every instance; runtime.close() stops it before the database closes.
  // Its first look waits a moment (a write on this instance starts it sooner): it runs the first statements
  // of their kinds (due jobs, availability looks, held leases), which held up the first answers of a start —
  // the health check that puts the instance in service among them. One process owns an embedded folder at a
  // time (db/ holds its lock): a lease found held there belonged to a process that died (kill -9 between a
  // delivery attempt and its outcome), so that work is made due at once rather than when the lease runs out.
  runtime.deps.jobs?.start({ afterMs: DURABLE_WORK_DELAY_MS, releaseHeldLeases: runtime.database.kind === 'pglite' });
  // GraphQL is loaded then too, rather than by its first request (app.ts)
  const graphqlWarmUp = setTimeout(() => {
    app.loadGraphQL().catch((err: unknown) => logger.error('GraphQL could not be loaded', errorFields(err)));
  }, DURABLE_WORK_DELAY_MS);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    clearTimeout(graphqlWarmUp);
    logger.info('shutting down', { signal });
    const force = setTimeout(() => {
      logger.warn('forcing shutdown: requests still open after 10 s');
      process.exit(1);
    }, 10_000);
    force.unref();
    // stop accepting, let in-flight requests finish, then close the database
    server.close((err) => {
      if (err) logger.error('server close failed', errorFields(err));
      // not awaited: node:http ignores the callback's result, and the chain ends by exiting the process
      // (whether closing succeeded or not), so no rejection is left to handle
      void stopAdmin()
        .then(() => runtime.close())
        .finally(() => {
          clearTimeout(force);
          logger.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
    // live subscriptions end cleanly (their SSE responses complete), so that their connections close too
    void runtime.deps.liveStreams.closeAll().then(() => server.closeIdleConnections());
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** The Downtown clinic's key and id from a demo-credentials.json written by an earlier start, if any. */
function readDemoCredentials(file: string): { clinicKey?: string; clinicId?: string } {
  try {
    const organizations = (JSON.parse(readFileSync(file, 'utf8')) as { organizations?: { clinic?: { apiKey?: unknown; id?: unknown } } })
      .organizations;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    return { clinicKey: text(organizations?.clinic?.apiKey), clinicId: text(organizations?.clinic?.id) };
  } catch {
    return {}; // no file (the data predates it, or it was deleted): GraphiQL just opens without a key
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseLockedError || err instanceof PortTakenError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
