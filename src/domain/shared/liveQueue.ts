// What a live subscription hands its surface: an async iterator fed by pushes (a change heard, the clock
// reaching an instant), read by the client at its own pace. Bounded: a reader slower than the pushes either
// loses the oldest values (`dropOldest`: each value is whole and the latest is what counts, as availability)
// or, where every value matters (each transition of a call), ends with an error it can act on (subscribe
// again and read the current state) rather than hold memory without end.

import type { Change } from '../../changes/change.js';

/** How often a live stream checks its caller's credential again while nothing else happens (an access token expires). */
export const RECHECK_CREDENTIAL_MS = 60_000;

/** Whether `change` may have revoked or narrowed the credentials of `ownerOrgId`, or its reach: its live streams check again. */
export function mayChangeCredential(change: Change, ownerOrgId: string): boolean {
  return change.orgId === ownerOrgId && (change.kind === 'credentials' || change.kind === 'organization');
}

export interface LiveQueueOptions {
  /** Values held for a slow reader. */
  max: number;
  /** Past `max`: forget the oldest, or fail the stream with `overflowError()`. */
  overflow: 'dropOldest' | 'fail';
  overflowError?: () => Error;
  /** Called once when the stream ends (returned by the reader, failed or ended): release what feeds it. */
  onEnd: () => void;
}

export class LiveQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (err: unknown) => void } | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(private readonly options: LiveQueueOptions) {}

  /** Whether the stream ended (nothing pushed now is read). */
  get finished(): boolean {
    return this.ended;
  }

  push(value: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
      return;
    }
    this.buffered.push(value);
    if (this.buffered.length <= this.options.max) return;
    if (this.options.overflow === 'dropOldest') this.buffered.shift();
    else this.fail(this.options.overflowError?.() ?? new Error('the reader fell behind'));
  }

  /** Ends the stream with `err`, after what is buffered is read (a value already sent stays sent). */
  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = err instanceof Error ? err : new Error('the live stream failed', { cause: err });
    this.end();
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(this.failure);
      this.failure = undefined;
    }
  }

  private end(): void {
    this.ended = true;
    this.options.onEnd();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) return Promise.resolve({ value: this.buffered.shift()!, done: false });
    if (this.failure !== undefined) {
      const err = this.failure;
      this.failure = undefined;
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.ended) this.end();
    this.buffered.length = 0;
    this.failure = undefined;
    if (this.waiting) {
      this.waiting.resolve({ value: undefined, done: true });
      this.waiting = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
