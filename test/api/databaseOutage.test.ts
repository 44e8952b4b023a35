// PostgreSQL lost and back: an instance whose connections go through a TCP relay that the test cuts.
// While the database is unreachable, requests that need it fail fast with 503 + Retry-After (never a
// 500, never a hang), /healthz says the database is unavailable, and requests the read model answers
// keep being served; when the database returns, the instance recovers by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { ReadModel } from '../../src/readmodel/readModel.js';
import { openTcpRelay, type TcpRelay } from '../support/tcpRelay.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const onPostgres = process.env.TEST_DB === 'postgres';

describe.runIf(onPostgres)('when PostgreSQL becomes unreachable', () => {
  let relay: TcpRelay;
  let database: Database;
  let app: App;
  let readModel: ReadModel;

  beforeAll(async () => {
    relay = await openTcpRelay(t.db.url, 5432);
    database = await openDatabase(relay.via(t.db.url), {
      limits: { poolSize: 4, maxWaiting: 20, queueTimeoutMs: 2_000, statementTimeoutMs: 2_000 },
    });
    readModel = new ReadModel(database.prisma, { maxEntries: 100, maxAgeMs: 3_600_000, clock: t.clock.now });
    app = createApp({ ...t.deps, db: database.prisma, database, readModel });
  });

  afterAll(async () => {
    await relay?.restore().catch(() => {});
    await database?.close();
    await relay?.cut();
  });

  const get = async (path: string) => {
    const res = await app.fetch(
      new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${t.demo.organizations.clinic.apiKey}` } }),
    );
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  it('fails fast with 503, says so on /healthz, keeps cached reads, and recovers by itself', async () => {
    const org = t.demo.organizations.clinic.id;
    t.clock.set('2026-03-09T15:30:00Z');
    expect((await get(`/v1/organizations/${org}/availability?medium=PHONE`)).status).toBe(200); // cached from now on
    expect((await get(`/v1/organizations/${org}/closures`)).status).toBe(200);

    await relay.cut();
    const failing = await Promise.all(Array.from({ length: 5 }, () => get(`/v1/organizations/${org}/closures`)));
    for (const res of failing) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toMatchObject({ success: false, data: {}, message: expect.stringMatching(/unreachable|did not answer/) });
    }
    expect((await get(`/v1/organizations/${org}/availability?medium=PHONE`)).status).toBe(200);
    // the instance's event-log reader fails too (changes/eventTail.ts): what is held is now suspect, read
    // again first, and still answered since the database cannot be reached
    readModel.onSync(false);
    expect((await get(`/v1/organizations/${org}/availability?medium=PHONE`)).status).toBe(200);
    const health = await get('/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', database: 'unavailable' });

    await relay.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await get(`/v1/organizations/${org}/closures`)).status;
    }
    expect(status).toBe(200);
    expect((await get('/healthz')).status).toBe(200);
    readModel.onSync(true);
  });
});
