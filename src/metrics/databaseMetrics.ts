// The database as the service sees it: every statement (timed by the statement observers of
// db/instrumentedAdapter.ts; transaction control left out, since some drivers send BEGIN/COMMIT as
// statements and others do not), the statements that failed and why, and the gate in front of it
// (db/gate.ts): slots in use, work waiting, the time waited for a slot, and the work refused (503).
import { Counter, Histogram, type Registry } from 'prom-client';
import { DatabaseUnavailableError } from '../db/gate.js';
import { type DatabaseObserver, isConnectionFailure, isServerTimeout } from '../db/instrumentedAdapter.js';
import { scrapedCounter, scrapedGauge } from './scraped.js';
import type { MetricsDeps } from './deps.js';

const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** timeout: DB_STATEMENT_TIMEOUT_MS passed; unreachable: the connection failed; error: the database answered with an error (a constraint, a conflict). */
export type StatementErrorReason = 'timeout' | 'unreachable' | 'error';
const STATEMENT_ERROR_REASONS: readonly StatementErrorReason[] = ['timeout', 'unreachable', 'error'];

export function statementErrorReason(err: unknown): StatementErrorReason {
  if (err instanceof DatabaseUnavailableError) return err.reason === 'timeout' ? 'timeout' : 'unreachable';
  if (isServerTimeout(err)) return 'timeout';
  if (isConnectionFailure(err)) return 'unreachable';
  return 'error';
}

/** Registers the database's metrics; answers the statement observer it added (the app keeps it for the database's life). */
export function registerDatabaseMetrics(registry: Registry, database: MetricsDeps['database']): DatabaseObserver {
  const registers = [registry];
  const duration = new Histogram({
    name: 'ocs_db_statement_duration_seconds',
    help: 'SQL statements sent (transaction control excluded), by the time they ran after getting a slot.',
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'ocs_db_statement_errors_total',
    help: 'SQL statements that failed: timeout (DB_STATEMENT_TIMEOUT_MS), unreachable (connection failed), error (the database answered with an error).',
    labelNames: ['reason'],
    registers,
  });
  // every reason from 0, so that rate() and alerts see the series before the first error
  for (const reason of STATEMENT_ERROR_REASONS) errors.inc({ reason }, 0);
  const observer: DatabaseObserver = {
    onStatement(event) {
      if (event.control) return;
      duration.observe(event.durationMs / 1000);
      if (event.error !== undefined) errors.inc({ reason: statementErrorReason(event.error) });
    },
  };
  database.observers.add(observer);

  const gate = database.gate;
  scrapedGauge(
    registry,
    { name: 'ocs_db_gate_slots', help: 'Database work that may run at once (DB_POOL_SIZE; 1 on the embedded database).' },
    () => gate.options.maxConcurrent,
  );
  scrapedGauge(
    registry,
    { name: 'ocs_db_gate_active', help: 'Statements and transactions holding a database slot now.' },
    () => gate.stats().active,
  );
  scrapedGauge(
    registry,
    { name: 'ocs_db_gate_waiting', help: 'Statements and transactions waiting for a database slot now (at most DB_MAX_WAITING).' },
    () => gate.stats().waiting,
  );
  scrapedCounter(
    registry,
    { name: 'ocs_db_gate_admitted_total', help: 'Statements and transactions that got a database slot.' },
    () => gate.stats().admitted,
  );
  scrapedCounter(
    registry,
    {
      name: 'ocs_db_gate_wait_seconds_total',
      help: 'Time admitted work waited for a database slot, summed (divided by ocs_db_gate_admitted_total: the mean wait).',
    },
    () => gate.stats().waitedMs / 1000,
  );
  scrapedCounter(
    registry,
    {
      name: 'ocs_db_gate_refused_total',
      help: 'Database work refused at once with 503: DB_MAX_WAITING already waiting, or the database found unreachable moments ago.',
    },
    () => gate.stats().refused,
  );
  scrapedCounter(
    registry,
    { name: 'ocs_db_gate_timeouts_total', help: 'Database work that waited DB_QUEUE_TIMEOUT_MS for a slot and was answered 503.' },
    () => gate.stats().timedOut,
  );
  return observer;
}
