// The real processes: `npm start`, the single-owner lock on a PGlite folder, graceful shutdown,
// configuration errors, `npm run seed -- --json`, `npm run admin`, and the migrations drift check.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SCOPES } from '../../src/domain/shared/access.js';
import { runScript, startServer } from '../support/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'ocs-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// real processes on a shared two-core machine: generous time
vi.setConfig({ testTimeout: 180_000 });

describe('npm start on an embedded database', () => {
  it('creates demo data once, answers GraphQL, owns its folder alone and shuts down cleanly', async () => {
    const dir = join(scratch, 'db1', 'pglite');
    const env = { DATABASE_URL: `pglite:${dir}` };
    const first = await startServer(env);
    try {
      // the banner goes to stderr just before the listening line goes to stdout
      for (let i = 0; i < 40 && !first.output().stderr.includes('GraphiQL'); i++) await new Promise((r) => setTimeout(r, 50));
      const key = /Demo API key \(account organization\): (svc-sk-v2-[0-9A-Za-z]{43})/.exec(first.output().stderr)?.[1];
      expect(key).toBeDefined();
      expect(first.output().stderr).toContain(`GraphiQL: ${first.baseUrl}/graphql`);
      expect(first.output().stderr).toContain(`REST API docs: ${first.baseUrl}/v1/docs`);
      expect(first.output().stderr).toContain(`Start page: ${first.baseUrl}/`);
      expect(first.output().stderr).toContain(`Developer portal: ${first.baseUrl}/portal`);
      // the clinic's key too: the account's reaches no week of its own, so the portal would show seven closed days
      const clinicKey = /Demo API key \(Downtown clinic[^)]*\): (svc-sk-v2-[0-9A-Za-z]{43})/.exec(first.output().stderr)?.[1];
      const week = await fetch(`${first.baseUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clinicKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { organization { name } } }' }),
      });
      expect(((await week.json()) as { data: { viewer: { organization: { name: string } } } }).data.viewer.organization.name).toBe(
        'Bright Smiles Downtown',
      );
      expect(first.output().stderr).toContain(
        `Demo credentials (API keys, OAuth clients, ids): ${join(scratch, 'db1', 'demo-credentials.json')}`,
      );

      // GraphiQL needs no credential, so by default its page holds none, even for a browser on this machine
      expect(first.output().stderr).toContain(`GraphiQL: ${first.baseUrl}/graphql (put an API key into its headers)`);
      const graphiql = await fetch(`${first.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
      expect(graphiql.status).toBe(200);
      const html = await graphiql.text();
      // booleans: a failure would otherwise print the 9 MB page
      expect(html.includes('<title>Office Communications Service')).toBe(true);
      expect(/svc-sk-/.test(html), 'an API key in the page').toBe(false);

      // exactly what the docs' curl sends (curl -d uses application/x-www-form-urlencoded)
      const res = await fetch(`${first.baseUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: '{"query":"{viewer{organization{id name}}}"}',
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { viewer: { organization: { name: string } } } };
      expect(body.data.viewer.organization.name).toBe('Bright Smiles Dental Group');

      // a second process on the same folder stops with a clear error naming the owner
      const second = await runScript('src/server.ts', [], { ...env, PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`in use by process ${first.child.pid}`);

      // the request log names the request id, method, route pattern, status, org — and never the key
      const log = first.output().stdout;
      expect(log).toMatch(
        /"msg":"request","requestId":"[0-9a-f-]{36}","method":"POST","route":"POST \/graphql","status":200,"durationMs":[\d.]+,"orgId":"[0-9a-f-]{36}"/,
      );
      expect(log).not.toContain(key!.slice(10));

      expect(await first.stop('SIGTERM')).toBe(0);
      expect(first.output().stdout).toContain('"msg":"stopped"');

      // restarting on the same folder: data intact, no second demo data set; GRAPHIQL_DEMO_KEY asked for this time
      const again = await startServer({ ...env, GRAPHIQL_DEMO_KEY: 'true' });
      try {
        expect(again.output().stderr).not.toContain('Demo API key');
        for (let i = 0; i < 40 && !again.output().stderr.includes('GraphiQL'); i++) await new Promise((r) => setTimeout(r, 50));
        // every embedded start says where GraphiQL, the docs and the demo credentials are
        expect(again.output().stderr).toContain(
          `GraphiQL: ${again.baseUrl}/graphql (the Downtown clinic's key in its headers, for a browser on this machine)`,
        );
        expect(again.output().stderr).toContain(`REST API docs: ${again.baseUrl}/v1/docs`);
        expect(again.output().stderr).toContain('demo-credentials.json');
        const credentials = JSON.parse(readFileSync(join(scratch, 'db1', 'demo-credentials.json'), 'utf8'));
        const count = await fetch(`${again.baseUrl}/v1/organizations/${credentials.organizations.account.id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(count.status).toBe(200);
        // the clinic's key (read back from the credentials file), never the account's, for this machine's browser alone
        const local = await (await fetch(`${again.baseUrl}/graphql`, { headers: { accept: 'text/html' } })).text();
        expect(local.includes(`Bearer ${credentials.organizations.clinic.apiKey}`), "the clinic's key in the page").toBe(true);
        expect(local.includes(key!), "the account's key in the page").toBe(false);
        const rebound = await new Promise<string>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port: again.port, path: '/graphql', headers: { accept: 'text/html', host: 'attacker.example' } },
            (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString()));
              res.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(rebound.includes('<title>Office Communications Service')).toBe(true);
        expect(/svc-sk-/.test(rebound), 'an API key in the page a rebound name gets').toBe(false);
      } finally {
        expect(await again.stop('SIGINT')).toBe(0);
      }
    } finally {
      await first.stop();
    }
  });

  it('lets a request in flight finish on SIGTERM, then exits 0', async () => {
    const server = await startServer({ DATABASE_URL: 'pglite:memory' });
    try {
      for (let i = 0; i < 40 && !server.output().stderr.includes('GraphiQL'); i++) await new Promise((r) => setTimeout(r, 50));
      const key = /Demo API key \(account organization\): (\S+)/.exec(server.output().stderr)![1]!;
      const body = JSON.stringify({ query: '{ viewer { organization { name } } }' });
      // the request is sent in two halves: SIGTERM arrives between them, while it is in flight
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/graphql',
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(() => {
          server.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(10)), 500);
        }, 200);
      });
      const res = await answer;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).data.viewer.organization.name).toBe('Bright Smiles Dental Group');
      expect(await server.stop()).toBe(0);
      expect(server.output().stdout).toContain('"msg":"shutting down","signal":"SIGTERM"');
      // no new connection is accepted after the signal
      await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    } finally {
      await server.stop();
    }
  });

  it('stops on a taken port with one line saying to set PORT, before it makes anything', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const dir = join(scratch, 'taken', 'pglite');
    try {
      const res = await runScript('src/server.ts', [], { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `pglite:${dir}` });
      expect(res.code).toBe(1);
      expect(res.stderr.trim().split('\n')).toEqual([
        `Port ${port} on 127.0.0.1 is taken by another process: stop it, or set PORT to a free one (e.g. PORT=${port + 1} npm start)`,
      ]);
      expect(existsSync(join(scratch, 'taken', 'demo-credentials.json'))).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('refuses a bad configuration value with one line naming the variable', async () => {
    const res = await runScript('src/server.ts', [], { PORT: 'eighty', DATABASE_URL: 'pglite:memory' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain('PORT');
    const db = await runScript('src/server.ts', [], { DATABASE_URL: 'mysql://nope' });
    expect(db.code).toBe(1);
    expect(db.stderr).toContain('DATABASE_URL');
  });
});

describe('command line', () => {
  it('npm run seed -- --json prints exactly the demo data document', async () => {
    const env = { DATABASE_URL: `pglite:${join(scratch, 'seed', 'pglite')}` };
    const res = await runScript('src/cli/seed.ts', ['--json'], env);
    expect(res.code).toBe(0);
    const doc = JSON.parse(res.stdout);
    const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);
    const key = expect.stringMatching(/^svc-sk-v2-[0-9A-Za-z]{43}$/);
    expect(Object.keys(doc).sort()).toEqual(
      [
        'organizations',
        'oauthClients',
        'bots',
        'phoneNumbers',
        'insurances',
        'templates',
        'callRequests',
        'conversations',
        'oauthAudience',
      ].sort(),
    );
    expect(doc.organizations).toEqual({
      account: { id: uuid, timezone: 'America/New_York', apiKey: key },
      clinic: { id: uuid, timezone: 'America/New_York', apiKey: key, parentId: doc.organizations.account.id },
      clinic2: { id: uuid, timezone: 'America/Chicago', apiKey: key, parentId: doc.organizations.account.id },
      other: { id: uuid, timezone: 'Europe/Berlin', apiKey: key },
    });
    expect([...doc.oauthClients.clinic.scopes].sort()).toEqual([...SCOPES].sort()); // every scope
    expect(doc.oauthClients.clinicReadOnly.scopes.every((s: string) => s.endsWith(':read'))).toBe(true);
    expect(doc.bots).toEqual({ clinic: [uuid, uuid], clinic2: [uuid], other: [uuid] });
    expect(doc.phoneNumbers).toEqual({ clinic: [uuid, uuid], other: [uuid] });
    expect(doc.insurances).toEqual({ clinic: [uuid, uuid], other: [uuid] });
    expect(doc.templates).toEqual({ clinic: [uuid, uuid, uuid], other: [uuid] });
    expect(doc.callRequests).toEqual({ clinic: { queued: uuid, failed: uuid, completed: uuid }, other: { queued: uuid } });
    expect(doc.conversations).toEqual({
      clinic: { total: 45, archived: 5 },
      clinic2: { total: 7, archived: 0 },
      other: { total: 3, archived: 0 },
    });
    expect(doc.oauthAudience).toBe('http://127.0.0.1:4000/v1');
    // logs never reach stdout
    expect(res.stdout.trim().startsWith('{')).toBe(true);

    const twice = await runScript('src/cli/seed.ts', ['--json'], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('empty database');
  });

  it('npm run admin creates organizations, bots, keys and OAuth clients', async () => {
    const env = { DATABASE_URL: `pglite:${join(scratch, 'admin', 'pglite')}` };
    const help = await runScript('src/cli/admin.ts', ['--help'], env);
    expect(help.stdout).toContain('create-oauth-client');
    const org = await runScript('src/cli/admin.ts', ['create-org', '--name', 'Test Clinic', '--timezone', 'Asia/Tokyo'], env);
    expect(org.code).toBe(0);
    const orgId = JSON.parse(org.stdout).id as string;
    const bot = await runScript('src/cli/admin.ts', ['create-bot', '--org', orgId, '--name', 'Desk'], env);
    expect(JSON.parse(bot.stdout).orgId).toBe(orgId);
    const key = await runScript('src/cli/admin.ts', ['create-api-key', '--org', orgId], env);
    expect(JSON.parse(key.stdout).apiKey).toMatch(/^svc-sk-v2-[0-9A-Za-z]{43}$/);
    const client = await runScript(
      'src/cli/admin.ts',
      ['create-oauth-client', '--org', orgId, '--scopes', 'closures:read closures:write'],
      env,
    );
    expect(JSON.parse(client.stdout).scopes).toEqual(['closures:read', 'closures:write']);
    const badScope = await runScript('src/cli/admin.ts', ['create-oauth-client', '--org', orgId, '--scopes', 'everything'], env);
    expect(badScope.code).not.toBe(0);
    expect(badScope.stderr).toContain('unknown scope');
    const badZone = await runScript('src/cli/admin.ts', ['create-org', '--name', 'X', '--timezone', 'Mars/Olympus'], env);
    expect(badZone.code).toBe(2);
    expect(badZone.stderr).toContain('timezone');
  });
});

describe('npm run admin while npm start holds the embedded database', () => {
  it('runs the command through the running service and says so; opens the folder itself once the service stopped', async () => {
    const dir = join(scratch, 'admin-serving', 'pglite');
    const env = { DATABASE_URL: `pglite:${dir}` };
    const server = await startServer(env);
    try {
      const endpointFile = join(scratch, 'admin-serving', '.pglite.admin.json');
      expect(statSync(endpointFile).mode & 0o777).toBe(0o600);
      const org = await runScript('src/cli/admin.ts', ['create-org', '--name', 'Served Clinic', '--timezone', 'Asia/Tokyo'], env);
      expect(org.code, org.stderr).toBe(0);
      expect(org.stderr).toContain(`Done by the running service (process ${server.child.pid})`);
      const orgId = JSON.parse(org.stdout).id as string;
      const key = await runScript('src/cli/admin.ts', ['create-api-key', '--org', orgId, '--name', 'Served'], env);
      expect(key.code, key.stderr).toBe(0);
      const apiKey = JSON.parse(key.stdout).apiKey as string;
      // the service made it: the key works on it at once
      const res = await fetch(`${server.baseUrl}/v1/organizations/${orgId}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      // a usage error is still one (exit 2, the domain's words)
      const badZone = await runScript('src/cli/admin.ts', ['create-org', '--name', 'X', '--timezone', 'Mars/Olympus'], env);
      expect(badZone.code).toBe(2);
      expect(badZone.stderr).toContain('timezone');
      // the endpoint answers nobody without the token, and only on 127.0.0.1
      const { port } = JSON.parse(readFileSync(endpointFile, 'utf8')) as { port: number };
      const anonymous = await fetch(`http://127.0.0.1:${port}/admin`, {
        method: 'POST',
        body: JSON.stringify({ command: 'list-orgs', values: {} }),
      });
      expect(anonymous.status).toBe(401);
      expect(await server.stop('SIGTERM')).toBe(0);
      expect(existsSync(endpointFile)).toBe(false);
      const direct = await runScript('src/cli/admin.ts', ['list-orgs'], env);
      expect(direct.code, direct.stderr).toBe(0);
      expect(direct.stderr).toContain('Done directly on the database');
      expect((JSON.parse(direct.stdout) as { name: string }[]).map((o) => o.name)).toContain('Served Clinic');
    } finally {
      await server.stop();
    }
  });
});

describe('migrations', () => {
  it('agree with schema.prisma (a drifted schema is detected)', async () => {
    const ok = await runScript('src/cli/migrate.ts', ['check'], {});
    expect(ok.stderr).toContain('agree');
    expect(ok.code).toBe(0);

    const drifted = join(scratch, 'drifted.prisma');
    const schema = readFileSync(join('prisma', 'schema.prisma'), 'utf8').replace('model Bot {\n', 'model Bot {\n  nickname String?\n');
    writeFileSync(drifted, schema);
    const bad = await runScript('src/cli/migrate.ts', ['check', '--schema', drifted], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('nickname');
  });
});
