// The live subscription streams an instance holds open (GraphQL over SSE). Bounded per credential — a
// stream holds a connection, a timer and a change listener for as long as the client stays — and closed
// together when the server shuts down, so that open streams end cleanly instead of holding the
// shutdown until it is forced.
import { isAsyncIterable } from '@graphql-tools/utils';
import type { Plugin } from 'graphql-yoga';
import { RateLimited } from '../domain/shared/errors.js';

export class LiveStreams {
  private readonly open = new Map<AsyncIterator<unknown>, string>();

  constructor(private readonly maxPerCredential: number) {}

  /** Streams open now (for a credential, or in all). */
  count(credentialId?: string): number {
    if (credentialId === undefined) return this.open.size;
    let n = 0;
    for (const owner of this.open.values()) if (owner === credentialId) n++;
    return n;
  }

  /** Counts `stream` against its credential's bound (429 past it) and forgets it once it ends. */
  track<T>(credentialId: string, stream: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
    if (this.count(credentialId) >= this.maxPerCredential) {
      void stream.return?.();
      throw new RateLimited(
        5,
        `At most ${this.maxPerCredential} live subscriptions per credential are open at once; close one (or retry after 5 s)`,
      );
    }
    const open = this.open;
    const tracked: AsyncIterableIterator<T> = {
      async next() {
        const result = await stream.next().catch((err: unknown) => {
          open.delete(tracked);
          throw err;
        });
        if (result.done) open.delete(tracked);
        return result;
      },
      async return() {
        open.delete(tracked);
        return (await stream.return?.()) ?? { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return tracked;
      },
    };
    open.set(tracked, credentialId);
    return tracked;
  }

  /** Ends every open stream (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open.keys()].map((stream) => stream.return?.() ?? Promise.resolve()));
    this.open.clear();
  }
}

/**
 * What a subscription field's `subscribe` answers: `stream` counted against its credential's bound, and ended as
 * soon as the client goes away (its connection closed, or its request aborted).
 */
export function openLiveStream<T>(
  ctx: { deps: { liveStreams: LiveStreams }; signal(): AbortSignal | undefined },
  credentialId: string,
  stream: AsyncIterableIterator<T>,
): AsyncIterableIterator<T> {
  const tracked = ctx.deps.liveStreams.track(credentialId, stream);
  ctx.signal()?.addEventListener('abort', () => void tracked.return?.(), { once: true });
  return tracked;
}

/**
 * Ends a subscription's stream that no answer will carry: yoga answers 406 when the client accepts none
 * of the streaming media types (a subscription POSTed with `Accept: application/json`), after the stream
 * was opened and counted, and never ends it. Yoga's result processors run before the app's plugins, so a
 * stream still without one here has none.
 */
export function endUnansweredStreams(): Plugin {
  return {
    onResultProcess({ result, resultProcessor }) {
      if (!resultProcessor && isAsyncIterable(result)) void (result as AsyncIterableIterator<unknown>).return?.();
    },
  };
}
