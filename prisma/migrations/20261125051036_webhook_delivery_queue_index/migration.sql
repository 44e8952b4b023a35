-- DropIndex
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_nextAttemptAt_idx" ON "WebhookDelivery"("nextAttemptAt") WHERE (status = 'pending');

-- A delivery row is updated right after it is inserted: claimed (lockedUntil, which no index holds) and
-- then recorded. Room left on each page lets the claim be a heap-only update (no index entry written),
-- which a full page does not allow. Not part of schema.prisma (Prisma does not model storage parameters).
ALTER TABLE "WebhookDelivery" SET (fillfactor = 50);
