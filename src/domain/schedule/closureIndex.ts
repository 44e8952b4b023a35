// Timed closures indexed by time. Closures may overlap; where several apply, the one earliest in
// precedence order wins (docs/decisions.md §3). The index resolves that once, when it is built: it cuts the
// time line into disjoint segments, each carrying the closure that wins there, so that "which closure
// applies at t" is one binary search and "where may the state change between a and b" lists the
// segment edges in that window — whatever the number of closures (10,000 cost a few more steps of
// the search, not 10,000 comparisons per instant).
import type { ClosureRule } from './availability.js';

export interface TimedClosure {
  rule: ClosureRule;
  startMs: number;
  endMs: number;
}

/** A binary min-heap of closure ranks (their position in precedence order). */
class RankHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): number | undefined {
    return this.items[0];
  }
  push(rank: number): void {
    const a = this.items;
    a.push(rank);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }
  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l]! < a[m]!) m = l;
      if (r < a.length && a[r]! < a[m]!) m = r;
      if (m === i) break;
      [a[m], a[i]] = [a[i]!, a[m]!];
      i = m;
    }
  }
}

export class TimedClosureIndex {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly rules: ClosureRule[] = [];

  /** `closures` in precedence order (the first wins where several apply). */
  constructor(closures: readonly TimedClosure[]) {
    const valid = closures.filter((c) => c.startMs < c.endMs);
    if (valid.length === 0) return;
    const byStart = valid.map((c, rank) => ({ ...c, rank })).sort((a, b) => a.startMs - b.startMs);
    const points = [...new Set(valid.flatMap((c) => [c.startMs, c.endMs]))].sort((a, b) => a - b);
    const heap = new RankHeap();
    let next = 0;
    for (let i = 0; i < points.length - 1; i++) {
      const t = points[i]!;
      while (next < byStart.length && byStart[next]!.startMs <= t) heap.push(byStart[next++]!.rank);
      // closures that ended by t leave the heap lazily, when they reach its top
      while (heap.size > 0 && valid[heap.peek()!]!.endMs <= t) heap.pop();
      const top = heap.peek();
      if (top === undefined) continue;
      const rule = valid[top]!.rule;
      const last = this.rules.length - 1;
      if (last >= 0 && this.rules[last] === rule && this.ends[last] === t) this.ends[last] = points[i + 1]!;
      else {
        this.starts.push(t);
        this.ends.push(points[i + 1]!);
        this.rules.push(rule);
      }
    }
  }

  /** Number of segments (for tests). */
  get segments(): number {
    return this.starts.length;
  }

  /** The closures the index holds, each once (the read model estimates its size from them). */
  heldRules(): Set<ClosureRule> {
    return new Set(this.rules);
  }

  /** Index of the last segment starting at or before `ms`, or -1. */
  private segmentAtOrBefore(ms: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= ms) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The closure that applies at `ms` (startAt <= ms < endAt), or null. */
  ruleAt(ms: number): ClosureRule | null {
    const i = this.segmentAtOrBefore(ms);
    return i >= 0 && ms < this.ends[i]! ? this.rules[i]! : null;
  }

  /** At most how many edges edgesIn answers for (fromMs, toMs], counted by two binary searches. */
  edgeCountIn(fromMs: number, toMs: number): number {
    const first = Math.max(0, this.segmentAtOrBefore(fromMs));
    const last = this.segmentAtOrBefore(toMs);
    return last < first ? 0 : 2 * (last - first + 1);
  }

  /** Calls `add` with every segment edge in (fromMs, toMs]: the instants at which the winning closure can change. */
  edgesIn(fromMs: number, toMs: number, add: (ms: number) => void): void {
    let i = Math.max(0, this.segmentAtOrBefore(fromMs));
    for (; i < this.starts.length && this.starts[i]! <= toMs; i++) {
      const start = this.starts[i]!;
      const end = this.ends[i]!;
      if (start > fromMs) add(start);
      if (end > fromMs && end <= toMs) add(end);
    }
  }
}
