-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "attemptLog" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "WebhookReplay" (
    "id" UUID NOT NULL,
    "endpointId" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "from" TIMESTAMP(3) NOT NULL,
    "to" TIMESTAMP(3) NOT NULL,
    "status" TEXT NOT NULL,
    "replayed" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "positionAt" TIMESTAMP(3),
    "positionId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "WebhookReplay_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookReplay_endpointId_createdAt_idx" ON "WebhookReplay"("endpointId", "createdAt");

-- AddForeignKey
ALTER TABLE "WebhookReplay" ADD CONSTRAINT "WebhookReplay_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A delivery attempted before the log existed keeps its last attempt as the log's one entry (what its row said).
UPDATE "WebhookDelivery" SET "attemptLog" = jsonb_build_array(jsonb_build_object(
    'at', to_char("lastAttemptAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'statusCode', "statusCode",
    'latencyMs', "latencyMs",
    'errorClass', CASE WHEN "statusCode" IS NULL THEN "response" END,
    'response', CASE WHEN "statusCode" IS NOT NULL THEN "response" END))
  WHERE "lastAttemptAt" IS NOT NULL;
