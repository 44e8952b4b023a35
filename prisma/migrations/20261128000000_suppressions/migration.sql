-- The suppression (do-not-call) list (issue 34 §4): numbers an organization must not call, in E.164.
-- CreateTable
CREATE TABLE "Suppression" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL,
    "callRequestId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Suppression_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Suppression_orgId_number_key" ON "Suppression"("orgId", "number");

-- CreateIndex
CREATE INDEX "Suppression_number_idx" ON "Suppression"("number");

-- AddForeignKey
ALTER TABLE "Suppression" ADD CONSTRAINT "Suppression_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
