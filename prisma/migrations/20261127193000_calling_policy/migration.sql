-- Calls a clinic may lawfully place (issue 34): the callee's zone, purpose and consent of a call request,
-- and each organization's calling policy (windows, blocked dates, calls at once, consent).
-- AlterTable
ALTER TABLE "CallRequest" ADD COLUMN     "calleeTimezone" TEXT,
ADD COLUMN     "consent" JSONB,
ADD COLUMN     "purpose" TEXT NOT NULL DEFAULT 'informational';

-- CreateTable
CREATE TABLE "CallingPolicy" (
    "orgId" UUID NOT NULL,
    "windows" JSONB NOT NULL,
    "blockedDates" TEXT[],
    "maxConcurrentCalls" INTEGER NOT NULL,
    "requireConsentFor" TEXT[],
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CallingPolicy_pkey" PRIMARY KEY ("orgId")
);

-- AddForeignKey
ALTER TABLE "CallingPolicy" ADD CONSTRAINT "CallingPolicy_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- the claim counts the calls in progress of an organization under its capacity lock
CREATE INDEX "CallRequest_orgId_status_idx" ON "CallRequest"("orgId", "status");
