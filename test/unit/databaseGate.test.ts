// The bound on work waiting for the database (src/db/gate.ts): at most maxConcurrent run, at most
// maxWaiting wait, none waits longer than queueTimeoutMs, and a database found unreachable is refused at
// once for breakerMs; what the surfaces answer 503 for is recognised however Prisma wrapped it.
import { describe, expect, it } from 'vitest';
import { DatabaseGate, DatabaseUnavailableError } from '../../src/db/gate.js';
import { asUnavailable } from '../../src/domain/shared/databaseErrors.js';
import { Prisma } from '../../src/generated/prisma/client.js';

const gate = (over: Partial<ConstructorParameters<typeof DatabaseGate>[0]> = {}) =>
  new DatabaseGate({ maxConcurrent: 2, maxWaiting: 2, queueTimeoutMs: 200, breakerMs: 300, ...over });

const never = () => new Promise<never>(() => {});

describe('DatabaseGate', () => {
  it('runs at most maxConcurrent at once, queues at most maxWaiting, refuses the rest at once', async () => {
    const g = gate({ queueTimeoutMs: 10_000 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = [g.run(() => held), g.run(() => held)];
    const waiting = [g.run(() => Promise.resolve('third')), g.run(() => Promise.resolve('fourth'))];
    expect(g.stats()).toMatchObject({ active: 2, waiting: 2 });
    await expect(g.run(() => Promise.resolve('fifth'))).rejects.toMatchObject({ reason: 'overloaded' });
    release();
    await Promise.all(running);
    expect(await Promise.all(waiting)).toEqual(['third', 'fourth']);
    expect(g.stats()).toMatchObject({ active: 0, waiting: 0, refused: 1 });
  });

  it('refuses what waited longer than queueTimeoutMs', async () => {
    const g = gate({ maxConcurrent: 1 });
    void g.run(never);
    await expect(g.run(() => Promise.resolve('late'))).rejects.toMatchObject({ reason: 'overloaded' });
    expect(g.stats()).toMatchObject({ timedOut: 1, waiting: 0 });
  });

  it('refuses at once for breakerMs after the database was found unreachable, then lets work through again', async () => {
    const g = gate();
    g.reportUnreachable();
    await expect(g.run(() => Promise.resolve('x'))).rejects.toMatchObject({ reason: 'unreachable' });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await g.run(() => Promise.resolve('back'))).toBe('back');
  });
});

describe('asUnavailable', () => {
  it('recognises the gate’s error, also wrapped by Prisma, and Prisma’s own transaction timeouts', () => {
    expect(asUnavailable(new DatabaseUnavailableError('overloaded', 'The service is overloaded; retry shortly'))?.message).toBe(
      'The service is overloaded; retry shortly',
    );
    const wrapped = new Prisma.PrismaClientKnownRequestError('Invalid `db.x()` invocation:\n\nThe service is overloaded; retry shortly', {
      code: DatabaseUnavailableError.CODE,
      clientVersion: 'test',
    });
    expect(asUnavailable(wrapped)?.message).toBe('The service is overloaded; retry shortly');
    const p2028 = new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
      code: 'P2028',
      clientVersion: 'test',
    });
    expect(asUnavailable(p2028)).toMatchObject({ code: 'UNAVAILABLE', retryAfter: 1 });
    expect(
      asUnavailable(new Prisma.PrismaClientKnownRequestError('Unique constraint failed', { code: 'P2002', clientVersion: 'test' })),
    ).toBeUndefined();
    expect(asUnavailable(new Error('anything else'))).toBeUndefined();
  });
});
