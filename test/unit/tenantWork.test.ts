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

  it("passes a claim's slot on at once: one at a time, back to back (a claim's time is the database's)", async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const [c1, c2] = [piece(log, 'c1', 100), piece(log, 'c2')];
    const runs = [gate.run('org-a', 'claim', c1.work), gate.run('org-a', 'claim', c2.work)];
    await flush();
    expect(log).toEqual(['start c1']);
    c1.finish();
    await flush();
    expect(log).toEqual(['start c1', 'end c1', 'start c2']);
    c2.finish();
    expect(await Promise.all(runs)).toEqual(['c1', 'c2']);
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

describe("TenantWorkGate with the request's answerMade", () => {
  /** A request's answerMade, settled by `made()`. */
  function request() {
    let made!: () => void;
    const answerMade = new Promise<void>((resolve) => (made = resolve));
    return { answerMade, made };
  }

  it("holds the slot until the answer made of the work exists (making it is the organization's work too), then rests", async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const [a1, a2] = [piece(log, 'a1'), piece(log, 'a2')];
    const r1 = request();
    const first = gate.run('org-a', 'timeline', a1.work, r1.answerMade);
    const second = gate.run('org-a', 'timeline', a2.work, request().answerMade);
    await flush();
    a1.finish(); // 10 ms of work
    expect(await first).toBe('a1');
    vi.advanceTimersByTime(1_000); // the answer is still being made: the slot is held however long that takes
    await flush();
    expect(log).not.toContain('start a2');
    vi.advanceTimersByTime(10); // the answer took 1,010 ms more: the rest is capped at a second
    r1.made();
    await flush();
    vi.advanceTimersByTime(999);
    await flush();
    expect(log).not.toContain('start a2');
    vi.advanceTimersByTime(1);
    await flush();
    expect(log).toContain('start a2');
    a2.finish();
    expect(await second).toBe('a2');
  });

  it("runs a request's further pieces (GraphQL aliases) in the slot it holds, even those that queued behind another request", async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const [x, y1, y2, y3] = [piece(log, 'x'), piece(log, 'y1'), piece(log, 'y2'), piece(log, 'y3')];
    const rx = request();
    const ry = request();
    const runs = [
      gate.run('org-a', 'timeline', x.work, rx.answerMade),
      gate.run('org-a', 'timeline', y1.work, ry.answerMade),
      gate.run('org-a', 'timeline', y2.work, ry.answerMade),
    ];
    await flush();
    expect(log).toEqual(['start x']);
    x.finish();
    rx.made();
    await flush();
    vi.advanceTimersByTime(50);
    await flush();
    // y's two pieces go in together: the second does not wait for the answer that needs it
    expect(log).toEqual(['start x', 'end x', 'start y1', 'start y2']);
    y1.finish();
    await flush();
    // a third piece of the same request, while its answer is being made, runs at once too
    runs.push(gate.run('org-a', 'timeline', y3.work, ry.answerMade));
    await flush();
    expect(log).toContain('start y3');
    y2.finish();
    y3.finish();
    ry.made();
    expect(await Promise.all(runs)).toEqual(['x', 'y1', 'y2', 'y3']);
    await flush();
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('gives the slot back after HOLD_MAX_MS when the answer is never said to be made (a bug slows, never stops)', async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const [a1, a2] = [piece(log, 'a1', 0), piece(log, 'a2', 0)];
    const first = gate.run('org-a', 'timeline', a1.work, request().answerMade);
    const second = gate.run('org-a', 'timeline', a2.work);
    await flush();
    a1.finish();
    await first;
    vi.advanceTimersByTime(4_999);
    await flush();
    expect(log).not.toContain('start a2');
    vi.advanceTimersByTime(1); // the hold's bound
    await flush();
    vi.advanceTimersByTime(1_000); // then the rest (capped)
    await flush();
    expect(log).toContain('start a2');
    a2.finish();
    expect(await second).toBe('a2');
  });

  it('releases at once when the work fails: no answer of its result will be made', async () => {
    const gate = new TenantWorkGate({ running: 1, waiting: 10, waitMs: 20_000 });
    const log: string[] = [];
    const a2 = piece(log, 'a2', 0);
    const failing = gate.run('org-a', 'timeline', () => Promise.reject(new Error('boom')), request().answerMade);
    const second = gate.run('org-a', 'timeline', a2.work);
    await expect(failing).rejects.toThrow('boom');
    vi.advanceTimersByTime(0);
    await flush();
    expect(log).toContain('start a2');
    a2.finish();
    expect(await second).toBe('a2');
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
