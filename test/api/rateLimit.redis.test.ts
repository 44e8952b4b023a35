// Rate limits in Redis: several instances share one budget exactly; while Redis is down each instance
// counts on its own (the limits still hold, per instance), /healthz says "degraded", and counting goes
// back to Redis when it returns. Run with TEST_REDIS_URL=redis://127.0.0.1:6379; the cases that need a
// live Redis are skipped without it (the closed-port case needs none).
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.js';
import { useTestApp } from '../support/testApp.js';

const REDIS = process.env.TEST_REDIS_URL;
const t = useTestApp();

const opened: RateLimiter[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One more instance of the service: its own app and its own Redis connection, over the same database. */
async function instance(
  redisUrl: string,
  prefix: string,
  logLines?: string[],
  env: Record<string, string> = {},
): Promise<{ app: App; limiter: RateLimiter }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: prefix, ...env });
  const logger = logLines ? createLogger('info', (line) => logLines.push(line)) : t.deps.logger;
  const limiter = createRateLimiter(config, logger, t.clock.now);
  opened.push(limiter);
  await limiter.store.inner.ready(2_000);
  return { app: createApp({ ...t.deps, config, logger, rateLimit: limiter }), limiter };
}

function get(app: App, path: string, token = t.demo.organizations.clinic.apiKey): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(new URL(path, 'http://127.0.0.1:4000'), { headers: { authorization: `Bearer ${token}` } })));
}

async function health(app: App): Promise<{ status: number; body: unknown }> {
  const res = await app.fetch(new Request('http://127.0.0.1:4000/healthz'));
  return { status: res.status, body: await res.json() };
}

/** Sends `n` requests one after the other and answers their statuses and remaining counts. */
async function sequence(app: App, path: string, n: number): Promise<[number, string | null][]> {
  const out: [number, string | null][] = [];
  for (let i = 0; i < n; i++) {
    const res = await get(app, path);
    out.push([res.status, res.headers.get('x-ratelimit-remaining')]);
  }
  return out;
}

describe.skipIf(!REDIS)('with Redis: instances share one budget', () => {
  const prefix = () => {
    const p = `ocs-test:${randomUUID()}:`;
    cleanups.push(async () => {
      const redis = new Redis(REDIS!);
      const keys = await redis.keys(`${p}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    });
    return p;
  };

  it('allows 60 requests in total across two instances, not 120, each count given out once', async () => {
    const p = prefix();
    const a = await instance(REDIS!, p);
    const b = await instance(REDIS!, p);
    t.clock.set('2026-03-09T13:30:10.000Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    // 40 + 40 at once: alone, each instance would allow all 40
    const responses = await Promise.all(Array.from({ length: 80 }, (_, i) => get(i % 2 ? a.app : b.app, path)));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(60);
    expect(refused).toHaveLength(20);
    // one atomic counter: every remaining value 59..0 handed out exactly once
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('50');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-09T13:31:00Z') / 1000));
    }
    // the next window, on either instance
    t.clock.set('2026-03-09T13:31:00.000Z');
    expect((await get(a.app, path)).status).toBe(200);
  });

  it('shares the minimum poll interval of a queued call request across instances', async () => {
    const p = prefix();
    const a = await instance(REDIS!, p);
    const b = await instance(REDIS!, p);
    t.clock.set('2026-03-09T13:30:00.000Z');
    const path = `/v1/call-requests/${t.demo.callRequests.clinic.queued}`;
    expect((await get(a.app, path)).status).toBe(200);
    t.clock.advance(4_000);
    const again = await get(b.app, path);
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('6');
    t.clock.advance(6_000);
    expect((await get(b.app, path)).status).toBe(200);
  });

  it('counts per instance while Redis is unreachable, says so on /healthz, and counts in Redis again once it returns', async () => {
    // a TCP relay in front of Redis that the test can cut and restore
    const target = new URL(REDIS!);
    const sockets = new Set<net.Socket>();
    let relay = net.createServer();
    const listen = (port: number) =>
      new Promise<number>((resolve) => {
        relay = net.createServer((client) => {
          const upstream = net.connect(Number(target.port || 6379), target.hostname);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on('error', () => s.destroy());
            s.on('close', () => sockets.delete(s));
          }
          client.pipe(upstream).pipe(client);
        });
        relay.listen(port, '127.0.0.1', () => resolve((relay.address() as net.AddressInfo).port));
      });
    const cut = () =>
      new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    const port = await listen(0);
    cleanups.push(cut);

    const lines: string[] = [];
    const { app, limiter } = await instance(`redis://127.0.0.1:${port}`, prefix(), lines, { RATE_LIMIT_PER_MINUTE: '5' });
    t.clock.set('2026-03-09T13:30:10.000Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect(await sequence(app, path, 1)).toEqual([[200, '4']]); // counted in Redis: 1 of 5
    expect(await health(app)).toEqual({ status: 200, body: { status: 'ok', database: 'ok', redis: 'ok' } });

    await cut();
    // the budget still holds, counted by this instance from its own zero
    expect(await sequence(app, path, 6)).toEqual([
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(await health(app)).toEqual({ status: 200, body: { status: 'degraded', database: 'ok', redis: 'unavailable' } });
    const warnings = lines.filter((l) => l.includes('rate-limit store unavailable'));
    expect(warnings).toHaveLength(1); // once, not once per request

    await listen(port);
    expect(await limiter.store.inner.ready(5_000)).toBe(true);
    // counting resumed in Redis where it was left (1 of 5), not in the instance's counters (6 of 5)
    expect(await sequence(app, path, 1)).toEqual([[200, '3']]);
    expect(await health(app)).toEqual({ status: 200, body: { status: 'ok', database: 'ok', redis: 'ok' } });
    expect(lines.filter((l) => l.includes('rate-limit store available again'))).toHaveLength(1);
  });
});

describe('with REDIS_URL pointing at a closed port', () => {
  it('keeps answering, fast, with the limits counted per instance, and logs one warning', async () => {
    const lines: string[] = [];
    const p = `ocs-test:${randomUUID()}:`;
    const [{ app }, other] = await Promise.all([
      instance('redis://127.0.0.1:1', p, lines, { RATE_LIMIT_PER_MINUTE: '3' }),
      instance('redis://127.0.0.1:1', p, undefined, { RATE_LIMIT_PER_MINUTE: '3' }),
    ]);
    t.clock.set('2026-03-09T13:30:10.000Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 10 }, () => get(app, path)));
    expect(performance.now() - started).toBeLessThan(5_000); // no command waits for the dead Redis
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(7);
    // per instance: the other instance has its own budget of 3 (not shared, and not unlimited)
    expect((await sequence(other.app, path, 4)).map(([status]) => status)).toEqual([200, 200, 200, 429]);
    const warnings = lines.filter((l) => l.includes('rate-limit store unavailable'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 'warn', store: 'redis' });
    expect(await health(app)).toEqual({ status: 200, body: { status: 'degraded', database: 'ok', redis: 'unavailable' } });
  });
});
