-- DropIndex
DROP INDEX "Conversation_botId_startTime_idx";

-- CreateTable
CREATE TABLE "IdempotencyKey" (
    "ownerOrgId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "request" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "status" INTEGER,
    "body" TEXT,
    "contentType" TEXT,
    "lockedUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdempotencyKey_pkey" PRIMARY KEY ("ownerOrgId","key")
);

-- CreateIndex
CREATE INDEX "IdempotencyKey_expiresAt_idx" ON "IdempotencyKey"("expiresAt");

-- CreateIndex
CREATE INDEX "Conversation_botId_archived_startTime_id_idx" ON "Conversation"("botId", "archived", "startTime" DESC, "id");

-- AddForeignKey
ALTER TABLE "IdempotencyKey" ADD CONSTRAINT "IdempotencyKey_ownerOrgId_fkey" FOREIGN KEY ("ownerOrgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
