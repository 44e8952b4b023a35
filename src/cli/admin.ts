// `npm run admin -- <command>`: creates organizations, bots, API keys and OAuth clients.
// Secrets are printed once and stored only as hashes.
import { parseArgs } from 'node:util';
import { createApiKey, createOAuthClient, createOrganization, revokeApiKey, revokeOAuthClient, setOAuthClientScopes } from '../auth/provisioning.js';
import { InvalidInput } from '../domain/errors.js';
import { loadConfig } from '../config.js';
import { SCOPES } from '../domain/access.js';
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

Revocations, scope changes and new child organizations reach running instances at once, through the
change channel (Redis or PostgreSQL NOTIFY) of the configured REDIS_URL / DATABASE_URL.

Scopes: ${SCOPES.join(' ')}
Every command prints one JSON document on stdout.`;

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === '--help' || command === 'help' || command === '-h') {
    process.stdout.write(HELP + '\n');
    return;
  }
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
  const runtime = await openRuntime(config, createLogger(config.logLevel, (l) => process.stderr.write(l + '\n')));
  const db = runtime.deps.db;
  const print = (value: unknown) => process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  try {
    switch (command) {
      case 'create-org':
        print(
          await createOrganization(runtime.deps, {
            name: required(values, 'name'),
            timezone: required(values, 'timezone'),
            isAccount: values.account ?? false,
            parentId: values.parent ?? null,
          }),
        );
        break;
      case 'create-bot':
        print(await db.bot.create({ data: { orgId: required(values, 'org'), name: required(values, 'name') } }));
        break;
      case 'create-api-key':
        print(await createApiKey(db, required(values, 'org'), values.name ?? 'API key'));
        break;
      case 'create-oauth-client': {
        const scopes = values.scopes ? values.scopes.split(/[\s,]+/).filter(Boolean) : [...SCOPES];
        print(await createOAuthClient(db, required(values, 'org'), scopes, values.name ?? 'OAuth client'));
        break;
      }
      case 'list-orgs':
        print(await db.organization.findMany({ orderBy: { createdAt: 'asc' } }));
        break;
      case 'revoke-api-key':
        print(await revokeApiKey(runtime.deps, required(values, 'id')));
        break;
      case 'revoke-oauth-client':
        print(await revokeOAuthClient(runtime.deps, required(values, 'id')));
        break;
      case 'set-oauth-scopes':
        print(await setOAuthClientScopes(runtime.deps, required(values, 'id'), required(values, 'scopes').split(/[\s,]+/).filter(Boolean)));
        break;
      default:
        throw new UsageError(`Unknown command "${command}"\n\n${HELP}`);
    }
  } catch (err) {
    // the domain's own wording ("timezone: unknown IANA timezone …") is the usage error
    if (err instanceof InvalidInput) throw new UsageError(err.message);
    throw err;
  } finally {
    await runtime.close();
  }
}

runCli(main);
