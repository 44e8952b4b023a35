-- Call batches (issue 35 §4): many calls placed in one request, each request naming its batch and its recipient index.
-- AlterTable
ALTER TABLE "CallRequest" ADD COLUMN     "batchId" UUID,
ADD COLUMN     "batchIndex" INTEGER;

-- CreateTable
CREATE TABLE "CallBatch" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "botId" UUID NOT NULL,
    "phoneNumberId" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "officeHoursOnly" BOOLEAN NOT NULL,
    "notBefore" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "retry" JSONB,
    "recipients" INTEGER NOT NULL,
    "placed" INTEGER NOT NULL,
    "skipped" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL,
    "canceledAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "CallBatch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CallBatch_orgId_createdAt_id_idx" ON "CallBatch"("orgId", "createdAt" DESC, "id");

-- CreateIndex
CREATE INDEX "CallBatch_orgId_completedAt_idx" ON "CallBatch"("orgId", "completedAt");

-- CreateIndex
CREATE INDEX "CallRequest_batchId_status_idx" ON "CallRequest"("batchId", "status");

-- CreateIndex
CREATE INDEX "CallRequest_batchId_createdAt_id_idx" ON "CallRequest"("batchId", "createdAt" DESC, "id");

-- AddForeignKey
ALTER TABLE "CallRequest" ADD CONSTRAINT "CallRequest_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "CallBatch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CallBatch" ADD CONSTRAINT "CallBatch_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
