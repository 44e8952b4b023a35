// Graceful overload: the work waiting for the database is bounded (DB_MAX_WAITING) and waits at most
// DB_QUEUE_TIMEOUT_MS; past either, a request is answered at once with 503 + Retry-After in the
// envelope (GraphQL: extensions.code UNAVAILABLE), never a 500 and never a hang — while requests the
// read model answers, and /healthz, keep being served. Here the database is held busy by a long
// transaction (one connection: the embedded database, or DB_POOL_SIZE=1 on PostgreSQL).
import { describe, expect, it } from 'vitest';
import { asUnavailable } from '../../src/domain/shared/databaseErrors.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ env: { DB_POOL_SIZE: '1', DB_MAX_WAITING: '2', DB_QUEUE_TIMEOUT_MS: '400', DB_STATEMENT_TIMEOUT_MS: '1500' } });

/** Holds the only database slot for `ms` (a transaction that sleeps in JavaScript, not in the database). */
function holdDatabase(ms: number): { started: Promise<void>; done: Promise<unknown> } {
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const done = t.deps.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      started();
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    { timeout: ms + 5_000, maxWait: 5_000 },
  );
  return { started: startedPromise, done };
}

describe('when the database is busy', () => {
  it('answers what waits too long or finds the queue full with 503 + Retry-After, and keeps serving cached reads and /healthz', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z');
    const warm = await t.rest('GET', `/v1/organizations/${org}/availability?medium=PHONE`); // cached from now on
    expect(warm.status).toBe(200);

    const hold = holdDatabase(1_500);
    await hold.started;
    // closures are read from the database on every request
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.rest('GET', `/v1/organizations/${org}/closures`)));
    const cached = await t.rest('GET', `/v1/organizations/${org}/availability?medium=PHONE`);
    const health = await t.rest('GET', '/healthz', { token: null });
    await hold.done;

    expect(responses.map((r) => r.status)).toEqual(new Array(10).fill(503));
    for (const res of responses) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toMatchObject({ success: false, data: {}, message: expect.stringMatching(/overloaded.*retry/i) });
    }
    expect(cached.status).toBe(200);
    expect(health.status).toBe(200);
    expect(health.body.database).toBe('ok');

    // once the database is free again, the same request is served
    expect((await t.rest('GET', `/v1/organizations/${org}/closures`)).status).toBe(200);
  });

  it('answers a GraphQL operation that cannot get the database with UNAVAILABLE and HTTP 503', async () => {
    const hold = holdDatabase(1_000);
    await hold.started;
    const res = await t.gql('query($id: ID!) { organization(id: $id) { closures { id } } }', { id: t.demo.organizations.clinic.id });
    await hold.done;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'UNAVAILABLE', retryAfter: 1 });
  });

  it.runIf(process.env.TEST_DB === 'postgres')(
    'stops waiting for a statement after DB_STATEMENT_TIMEOUT_MS (503, not a hang)',
    async () => {
      const err = await t.deps.db.$queryRaw`SELECT pg_sleep(5)`.then(
        () => null,
        (e: unknown) => e,
      );
      expect(asUnavailable(err)?.message).toMatch(/did not answer within 1500 ms|canceling statement/);
    },
  );
});
