-- Recall campaigns (issue 35 §1-3): the attempts of a call request, its retry policy, its outcome and follow-up;
-- the calling policy's default retry policy.
-- AlterTable
ALTER TABLE "CallRequest" ADD COLUMN     "attemptLog" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "claimedAt" TIMESTAMP(3),
ADD COLUMN     "disposition" TEXT,
ADD COLUMN     "followUpId" UUID,
ADD COLUMN     "followUpOf" UUID,
ADD COLUMN     "leasesLost" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "notes" TEXT,
ADD COLUMN     "outcomeData" JSONB,
ADD COLUMN     "retry" JSONB;

-- AlterTable
ALTER TABLE "CallingPolicy" ADD COLUMN     "retry" JSONB;

-- Leases that ended without an outcome were counted in "attempts" (claims) until now: a pending request keeps its count
-- (every claim before this change ended so, but the one in progress), so that it still fails after 3.
UPDATE "CallRequest" SET "leasesLost" = GREATEST("attempts" - CASE WHEN "status" = 'in_progress' THEN 1 ELSE 0 END, 0)
WHERE "status" IN ('queued', 'in_progress');
