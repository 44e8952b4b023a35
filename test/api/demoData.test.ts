// The demo data set is written all or nothing: a start killed half-way leaves an empty database that the
// next start fills, never a partial set that it would take for done (src/server.ts creates the set only
// on an empty database).
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { createDemoData } from '../../src/demo/demoData.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp({ seed: false });

describe('the demo data set', () => {
  it('is written in one transaction: a failure half-way leaves nothing behind', async () => {
    let writes = 0;
    // fails the 30th write, after the organizations, keys and clients are written
    const failing = t.db.prisma.$extends({
      query: {
        $allOperations({ operation, args, query }) {
          if (/^(create|update|upsert|delete)/.test(operation) && ++writes === 30) throw new Error('the process died here');
          return query(args);
        },
      },
    }) as unknown as Db;
    await expect(createDemoData(failing, t.deps.config.oauthAudience)).rejects.toThrow('the process died here');
    expect(writes).toBe(30);
    for (const count of [t.db.prisma.organization.count(), t.db.prisma.apiKey.count(), t.db.prisma.bot.count(), t.db.prisma.oAuthClient.count()]) {
      expect(await count).toBe(0);
    }
    // the next attempt writes the whole set
    const demo = await createDemoData(t.db.prisma, t.deps.config.oauthAudience);
    expect(await t.db.prisma.organization.count()).toBe(4);
    expect((await t.rest('GET', `/v1/organizations/${demo.organizations.clinic.id}`, { token: demo.organizations.clinic.apiKey })).status).toBe(200);
  });
});
