// Creating credentials (admin command line, demo data). The plaintext key or secret is answered
// once, here, and only its hash is stored.
import type { Prisma } from '../generated/prisma/client.js';
import { isScope, type Scope } from '../domain/access.js';
import { InvalidInput } from '../domain/errors.js';
import { generateApiKey, generateClientId, generateClientSecret, hashSecret } from './secrets.js';

// a client or a transaction (the demo data set is written in one)
export async function createApiKey(db: Prisma.TransactionClient, orgId: string, name = 'API key'): Promise<{ id: string; apiKey: string }> {
  const apiKey = generateApiKey();
  const row = await db.apiKey.create({ data: { orgId, name, prefix: apiKey.slice(0, 14), hash: hashSecret(apiKey) } });
  return { id: row.id, apiKey };
}

export async function createOAuthClient(
  db: Prisma.TransactionClient,
  orgId: string,
  scopes: readonly string[],
  name = 'OAuth client',
): Promise<{ id: string; clientId: string; clientSecret: string; scopes: Scope[] }> {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw InvalidInput.of('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  const row = await db.oAuthClient.create({
    data: { orgId, name, clientId, secretHash: hashSecret(clientSecret), scopes: [...scopes] },
  });
  return { id: row.id, clientId, clientSecret, scopes: scopes as Scope[] };
}
