// The change feed: every committed write publishes a Change here. Listeners on this instance hear it
// at once, synchronously, before the write's response is sent (so the instance that made a change
// never serves what it replaced); the transport carries it to every other instance (Redis pub/sub,
// PostgreSQL NOTIFY, or nothing when there is one process). Listeners also hear when the channel is
// lost and when it is back, since changes may have been missed in between: the read model then falls
// back to short expiry and, once the channel is back, forgets everything it held. What committed is
// also read back from the event log (eventTail.ts), with a notice as its wake-up: a change whose notice
// was lost, or never sent (the writer died after its commit), still arrives.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { type Change, type ChangeChannel, type ChangeListener, parseChangeMessage } from './change.js';
import type { ChangeTransport } from './transport.js';

export type { ChangeListener };

export class ChangeFeed implements ChangeChannel {
  /** Stamped on what this instance sends, so that its own messages coming back are recognised. */
  readonly instanceId = randomUUID();
  private readonly listeners = new Set<ChangeListener>();
  private readonly pending = new Set<Promise<void>>();
  private isConnected = false;
  private lastWarnAt = -Infinity;

  constructor(
    readonly transport: ChangeTransport,
    private readonly logger: Logger,
  ) {}

  /** True while changes from other instances can arrive. */
  get connected(): boolean {
    return this.isConnected;
  }

  /** Connects the transport; waits at most `timeoutMs` (a channel that is down does not stop the start). */
  async start(timeoutMs = 1_000): Promise<void> {
    await this.transport.start(
      {
        onMessage: (text) => this.receive(text),
        onConnection: (connected) => this.setConnected(connected),
      },
      timeoutMs,
    );
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(change: Change): void {
    this.deliver({ kind: change.kind, orgId: change.orgId }, true);
    if (this.transport.name === 'local') return;
    const sending = this.transport.send(JSON.stringify({ kind: change.kind, orgId: change.orgId, origin: this.instanceId })).catch((err: unknown) => {
      // the receivers notice the lost channel themselves and expire what they hold within a second
      const now = Date.now();
      if (now - this.lastWarnAt > 30_000) {
        this.lastWarnAt = now;
        this.logger.warn('change not sent to other instances: channel unavailable', { transport: this.transport.name, kind: change.kind, ...errorFields(err), stack: undefined });
      }
    });
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /** Waits for the changes being sent (a command-line tool before it exits). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.drain();
    await this.transport.close();
    this.listeners.clear();
  }

  /**
   * A change read from the event log (eventTail.ts), heard as another instance's: what this instance
   * published itself was delivered at once already, and hearing it again only costs a reload.
   */
  apply(change: Change): void {
    this.deliver({ kind: change.kind, orgId: change.orgId }, false);
  }

  private receive(text: string): void {
    const message = parseChangeMessage(text);
    if (!message || message.origin === this.instanceId) return; // not ours, or already delivered locally
    this.deliver({ kind: message.kind, orgId: message.orgId }, false);
  }

  private deliver(change: Change, local: boolean): void {
    for (const listener of this.listeners) {
      try {
        listener.onChange(change, local);
      } catch (err) {
        this.logger.error('change listener failed', { kind: change.kind, ...errorFields(err) });
      }
    }
  }

  private setConnected(connected: boolean): void {
    if (connected === this.isConnected) return;
    this.isConnected = connected;
    if (connected) this.logger.info('change channel connected', { transport: this.transport.name });
    else this.logger.warn('change channel lost; cached data now expires within a second', { transport: this.transport.name });
    for (const listener of this.listeners) listener.onChannel?.(connected);
  }
}
