// Rate limits in Redis: several instances share one budget exactly; a dead Redis is served through
// (fail open) and recovered from. Run with TEST_REDIS_URL=redis://127.0.0.1:6379; the cases that need a
// live Redis are skipped without it (the fail-open case needs none: it points at a closed port).
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
async function instance(redisUrl: string, prefix: string, logLines?: string[]): Promise<{ app: App; limiter: RateLimiter }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: prefix });
  const logger = logLines ? createLogger('info', (line) => logLines.push(line)) : t.deps.logger;
  const limiter = createRateLimiter(config, logger, t.clock.now);
  opened.push(limiter);
  await limiter.store.inner.ready(2_000);
  return { app: createApp({ ...t.deps, config, logger, rateLimit: limiter }), limiter };
}

function get(app: App, path: string, token = t.demo.organizations.clinic.apiKey): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(new URL(path, 'http://127.0.0.1:4000'), { headers: { authorization: `Bearer ${token}` } })));
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
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
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

  it('fails open while Redis is unreachable and counts again once it returns', async () => {
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
    const { app, limiter } = await instance(`redis://127.0.0.1:${port}`, prefix(), lines);
    t.clock.set('2026-03-09T13:30:10.000Z');
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    expect((await get(app, path)).headers.get('x-ratelimit-remaining')).toBe('59');

    await cut();
    const during = await Promise.all(Array.from({ length: 5 }, () => get(app, path)));
    expect(during.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const warnings = lines.filter((l) => l.includes('rate-limit store unavailable'));
    expect(warnings).toHaveLength(1); // once, not once per request

    await listen(port);
    expect(await limiter.store.inner.ready(5_000)).toBe(true);
    const after = await get(app, path);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('58'); // counting resumed where Redis left it
    expect(lines.filter((l) => l.includes('rate-limit store available again'))).toHaveLength(1);
  });
});

describe('with REDIS_URL pointing at a closed port', () => {
  it('keeps answering (fail open), fast, and logs one warning', async () => {
    const lines: string[] = [];
    const { app } = await instance('redis://127.0.0.1:1', `ocs-test:${randomUUID()}:`, lines);
    const path = `/v1/organizations/${t.demo.organizations.clinic.id}`;
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 10 }, () => get(app, path)));
    expect(responses.map((r) => r.status)).toEqual(new Array(10).fill(200));
    expect(performance.now() - started).toBeLessThan(5_000); // no command waits for the dead Redis
    const warnings = lines.filter((l) => l.includes('rate-limit store unavailable'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 'warn', store: 'redis' });
  });
});
