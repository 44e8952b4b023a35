// A GraphQL subscription over Server-Sent Events, read through an app's fetch handler: what a browser's
// EventSource (or `curl -N -H 'accept: text/event-stream'`) receives, parsed event by event.
import type { App } from '../../src/app.js';
import type { UntypedBody } from './testApp.js';

export interface SseEvent {
  event: string;
  /** The event's JSON (a GraphQL result), read as a test response body is; null when the event has no data. */
  data: UntypedBody;
}

export interface Subscription {
  status: number;
  headers: Headers;
  /** Every event received so far (pings left out). */
  received: SseEvent[];
  /** The next event, waiting at most `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): Promise<void>;
}

export async function subscribe(
  app: App,
  query: string,
  variables: Record<string, unknown>,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<Subscription> {
  // the client goes away by aborting its request, as a closed connection does
  const controller = new AbortController();
  const res = await app.fetch(
    new Request('http://127.0.0.1:4000/graphql', {
      signal: controller.signal,
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        ...headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    }),
  );
  const received: SseEvent[] = [];
  const waiters: ((e: SseEvent) => void)[] = [];
  let cursor = 0;
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        return;
      }
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n').filter((l) => !l.startsWith(':'));
        if (lines.length === 0) continue; // a ping
        const event =
          lines
            .find((l) => l.startsWith('event:'))
            ?.slice(6)
            .trim() ?? 'message';
        const dataText = lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n');
        const parsed: SseEvent = { event, data: dataText ? JSON.parse(dataText) : null };
        received.push(parsed);
        waiters.shift()?.(parsed);
      }
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    received,
    ended,
    next(timeoutMs = 5_000) {
      if (cursor < received.length) return Promise.resolve(received[cursor++]!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no event within ${timeoutMs} ms; received ${JSON.stringify(received)}`)),
          timeoutMs,
        );
        waiters.push((e) => {
          clearTimeout(timer);
          cursor++;
          resolve(e);
        });
      });
    },
    async close() {
      controller.abort();
      await ended;
    },
  };
}

/**
 * The first event's data of a stream that refuses with its first event but may, once accepted, say nothing for a
 * while (callRequestChanged until a transition): `{}` when nothing came within `quietMs`.
 */
export async function firstAnswer(stream: Subscription, quietMs: number): Promise<UntypedBody> {
  return (await stream.next(quietMs).catch(() => ({ data: {} as UntypedBody }))).data;
}
