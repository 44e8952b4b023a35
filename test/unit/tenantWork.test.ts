// The per-organization line for expensive work (src/domain/shared/tenantWork.ts): one piece of a kind at a time per
// organization, the others of that organization waiting in its own line (bounded, each at most waitMs), other
// organizations never waiting behind it, and the slot resting between one organization's pieces.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimited } from '../../src/domain/shared/errors.js';
import { runInSlices, SLICE_MS, TenantWorkGate } from '../../src/domain/shared/tenantWork.js';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

/** Work that ends when its `finish` is called, after `ms` of (fake) time. */
function piece(log: string[], name: string, ms = 10) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish: () => {
      vi.advanceTimersByTime(ms);
      finish();
    },
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
  };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('TenantWorkGate', () => {
  it("runs one organization's pieces one at a time, resting between them, while another organization's run at once", async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const [a1, a2, b1] = [piece(log, 'a1'), piece(log, 'a2'), piece(log, 'b1')];
    const runs = [gate.run('org-a', 'timeline', a1.work), gate.run('org-a', 'timeline', a2.work), gate.run('org-b', 'timeline', b1.work)];
    await flush();
    expect(log).toEqual(['start a1', 'start b1']);
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 1 });
    a1.finish();
    await flush();
    // a2 waits while the slot rests five times as long as a1 took
    expect(log).toEqual(['start a1', 'start b1', 'end a1']);
    vi.advanceTimersByTime(49);
    await flush();
    expect(log).not.toContain('start a2');
    vi.advanceTimersByTime(1);
    await flush();
    expect(log).toContain('start a2');
    a2.finish();
    b1.finish();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'b1']);
    await flush();
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('keeps kinds apart, and refuses past the line with 429 naming the bound (and after waiting too long)', async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 1, waitMs: 1_000 });
    const log: string[] = [];
    const [first, second, claim] = [piece(log, 'first'), piece(log, 'second'), piece(log, 'claim')];
    const running = gate.run('org', 'timeline', first.work);
    const waiting = gate.run('org', 'timeline', second.work);
    const other = gate.run('org', 'claim', claim.work);
    await flush();
    expect(log).toEqual(['start first', 'start claim']);
    const refused = await gate.run('org', 'timeline', () => Promise.resolve('never')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimited);
    expect((refused as RateLimited).message).toBe(
      'An organization runs at most 1 of its availability timelines at a time and 1 waiting; retry after 1 s',
    );
    expect((refused as RateLimited).retryAfter).toBe(1);
    vi.advanceTimersByTime(1_000);
    await expect(waiting).rejects.toBeInstanceOf(RateLimited);
    expect(gate.stats().refused).toBe(2);
    first.finish();
    claim.finish();
    expect(await running).toBe('first');
    expect(await other).toBe('claim');
    expect(log).not.toContain('start second');
  });
});

describe('runInSlices', () => {
  it('gives the event loop back after each slice of work, and answers what the steps return', async () => {
    let turns = 0;
    let stepsSeen = 0;
    function* steps(): Generator<void, string, void> {
      for (let i = 0; i < 10; i++) {
        stepsSeen++;
        vi.advanceTimersByTime(SLICE_MS / 2); // each step uses half a slice
        yield;
      }
      return 'done';
    }
    const turn = () => new Promise<void>((resolve) => setImmediate(() => resolve(void turns++)));
    const result = runInSlices(steps());
    // the loop turns between slices: each turn sees the work advanced by about one slice
    await turn();
    expect(stepsSeen).toBeGreaterThan(0);
    expect(stepsSeen).toBeLessThan(10);
    expect(await result).toBe('done');
    expect(turns).toBe(1);
  });
});
