-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "failingSince" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "AvailabilityStatus" (
    "orgId" UUID NOT NULL,
    "states" JSONB,
    "nextCheckAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AvailabilityStatus_pkey" PRIMARY KEY ("orgId")
);

-- CreateIndex
CREATE INDEX "AvailabilityStatus_nextCheckAt_idx" ON "AvailabilityStatus"("nextCheckAt");

-- AddForeignKey
ALTER TABLE "AvailabilityStatus" ADD CONSTRAINT "AvailabilityStatus_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
