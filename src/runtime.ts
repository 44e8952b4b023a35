// Opens what the app needs from a Config: the database (migrated), the signing key, the rate limiter,
// the change feed and the read model it keeps fresh. Shared by the server, the command-line tools and
// the benchmark.
import { TranscriptKeyring } from './domain/governance/transcriptKeys.js';
import { masterKeys } from './crypto/masterKeys.js';
import { KeyUsage } from './auth/keyUsage.js';
import { createChangeFeed } from './changes/createFeed.js';
import { EventTail } from './changes/eventTail.js';
import { LiveEventReader } from './changes/liveEvents.js';
import { wakeAtRealTime } from './clock.js';
import type { ChangeFeed } from './changes/feed.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { startEmbeddedMaintenance } from './db/embeddedMaintenance.js';
import { applyMigrations, migrationsUpToDate } from './db/migrations.js';
import { loadSigningKey } from './auth/signingKey.js';
import type { AppDeps } from './deps.js';
import { LiveStreams } from './graphql/liveStreams.js';
import { JobQueue } from './jobs/queue.js';
import { handleWebhookDeliveries } from './domain/events/webhooks/delivery.js';
import { AvailabilityEvents } from './domain/schedule/availabilityEvents.js';
import { recordEndpointDisabled } from './domain/events/webhookEndpoints.js';
import { webhookReplayJobHandlers } from './domain/events/webhookReplays.js';
import { loadSchedules } from './readmodel/loaders.js';
import type { Db } from './db/client.js';
import { callRequestJobHandlers } from './domain/calls/callDispatch.js';
import { erasureJobHandlers } from './domain/calls/erasure.js';
import { retentionJobHandlers, scheduleRetentionSweep } from './domain/governance/retention.js';
import { createLogger, type Logger } from './logger.js';
import { createRateLimiter } from './ratelimit/limiter.js';
import { ReadModel } from './readmodel/readModel.js';
import { TenantWorkGate } from './domain/shared/tenantWork.js';

