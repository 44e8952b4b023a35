// The admin endpoint of a service running on an embedded database folder: the admin command line
// cannot open the folder while the service holds it (PGlite is one process only), so the service runs
// the command for it. It listens on 127.0.0.1 only, on a free port, and answers only a random token
// written with the port to `<folder's parent>/.<folder>.admin.json`, readable by the service's user
// only (0600); the file is removed on shutdown. Nothing of it is reachable from the network.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import type { DomainDeps } from '../domain/shared/deps.js';
import type { Logger } from '../logger.js';
import { AdminUsageError, isAdminCommand, runAdminCommand, type AdminValues } from './commands.js';

export interface AdminEndpointFile {
  pid: number;
  port: number;
  token: string;
}

const MAX_BODY_BYTES = 16 * 1024;

export function adminEndpointFile(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${basename(abs)}.admin.json`);
}

export function readAdminEndpointFile(dataDir: string): AdminEndpointFile | null {
  try {
    const parsed = JSON.parse(readFileSync(adminEndpointFile(dataDir), 'utf8')) as AdminEndpointFile;
    return Number.isInteger(parsed.port) && typeof parsed.token === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(/^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Starts the endpoint and writes its file; answers a function that stops it and removes the file. */
export async function startAdminEndpoint(deps: DomainDeps, dataDir: string, logger: Logger): Promise<() => Promise<void>> {
  const token = randomBytes(32).toString('base64url');
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/admin') return answer(404, { error: 'not found' });
    if (!tokenMatches(req.headers.authorization, token)) return answer(401, { error: 'unauthenticated' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        try {
          const { command, values } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { command: string; values: AdminValues };
          if (!isAdminCommand(command)) return answer(400, { error: `Unknown command "${command}"` });
          logger.info('admin command', { command });
          answer(200, { result: await runAdminCommand(deps, command, values ?? {}) });
        } catch (err) {
          if (err instanceof AdminUsageError || err instanceof SyntaxError) return answer(400, { error: err.message });
          logger.warn('admin command failed', { error: String(err) });
          answer(500, { error: err instanceof Error ? err.message : String(err) });
        }
      })();
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const port = (server.address() as AddressInfo).port;
  const file = adminEndpointFile(dataDir);
  rmSync(file, { force: true }); // a file left by a crash keeps its mode; a new one is created 0600
  writeFileSync(file, JSON.stringify({ pid: process.pid, port, token } satisfies AdminEndpointFile) + '\n', { mode: 0o600 });
  return async () => {
    try {
      if (readAdminEndpointFile(dataDir)?.token === token) rmSync(file);
    } catch {
      /* already gone */
    }
    await new Promise<void>((r) => server.close(() => r()));
  };
}
