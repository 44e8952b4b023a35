// GraphiQL (a browser GET of /graphql) needs no credential, so the page it answers holds none: no API key,
// no secret. With GRAPHIQL_DEMO_KEY on the embedded demo database (deps.demoApiKey: the Downtown clinic's key,
// src/server.ts), the key and the clinic's ids are put into the page only for a browser that proves by its
// connection that it is on this machine (http/loopback.ts): both ends of the socket loopback, no proxy's
// headers, a Host naming this machine. Before, the account's key (which reaches every clinic) was in the
// page for anyone who could reach the port.
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, listen } from '../../src/http/server.js';
import { useTestApp } from '../support/testApp.js';

const t = useTestApp();
const servers: ReturnType<typeof createHttpServer>[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/**
 * The app as `npm start` makes it on the demo database, with or without GRAPHIQL_DEMO_KEY. The demo data is made
 * again for every case: the key and ids are read when the page is asked for, so one app serves every case.
 */
function demoApp(withKey: boolean) {
  const deps = {
    ...t.deps,
    demoVariables: () => ({ id: t.demo.organizations.clinic.id, from: '2026-03-09T05:00:00Z', to: '2026-03-16T05:00:00Z' }),
  };
  Object.defineProperty(deps, 'demoApiKey', { get: () => (withKey ? t.demo.organizations.clinic.apiKey : undefined), enumerable: true });
  return createApp(deps);
}

const listening = new Map<boolean, Promise<number>>();
/** Listens on every interface (as HOST=0.0.0.0 would), so that the page can be asked for from loopback and from a network address. */
function serve(withKey: boolean): Promise<number> {
  let port = listening.get(withKey);
  if (!port) {
    const app = demoApp(withKey);
    const server = createHttpServer(app.listener, t.deps.config.http);
    servers.push(server);
    listening.set(
      withKey,
      (port = app
        .ready()
        .then(() => listen(server, 0, '0.0.0.0'))
        .then((address) => address.port)),
    );
  }
  return port;
}

function page(
  address: string,
  port: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; html: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path: '/graphql', headers: { accept: 'text/html', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, html: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every credential and secret of the demo data set. */
function secrets(): string[] {
  const d = t.demo;
  return [
    ...Object.values(d.organizations).map((o) => o.apiKey),
    d.oauthClients.clinic.clientSecret,
    d.oauthClients.clinicReadOnly.clientSecret,
  ];
}

/** Whether the page holds `text` (asserted as a boolean: a failure would otherwise print 9 MB of page). */
const holds = (html: string, text: string | RegExp) => (typeof text === 'string' ? html.includes(text) : text.test(html));

function expectNoSecret(html: string): void {
  expect(holds(html, '<title>Office Communications Service'), 'the GraphiQL page').toBe(true);
  expect(holds(html, /svc-sk-/), 'an API key (svc-sk-…) in the page').toBe(false);
  for (const secret of secrets()) expect(holds(html, secret), 'a demo secret in the page').toBe(false);
}

/** An address of this machine that is not loopback (the container's own), if it has one. */
const networkAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('GraphiQL holds no credential', () => {
  it('an unauthenticated GET /graphql holds no API key or secret, also when the demo key is switched on', async () => {
    for (const app of [demoApp(false), demoApp(true)]) {
      const res = await app.fetch(new Request('http://127.0.0.1:4000/graphql', { headers: { accept: 'text/html' } }));
      expect(res.status).toBe(200);
      const html = await res.text();
      expectNoSecret(html);
      // a request that proves nothing gets the placeholders, not the demo's ids either
      expect(holds(html, t.demo.organizations.clinic.id), "the clinic's id").toBe(false);
    }
  });

  it('without GRAPHIQL_DEMO_KEY, a browser on this machine gets no key either: only the clinic id and this week in its Variables', async () => {
    const port = await serve(false);
    const res = await page('127.0.0.1', port);
    expect(res.status).toBe(200);
    expectNoSecret(res.html);
    expect(holds(res.html, t.demo.organizations.clinic.id), "the clinic's id").toBe(true);
  });

  it("with GRAPHIQL_DEMO_KEY, a browser on this machine gets the clinic's key (never the account's), in a page no cache keeps", async () => {
    const port = await serve(true);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await page('127.0.0.1', port, { host });
      expect(res.status).toBe(200);
      expect(holds(res.html, `Bearer ${t.demo.organizations.clinic.apiKey}`), "the clinic's key").toBe(true);
      expect(holds(res.html, t.demo.organizations.account.apiKey), "the account's key").toBe(false);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // over IPv6 loopback too, where the machine has it
    const v6 = await page('::1', port, { host: `[::1]:${port}` }).catch(() => undefined);
    if (v6) expect(holds(v6.html, `Bearer ${t.demo.organizations.clinic.apiKey}`), "the clinic's key over ::1").toBe(true);
  });

  it.each([
    ['another site whose name resolves to 127.0.0.1 (DNS rebinding)', { host: 'attacker.example:4000' }],
    ['a proxy on this machine (X-Forwarded-For)', { 'x-forwarded-for': '203.0.113.7' }],
    ['a proxy on this machine (Forwarded)', { forwarded: 'for=203.0.113.7' }],
    ['a proxy on this machine (Via)', { via: '1.1 proxy' }],
    ['a proxy on this machine (X-Forwarded-Proto)', { 'x-forwarded-proto': 'https' }],
  ])('with GRAPHIQL_DEMO_KEY, no key for %s', async (_name, headers) => {
    const port = await serve(true);
    const res = await page('127.0.0.1', port, headers);
    expect(res.status).toBe(200);
    expectNoSecret(res.html);
    expect(holds(res.html, t.demo.organizations.clinic.id), "the clinic's id").toBe(false);
  });

  it.skipIf(!networkAddress)('with GRAPHIQL_DEMO_KEY, no key for a browser reaching the port over the network', async () => {
    const port = await serve(true);
    const res = await page(networkAddress!, port, { host: `${networkAddress}:${port}` });
    expect(res.status).toBe(200);
    expectNoSecret(res.html);
    expect(holds(res.html, t.demo.organizations.clinic.id), "the clinic's id").toBe(false);
  });
});
