// `npm run admin -- <command>`: creates organizations, bots, API keys and OAuth clients.
// Secrets are printed once and stored only as hashes. On an embedded database folder held by a
// running service (`npm start`), the command is run by that service through its local admin endpoint
// (admin/endpoint.ts); otherwise the command line opens the database itself.
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { ADMIN_COMMANDS, AdminUsageError, isAdminCommand, runAdminCommand, type AdminValues } from '../admin/commands.js';
import { readAdminEndpointFile, type AdminEndpointFile } from '../admin/endpoint.js';
import { loadConfig } from '../config.js';
import { SCOPES } from '../domain/shared/access.js';
import { createLogger } from '../logger.js';
import { openRuntime } from '../runtime.js';
import { runCli, UsageError } from './runCli.js';

const HELP = `Usage: npm run admin -- <command> [options]

Commands:
  create-org --name <name> --timezone <IANA zone> [--account] [--parent <orgId>]
  create-bot --org <orgId> --name <name>
  create-api-key --org <orgId> [--name <label>]
  create-oauth-client --org <orgId> [--name <label>] [--scopes "<scope> <scope>…"]   (default: every scope)
  list-orgs
  revoke-api-key --id <apiKeyId>
  revoke-oauth-client --id <clientId>
  set-oauth-scopes --id <clientId> --scopes "<scope> <scope>…"
  seal-transcripts   (re-wraps transcript data keys with the current master key, seals transcripts stored in clear)

Revocations, scope changes and new child organizations reach running instances at once, through the
change channel (Redis or PostgreSQL NOTIFY) of the configured REDIS_URL / DATABASE_URL.

While \`npm start\` runs on the embedded database folder, the command is run by that service (through
its admin endpoint on 127.0.0.1, with the token it wrote beside the folder, readable by its user only);
with no service running, the command line opens the database itself. Either way stderr says which.

Scopes: ${SCOPES.join(' ')}
Every command prints one JSON document on stdout.`;

/** Sends the command to the running service; null when no service answers there (it is not running). */
function viaService(
  endpoint: AdminEndpointFile,
  command: string,
  values: AdminValues,
): Promise<{ status: number; body: { result?: unknown; error?: string } } | null> {
  const payload = JSON.stringify({ command, values });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: endpoint.port,
        path: '/admin',
        method: 'POST',
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 500, body: JSON.parse(text) as { result?: unknown; error?: string } });
          } catch {
            reject(new Error(`The running service answered ${res.statusCode} with an unreadable body`));
          }
        });
      },
    );
    // a file left by a service that died: nobody listens, so the command line opens the folder itself
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve(null) : reject(err)));
    req.end(payload);
  });
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === '--help' || command === 'help' || command === '-h') {
    process.stdout.write(HELP + '\n');
    return;
  }
  if (!isAdminCommand(command)) throw new UsageError(`Unknown command "${command}" (one of ${ADMIN_COMMANDS.join(', ')})\n\n${HELP}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      timezone: { type: 'string' },
      account: { type: 'boolean' },
      parent: { type: 'string' },
      org: { type: 'string' },
      scopes: { type: 'string' },
      id: { type: 'string' },
    },
    strict: true,
  });
  const config = loadConfig();
  const print = (value: unknown) => process.stdout.write(JSON.stringify(value, null, 2) + '\n');

  const dataDir =
    config.databaseUrl.startsWith('pglite:') && config.databaseUrl !== 'pglite:memory' ? config.databaseUrl.slice('pglite:'.length) : null;
  const endpoint = dataDir ? readAdminEndpointFile(dataDir) : null;
  if (endpoint) {
    const answer = await viaService(endpoint, command, values);
    if (answer) {
      if (answer.status === 400) throw new UsageError(answer.body.error ?? 'refused');
      if (answer.status !== 200)
        throw new Error(`The running service (process ${endpoint.pid}) failed: ${answer.body.error ?? answer.status}`);
      process.stderr.write(`Done by the running service (process ${endpoint.pid}), which holds the embedded database ${dataDir}.\n`);
      print(answer.body.result);
      return;
    }
  }

  const runtime = await openRuntime(
    config,
    createLogger(config.logLevel, (l) => process.stderr.write(l + '\n')),
  );
  try {
    print(await runAdminCommand(runtime.deps, command, values));
    process.stderr.write(
      `Done directly on the database (${dataDir ? `embedded, ${dataDir}` : config.databaseUrl === 'pglite:memory' ? 'embedded, in memory' : 'PostgreSQL'}).\n`,
    );
  } catch (err) {
    if (err instanceof AdminUsageError) throw new UsageError(err.message);
    throw err;
  } finally {
    await runtime.close();
  }
}

runCli(main);
