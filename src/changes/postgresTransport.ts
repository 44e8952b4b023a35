// Notices over PostgreSQL LISTEN/NOTIFY, when there is no Redis: the database every instance already
// shares. One dedicated connection per instance listens (a pooled one cannot: LISTEN belongs to a
// session, so behind a transaction-mode pooler point DATABASE_URL at the server itself) and sends.
import type pg from 'pg';
import { loadPostgresDriver } from '../optionalModules.js';
import type { ChangeTransport, TransportHandlers } from './transport.js';
import { listen, notify } from './sql.js';

export class PostgresTransport implements ChangeTransport {
  readonly name = 'postgres' as const;
  private client: pg.Client | undefined;
  private handlers: TransportHandlers | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  /** `channel` is a PostgreSQL identifier: letters, digits and underscores. */
  constructor(
    private readonly url: string,
    private readonly channel: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid NOTIFY channel name ${channel}`);
  }

  async start(handlers: TransportHandlers, timeoutMs: number): Promise<void> {
    this.handlers = handlers;
    await Promise.race([this.connect(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  private async connect(): Promise<void> {
    const { pg } = await loadPostgresDriver();
    if (this.closed) return; // closed while the driver loaded (or before)
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 2_000, keepAlive: true });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      this.handlers?.onConnection(false);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (n) => {
      if (n.channel === this.channel && n.payload) this.handlers?.onMessage(n.payload);
    });
    try {
      await client.connect();
      await listen(client, this.channel);
    } catch {
      onLost();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.handlers?.onConnection(true);
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, 1_000);
    this.retry.unref();
  }

  async send(text: string): Promise<void> {
    if (!this.client) throw new Error('the NOTIFY connection is down');
    await notify(this.client, this.channel, text);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}
