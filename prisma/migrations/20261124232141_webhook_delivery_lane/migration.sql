-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "lockedUntil" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- A pending delivery is now its own queue entry (claimed by the job queue's deliveries lane): the jobs
-- that stood for deliveries go; their deliveries stay pending with their nextAttemptAt, so none is lost.
DELETE FROM "Job" WHERE "kind" = 'webhook.deliver';
