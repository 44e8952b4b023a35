// Answers derived from read-model records, kept until one of those records is replaced: the read model's
// part for what a surface makes from its records (graphql/answerMemo.ts keeps GraphQL answers here). An
// answer lists the records it was made from, and is given out only while the read model holds those very
// objects (not expired, not suspect): the read model replaces a record when the change feed says it changed,
// here or on another instance, and when it ages out, so nothing here is ever invalidated by hand and a change
// is seen wherever it was made, within the read model's own bound.
//
// Keyed by two objects the asking surface keeps (GraphQL: the remembered body's parameters and the actor);
// bounded: at most `maxKeys` first keys (least recently used go), at most MAX_SECOND_KEYS answers each.
import { LRUCache } from 'lru-cache';
import type { OrganizationRecord } from '../domain/shared/readModel.js';
import type { OrgSchedule } from '../domain/schedule/records.js';

/** A record an answer was made from: the answer holds while the read model holds this very object. */
export type KeptDependency =
  { part: 'organization'; orgId: string; value: OrganizationRecord } | { part: 'schedule'; orgId: string; value: OrgSchedule | undefined };

/** Answers per first key: a body names its tenant's ids, so few credentials send the same one. */
const MAX_SECOND_KEYS = 16;

export class KeptAnswers<V> {
  private readonly answers: LRUCache<object, Map<object, { value: V; dependencies: readonly KeptDependency[] }>>;
  hits = 0;
  misses = 0;

  constructor(
    /** The record or schedule the read model holds now (ReadModel.held). */
    private readonly held: (part: 'organization' | 'schedule', orgId: string) => object | undefined,
    maxKeys: number,
  ) {
    this.answers = new LRUCache({ max: maxKeys });
  }

  get(first: object, second: object): V | undefined {
    const kept = this.answers.get(first)?.get(second);
    if (kept && kept.dependencies.every((d) => d.value !== undefined && this.held(d.part, d.orgId) === d.value)) {
      this.hits++;
      return kept.value;
    }
    this.misses++;
    return undefined;
  }

  set(first: object, second: object, value: V, dependencies: readonly KeptDependency[]): void {
    let bySecond = this.answers.get(first);
    if (!bySecond) this.answers.set(first, (bySecond = new Map()));
    bySecond.delete(second);
    if (bySecond.size >= MAX_SECOND_KEYS) bySecond.delete(bySecond.keys().next().value!);
    bySecond.set(second, { value, dependencies });
  }

  get size(): number {
    let size = 0;
    for (const bySecond of this.answers.values()) size += bySecond.size;
    return size;
  }

  clear(): void {
    this.answers.clear();
  }
}
