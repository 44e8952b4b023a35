// The admin command line's commands (`npm run admin`), run either by the command line on a database it
// opens itself, or by a running service on behalf of the command line (admin/endpoint.ts), so that the
// embedded database (one process only) can be administered while `npm start` holds it.
import { sealClearTranscripts } from '../domain/governance/transcriptKeys.js';
import {
  adminCreateApiKey,
  adminCreateBot,
  adminCreateOAuthClient,
  createOrganization,
  revokeApiKey,
  revokeOAuthClient,
  setOAuthClientScopes,
} from '../auth/provisioning.js';
import { SCOPES } from '../domain/shared/access.js';
import type { DomainDeps } from '../domain/shared/deps.js';
import { InvalidInput } from '../domain/shared/errors.js';

export const ADMIN_COMMANDS = [
  'create-org',
  'create-bot',
  'create-api-key',
  'create-oauth-client',
  'list-orgs',
  'revoke-api-key',
  'revoke-oauth-client',
  'set-oauth-scopes',
  'seal-transcripts',
] as const;
export type AdminCommand = (typeof ADMIN_COMMANDS)[number];

export interface AdminValues {
  name?: string;
  timezone?: string;
  account?: boolean;
  parent?: string;
  org?: string;
  scopes?: string;
  id?: string;
}

/** A missing or malformed option: the command line answers it as a usage error (exit 2). */
export class AdminUsageError extends Error {}

export function isAdminCommand(command: string): command is AdminCommand {
  return (ADMIN_COMMANDS as readonly string[]).includes(command);
}

function required(values: AdminValues, name: keyof AdminValues): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new AdminUsageError(`--${name} is required`);
  return v;
}

/** Runs one command; answers what the command line prints. */
export async function runAdminCommand(deps: DomainDeps, command: AdminCommand, values: AdminValues): Promise<unknown> {
  const db = deps.db;
  try {
    switch (command) {
      case 'create-org':
        return await createOrganization(deps, {
          name: required(values, 'name'),
          timezone: required(values, 'timezone'),
          isAccount: values.account ?? false,
          parentId: values.parent ?? null,
        });
      case 'create-bot':
        return await adminCreateBot(deps, required(values, 'org'), required(values, 'name'));
      case 'create-api-key':
        return await adminCreateApiKey(deps, required(values, 'org'), values.name ?? 'API key');
      case 'create-oauth-client': {
        const scopes = values.scopes ? values.scopes.split(/[\s,]+/).filter(Boolean) : [...SCOPES];
        return await adminCreateOAuthClient(deps, required(values, 'org'), scopes, values.name ?? 'OAuth client');
      }
      case 'seal-transcripts':
        // after a master key rotation, or an upgrade from a version that stored transcripts in clear
        return { rewrappedDataKeys: await deps.transcripts.rewrapDataKeys(db), ...(await sealClearTranscripts(db, deps.transcripts)) };
      case 'list-orgs':
        return await db.organization.findMany({ orderBy: { createdAt: 'asc' } });
      case 'revoke-api-key':
        return await revokeApiKey(deps, required(values, 'id'));
      case 'revoke-oauth-client':
        return await revokeOAuthClient(deps, required(values, 'id'));
      case 'set-oauth-scopes':
        return await setOAuthClientScopes(
          deps,
          required(values, 'id'),
          required(values, 'scopes')
            .split(/[\s,]+/)
            .filter(Boolean),
        );
    }
  } catch (err) {
    // the domain's own wording ("timezone: unknown IANA timezone …") is the usage error
    if (err instanceof InvalidInput) throw new AdminUsageError(err.message);
    throw err;
  }
}
