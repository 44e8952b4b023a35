// What the service's own parts report, read on each scrape: the read model's hits and misses (the hot
// path's cache), the rate limiter's refusals by budget and whether its counters are shared (Redis) or
// per instance, and whether the change channel to the other instances is up.
import { Histogram, type Registry } from 'prom-client';
import { scrapedCounters, scrapedGauge } from './scraped.js';
import type { MetricsDeps } from './deps.js';

export function registerServiceStateMetrics(
  registry: Registry,
  deps: Pick<MetricsDeps, 'readModel' | 'rateLimit' | 'changes' | 'requestQueue' | 'jobs'>,
): void {
  scrapedGauge(
    registry,
    { name: 'ocs_http_requests_waiting', help: 'Requests received and waiting to start (at most HTTP_MAX_QUEUED_REQUESTS; past it 503).' },
    () => deps.requestQueue?.waiting ?? 0,
  );
  scrapedCounters(
    registry,
    {
      name: 'ocs_http_requests_refused_total',
      help: 'Requests answered 503 at once because the queue of requests waiting to start was full.',
      label: 'reason',
    },
    () => ({ queue_full: deps.requestQueue?.refused ?? 0 }),
  );
  // durable work (jobs/queue.ts), read through deps on each scrape (a test may attach a queue after the app is made)
  scrapedCounters(
    registry,
    {
      name: 'ocs_webhook_deliveries_total',
      help:
        'Webhook delivery attempts on this instance by outcome: delivered, retried, failed (after the last retry), ' +
        'gone (410: endpoint disabled), ' +
        'disabled (every delivery failed for 5 days: endpoint disabled), target_not_allowed (refused by policy: failed for good).',
      label: 'outcome',
    },
    () => deps.jobs?.outcomes('webhook.deliver') ?? {},
  );
  // observed as deliveries succeed, on the queue the deps hold (attached after the app is made in tests: heard from the next scrape on)
  const latency = new Histogram({
    name: 'ocs_webhook_delivery_latency_seconds',
    help: 'From the commit of the change an event records to its delivery (a 2xx), retries included, on this instance.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1_800, 3_600, 6 * 3_600, 24 * 3_600],
    registers: [registry],
    collect() {
      listenTo(deps.jobs);
    },
  });
  const heard = new WeakSet<NonNullable<typeof deps.jobs>>();
  const listenTo = (jobs: typeof deps.jobs) => {
    if (!jobs || heard.has(jobs)) return;
    heard.add(jobs);
    jobs.onOutcome((kind, label, outcome) => {
      if (kind === 'webhook.deliver' && label === 'delivered' && outcome.latencyMs !== undefined) latency.observe(outcome.latencyMs / 1000);
    });
  };
  listenTo(deps.jobs);
  scrapedGauge(
    registry,
    {
      name: 'ocs_jobs_pending',
      help: 'Durable work waiting or in flight: jobs, webhook deliveries pending a retry, events not handed out to webhooks yet, first attempts on this instance (as of the previous scrape).',
    },
    () => deps.jobs?.depthNow().pending ?? 0,
  );
  scrapedGauge(
    registry,
    { name: 'ocs_jobs_oldest_pending_age_seconds', help: 'How long the oldest pending job has been due (as of the previous scrape).' },
    () => deps.jobs?.depthNow().oldestAgeSeconds ?? 0,
  );

  const byPart = (field: 'hits' | 'misses' | 'entries' | 'bytes') => () =>
    Object.fromEntries(Object.entries(deps.readModel.stats()).map(([part, stats]) => [part, stats[field]]));
  scrapedCounters(
    registry,
    {
      name: 'ocs_read_model_hits_total',
      help: 'Reads the read model answered from memory, by part (organizations, credentials, tokens, schedules).',
      label: 'part',
    },
    byPart('hits'),
  );
  scrapedCounters(
    registry,
    {
      name: 'ocs_read_model_misses_total',
      help: 'Reads the read model had to load from the database (or verify, for tokens), by part.',
      label: 'part',
    },
    byPart('misses'),
  );
  scrapedGauge(
    registry,
    {
      name: 'ocs_read_model_entries',
      help: 'Entries the read model holds now, by part (at most READ_MODEL_MAX_ENTRIES each).',
      label: 'part',
    },
    byPart('entries'),
  );
  scrapedGauge(
    registry,
    {
      name: 'ocs_read_model_bytes',
      help: 'Estimated bytes the read model holds now, by part (at most READ_MODEL_MAX_MB each; tokens are bounded by count only).',
      label: 'part',
    },
    byPart('bytes'),
  );

  scrapedCounters(
    registry,
    {
      name: 'ocs_rate_limit_refusals_total',
      help: 'Requests (or GraphQL root fields) refused with 429, by budget: perMinute, callRequestPoll, callRequestPollInterval, unauthenticated.',
      label: 'budget',
    },
    () => ({ ...deps.rateLimit.refusals }),
  );
  scrapedGauge(
    registry,
    {
      name: 'ocs_rate_limit_store_degraded',
      help: '1 while Redis fails and rate limits are counted per instance (GET /healthz says "degraded"), else 0.',
    },
    () => (deps.rateLimit.store.degraded ? 1 : 0),
  );

  scrapedGauge(
    registry,
    {
      name: 'ocs_change_channel_connected',
      help: '1 while changes from other instances can arrive (Redis pub/sub or PostgreSQL NOTIFY; always 1 on the embedded database), else 0.',
      label: 'transport',
    },
    () => ({ [deps.changes.transport.name]: deps.changes.connected ? 1 : 0 }),
  );
  scrapedGauge(
    registry,
    {
      name: 'ocs_change_log_in_sync',
      help: "1 while the event log, where other instances' changes are read, could be read the last time (always 1 on the embedded database), else 0: the read model then forgets and keeps entries a second.",
    },
    () => (deps.changes.inSync ? 1 : 0),
  );
}
