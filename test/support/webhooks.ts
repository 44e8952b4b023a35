// Webhook delivery rows for tests of what works on them (the deliveries lane's retries, the retry route):
// a row as the dispatcher writes one (domain/events/webhooks/dispatcher.ts) — pending and due now when it hands a
// delivery to the lane, or as an attempt ended.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/client.js';

export async function deliveryRow(
  db: Db,
  {
    endpointId,
    eventId,
    status = 'pending',
    attempts = 0,
    at = new Date(),
  }: { endpointId: string; eventId: string; status?: 'pending' | 'delivered' | 'failed'; attempts?: number; at?: Date },
): Promise<string> {
  const event = await db.event.findUniqueOrThrow({ where: { id: eventId } });
  const id = randomUUID();
  await db.webhookDelivery.create({
    data: {
      id,
      endpointId,
      eventId,
      eventType: event.type,
      status,
      attempts,
      lastAttemptAt: attempts > 0 ? at : null,
      nextAttemptAt: status === 'pending' ? at : null,
      createdAt: event.occurredAt,
    },
  });
  return id;
}
