// The queue behind live subscriptions (domain/shared/liveQueue.ts): a slow reader of availability loses the oldest
// answers; a slow reader of call transitions is told it fell behind, after reading what it was sent, rather than
// miss one silently. And where a reader of the log starts (changes/logPosition.ts): the seqs missing among the
// latest are gaps, read again when their writes commit.
import { describe, expect, it } from 'vitest';
import { LogPosition } from '../../src/changes/logPosition.js';
import { LiveQueue } from '../../src/domain/shared/liveQueue.js';

const drain = async <T>(q: LiveQueue<T>) => {
  const got: T[] = [];
  for (;;) {
    const r = await q.next();
    if (r.done) return got;
    got.push(r.value);
  }
};

describe('a live queue', () => {
  it('hands a waiting reader the next value at once, and ends when returned (releasing its source once)', async () => {
    let ended = 0;
    const q = new LiveQueue<number>({ max: 3, overflow: 'fail', onEnd: () => ended++ });
    const waiting = q.next();
    q.push(1);
    expect(await waiting).toEqual({ value: 1, done: false });
    const pending = q.next();
    await q.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    await q.return();
    q.push(2);
    expect(await q.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
  });

  it('drops the oldest past its bound when told so', async () => {
    const kept = new LiveQueue<number>({ max: 3, overflow: 'dropOldest', onEnd: () => {} });
    for (let i = 1; i <= 5; i++) kept.push(i);
    expect([(await kept.next()).value, (await kept.next()).value, (await kept.next()).value]).toEqual([3, 4, 5]);
  });

  it('else fails past its bound, after the values it holds are read, and hears nothing more', async () => {
    let ended = 0;
    const q = new LiveQueue<number>({
      max: 3,
      overflow: 'fail',
      overflowError: () => new Error('fell behind'),
      onEnd: () => ended++,
    });
    for (let i = 1; i <= 5; i++) q.push(i);
    expect(ended).toBe(1);
    // what was sent before the bound was passed is read first (the fourth too: it is what passed it)
    const first = [];
    for (let i = 0; i < 4; i++) first.push((await q.next()).value);
    expect(first).toEqual([1, 2, 3, 4]);
    await expect(drain(q)).rejects.toThrow('fell behind');
    expect(await q.next()).toEqual({ value: undefined, done: true });
  });

  it('rejects a waiting reader when it fails', async () => {
    const q = new LiveQueue<number>({ max: 3, overflow: 'fail', onEnd: () => {} });
    const waiting = q.next();
    q.fail(new Error('revoked'));
    await expect(waiting).rejects.toThrow('revoked');
    expect(await q.next()).toEqual({ value: undefined, done: true });
  });
});

describe('a reader of the log that starts now', () => {
  it('takes the seqs missing within the window below the highest as gaps, never more', () => {
    const position = LogPosition.startingAfter([7, 8, 10, 12], 4, 60_000, 0);
    expect(position.read).toBe(12);
    expect(position.gapsToRead(1).sort((a, b) => a - b)).toEqual([9, 11]);
    const short = LogPosition.startingAfter([2, 4], 4, 60_000, 0);
    expect(short.gapsToRead(1).sort((a, b) => a - b)).toEqual([1, 3]);
    // a short log whose first seqs were purged long ago: the gaps stay within the window
    const purged = LogPosition.startingAfter([50_000, 50_002], 1_000, 60_000, 0);
    expect(purged.gapsToRead(1)).toHaveLength(1_000 - 2);
    expect(LogPosition.startingAfter([], 4, 60_000).read).toBe(0);
  });
});
