// Webhook endpoints as stored. The API over them (/v1/webhook-endpoints) is the next step; the
// delivery engine and its tests create endpoints through this function.
import { randomUUID } from 'node:crypto';
import type { KeyMaterial } from '../../../crypto/derivedKeys.js';
import type { Db } from '../../../db/client.js';
import { encryptSecret, newWebhookSecret } from './secrets.js';

export interface NewEndpoint {
  orgId: string;
  url: string;
  description?: string;
  /** names, families such as "closure.*", or "*" */
  eventTypes: string[];
  enabled?: boolean;
}

/** Stores an endpoint with a new signing secret; answers its id and the secret (shown once, stored encrypted). */
export async function createEndpointRecord(
  db: Pick<Db, 'webhookEndpoint'>,
  key: KeyMaterial,
  now: Date,
  input: NewEndpoint,
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const id = randomUUID();
  await db.webhookEndpoint.create({
    data: {
      id,
      orgId: input.orgId,
      url: input.url,
      description: input.description ?? '',
      eventTypes: input.eventTypes,
      enabled: input.enabled ?? true,
      secret: encryptSecret(key, secret),
      createdAt: now,
      updatedAt: now,
    },
    select: { id: true },
  });
  return { id, secret };
}
