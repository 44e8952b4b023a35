// `npm run admin -- <command>`: creates organizations, bots, API keys and OAuth clients.
// Secrets are printed once and stored only as hashes.
import { parseArgs } from 'node:util';
import { createApiKey, createOAuthClient } from '../auth/provisioning.js';
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

Scopes: ${SCOPES.join(' ')}
Every command prints one JSON document on stdout.`;

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function validTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
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
      case 'create-org': {
        const timezone = required(values, 'timezone');
        if (!validTimezone(timezone)) throw new UsageError(`--timezone: unknown IANA timezone "${timezone}"`);
        if (values.parent) {
          const parent = await db.organization.findUnique({ where: { id: values.parent } });
          if (!parent?.isAccount) throw new UsageError('--parent must name an account organization');
        }
        const org = await db.organization.create({
          data: { name: required(values, 'name'), timezone, isAccount: values.account ?? false, parentId: values.parent ?? null },
        });
        print(org);
        break;
      }
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
        print(await db.apiKey.update({ where: { id: required(values, 'id') }, data: { revokedAt: new Date() }, select: { id: true, revokedAt: true } }));
        break;
      default:
        throw new UsageError(`Unknown command "${command}"\n\n${HELP}`);
    }
  } finally {
    await runtime.close();
  }
}

runCli(main);
