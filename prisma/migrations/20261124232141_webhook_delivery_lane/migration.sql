-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "lockedUntil" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- A pending delivery is now its own queue entry (claimed by the job queue's deliveries lane). The jobs
-- that stood for deliveries go, and their deliveries stay pending with their nextAttemptAt: none is lost.
DELETE FROM "Job" WHERE "kind" = 'webhook.deliver';
