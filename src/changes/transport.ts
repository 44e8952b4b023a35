// How notices travel between instances (wake-ups for their event-log readers, feed.ts; never the changes
// themselves). The feed does not care which transport carries them.
export interface TransportHandlers {
  /** A message from any instance, this one included (the feed drops its own). */
  onMessage(text: string): void;
  /** The channel went up or down; while it is down, messages may be lost (the log's poll still reads what committed). */
  onConnection(connected: boolean): void;
}

export interface ChangeTransport {
  readonly name: 'local' | 'redis' | 'postgres';
  /** Starts listening; resolves once connected, or after `timeoutMs` either way (the feed then reports it down). */
  start(handlers: TransportHandlers, timeoutMs: number): Promise<void>;
  /** Sends to every instance; rejects when the channel is down. */
  send(text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * One process and nothing else (the embedded database is owned by one process): nothing to send to,
 * and a channel that can never be lost.
 */
export class LocalTransport implements ChangeTransport {
  readonly name = 'local' as const;
  start(handlers: TransportHandlers): Promise<void> {
    handlers.onConnection(true);
    return Promise.resolve();
  }
  async send(): Promise<void> {}
  async close(): Promise<void> {}
}
