// The timed-closure index against the rule it implements, written naively here: at an instant, the
// applying closure is the first in precedence order among those with startAt <= t < endAt; the index's
// edges in a window are exactly where that answer can change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClosureRule } from '../../src/domain/schedule/availability.js';
import { TimedClosureIndex, type TimedClosure } from '../../src/domain/schedule/closureIndex.js';

const rule = (i: number): ClosureRule => ({
  id: `c${i}`,
  description: `closure ${i}`,
  createdAt: new Date(i),
  startAt: null,
  endAt: null,
  annualMonth: null,
  annualDay: null,
  chatGreeting: null,
  phoneGreeting: null,
});

const closuresArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 60 })), { maxLength: 40 })
  .map((pairs) => pairs.map(([start, length], i): TimedClosure => ({ rule: rule(i), startMs: start, endMs: start + length })));

function naive(closures: TimedClosure[], t: number): ClosureRule | null {
  return closures.find((c) => c.startMs <= t && t < c.endMs)?.rule ?? null;
}

describe('TimedClosureIndex', () => {
  it('answers, at every instant, the first closure in precedence order that applies', () => {
    fc.assert(
      fc.property(closuresArb, (closures) => {
        const index = new TimedClosureIndex(closures);
        for (let t = -1; t <= 262; t++) expect(index.ruleAt(t)?.id ?? null).toBe(naive(closures, t)?.id ?? null);
      }),
      { numRuns: 300 },
    );
  });

  it('lists as edges every instant in a window where the applying closure changes', () => {
    fc.assert(
      fc.property(closuresArb, fc.integer({ min: -5, max: 260 }), fc.integer({ min: 0, max: 80 }), (closures, from, length) => {
        const index = new TimedClosureIndex(closures);
        const edges = new Set<number>();
        index.edgesIn(from, from + length, (ms) => edges.add(ms));
        for (const edge of edges) expect(edge > from && edge <= from + length).toBe(true);
        for (let t = from + 1; t <= from + length; t++) {
          if (naive(closures, t)?.id !== naive(closures, t - 1)?.id) expect(edges.has(t), `change at ${t}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('indexes 10,000 overlapping closures into segments that answer like the rule', () => {
    const closures: TimedClosure[] = Array.from({ length: 10_000 }, (_, i) => ({
      rule: rule(i),
      startMs: (i * 7919) % 100_000,
      endMs: ((i * 7919) % 100_000) + 1 + ((i * 31) % 500),
    }));
    const index = new TimedClosureIndex(closures);
    for (let t = 0; t < 100_600; t += 37) expect(index.ruleAt(t)?.id ?? null).toBe(naive(closures, t)?.id ?? null);
  });
});
