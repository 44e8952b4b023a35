// When each API key was last used, without a write per request: a use is noted in memory, and the
// noted uses are written together, in one statement, at most once a minute (so at most one write per
// key per minute, whatever the traffic). A listing on this instance also reads the uses not yet
// written, so it is current here; another instance sees them within the minute. Uses noted in the last
// minute before a crash are lost (last-used is a hint, not an audit record: the event log is that).
import type { Db } from '../db/client.js';

export const KEY_USAGE_FLUSH_MS = 60_000;

export class KeyUsage {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly flushEveryMs = KEY_USAGE_FLUSH_MS,
  ) {}

  touch(keyId: string, atMs: number): void {
    const before = this.pending.get(keyId);
    if (before === undefined || before < atMs) this.pending.set(keyId, atMs);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushEveryMs);
      this.timer.unref();
    }
  }

  /** A use noted here and not yet written; null when none. */
  pendingUse(keyId: string): Date | null {
    const at = this.pending.get(keyId);
    return at === undefined ? null : new Date(at);
  }

  /** Writes the noted uses (one statement); a write that fails keeps them for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    const times = ids.map((id) => new Date(batch.get(id)!).toISOString());
    try {
      await this.db.$executeRaw`
        UPDATE "ApiKey" k SET "lastUsedAt" = u.at
        FROM unnest(${ids}::uuid[], ${times}::timestamptz[]) AS u(id, at)
        WHERE k."id" = u.id AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < u.at)`;
    } catch {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
    }
  }

  /** Stops the timer after a last flush (shutdown). */
  async close(): Promise<void> {
    await this.flush();
  }
}
