// Multi-row writes are all or nothing: a failure in the middle (a process that dies, a lost connection,
// simulated here by a database client that fails its n-th write) leaves nothing of the write behind.
// Concurrent writers are in concurrency.test.ts.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Db } from '../../src/db/client.js';
import { createDemoData } from '../../src/demo/demoData.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ seed: false });

/** The test database, failing the `n`-th write (create, update, upsert, delete) with "the process died here". */
function failingAtWrite(n: number): { db: Db; writes: () => number } {
  let writes = 0;
  const db = t.db.prisma.$extends({
    query: {
      $allOperations({ operation, args, query }) {
        if (/^(create|update|upsert|delete)/.test(operation) && ++writes === n) throw new Error('the process died here');
        return query(args);
      },
    },
  }) as unknown as Db;
  return { db, writes: () => writes };
}

describe('the demo data set', () => {
  it('is written in one transaction: a failure half-way leaves nothing behind', async () => {
    // fails the 30th write, after the organizations, keys and clients are written
    const failing = failingAtWrite(30);
    await expect(createDemoData(failing.db, t.deps.config.oauthAudience)).rejects.toThrow('the process died here');
    expect(failing.writes()).toBe(30);
    for (const count of [
      t.db.prisma.organization.count(),
      t.db.prisma.apiKey.count(),
      t.db.prisma.bot.count(),
      t.db.prisma.oAuthClient.count(),
    ]) {
      expect(await count).toBe(0);
    }
    // the next attempt writes the whole set
    const demo = await createDemoData(t.db.prisma, t.deps.config.oauthAudience);
    expect(await t.db.prisma.organization.count()).toBe(4);
    expect(
      (await t.rest('GET', `/v1/organizations/${demo.organizations.clinic.id}`, { token: demo.organizations.clinic.apiKey })).status,
    ).toBe(200);
  });
});

describe('importing workflows into a bot', () => {
  it('is one transaction: a failure after the workflows were written leaves the bot as it was', async () => {
    const demo = await createDemoData(t.db.prisma, t.deps.config.oauthAudience);
    const [source, target] = demo.bots.clinic as [string, string];
    const token = demo.organizations.clinic.apiKey;
    const exported = (await t.rest('GET', `/v1/bots/${source}/workflows`, { token })).body.data;
    expect(exported.workflows.length).toBeGreaterThan(0);
    const before = (await t.rest('GET', `/v1/bots/${target}/workflows`, { token })).body.data.workflows;
    const stepsBefore = await t.db.prisma.workflowStep.count();

    // the import writes the workflows, then their steps, then the child steps: fail at the steps
    const failing = failingAtWrite(2);
    const app = createApp({ ...t.deps, db: failing.db });
    const res = await app.fetch(
      new Request(`http://127.0.0.1:4000/v1/bots/${target}/workflows/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(exported),
      }),
    );
    expect(res.status).not.toBe(200);
    expect(failing.writes()).toBe(2);
    expect((await t.rest('GET', `/v1/bots/${target}/workflows`, { token })).body.data.workflows).toEqual(before);
    expect(await t.db.prisma.workflowStep.count()).toBe(stepsBefore);
  });
});
