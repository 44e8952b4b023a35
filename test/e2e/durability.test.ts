// Durability on the embedded database: the real server on a PGlite folder is killed with SIGKILL (no
// shutdown, no flush) in the middle of a stream of closure writes, restarted on the same folder, and
// every write it had acknowledged (answered 200) must be there, with its content. Three kills in a row.
// Writes that were in flight when the process died may or may not be there; nothing else is allowed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../support/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-durability-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// real processes on a shared two-core machine: generous time
vi.setConfig({ testTimeout: 180_000 });

const KILLS = 3;
const WRITERS = 4;
/** Acknowledged writes per round before the kill (the kill lands while WRITERS more are in flight). */
const WRITES_BEFORE_KILL = 150;

interface Acknowledged {
  id: string;
  description: string;
}

/**
 * WRITERS loops that create closures one after the other until the server dies, recording every
 * write the server acknowledged; `onAcknowledged` sees the running count.
 */
function streamWrites(server: RunningServer, orgId: string, apiKey: string, round: number, onAcknowledged: (count: number) => void) {
  const acknowledged: Acknowledged[] = [];
  let stop = false;
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const description = `round ${round} writer ${w} write ${i}`;
      let res: Response;
      try {
        res = await fetch(`${server.baseUrl}/v1/organizations/${orgId}/closures`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            description,
            annualDate: { month: 1 + (i % 12), day: 1 + (i % 28) },
            chatGreeting: null,
            phoneGreeting: `Closed (${w}/${i})`,
          }),
        });
      } catch {
        return; // the server is gone: this write was never acknowledged
      }
      if (res.status !== 200) throw new Error(`write answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: { id: string } };
      acknowledged.push({ id: body.data.id, description });
      onAcknowledged(acknowledged.length);
    }
  };
  const done = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).finally(() => (stop = true));
  return { acknowledged, done, stop: () => (stop = true) };
}

async function closuresOf(
  server: RunningServer,
  orgId: string,
  apiKey: string,
): Promise<Map<string, { description: string; phoneGreeting: string | null }>> {
  const res = await fetch(`${server.baseUrl}/v1/organizations/${orgId}/closures`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { closures: { id: string; description: string; phoneGreeting: string | null }[] } };
  return new Map(body.data.closures.map((c) => [c.id, c]));
}

describe('SIGKILL during a stream of writes on the embedded database', () => {
  it(`keeps every acknowledged write across ${KILLS} kills`, async () => {
    const dir = join(scratch, 'pglite');
    // a budget that never interferes with the stream
    const env = { DATABASE_URL: `pglite:${dir}`, RATE_LIMIT_PER_MINUTE: '1000000' };
    let server = await startServer(env);
    const demo = JSON.parse(readFileSync(join(dirname(dir), 'demo-credentials.json'), 'utf8')) as {
      organizations: { clinic: { id: string; apiKey: string } };
    };
    const { id: orgId, apiKey } = demo.organizations.clinic;
    const allAcknowledged: Acknowledged[] = [];
    try {
      for (let round = 1; round <= KILLS; round++) {
        let killed = false;
        const stream = streamWrites(server, orgId, apiKey, round, (count) => {
          if (count >= WRITES_BEFORE_KILL && !killed) {
            killed = true;
            server.child.kill('SIGKILL'); // writes of the other writers are in flight
          }
        });
        await stream.done;
        expect(await server.stop()).toBeNull(); // killed by the signal: no exit code
        expect(server.child.signalCode).toBe('SIGKILL');
        allAcknowledged.push(...stream.acknowledged);

        server = await startServer(env); // same folder: the dead owner's lock is taken over
        const stored = await closuresOf(server, orgId, apiKey);
        const missing = allAcknowledged.filter((a) => stored.get(a.id)?.description !== a.description);
        expect(missing, `round ${round}: acknowledged writes lost`).toEqual([]);
      }
      expect(allAcknowledged.length).toBeGreaterThanOrEqual(KILLS * WRITES_BEFORE_KILL);
      // the database is usable after the kills: a write and a read
      const after = await fetch(`${server.baseUrl}/v1/organizations/${orgId}/closures`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          description: 'after the kills',
          annualDate: { month: 12, day: 25 },
          chatGreeting: null,
          phoneGreeting: null,
        }),
      });
      expect(after.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
