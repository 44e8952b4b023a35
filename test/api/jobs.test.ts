// Durable work (jobs/queue.ts): jobs enqueued in a transaction run once due on the app's clock, are
// retried when the handler asks, are held by one claimant at a time, and are taken over when a claim's
// lease expires (an instance that died).
import { describe, expect, it } from 'vitest';
import { dropJobs, enqueueJob, JobQueue, type ClaimedJob, type JobOutcome } from '../../src/jobs/queue.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ seed: false });

function queueWith(handler: (job: ClaimedJob) => Promise<JobOutcome>, leaseMs = 60_000) {
  return new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { leaseMs }).handle('test', handler);
}

describe('the job queue', () => {
  it('runs a job once it is due, on the app clock, and deletes it when done', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const ran: unknown[] = [];
    const queue = queueWith((job) => (ran.push(job.payload), Promise.resolve({ done: true })));
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: { n: 1 }, runAt: new Date('2026-03-02T15:00:05Z') });
    expect(await queue.runDue()).toBe(0);
    t.clock.advance(5_000);
    expect(await queue.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 1 }]);
    expect(await t.deps.db.job.count()).toBe(0);
  });

  it('a job named by its subject is dropped with it; one dropped while it runs records its outcome on no row', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const subject = '7f1c3a52-0d8e-4c57-9d61-2f6b1e0a9c11';
    // its subject ends while it runs (another transaction drops it), then it asks for a retry, or fails for good
    const outcomes: JobOutcome[] = [{ retryAt: new Date('2026-03-02T15:01:00Z'), error: 'later' }, { failed: 'gave up' }];
    const queue = queueWith(async () => {
      await dropJobs(t.deps.db, [subject]);
      return outcomes.shift()!;
    });
    for (let i = 0; i < 2; i++) {
      expect(await enqueueJob(t.deps.db, t.clock.now(), { id: subject, kind: 'test', payload: {} })).toBe(subject);
      expect(await queue.runDue()).toBe(1);
      expect(await t.deps.db.job.count()).toBe(0);
    }
    // dropped before it runs: nothing runs
    await enqueueJob(t.deps.db, t.clock.now(), { id: subject, kind: 'test', payload: {} });
    await t.deps.db.$transaction((tx) => dropJobs(tx, [subject, null]));
    expect(await queue.runDue()).toBe(0);
  });

  it('retries at the instant the handler names, counting attempts, and keeps a job that failed for good', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const attempts: number[] = [];
    const queue = queueWith((job) => {
      attempts.push(job.attempts);
      if (job.attempts < 3)
        return Promise.resolve({ retryAt: new Date(t.clock.now().getTime() + 10_000), error: `attempt ${job.attempts}` });
      return Promise.resolve({ failed: 'gave up' });
    });
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: {} });
    expect(await queue.runDue()).toBe(1);
    expect(await queue.runDue()).toBe(0);
    t.clock.advance(10_000);
    expect(await queue.runDue()).toBe(1);
    t.clock.advance(10_000);
    expect(await queue.runDue()).toBe(1);
    t.clock.advance(10_000);
    expect(await queue.runDue()).toBe(0);
    expect(attempts).toEqual([1, 2, 3]);
    const kept = await t.deps.db.job.findFirstOrThrow();
    expect(kept).toMatchObject({ attempts: 3, lastError: 'gave up' });
    expect(kept.failedAt).not.toBeNull();
  });

  it('holds a claimed job for one claimant; another takes it over only after the lease expires', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = queueWith(async () => (await held, { done: true }), 30_000);
    const taken: number[] = [];
    const second = queueWith((job) => (taken.push(job.attempts), Promise.resolve({ done: true })), 30_000);
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: {} });
    const running = first.runDue();
    // the first claimant holds it (its claim committed before its handler runs)
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await second.runDue()).toBe(0);
    t.clock.advance(30_000);
    expect(await second.runDue()).toBe(1);
    expect(taken).toEqual([2]);
    release();
    await running.catch(() => undefined);
  });

  it('polls on the app clock once started, and stops', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const ran: number[] = [];
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { pollMs: 1_000 }).handle(
      'test',
      () => (ran.push(1), Promise.resolve({ done: true })),
    );
    queue.start();
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: {}, runAt: new Date('2026-03-02T15:00:02Z') });
    // the loop looks, finds nothing due, and waits for its next poll on the clock
    await expect.poll(() => t.clock.pendingWakeUps).toBe(1);
    t.clock.advance(1_000);
    await expect.poll(() => t.clock.pendingWakeUps).toBe(1);
    expect(ran).toEqual([]);
    t.clock.advance(1_000);
    await expect.poll(() => ran.length).toBe(1);
    await queue.stop();
    expect(t.clock.pendingWakeUps).toBe(0);
  });

  it('started with a delay, looks first when the clock reaches it (a poke looks sooner); releases the leases found held first when asked', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    const ran: number[] = [];
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { pollMs: 60_000 }).handle(
      'test',
      (job) => (ran.push(job.attempts), Promise.resolve({ done: true })),
    );
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: {} });
    // a lease left by a process that died: without the release, its job would wait for the lease to run out
    await t.deps.db.job.updateMany({ data: { lockedUntil: new Date('2026-03-02T15:10:00Z'), attempts: 1 } });
    queue.start({ afterMs: 1_000, releaseHeldLeases: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toEqual([]);
    t.clock.advance(1_000);
    await expect.poll(() => ran).toEqual([2]);
    // a second job, enqueued here while the first look waits, is looked for at once
    queue.start({ afterMs: 1_000 });
    await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: {} });
    queue.poke();
    await expect.poll(() => ran).toEqual([2, 1]);
    await queue.stop();
    expect(t.clock.pendingWakeUps).toBe(0);
  });

  it('keeps its slots busy once started: a slow job does not hold back the ones claimed with it, nor the next claim', async () => {
    t.clock.set('2026-03-02T15:00:00Z');
    let releaseSlow!: () => void;
    const slowDone = new Promise<void>((resolve) => (releaseSlow = resolve));
    const ran: string[] = [];
    const queue = new JobQueue({ db: t.deps.db, clock: t.clock.now, wakeAt: t.clock.wakeAt }, { batchSize: 2 }).handle(
      'test',
      async (job) => {
        const { name } = job.payload as { name: string };
        if (name === 'slow') await slowDone;
        ran.push(name);
        return { done: true };
      },
    );
    await enqueueJob(t.deps.db, new Date('2026-03-02T14:59:00Z'), { kind: 'test', payload: { name: 'slow' } });
    for (const name of ['a', 'b', 'c', 'd']) await enqueueJob(t.deps.db, t.clock.now(), { kind: 'test', payload: { name } });
    queue.start();
    // two slots: the slow job holds one, the other is refilled as each quick job finishes (not batch by batch)
    await expect.poll(() => ran.length).toBe(4);
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    // a done job's row goes a moment after its handler returned (deletions are batched per turn of the loop)
    await expect.poll(() => t.deps.db.job.count()).toBe(1);
    releaseSlow();
    await expect.poll(() => t.deps.db.job.count()).toBe(0);
    await queue.stop();
  });
});
