// The change feed: what this instance hears of committed writes, from two sources only. A write made
// here publishes its Change once its transaction committed, and this instance's listeners hear it at
// once, synchronously, before the write's response is sent (so the instance that made a change never
// serves what it replaced). Every other instance hears it from the event log (eventTail.ts), where the
// write's transaction put its event: one mechanism, so nothing that committed is missed, and nothing
// that did not commit is heard. The notice sent to the other instances (Redis pub/sub, PostgreSQL
// NOTIFY, nothing when there is one process) carries no change: it only wakes their log readers, so
// that they read now rather than at their next poll. A notice lost (the channel down, the writer dead
// between its commit and its notice) delays a change by at most the poll interval; a notice that lies
// costs one read of the log.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { errorFields } from '../logger.js';
import { type Change, type ChangeChannel, type ChangeListener, parseNotice } from './change.js';
import type { ChangeTransport } from './transport.js';

export type { ChangeListener };

export class ChangeFeed implements ChangeChannel {
  /** Stamped on the notices this instance sends, so that its own coming back are recognised. */
  readonly instanceId = randomUUID();
  private readonly listeners = new Set<ChangeListener>();
  private readonly wakers = new Set<() => void>();
  private readonly pending = new Set<Promise<void>>();
  private isConnected = false;
  private isInSync = true;
  private lastWarnAt = -Infinity;
  private announcing = false;
  /** Notices sent so far (an announcement already covered by a write's own notice is not sent). */
  private noticesSent = 0;

  constructor(
    readonly transport: ChangeTransport,
    private readonly logger: Logger,
  ) {}

  /** True while notices from other instances can arrive (changes then arrive at once rather than at the log's next poll). */
  get connected(): boolean {
    return this.isConnected;
  }

  /** True unless the event log could not be read the last time it was (see ChangeListener.onSync). */
  get inSync(): boolean {
    return this.isInSync;
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

  /**
   * Called on every notice from another instance, and when the channel is back (notices may have been lost
   * while it was down): the log reader reads the log then.
   */
  onNotice(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  /** A change whose event committed with this instance's write: heard here at once, a notice to the others. */
  publish(change: Change): void {
    this.deliver({ kind: change.kind, orgId: change.orgId }, true);
    this.send({ kind: change.kind, orgId: change.orgId });
  }

  /**
   * Events committed here that no change stands for (a call's transition, a turn): the other instances' readers of
   * the log (live subscriptions, webhook deliveries) are woken too. The commits of one turn of the event loop share
   * one notice, and none is sent when a write's own `publish` sent one meanwhile (a notice wakes a reader of the
   * whole log: one sent after the commit covers it).
   */
  announce(): void {
    if (this.transport.name === 'local' || this.announcing) return;
    this.announcing = true;
    const sent = this.noticesSent;
    setImmediate(() => {
      this.announcing = false;
      if (this.noticesSent === sent) this.send({});
    });
  }

  /** Sends a notice (what it names is for instances of earlier versions: change.ts Notice). */
  private send(names: { kind?: string; orgId?: string }): void {
    if (this.transport.name === 'local') return;
    this.noticesSent++;
    const sending = this.transport.send(JSON.stringify({ ...names, origin: this.instanceId })).catch((err: unknown) => {
      // the others read the event at their next poll
      const now = Date.now();
      if (now - this.lastWarnAt > 30_000) {
        this.lastWarnAt = now;
        this.logger.warn('notice not sent to other instances: channel unavailable', {
          transport: this.transport.name,
          kind: names.kind ?? 'events',
          ...errorFields(err),
          stack: undefined,
        });
      }
    });
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /** Waits for the notices being sent (a command-line tool before it exits). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.drain();
    await this.transport.close();
    this.listeners.clear();
    this.wakers.clear();
  }

  /**
   * A change read from the event log (eventTail.ts), heard as another instance's: what this instance
   * published itself was delivered at once already, and hearing it again only costs a reload.
   */
  apply(change: Change): void {
    this.deliver({ kind: change.kind, orgId: change.orgId }, false);
  }

  /** The log reader's report: the log could (true) or could not (false) be read. */
  setInSync(inSync: boolean): void {
    if (inSync === this.isInSync) return;
    this.isInSync = inSync;
    if (inSync) this.logger.info('event log read again; changes from other instances arrive again');
    else
      this.logger.warn(
        'event log unreadable; changes from other instances may go unheard, cached data is read again first (answered only if the database fails) and expires within a second',
      );
    for (const listener of this.listeners) listener.onSync?.(inSync);
  }

  private receive(text: string): void {
    const notice = parseNotice(text);
    if (!notice || notice.origin === this.instanceId) return; // not ours, or this instance's own (heard at once)
    this.wake();
  }

  private wake(): void {
    for (const wake of this.wakers) wake();
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
    else
      this.logger.warn('change channel lost; changes from other instances now arrive by the event log poll', {
        transport: this.transport.name,
      });
    if (connected) this.wake();
  }
}