export interface Runtime {
  database: Database;
  deps: AppDeps;
  changes: ChangeFeed;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export async function openRuntime(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Runtime> {
  const database = await openDatabase(config.databaseUrl, { limits: config.database });
  const closers: (() => Promise<void>)[] = [() => database.close()];
  const close = async () => {
    for (const closeOne of closers.reverse()) {
      try {
        await closeOne();
      } catch (err) {
        logger.warn('closing failed', { error: String(err) });
      }
    }
  };
  try {
    // the schema engine is loaded only when there is something to apply
    const appliedMigrations = (await migrationsUpToDate(database.prisma)) ? [] : await applyMigrations(database.adapterFactory);
    const key = await loadSigningKey(database.prisma, config.jwtPrivateKey);
    const clock = () => new Date();
    // rate-limit counters: in memory, or in Redis (REDIS_URL) shared by every instance
    const rateLimit = createRateLimiter(config, logger, clock);
    closers.push(() => rateLimit.close());
    // changes between instances: Redis pub/sub, PostgreSQL NOTIFY, or none (embedded database)
    const changes = createChangeFeed(config, logger);
    closers.push(() => changes.close());
    const readModel = new ReadModel(database.prisma, { ...config.readModel, clock });
    changes.subscribe(readModel);
    // short waits so the first requests are counted in Redis and other instances' notices arrive; what is down is
    // not waited for (rate limits then count per instance, and other instances' changes arrive by the log's poll)
    await Promise.all([rateLimit.store.inner.ready(1_000), changes.start(1_000)]);
    // with other instances possible (Redis or NOTIFY), their changes are heard only from the event log, their
    // notices waking its reader: a lost notice, or one never sent, still arrives, a notice for nothing that
    // committed changes nothing (changes/eventTail.ts). One process on the embedded database has no other
    // writer to hear of.
    if (changes.transport.name !== 'local') {
      const tail = new EventTail(database.prisma, changes);
      await tail.start();
      closers.push(() => tail.stop());
    }
    // each event as it commits, for subscriptions that deliver every transition (read only while one is open)
    const liveEvents = new LiveEventReader(database.prisma, { observers: database.observers, onNotice: (wake) => changes.onNotice(wake) });
    closers.push(() => liveEvents.close());
    // API keys' last use: noted per request, written at most once a minute (auth/keyUsage.ts)
    const keyUsage = new KeyUsage(database.prisma);
    closers.push(() => keyUsage.close());
    const deps: AppDeps = {
      config,
      keyUsage,
      db: database.prisma,
      database,
      tokens: { key, issuer: config.oauthIssuer, audience: config.oauthAudience },
      transcripts: new TranscriptKeyring(masterKeys(config.transcriptMasterKeys, key)),
      logger,
      clock,
      wakeAt: wakeAtRealTime,
      rateLimit,
      readModel,
      changes,
      liveStreams: new LiveStreams(config.subscriptionsPerCredential),
      liveEvents,
      tenantWork: new TenantWorkGate(),
    };
    // durable work: the server starts the poll loop once it listens; stopped before the database closes
    // 32 jobs in flight (claimed 8 or more at a time): enough for many endpoints' 4 deliveries each, in few claims;
    // looks at least 20 ms apart, so that under a stream of writes one claim takes the deliveries of many commits
    const jobs = new JobQueue({ db: database.prisma, clock, wakeAt: wakeAtRealTime, logger }, { batchSize: 32, minLookGapMs: 20 });
    handleWebhookDeliveries(jobs, deps, {
      onDisabled: (tx, endpoint) => recordEndpointDisabled(tx, deps, endpoint),
      maxInFlightPerEndpoint: config.webhookMaxInFlightPerEndpoint,
      maxInFlightPerOrganization: config.webhookMaxInFlightPerOrganization,
      deliverySlots: config.webhookDeliverySlots,
    });
    // a write committed here, or a notice of one committed on another instance: its event is in the log for the
    // webhook dispatcher (and a look may be due) — look at once, not at the next poll
    changes.subscribe({ onChange: () => jobs.poke() });
    changes.onNotice(() => jobs.poke());
    // and after any commit that appended events (an insurance's notes, a call's outcome: writes that publish no change),
    // with the other instances' readers of the log (their webhook dispatchers, live subscriptions) woken too
    database.observers.add({
      onStatement: () => {},
      onEventsCommitted: () => {
        jobs.poke();
        changes.announce();
      },
    });
    for (const [kind, handler] of Object.entries(callRequestJobHandlers(deps))) jobs.handle(kind, handler);
    // erasures on request, in bounded batches (domain/calls/erasure.ts)
    for (const [kind, handler] of Object.entries(erasureJobHandlers(deps))) jobs.handle(kind, handler);
    // replays of an endpoint's failed deliveries, in bounded batches (domain/events/webhookReplays.ts)
    for (const [kind, handler] of Object.entries(webhookReplayJobHandlers(deps))) jobs.handle(kind, handler);
    // retention (domain/governance/retention.ts): a daily sweep queues each organization's purge, in bounded batches;
    // the first sweep is added here unless one is waiting (one for all instances)
    for (const [kind, handler] of Object.entries(retentionJobHandlers(deps))) jobs.handle(kind, handler);
    await scheduleRetentionSweep(deps);
    // availability.changed: looks at organizations whose answer may have changed, on the same loop (domain/schedule/availabilityEvents.ts)
    const availabilityEvents = new AvailabilityEvents({
      db: database.prisma,
      clock,
      loadSchedules: (tx, ids, from) => loadSchedules(tx as unknown as Db, ids, from),
    });
    jobs.alsoRun(() => availabilityEvents.runDue());
    deps.jobs = jobs;
    closers.push(() => jobs.stop());
    // the embedded database has neither autovacuum nor a checkpointer (single-user mode): the process vacuums what
    // churns and checkpoints (db/embeddedMaintenance.ts)
    if (database.kind === 'pglite') {
      closers.push(startEmbeddedMaintenance(deps, (err) => logger.warn('embedded database maintenance failed', { error: String(err) })));
    }
    return { database, deps, changes, appliedMigrations, close };
  } catch (err) {
    await close();
    throw err;
  }
}
